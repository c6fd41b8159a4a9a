//! The windowed viewer: a Bevy app with one plugin per concern. [`ViewerPlugin`] adds them to an
//! app that has `DefaultPlugins` (a window from [`run`], or an image from [`offscreen`]):
//!
//! - [`sessions::SessionsPlugin`]: owns the ingest server; turns its reports into the
//!   [`sessions::Sessions`] resource (one [`sessions::SessionView`] per connected program).
//!   Never sees raw events.
//! - [`city::CityPlugin`]: every city of the scene in [`city::Cities`], by [`city::CityKey`];
//!   lays each session's methods out with `highrise-layout` (incremental insertion as
//!   definitions arrive), keeps an entity per district and block and one instanced draw of the
//!   buildings per city, and maps snapshot values to eased building heights and palette
//!   colours, in the stages of [`city::CitySet`].
//! - [`instancing::InstancingPlugin`]: the buildings' instanced draw (a specialised mesh
//!   pipeline, a per-instance buffer and the embedded `buildings.wgsl`); no entity, transform
//!   or material per building.
//! - [`compare::ComparePlugin`]: two sessions side by side (independent or aligned plans) or
//!   as one diff city, with a structural summary.
//! - [`camera::CameraPlugin`]: orbit and fly modes (smooth-bevy-cameras), framing, focusing a
//!   building (framing only when not interactive).
//! - [`labels::LabelsPlugin`]: package and class names in the scene (level of detail), the
//!   hovered building's name above it, the hottest buildings' names.
//! - [`focus::FocusPlugin`]: diving into a package (framed, the rest dimmed, breadcrumbs back).
//! - [`capture::CapturePlugin`]: F12 and `--screenshot-after`/`--screenshot` PNGs.
//! - [`hover::HoverPlugin`] (window only): cursor ray → layout hit test →
//!   [`hover::Hovered`], which the city highlights.
//! - [`ui::UiPlugin`] (window only, with bevy_egui's `EguiPlugin`): egui panels (sessions,
//!   recordings, modes, compare, search, window, top methods, packages), each city's name and
//!   the tooltip.
//!
//! Not plugins: [`recording`] (the [`recording::Recorder`] resource and the panel's record
//! button and "open recording" box: recordings replayed as sessions) and [`offscreen`] (the
//! same plugins rendering into an image for `highrise report --png`).

pub mod arcs;
pub mod camera;
pub mod capture;
pub mod city;
pub mod compare;
pub mod focus;
pub mod hover;
pub mod instancing;
pub mod labels;
pub mod landscape;
pub mod offscreen;
pub mod recording;
pub mod replay_links;
pub mod sessions;
pub mod sites;
pub mod source;
pub mod ui;

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{bail, Context};
use bevy::prelude::*;
use bevy::window::{PresentMode, WindowResolution};
use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::{IngestConfig, IngestServer};
use highrise_links::SessionLinks;

/// What the window shows at start. The command line (`highrise` with no command, in
/// `highrise-cli`) fills it; every setting here the panel can change later.
#[derive(Debug, Clone)]
pub struct ViewerOptions {
    /// The window's size in pixels (width, height).
    pub window_size_px: (f32, f32),
    /// Screenshots to take: seconds after the first live frame, and where to save them; the
    /// viewer exits after the last.
    pub screenshots: Vec<(f64, PathBuf)>,
    /// How the first two programs that connect are compared.
    pub compare: compare::CompareMode,
    /// Recordings opened as sessions at start, and their replay speed (1 = as recorded).
    pub replay: Vec<PathBuf>,
    pub replay_speed: f64,
    /// Where the panel's record buttons write `.hrec` files.
    pub record_dir: PathBuf,
    pub height: city::HeightMode,
    pub height_scale: city::HeightScale,
    pub lod: instancing::LevelOfDetail,
    pub colour: city::ColourMode,
    /// Buildings stacked into floors, one per class their method creates.
    pub class_floors: bool,
    pub call_arcs: arcs::CallArcs,
    /// The allocation-site view open at start.
    pub sites: bool,
    /// The memory-prediction window: sample recordings, measured run, phase method and basis.
    pub predict: Vec<PathBuf>,
    pub predict_vs: Option<PathBuf>,
    pub predict_phase: Option<String>,
    pub predict_basis: Option<String>,
    /// The package to dive into as soon as a city has it.
    pub focus: Option<String>,
    /// Where "Show source" looks for relative source files, besides the current directory.
    pub source_root: Vec<PathBuf>,
    /// Calls between services to draw, as the OTLP receivers publish them.
    pub links: SessionLinks,
}

