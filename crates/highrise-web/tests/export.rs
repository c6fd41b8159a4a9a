//! A recording exported as one HTML file: the page with the bundle inline and the recording's
//! plan and frames as data, no reference to anything outside the file.

use std::path::Path;

use base64::Engine;
use highrise_web::export::export_recording;
use highrise_web::page::recording_html;
use highrise_web::wire::{ALL, HEIGHTS, PLAN};

#[test]
fn a_recording_becomes_one_self_contained_page() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/recordings/synthetic.hrec");
    let export = export_recording(&path).expect("exports");
    let summary = highrise_report::summarize(&path).unwrap();
    assert_eq!(export.buildings, summary.methods.len());
    assert!(export.frames >= 2, "{} frames", export.frames);
    let data: serde_json::Value = serde_json::from_str(&export.data_json).unwrap();
    let engine = base64::engine::general_purpose::STANDARD;
    let plan = engine.decode(data["plan"].as_str().unwrap()).unwrap();
    assert_eq!(plan[0], PLAN);
    let frames = data["frames"].as_array().unwrap();
    let first = engine.decode(frames[0].as_str().unwrap()).unwrap();
    assert_eq!(
        (first[0], first[1]),
        (HEIGHTS, ALL),
        "the first frame holds every tower"
    );
    // The whole run's top methods are highrise report's, in its order.
    let top = data["recording"]["top"].as_array().unwrap();
    assert_eq!(top[0]["name"], summary.methods[0].display_name.as_str());

    let html = recording_html(&export.data_json);
    assert!(html.contains("id=\"highrise-data\""));
    for outside in ["src=\"http", "href=\"http", "<link ", "src=\"//"] {
        assert!(
            !html.contains(outside),
            "the page loads nothing from outside ({outside})"
        );
    }
    assert_eq!(
        html.matches("</script>").count(),
        2,
        "data and bundle, nothing breaks out"
    );
}
