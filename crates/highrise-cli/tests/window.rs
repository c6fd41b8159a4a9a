//! The real window: `highrise` with its demo under Xvfb, rendered by a software Vulkan driver
//! (lavapipe), two screenshots a few seconds apart, and their pixels checked: a city is there,
//! its buildings stand at different heights, and the heights move.
//!
//! A second test opens the compare view on the bookstore demo's two versions (`--compare-demo`)
//! and checks the diff city: the method that got slower stands as a red tower, and the methods
//! whose package moved are marked amber.
//!
//! Needs `xvfb-run` and `mesa-vulkan-drivers` (scripts/test.sh installs both). The two tests
//! take turns (software rendering on two cores is slow enough with one window).

// The window needs the viewer (the default feature).
#![cfg(feature = "viewer")]

use std::path::Path;
use std::process::Command;

mod support;
use support::is_slower_red;

const HIGHRISE: &str = env!("CARGO_BIN_EXE_highrise");

/// Runs the viewer with the X pointer in the window's top-right corner (sky), so that nothing
/// is hovered and highlighted unless a test means it: Xvfb starts with the pointer in the middle
/// of the screen, where the framed city's towers often stand. Xvfb ignores a pointer move while
/// no window is mapped, so the move waits (in the background) for the viewer's window.
const POINTER_AWAY: [&str; 3] = [
    "sh",
    "-c",
    "(xdotool search --sync --onlyvisible --name '^highrise'; xdotool mousemove 1279 1) \
      >/dev/null 2>&1 & exec \"$0\" \"$@\"",
];

/// One window at a time.
static ONE_WINDOW: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// This test's turn at the window (held until dropped), or `None` (and says why) when the
/// window tests should not run here.
fn window_turn() -> Option<std::sync::MutexGuard<'static, ()>> {
    let turn = ONE_WINDOW
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    can_open_windows().then_some(turn)
}

