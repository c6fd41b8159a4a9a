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
use highrise_ingest::{
    settle_token, token_from_env, AggregateSink, IngestConfig, IngestServer, LocalSessions,
};
use highrise_protocol::DEFAULT_PORT;

/// Options of the windowed viewer (the default command).
#[derive(Debug, Clone, clap::Args)]
pub struct ViewArgs {
    /// Address to listen on for agents. Only loopback unless --allow-remote is given.
    #[arg(long, default_value_t = SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)))]
    pub listen: SocketAddr,
    /// Allow listening on a non-loopback address.
    #[arg(long)]
    pub allow_remote: bool,
    /// The token agents on other machines must send (their HIGHRISE_TOKEN); default: this
    /// command's HIGHRISE_TOKEN (better than the command line, which other users can see).
    /// Listening beyond loopback without one makes one up and prints it. Agents on this machine
    /// never need it.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Do not start the built-in demo program; only listen.
    #[arg(long)]
    pub no_demo: bool,
    /// Take a screenshot this many seconds after the first frame that shows a live city.
    /// Repeatable, paired in order with --screenshot; the viewer exits after the last one.
    #[arg(long = "screenshot-after", value_name = "SECONDS")]
    pub screenshot_after_s: Vec<f64>,
    /// Where to save the screenshot taken at the matching --screenshot-after (PNG).
    #[arg(long = "screenshot", value_name = "PATH")]
    pub screenshot: Vec<PathBuf>,
    /// Compare the first two programs that connect: independent, aligned or diff.
    #[arg(long, value_enum, value_name = "MODE")]
    pub compare: Option<compare::CompareMode>,
    /// Instead of tetris, run the demo bookstore in both its versions (child processes) and
    /// compare them (diff view unless --compare says otherwise).
    #[arg(long)]
    pub compare_demo: bool,
    /// Open a recording (`.hrec`) as a session at start; repeatable (e.g. two runs to compare).
    #[arg(long, value_name = "FILE")]
    pub replay: Vec<PathBuf>,
    /// Speed of the --replay sessions (1 = as recorded).
    #[arg(long, default_value_t = 1.0)]
    pub replay_speed: f64,
    /// Where the panel's record buttons write `.hrec` files.
    #[arg(long, default_value = "highrise-recordings")]
    pub record_dir: PathBuf,
    /// Window size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x800")]
    pub window_size: String,
    /// What building height shows at start (the panel switches it).
    #[arg(long, value_enum, default_value_t = city::HeightMode::Exclusive)]
    pub height: city::HeightMode,
    /// What full height stands for in the time modes: about the hottest method's share, heights
    /// in proportion (`relative`) or by the square root (`sqrt`, so a big program's five
    /// hottest all stand out), `auto` choosing by the city's size (√ from 1,000 methods), or
    /// 100 % of the window (`absolute`, the paper's scale). The panel switches it.
    #[arg(long, value_enum, default_value_t = city::HeightScale::Auto)]
    pub height_scale: city::HeightScale,
    /// Level of detail: `auto` draws a block as one box (its buildings' footprints, as tall as
    /// the tallest) where its buildings are too small on screen to tell apart; `off` draws
    /// every building at any distance. The panel switches it.
    #[arg(long, value_enum, default_value_t = instancing::LevelOfDetail::Auto)]
    pub lod: instancing::LevelOfDetail,
    /// What building colour shows at start (the panel switches it).
    #[arg(long, value_enum, default_value_t = city::ColourMode::Heat)]
    pub colour: city::ColourMode,
    /// Stack each building into floors, one per class its method creates (by count).
    #[arg(long)]
    pub class_floors: bool,
    /// Which call arcs show at start: the hovered building's callers and callees, also the
    /// busiest edges of every city (`top`), or none (the panel switches it).
    #[arg(long, value_enum, default_value_t = arcs::CallArcs::Hovered)]
    pub call_arcs: arcs::CallArcs,
    /// Open the allocation-site view (the calling-context tree and its class list) at start.
    #[arg(long)]
    pub sites: bool,
    /// Open the memory-prediction window with this sample recording; repeatable.
    #[arg(long, value_name = "FILE")]
    pub predict: Vec<PathBuf>,
    /// The prediction window's measured run (at the size to predict).
    #[arg(long, value_name = "FILE")]
    pub predict_vs: Option<PathBuf>,
    /// The prediction window's phase method (e.g. `Parser.parse`).
    #[arg(long, value_name = "METHOD")]
    pub predict_phase: Option<String>,
    /// The prediction window's basis class and count, `CLASS=COUNT`.
    #[arg(long, value_name = "CLASS=COUNT")]
    pub predict_basis: Option<String>,
    /// Dive into this package (e.g. `org.apache.maven.model`) as soon as a program's city has
    /// it: the view frames it and dims the rest; Escape or the breadcrumbs lead back.
    #[arg(long, value_name = "PACKAGE")]
    pub focus: Option<String>,
    /// Where a building's "Show source" and "Open in editor" look for relative source files
    /// (Java's `Board.java` under its package's directories, Rust's workspace-relative paths),
    /// besides the current directory; repeatable.
    #[arg(long, value_name = "DIR")]
    pub source_root: Vec<PathBuf>,
}

