//! The real window: `highrise` with its demo under Xvfb, rendered by a software Vulkan driver
//! (lavapipe), two screenshots a few seconds apart, and their pixels checked: a city is there,
//! its buildings stand at different heights, and the heights move.
//!
//! Needs `xvfb-run` and `mesa-vulkan-drivers` (scripts/test.sh installs both).

use std::path::Path;
use std::process::Command;

const HIGHRISE: &str = env!("CARGO_BIN_EXE_highrise");

/// Pixels of building colour: the heat ramp's cold blue (methods that ran a little) or its warm
/// half (yellow → red, busy methods). Slabs and streets are grey, the sky near black, so
/// neither counts.
fn is_building(pixel: &image::Rgb<u8>) -> bool {
    let [r, g, b] = pixel.0.map(i32::from);
    let warm = r > 150 && r - b > 70 && g - b > -10;
    let cold = b > 120 && b - r > 40 && b - g > 15;
    warm || cold
}

fn is_warm(pixel: &image::Rgb<u8>) -> bool {
    let [r, _, b] = pixel.0.map(i32::from);
    r > 150 && r - b > 70
}

/// For each pixel column right of the panel, how many pixels of building colour it holds:
/// a tall tower covers many, a low building few.
fn building_column_heights(image: &image::RgbImage, from_x: u32) -> Vec<u32> {
    (from_x..image.width())
        .map(|x| {
            (0..image.height())
                .filter(|&y| is_building(image.get_pixel(x, y)))
                .count() as u32
        })
        .collect()
}

fn load(path: &Path) -> image::RgbImage {
    image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgb8()
}

#[test]
fn the_demo_city_renders_and_moves_in_a_real_window() {
    if std::env::var_os("HIGHRISE_SKIP_WINDOW_TEST").is_some() {
        eprintln!("HIGHRISE_SKIP_WINDOW_TEST is set: not opening a window");
        return;
    }
    let has_xvfb = Command::new("sh")
        .args(["-c", "command -v xvfb-run"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        has_xvfb,
        "xvfb-run is missing: run scripts/install-render-deps.sh (scripts/test.sh does)"
    );
    let dir = std::env::temp_dir().join(format!("highrise-window-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let first = dir.join("first.png");
    let second = dir.join("second.png");
    let output = Command::new("timeout")
        .arg("400")
        .args(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24"])
        .arg(HIGHRISE)
        .args(["--listen", "127.0.0.1:0", "--window-size", "1280x800"])
        .args(["--screenshot-after", "3"])
        .arg("--screenshot")
        .arg(&first)
        .args(["--screenshot-after", "8"])
        .arg("--screenshot")
        .arg(&second)
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .expect("xvfb-run starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "highrise failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    assert!(stdout.contains("first frame with a live city"), "{stdout}");
    assert!(stdout.contains("screenshot saved to"), "{stdout}");

    let (a, b) = (load(&first), load(&second));
    assert_eq!((a.width(), a.height()), (1280, 800));
    // Right of the side panel is the 3D view.
    let panel_px = 330;
    let columns = building_column_heights(&a, panel_px);
    let building_columns: Vec<u32> = columns.iter().copied().filter(|&h| h > 0).collect();
    assert!(
        building_columns.len() > 50,
        "no buildings visible: {} columns hold building colours",
        building_columns.len()
    );
    let tallest = building_columns.iter().copied().max().unwrap_or(0);
    let median = {
        let mut sorted = building_columns.clone();
        sorted.sort_unstable();
        sorted[sorted.len() / 2]
    };
    assert!(
        tallest > 3 * median.max(10),
        "buildings should stand at different heights: tallest column {tallest} px, median {median} px"
    );
    let warm = (panel_px..a.width())
        .flat_map(|x| (0..a.height()).map(move |y| (x, y)))
        .filter(|&(x, y)| is_warm(a.get_pixel(x, y)))
        .count();
    assert!(
        warm > 500,
        "no busy (warm) building visible: {warm} warm pixels"
    );
    let changed = (panel_px..a.width())
        .flat_map(|x| (0..a.height()).map(move |y| (x, y)))
        .filter(|&(x, y)| {
            let (p, q) = (a.get_pixel(x, y), b.get_pixel(x, y));
            p.0.iter().zip(q.0).any(|(u, v)| u.abs_diff(v) > 24)
        })
        .count();
    assert!(
        changed > 2_000,
        "the city should have moved between the screenshots: {changed} pixels changed"
    );
    let _ = std::fs::copy(&first, dir.join("../highrise-window-test-latest.png"));
}
