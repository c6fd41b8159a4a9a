//! The paper's example as a real process (the Rust agent and `highrise_agent::Allocator`)
//! against the real listener, recorded to a `.hrec` file; `highrise report`'s summary (and its
//! JSON) then says exactly which method made how many objects and bytes.

use std::mem::size_of;
use std::net::{Ipv4Addr, SocketAddr};
use std::process::Command;
use std::time::{Duration, Instant};

use highrise_ingest::{IngestConfig, IngestServer, NullSink};
use shapes::factory::{Circle, Rectangle};
use shapes::Canvas;

const RUNS: u64 = 3;

#[test]
fn the_report_counts_each_methods_allocations_exactly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("shapes.hrec");
    let server = IngestServer::start(
        IngestConfig {
            listen_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            record_sessions_to: Some(path.clone()),
            ..IngestConfig::default()
        },
        NullSink::factory,
    )
    .expect("listener starts");
    let status = Command::new(env!("CARGO_BIN_EXE_shapes"))
        .args(["--repeat", &RUNS.to_string()])
        .env("HIGHRISE_ADDR", server.local_addr().to_string())
        .status()
        .expect("shapes runs");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let report = server
            .updates()
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("a report");
        if report.is_ended() {
            assert!(report.errors.is_empty(), "{:?}", report.errors);
            break;
        }
    }
    let run = highrise_report::summarize(&path).expect("summarizes");
    let json = serde_json::to_value(&run).expect("serializes");
    let allocations = |name: &str| {
        let method = json["methods"]
            .as_array()
            .expect("methods")
            .iter()
            .find(|method| method["name"] == name)
            .unwrap_or_else(|| panic!("{name} not in the report"));
        (
            method["allocations_total"]["count"].as_u64().unwrap_or(0),
            method["allocations_total"]["bytes"].as_u64().unwrap_or(0),
            method["allocations_total"]["frees"].as_u64().unwrap_or(0),
        )
    };
    let shape_box = size_of::<Box<dyn shapes::factory::Shape>>() as u64;
    // Per run: 30 circles and 16 rectangles, one box each.
    let made = 30 * size_of::<Circle>() as u64 + 16 * size_of::<Rectangle>() as u64;
    assert_eq!(
        allocations("shapes.factory.ShapeFactory.create"),
        (46 * RUNS, made * RUNS, 0)
    );
    // The vector (room for 46 shapes) and the boxed factory.
    assert_eq!(
        allocations("shapes.canvas.Canvas.new"),
        (2 * RUNS, (46 * shape_box + 8) * RUNS, 0)
    );
    // run boxes the canvas and, when the canvas drops, frees everything: 46 shapes, the
    // vector, the factory and the canvas.
    assert_eq!(
        allocations("shapes.shapes.run"),
        (RUNS, size_of::<Canvas>() as u64 * RUNS, 49 * RUNS)
    );
    for quiet in [
        "shapes.canvas.Canvas.add",
        "shapes.canvas.Canvas.create_shape",
        "shapes.canvas.Canvas.create_circles",
        "shapes.canvas.Canvas.create_boxes",
    ] {
        assert_eq!(allocations(quiet), (0, 0, 0), "{quiet} allocates nothing");
    }
    let classes_of = |name: &str| -> Vec<(String, u64)> {
        json["methods"]
            .as_array()
            .expect("methods")
            .iter()
            .find(|method| method["name"] == name)
            .expect("method")["allocations"]
            .as_array()
            .map(|classes| {
                classes
                    .iter()
                    .filter(|class| class["count"].as_u64().unwrap_or(0) > 0)
                    .map(|class| {
                        (
                            class["class"].as_str().unwrap_or("").to_string(),
                            class["count"].as_u64().unwrap_or(0),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        classes_of("shapes.factory.ShapeFactory.create"),
        vec![
            ("shapes.factory.Circle".to_string(), 30 * RUNS),
            ("shapes.factory.Rectangle".to_string(), 16 * RUNS)
        ]
    );
    assert_eq!(
        classes_of("shapes.canvas.Canvas.new"),
        vec![
            ("(untyped)".to_string(), RUNS),
            ("shapes.factory.ShapeFactory".to_string(), RUNS)
        ]
    );
    assert_eq!(
        classes_of("shapes.shapes.run"),
        vec![("shapes.canvas.Canvas".to_string(), RUNS)]
    );
    let kinds: Vec<&str> = json["memory"]["classes"]
        .as_array()
        .expect("classes")
        .iter()
        .filter_map(|class| class["kind"].as_str())
        .collect();
    assert!(
        kinds.contains(&"untyped") && kinds.contains(&"class"),
        "{kinds:?}"
    );
    assert_eq!(json["memory"]["allocations_dropped"], 0);
    // The allocation-site tree: run at the root, then its contexts in order of first call;
    // the three branches that reach `create` are separate contexts, as in the paper.
    let tree = &json["memory"]["allocation_tree"];
    assert_eq!(tree.as_array().map(Vec::len), Some(1), "{tree}");
    let run_node = &tree[0];
    assert!(
        run_node["method"].as_str().unwrap_or("").contains("run"),
        "{run_node}"
    );
    assert_eq!(run_node["count"], (1 + 2 + 46) * RUNS);
    let children: Vec<String> = run_node["children"]
        .as_array()
        .expect("children")
        .iter()
        .map(|child| child["method"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(children.len(), 4, "{children:?}");
    for (child, name) in
        children
            .iter()
            .zip(["new", "create_circles", "create_boxes", "create_shape"])
    {
        assert!(child.contains(name), "{children:?}");
    }
    let create_under = |branch: &serde_json::Value| -> (u64, u64) {
        let mut node = branch;
        while let Some(next) = node["children"].as_array().and_then(|c| c.first()) {
            node = next;
        }
        assert!(
            node["method"].as_str().unwrap_or("").contains("create"),
            "{node}"
        );
        (
            node["calls"].as_u64().unwrap_or(0),
            node["count"].as_u64().unwrap_or(0),
        )
    };
    let branches = run_node["children"].as_array().expect("children");
    assert_eq!(create_under(&branches[1]), (15 * RUNS, 15 * RUNS));
    assert_eq!(create_under(&branches[2]), (8 * RUNS, 8 * RUNS));
    // main → create_shape twice per run: one context with both calls' objects.
    assert_eq!(branches[3]["calls"], 2 * RUNS);
    assert_eq!(create_under(&branches[3]), (23 * RUNS, 23 * RUNS));
    assert_eq!(branches[3]["classes"][0]["class"], "shapes.factory.Circle");
    assert_eq!(branches[3]["classes"][0]["count"], 15 * RUNS);
    assert_eq!(branches[3]["classes"][0]["direct"], false);
    let text = highrise_report::render_summary(&run);
    assert!(text.contains("Allocation sites"), "{text}");
    assert!(text.contains("Allocations"), "{text}");
    assert!(text.contains("ShapeFactory.create"), "{text}");
}