/// The window's listener on `listen_addr`: a report per frame at 60 Hz (low event-to-screen
/// latency) and calling contexts kept for the allocation-site view. `token` is what agents
/// beyond loopback must send.
pub fn start_listener(
    listen_addr: SocketAddr,
    token: Option<String>,
) -> anyhow::Result<IngestServer<AggregateSink>> {
    IngestServer::start(
        IngestConfig {
            listen_addr,
            token,
            publish_interval: std::time::Duration::from_millis(16),
            ..IngestConfig::default()
        },
        AggregateSink::factory_with_contexts,
    )
    .context("cannot start the ingest server")
}

/// Opens the window on `server`'s sessions and runs until it is closed (or the last screenshot
/// is saved). `process_start` is when the binary started (for the startup-time line).
pub fn run(
    server: IngestServer<AggregateSink>,
    options: ViewerOptions,
    process_start: std::time::Instant,
) -> anyhow::Result<()> {
    let listen_addr = server.local_addr();
    let (width, height) = options.window_size_px;
    let exit = App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: format!("highrise — listening on {listen_addr}"),
                resolution: WindowResolution::new(width, height),
                present_mode: PresentMode::AutoVsync,
                ..default()
            }),
            ..default()
        }))
        .insert_resource(compare::Compare::with_mode(options.compare))
        .insert_resource(recording::Recorder::new(options.record_dir))
        .insert_resource(options.height)
        .insert_resource(options.height_scale)
        .insert_resource(options.lod)
        .insert_resource(options.colour)
        .insert_resource(city::ClassFloors(options.class_floors))
        .insert_resource(options.call_arcs)
        .insert_resource(ui::SitesView::opened(options.sites))
        .insert_resource(ui::PredictView::with(
            &options.predict,
            options.predict_vs.as_deref(),
            options.predict_phase.as_deref(),
            options.predict_basis.as_deref(),
        ))
        .insert_resource(ui::source::SourceMenu::with_roots(options.source_root))
        .insert_resource(focus::FocusAtStart(options.focus))
        .insert_resource(landscape::LinksFeed(options.links))
        .insert_resource(ReplaysAtStart {
            paths: options.replay,
            speed: options.replay_speed,
        })
        .add_plugins(ViewerPlugin {
            server: std::sync::Mutex::new(Some(server)),
            screenshots: options.screenshots,
            process_start,
            interactive: true,
        })
        .run();
    match exit {
        AppExit::Success => Ok(()),
        AppExit::Error(code) => bail!("the viewer exited with code {code}"),
    }
}

/// A size given as `WIDTHxHEIGHT` to the option `flag` (the window's, the GPU benchmark's).
pub fn parse_size<T>(text: &str, flag: &str) -> anyhow::Result<(T, T)>
where
    T: std::str::FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    let (w, h) = text
        .split_once('x')
        .with_context(|| format!("{flag} is WIDTHxHEIGHT, e.g. 1280x800"))?;
    Ok((
        w.trim().parse().with_context(|| format!("{flag}: width"))?,
        h.trim()
            .parse()
            .with_context(|| format!("{flag}: height"))?,
    ))
}

/// Everything the viewer adds to a Bevy app that has `DefaultPlugins`.
#[derive(Debug)]
pub struct ViewerPlugin {
    /// The running ingest server (taken by the plugin when it is built).
    pub server: std::sync::Mutex<Option<IngestServer<AggregateSink>>>,
    /// Screenshots to take: seconds after the first live frame, and where to save them.
    pub screenshots: Vec<(f64, PathBuf)>,
    /// When the process started.
    pub process_start: std::time::Instant,
    /// A window with input, panels and tooltips; false renders offscreen (no egui, no hover).
    pub interactive: bool,
}

