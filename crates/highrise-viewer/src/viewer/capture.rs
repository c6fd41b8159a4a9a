//! Screenshots: F12 saves one to the working directory; `--screenshot-after S --screenshot PATH`
//! saves one S seconds after the first frame that shows a live city (repeatable), and the viewer
//! exits once the last is on disk. Counting from the first live frame, not from process start,
//! keeps the delay meaningful on slow (software) renderers.

use std::path::PathBuf;
use std::time::Instant;

use bevy::prelude::*;
use bevy::render::view::screenshot::{save_to_disk, Screenshot, ScreenshotCaptured};

use super::city::Cities;
use super::sessions::Sessions;

#[derive(Debug)]
pub struct CapturePlugin {
    pub screenshots: Vec<(f64, PathBuf)>,
    /// When the process started, for the "first live frame after N s" line.
    pub process_start: Instant,
}

/// Scheduled screenshots and what became of them.
#[derive(Resource, Debug)]
pub struct ScreenshotPlan {
    /// (seconds after the first live frame, path), in order.
    pub pending: Vec<(f64, PathBuf)>,
    pub requested: usize,
    pub total: usize,
}

/// Screenshots written so far (by the capture observers).
#[derive(Resource, Debug, Default)]
pub struct ScreenshotsSaved(pub usize);

/// When the first frame with a live city was rendered.
#[derive(Resource, Debug, Default)]
pub struct FirstLiveFrame {
    pub at_s: Option<f64>,
}

/// The process start, for the startup figure.
#[derive(Resource, Debug)]
struct ProcessStart(Instant);

impl Plugin for CapturePlugin {
    fn build(&self, app: &mut App) {
        let mut pending = self.screenshots.clone();
        pending.sort_by(|a, b| a.0.total_cmp(&b.0));
        app.insert_resource(ScreenshotPlan {
            total: pending.len(),
            pending,
            requested: 0,
        })
        .insert_resource(ProcessStart(self.process_start))
        .init_resource::<ScreenshotsSaved>()
        .init_resource::<FirstLiveFrame>()
        .add_systems(
            Last,
            (
                notice_first_live_frame,
                take_scheduled,
                take_on_key,
                exit_when_done,
            ),
        );
    }
}

/// A city is live once a snapshot gave some building a height. Offscreen (`report --png`),
/// it is live only once every replayed recording has ended and the compare plan holds all
/// their methods: the picture is of the whole recordings, however slowly they replayed.
#[allow(clippy::too_many_arguments)] // a Bevy system: each parameter is one resource
fn notice_first_live_frame(
    time: Res<Time>,
    sessions: Res<Sessions>,
    cities: Res<Cities>,
    offscreen: Option<Res<super::offscreen::OffscreenTarget>>,
    replays: Res<super::ReplaysAtStart>,
    compare: Res<super::compare::Compare>,
    start: Res<ProcessStart>,
    mut first: ResMut<FirstLiveFrame>,
) {
    if first.at_s.is_some() {
        return;
    }
    // Some city in the scene has its buildings, and some program's methods are running.
    let built = cities
        .iter()
        .any(|(_, city)| !city.hidden && !city.instances.is_empty());
    let running = sessions.shown().any(|(_, view)| {
        view.snapshot()
            .is_some_and(|s| s.methods.iter().any(|m| m.elevation > 0.0))
    });
    let replayed = offscreen.is_none()
        || (sessions
            .by_id
            .values()
            .filter(|view| !view.is_live())
            .count()
            >= replays.paths.len()
            && sessions.by_id.values().all(|view| !view.is_live())
            && compare.plan_is_current(&sessions));
    let live = built && running && replayed;
    if live {
        first.at_s = Some(time.elapsed_secs_f64());
        let line = format!(
            "highrise: first frame with a live city {:.2} s after start",
            start.0.elapsed().as_secs_f64()
        );
        announce(offscreen.is_some(), &line);
    }
}

