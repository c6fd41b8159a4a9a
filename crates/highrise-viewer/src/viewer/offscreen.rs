//! The viewer without a window: the same plugins, the camera rendering into an image instead
//! of a window, and the scheduled screenshot taken from that image. `highrise report --png`
//! uses it to draw the city of a recording (or the diff city of two) for CI, on any Vulkan
//! device, software ones included (no X server needed).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context};
use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use bevy::render::render_asset::RenderAssetUsages;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat, TextureUsages};
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::{IngestConfig, IngestServer};

use super::compare::{Compare, CompareMode};
use super::{ReplaysAtStart, ViewerPlugin};

/// The image the main camera renders into when there is no window.
#[derive(Resource, Debug, Clone)]
pub struct OffscreenTarget(pub Handle<Image>);

/// What to render offscreen.
#[derive(Debug, Clone)]
pub struct OffscreenRender {
    /// Recordings replayed (to their end, as fast as possible) as the scene's sessions.
    pub recordings: Vec<PathBuf>,
    /// How to show two recordings (diff by default when there are two).
    pub compare: CompareMode,
    /// Where the PNG goes.
    pub png: PathBuf,
    pub width_px: u32,
    pub height_px: u32,
    /// Seconds after the first frame with a live city (lets heights settle).
    pub settle_s: f64,
}

/// Renders the recordings' city into a PNG and returns when it is written.
pub fn render_png(render: OffscreenRender) -> anyhow::Result<()> {
    if render.recordings.is_empty() {
        bail!("nothing to render: no recording given");
    }
    for path in &render.recordings {
        // Fail before starting a renderer; replays report bad files only in their session.
        highrise_import::open(path)
            .with_context(|| format!("cannot read the recording {}", path.display()))?;
    }
    let server = IngestServer::start(
        IngestConfig {
            listen_addr: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
            publish_interval: Duration::from_millis(16),
            ..IngestConfig::default()
        },
        // No calling-context tree: nothing offscreen draws it (the allocation-site view is a
        // window of the interactive viewer).
        AggregateSink::factory,
    )
    .context("cannot start the ingest server")?;
    let compare = if render.recordings.len() >= 2 {
        render.compare
    } else {
        CompareMode::Off
    };
    let mut app = offscreen_app(
        render.width_px,
        render.height_px,
        Some(server),
        vec![(render.settle_s, render.png.clone())],
    );
    app.add_plugins(ScheduleRunnerPlugin::run_loop(Duration::from_secs_f64(
        1.0 / 60.0,
    )))
    .insert_resource(Compare::with_mode(compare))
    .insert_resource(ReplaysAtStart {
        paths: render.recordings.clone(),
        speed: f64::INFINITY,
    });
    match app.run() {
        AppExit::Success => Ok(()),
        AppExit::Error(code) => bail!("the offscreen renderer exited with code {code}"),
    }
}

/// A viewer app without a window: its main camera renders into a `width_px`×`height_px` image
/// (the [`OffscreenTarget`]), and it takes `screenshots` of it (exiting after the last). The
/// `server`'s sessions become cities; without one the caller fills [`super::sessions::Sessions`]
/// (the GPU frame-rate benchmark does). Add a runner, or call `update` in a loop.
pub fn offscreen_app(
    width_px: u32,
    height_px: u32,
    server: Option<IngestServer<AggregateSink>>,
    screenshots: Vec<(f64, PathBuf)>,
) -> App {
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: None,
                exit_condition: ExitCondition::DontExit,
                close_when_requested: false,
            })
            .disable::<WinitPlugin>()
            // `report` already logs through its own subscriber.
            .disable::<bevy::log::LogPlugin>(),
    );
    let mut target = Image::new_fill(
        Extent3d {
            width: width_px,
            height: height_px,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        &[0, 0, 0, 255],
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    );
    // Rendered into by the camera, read back by the screenshot.
    target.texture_descriptor.usage = TextureUsages::TEXTURE_BINDING
        | TextureUsages::COPY_DST
        | TextureUsages::COPY_SRC
        | TextureUsages::RENDER_ATTACHMENT;
    let handle = app.world_mut().resource_mut::<Assets<Image>>().add(target);
    app.insert_resource(OffscreenTarget(handle))
        .add_plugins(ViewerPlugin {
            server: std::sync::Mutex::new(server),
            screenshots,
            process_start: std::time::Instant::now(),
            interactive: false,
        });
    app
}