impl Plugin for ViewerPlugin {
    fn build(&self, app: &mut App) {
        let server = match self.server.lock() {
            Ok(mut server) => server.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(server) = server {
            app.insert_resource(sessions::Ingest(server));
        }
        app.insert_resource(ClearColor(Color::srgb(0.06, 0.07, 0.09)))
            .insert_resource(AmbientLight {
                color: Color::WHITE,
                brightness: 350.0,
                ..default()
            })
            .add_plugins((
                instancing::InstancingPlugin,
                sessions::SessionsPlugin,
                city::CityPlugin,
                compare::ComparePlugin,
                camera::CameraPlugin {
                    interactive: self.interactive,
                },
                labels::LabelsPlugin,
                focus::FocusPlugin {
                    interactive: self.interactive,
                },
                arcs::CallArcsPlugin,
                landscape::LandscapePlugin,
                capture::CapturePlugin {
                    screenshots: self.screenshots.clone(),
                    process_start: self.process_start,
                },
            ))
            .init_resource::<ReplaysAtStart>()
            .init_resource::<recording::Recorder>()
            .add_systems(Startup, (spawn_light, open_replays_at_start))
            .add_systems(Update, finish_opening);
        if self.interactive {
            app.add_plugins(bevy_egui::EguiPlugin::default())
                .add_plugins((hover::HoverPlugin, ui::UiPlugin));
        }
    }
}

/// The `--replay` files, opened once the ingest server is a resource.
#[derive(Resource, Debug, Default)]
pub struct ReplaysAtStart {
    pub paths: Vec<PathBuf>,
    pub speed: f64,
}

fn open_replays_at_start(
    replays: Res<ReplaysAtStart>,
    ingest: Option<Res<sessions::Ingest>>,
    mut recorder: ResMut<recording::Recorder>,
) {
    let Some(ingest) = ingest else {
        return;
    };
    recorder.open_at_start(&ingest, &replays.paths, replays.speed);
}

/// Starts the replays of profiles whose conversion has finished; once all the `--replay`
/// files are open, compares the first two. While profiles convert, the window draws a few
/// frames a second: the conversion gets the cores (software rendering took half of them).
fn finish_opening(
    ingest: Option<Res<sessions::Ingest>>,
    mut recorder: ResMut<recording::Recorder>,
    mut compare: ResMut<compare::Compare>,
    winit: Option<ResMut<bevy::winit::WinitSettings>>,
    mut throttled: Local<bool>,
) {
    let Some(ingest) = ingest else {
        return;
    };
    recorder.poll_opening(&ingest);
    let converting = recorder.converting() > 0;
    if let Some(mut winit) = winit.filter(|_| converting != *throttled) {
        *throttled = converting;
        *winit = if converting {
            let mode =
                bevy::winit::UpdateMode::reactive_low_power(std::time::Duration::from_millis(250));
            bevy::winit::WinitSettings {
                focused_mode: mode,
                unfocused_mode: mode,
            }
        } else {
            bevy::winit::WinitSettings::default()
        };
    }
    // A is the first file and B the second, whichever replay's first event arrives first.
    if let Some((a, b)) = recorder.take_start_pair() {
        compare.a = Some(a);
        compare.b = Some(b);
    }
}

fn spawn_light(mut commands: Commands) {
    commands.spawn((
        DirectionalLight {
            illuminance: 9_000.0,
            shadows_enabled: false,
            ..default()
        },
        Transform::from_xyz(-30.0, 80.0, 50.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_parse_as_the_caller_needs_and_bad_ones_say_which_option() {
        assert_eq!(
            parse_size::<f32>("1280x800", "--window-size").unwrap(),
            (1280.0, 800.0)
        );
        assert_eq!(
            parse_size::<u32>("3840x2160", "--size").unwrap(),
            (3840, 2160)
        );
        let error = parse_size::<u32>("1920", "--size").unwrap_err().to_string();
        assert_eq!(error, "--size is WIDTHxHEIGHT, e.g. 1280x800");
        let error = parse_size::<u32>("1920x1.5", "--size")
            .unwrap_err()
            .to_string();
        assert_eq!(error, "--size: height");
    }
}