/// Prints a progress line on stdout, or on stderr in offscreen runs (`report --png` keeps
/// stdout for the report).
fn announce(offscreen: bool, line: &str) {
    if offscreen {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
}

fn request(
    commands: &mut Commands,
    offscreen: Option<&super::offscreen::OffscreenTarget>,
    path: PathBuf,
) {
    let mut save = save_to_disk(path.clone());
    let screenshot = offscreen.map_or_else(Screenshot::primary_window, |target| {
        Screenshot::image(target.0.clone())
    });
    let offscreen = offscreen.is_some();
    commands.spawn(screenshot).observe(
        move |trigger: Trigger<ScreenshotCaptured>, mut saved: ResMut<ScreenshotsSaved>| {
            save(trigger);
            saved.0 += 1;
            announce(
                offscreen,
                &format!("highrise: screenshot saved to {}", path.display()),
            );
        },
    );
}

#[allow(clippy::too_many_arguments)] // a Bevy system: each parameter is one resource or query
fn take_scheduled(
    mut commands: Commands,
    time: Res<Time>,
    first: Res<FirstLiveFrame>,
    mut plan: ResMut<ScreenshotPlan>,
    offscreen: Option<Res<super::offscreen::OffscreenTarget>>,
    sessions: Res<Sessions>,
    compare: Res<super::compare::Compare>,
    cities: Res<Cities>,
    cover: Option<Res<super::camera::PanelCover>>,
    cameras: Query<(&Camera, &GlobalTransform), With<super::camera::MainCamera>>,
    sites: Option<Res<super::ui::SitesView>>,
) {
    let Some(live_at_s) = first.at_s else {
        return;
    };
    let since_s = time.elapsed_secs_f64() - live_at_s;
    while plan
        .pending
        .first()
        .is_some_and(|(after_s, _)| since_s >= *after_s)
    {
        let (_, path) = plan.pending.remove(0);
        // What the picture shows, from the viewer's own state: compactness and framing.
        if let Ok((camera, transform)) = cameras.single() {
            let cover = cover.as_deref().copied().unwrap_or_default();
            for check in
                super::camera::view_check(&sessions, &compare, &cities, camera, transform, &cover)
            {
                let on_screen = check.screen_px.map_or_else(
                    || "partly behind the camera".to_string(),
                    |[x0, y0, x1, y1]| format!("on screen {x0:.0}..{x1:.0} x {y0:.0}..{y1:.0} px"),
                );
                announce(
                    offscreen.is_some(),
                    &format!(
                        "highrise: view check {}: {on_screen}, footprint {:.2}x a fresh layout, tallest building ({:.1} wu) inside the frame: {}",
                        compare.label(&sessions, check.city),
                        check.footprint_ratio,
                        check.tallest_wu,
                        if check.tallest_inside { "yes" } else { "no" }
                    ),
                );
            }
        }
        for line in memory_view_lines(&sessions, &compare, &cities, sites.as_deref()) {
            announce(offscreen.is_some(), &line);
        }
        request(&mut commands, offscreen.as_deref(), path);
        plan.requested += 1;
    }
}

/// What the allocation views show, from the viewer's own state: each city's class floors,
/// and the allocation-site view when it is open.
fn memory_view_lines(
    sessions: &Sessions,
    compare: &super::compare::Compare,
    cities: &Cities,
    sites: Option<&super::ui::SitesView>,
) -> Vec<String> {
    let mut lines = Vec::new();
    for (key, city) in cities.iter() {
        let spans = &city.floors.spans;
        if spans.is_empty() {
            continue;
        }
        let mut buildings: Vec<u32> = spans.iter().map(|span| span.building).collect();
        buildings.dedup();
        lines.push(format!(
            "highrise: class floors {}: {} floors on {} buildings",
            compare.label(sessions, key),
            spans.len(),
            buildings.len()
        ));
    }
    if let Some(cache) = sites.filter(|s| s.open).and_then(|s| s.cache()) {
        let classes: Vec<String> = cache
            .tree
            .classes
            .iter()
            .take(5)
            .map(|class| format!("{} {}", cache.labels.class(class.class_id).0, class.count))
            .collect();
        lines.push(format!(
            "highrise: allocation sites: {} contexts shown of {}, {} rows, classes: {}",
            cache.tree.nodes.len(),
            cache.tree.context_nodes,
            cache.tree.rows,
            classes.join(", ")
        ));
    }
    lines
}

fn take_on_key(
    mut commands: Commands,
    keyboard: Res<ButtonInput<KeyCode>>,
    offscreen: Option<Res<super::offscreen::OffscreenTarget>>,
) {
    if keyboard.just_pressed(KeyCode::F12) {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        request(
            &mut commands,
            offscreen.as_deref(),
            PathBuf::from(format!("highrise-{stamp}.png")),
        );
    }
}

fn exit_when_done(
    plan: Res<ScreenshotPlan>,
    saved: Res<ScreenshotsSaved>,
    mut exit: EventWriter<AppExit>,
) {
    if plan.total > 0 && plan.pending.is_empty() && saved.0 >= plan.total {
        exit.write(AppExit::Success);
    }
}