/// The listener the window's programs and receivers can reach.
#[derive(Debug, Clone)]
pub struct Listening {
    /// Where agents connect.
    pub addr: SocketAddr,
    /// In-process sessions of the same server (the OTLP receivers open theirs here).
    pub sessions: LocalSessions,
    /// The token agents (and OTLP exporters) beyond loopback must present, if any.
    pub token: Option<String>,
}

/// Opens the window and runs until it is closed (or the last screenshot is saved).
/// `process_start` is when the binary started (for the startup-time line). Once the listener
/// is up, `start_programs` gets its address to start whatever should connect at once (the
/// command line's demo, per `--no-demo`/`--compare-demo`) and the server's in-process sessions
/// (for the OTLP receivers); what it returns is kept alive until the window closes.
pub fn run<Programs>(
    args: ViewArgs,
    process_start: std::time::Instant,
    start_programs: impl FnOnce(Listening, &ViewArgs) -> anyhow::Result<Programs>,
) -> anyhow::Result<()> {
    if !args.listen.ip().is_loopback() && !args.allow_remote {
        bail!(
            "refusing to listen on {} (not loopback): pass --allow-remote to accept agents from other machines",
            args.listen
        );
    }
    if args.screenshot_after_s.len() != args.screenshot.len() {
        bail!("give one --screenshot PATH for each --screenshot-after SECONDS");
    }
    let (width, height) = parse_size::<f32>(&args.window_size, "--window-size")?;
    let token = settle_token(args.listen, args.token.clone().or_else(token_from_env));
    let server = IngestServer::start(
        IngestConfig {
            listen_addr: args.listen,
            token: token.token.clone(),
            // A report per frame at 60 Hz keeps event-to-screen latency low.
            publish_interval: std::time::Duration::from_millis(16),
            ..IngestConfig::default()
        },
        AggregateSink::factory_with_contexts,
    )
    .context("cannot start the ingest server")?;
    let listen_addr = server.local_addr();
    println!("highrise: listening on {listen_addr}");
    if let Some(notice) = token.notice() {
        println!("{notice}");
    }
    // The compare demo's two versions are best read as one diff city.
    let compare_mode = match args.compare {
        Some(mode) => mode,
        None if args.compare_demo => compare::CompareMode::Diff,
        None => compare::CompareMode::default(),
    };
    // Kept alive while the viewer runs (dropping it may stop the programs).
    let listening = Listening {
        addr: listen_addr,
        sessions: server.local_sessions(),
        token: token.token.clone(),
    };
    let _programs = start_programs(listening, &args)?;
    let shots = args
        .screenshot_after_s
        .iter()
        .copied()
        .zip(args.screenshot.iter().cloned())
        .collect();

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
        .insert_resource(compare::Compare::with_mode(compare_mode))
        .insert_resource(recording::Recorder::new(args.record_dir.clone()))
        .insert_resource(args.height)
        .insert_resource(args.height_scale)
        .insert_resource(args.lod)
        .insert_resource(args.colour)
        .insert_resource(city::ClassFloors(args.class_floors))
        .insert_resource(args.call_arcs)
        .insert_resource(ui::SitesView::opened(args.sites))
        .insert_resource(ui::PredictView::with(
            &args.predict,
            args.predict_vs.as_deref(),
            args.predict_phase.as_deref(),
            args.predict_basis.as_deref(),
        ))
        .insert_resource(ui::source::SourceMenu::with_roots(args.source_root.clone()))
        .insert_resource(focus::FocusAtStart(args.focus.clone()))
        .insert_resource(ReplaysAtStart {
            paths: args.replay.clone(),
            speed: args.replay_speed,
        })
        .add_plugins(ViewerPlugin {
            server: std::sync::Mutex::new(Some(server)),
            screenshots: shots,
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
            app.insert_resource(landscape::LinksFeed(server.session_links()));
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