/// False (and says why) when the window tests should not run here.
fn can_open_windows() -> bool {
    if std::env::var_os("HIGHRISE_SKIP_WINDOW_TEST").is_some() {
        eprintln!("HIGHRISE_SKIP_WINDOW_TEST is set: not opening a window");
        return false;
    }
    let has_xvfb = Command::new("sh")
        .args(["-c", "command -v xvfb-run"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        has_xvfb,
        "xvfb-run is missing: run scripts/install-render-deps.sh (scripts/test.sh does)"
    );
    true
}

/// Runs `highrise ARGS` under Xvfb with lavapipe; returns its stdout, failing on error.
fn run_in_window(args: &[&std::ffi::OsStr]) -> String {
    let output = Command::new("timeout")
        .arg("400")
        .args(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24"])
        .args(POINTER_AWAY)
        .arg(HIGHRISE)
        .args(["--listen", "127.0.0.1:0", "--window-size", "1280x800"])
        .args(args)
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .expect("xvfb-run starts");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "highrise failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    assert!(stdout.contains("first frame with a live city"), "{stdout}");
    assert!(stdout.contains("screenshot saved to"), "{stdout}");
    stdout
}

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
    let Some(_turn) = window_turn() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("highrise-window-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let first = dir.join("first.png");
    let second = dir.join("second.png");
    run_in_window(&[
        "--screenshot-after".as_ref(),
        "3".as_ref(),
        "--screenshot".as_ref(),
        first.as_os_str(),
        "--screenshot-after".as_ref(),
        "8".as_ref(),
        "--screenshot".as_ref(),
        second.as_os_str(),
    ]);

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

/// The diff city's amber: a method whose package moved.
fn is_moved_amber(pixel: &image::Rgb<u8>) -> bool {
    let [r, g, b] = pixel.0.map(i32::from);
    r > 150 && g > 100 && r - b > 60 && g - b > 30 && r - g < 80
}

#[test]
fn the_compare_view_shows_the_slower_method_as_a_red_tower() {
    let Some(_turn) = window_turn() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("highrise-compare-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let shot = dir.join("diff.png");
    run_in_window(&[
        "--compare-demo".as_ref(),
        "--screenshot-after".as_ref(),
        "6".as_ref(),
        "--screenshot".as_ref(),
        shot.as_os_str(),
    ]);
    let image = load(&shot);
    let panel_px = 330;
    let count = |test: fn(&image::Rgb<u8>) -> bool| {
        (panel_px..image.width())
            .flat_map(|x| (0..image.height()).map(move |y| (x, y)))
            .filter(|&(x, y)| test(image.get_pixel(x, y)))
            .count()
    };
    let (red, amber) = (count(is_slower_red), count(is_moved_amber));
    // `PriceEngine.quote` costs 6× more in `after`: the largest difference, a full-height tower.
    let red_columns = (panel_px..image.width())
        .filter(|&x| (0..image.height()).any(|y| is_slower_red(image.get_pixel(x, y))))
        .count();
    let tallest_red = (panel_px..image.width())
        .map(|x| {
            (0..image.height())
                .filter(|&y| is_slower_red(image.get_pixel(x, y)))
                .count()
        })
        .max()
        .unwrap_or(0);
    eprintln!(
        "diff city: {red} red px in {red_columns} columns (tallest {tallest_red} px), {amber} amber px"
    );
    assert!(
        red > 1_500 && red_columns > 8 && tallest_red > 100,
        "no red tower for the slower method: {red} red pixels in {red_columns} columns, tallest {tallest_red} px"
    );
    // Every class of the bookstore moved package in `after`: their old plots are amber.
    assert!(amber > 1_000, "no amber (moved) plots: {amber} pixels");
    let _ = std::fs::copy(&shot, dir.join("../highrise-compare-test-latest.png"));
}

/// A free loopback port for a viewer the test starts (bound and released).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The checks the viewer prints from its own state with each scheduled screenshot.
#[derive(Debug)]
struct ViewCheck {
    name: String,
    footprint_ratio: f32,
    tallest_inside: bool,
    /// The city's box in the window, `[x0, x1, y0, y1]` pixels.
    screen_px: Option<[u32; 4]>,
}

fn view_checks(stdout: &str) -> Vec<ViewCheck> {
    stdout
        .lines()
        .filter_map(|line| {
            let rest = line.split_once("view check ")?.1;
            let ratio = rest.split_once("footprint ")?.1.split_once('x')?.0;
            let screen_px = rest.split_once("on screen ").and_then(|(_, after)| {
                let (x, after) = after.split_once(" x ")?;
                let y = after.split_once(" px")?.0;
                let (x0, x1) = x.split_once("..")?;
                let (y0, y1) = y.split_once("..")?;
                let px = |v: &str| v.trim().parse::<f32>().ok().map(|v| v.max(0.0) as u32);
                Some([px(x0)?, px(x1)?, px(y0)?, px(y1)?])
            });
            Some(ViewCheck {
                name: rest.split_once(": ")?.0.to_string(),
                footprint_ratio: ratio.trim().parse().ok()?,
                tallest_inside: rest.trim_end().ends_with("inside the frame: yes"),
                screen_px,
            })
        })
        .collect()
}

/// Starts the viewer (no demo) in a window with screenshots at `shots_s` after the first live
/// frame, then `program(addr)` once it listens; returns the viewer's stdout and the images.
/// Nothing is pressed: what a user sees without touching anything.
fn lazy_program_in_window(
    name: &str,
    shots_s: &[f64],
    program: impl FnOnce(&str) -> Command,
) -> (String, Vec<image::RgbImage>) {
    use std::io::BufRead;
    let dir = std::env::temp_dir().join(format!("highrise-{name}-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let addr = format!("127.0.0.1:{}", free_port());
    let paths: Vec<_> = (0..shots_s.len())
        .map(|i| dir.join(format!("{name}-{i}.png")))
        .collect();
    let mut viewer = Command::new("timeout");
    viewer
        .arg("300")
        .args(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24"])
        .args(POINTER_AWAY)
        .arg(HIGHRISE)
        .args(["--listen", &addr, "--no-demo", "--window-size", "1280x800"])
        .env("WGPU_BACKEND", "vulkan")
        .stdout(std::process::Stdio::piped());
    for (after_s, path) in shots_s.iter().zip(&paths) {
        viewer
            .arg("--screenshot-after")
            .arg(after_s.to_string())
            .arg("--screenshot")
            .arg(path);
    }
    let mut viewer = viewer.spawn().expect("xvfb-run starts");
    let stdout = viewer.stdout.take().expect("piped");
    let (lines_tx, lines_rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines_tx.send(line);
        }
    });
    let mut out = String::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !out.contains("listening on") {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match lines_rx.recv_timeout(left) {
            Ok(line) => {
                out.push_str(&line);
                out.push('\n');
            }
            Err(_) => panic!("the viewer never listened:\n{out}"),
        }
    }
    let mut program = program(&addr)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("the program starts");
    let status = viewer.wait().expect("viewer ends");
    let _ = program.kill();
    let _ = program.wait();
    let _ = reader.join();
    out.extend(lines_rx.try_iter().map(|line| line + "\n"));
    assert!(status.success(), "highrise failed ({status:?}):\n{out}");
    let images = paths
        .iter()
        .map(|path| {
            let _ = std::fs::copy(
                path,
                std::env::temp_dir().join(format!(
                    "highrise-{}-latest.png",
                    path.file_stem().and_then(|s| s.to_str()).unwrap_or(name)
                )),
            );
            load(path)
        })
        .collect();
    (out, images)
}

/// Asserts what a user must see at every screenshot: a compact city (at most 1.3 times the
/// footprint of a fresh layout), its tallest building inside the frame, buildings drawn.
fn assert_compact_framed_city(name: &str, stdout: &str, images: &[image::RgbImage]) {
    let checks = view_checks(stdout);
    assert!(
        checks.len() >= images.len(),
        "{name}: a view check per screenshot:\n{stdout}"
    );
    for check in &checks {
        assert!(
            check.footprint_ratio <= 1.3,
            "{name}: the city is {:.2}x a fresh layout:\n{stdout}",
            check.footprint_ratio
        );
        assert!(
            check.tallest_inside,
            "{name}: the tallest building leaves the frame:\n{stdout}"
        );
    }
    for image in images {
        let columns = building_column_heights(image, 330);
        let with_buildings = columns.iter().filter(|&&h| h > 0).count();
        assert!(
            with_buildings > 40,
            "{name}: buildings visible in every screenshot ({with_buildings} columns)"
        );
    }
}

/// Runs `examples/EXAMPLE/run.sh` against a viewer in a real window and checks every
/// screenshot: nothing is pressed.
fn lazy_example_is_compact_and_framed(example: &str) {
    let Some(_turn) = window_turn() else {
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(example)
        .join("run.sh");
    let (stdout, images) = lazy_program_in_window(example, &[2.0, 6.0, 12.0], |addr| {
        let mut command = Command::new(&script);
        command.args(["--addr", addr, "--seconds", "90"]);
        command
    });
    eprintln!("{stdout}");
    assert_compact_framed_city(example, &stdout, &images);
}

/// Two programs at once (the tetris and bookstore demos as their own processes): each city
/// draws its own buildings. Automatic batching once merged the cities' draws, and with
/// several programs all but one city stood empty.
#[test]
fn two_programs_at_once_each_city_draws_its_buildings() {
    let Some(_turn) = window_turn() else {
        return;
    };
    let (stdout, images) = lazy_program_in_window("two-programs", &[8.0], |addr| {
        let mut command = Command::new("sh");
        command.args([
            "-c",
            "\"$0\" demo --addr \"$1\" --duration-s 60 --restart-every-s 1000 & \
             exec \"$0\" demo --program bookstore --addr \"$1\" --duration-s 60",
            HIGHRISE,
            addr,
        ]);
        command
    });
    eprintln!("{stdout}");
    let checks = view_checks(&stdout);
    assert_eq!(checks.len(), 2, "two cities:\n{stdout}");
    let image = &images[0];
    for check in &checks {
        let [x0, x1, y0, y1] = check
            .screen_px
            .unwrap_or_else(|| panic!("{} not in front of the camera:\n{stdout}", check.name));
        let building_px = (x0.max(330)..x1.min(image.width()))
            .flat_map(|x| (y0..y1.min(image.height())).map(move |y| (x, y)))
            .filter(|&(x, y)| is_building(image.get_pixel(x, y)))
            .count();
        assert!(
            building_px > 300,
            "{}: only {building_px} building pixels in its box {x0}..{x1} x {y0}..{y1}",
            check.name
        );
    }
}

/// Allocation counting in a real window: the demo (tetris, whose planner clones boards) with
/// heights by allocations/s, class floors and the allocation-site view open. The viewer's own
/// state says what it draws (floors, the tree's contexts and classes); the picture holds the
/// window with its heat-coloured nodes and the floors in the class colour.
#[test]
fn allocations_show_as_class_floors_and_in_the_allocation_site_view() {
    let Some(_turn) = window_turn() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("highrise-alloc-window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let shot = dir.join("sites.png");
    let stdout = run_in_window(&[
        "--height".as_ref(),
        "allocations".as_ref(),
        "--class-floors".as_ref(),
        "--sites".as_ref(),
        "--screenshot-after".as_ref(),
        "6".as_ref(),
        "--screenshot".as_ref(),
        shot.as_os_str(),
    ]);
    let _ = std::fs::copy(&shot, dir.join("../highrise-alloc-window-latest.png"));
    eprintln!("{stdout}");
    let floors = stdout
        .lines()
        .find(|line| line.contains("class floors tetris"))
        .unwrap_or_else(|| panic!("no class floors:\n{stdout}"));
    let sites = stdout
        .lines()
        .find(|line| line.contains("allocation sites:"))
        .unwrap_or_else(|| panic!("no allocation-site view:\n{stdout}"));
    assert!(sites.contains("tetris.board.Board"), "{sites}");
    let shown: u32 = sites
        .split("allocation sites: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(shown >= 3, "{sites}");
    assert!(!floors.contains(": 0 floors"), "{floors}");
    // The window (default place 320..1220 x 60..560): its nodes wear the heat ramp.
    let image = load(&shot);
    let heat_px = (330..1210)
        .flat_map(|x| (100..550).map(move |y| (x, y)))
        .filter(|&(x, y)| is_building(image.get_pixel(x, y)))
        .count();
    assert!(
        heat_px > 2_000,
        "no context nodes drawn: {heat_px} heat pixels"
    );
}

/// A multi-package Java program whose classes load in phases (examples/java-lazy).
#[test]
fn a_lazily_loading_java_program_is_compact_and_framed_without_a_button() {
    lazy_example_is_compact_and_framed("java-lazy");
}

/// A Python package whose modules are imported in phases (examples/python-lazy).
#[test]
fn a_lazily_importing_python_program_is_compact_and_framed_without_a_button() {
    lazy_example_is_compact_and_framed("python-lazy");
}
