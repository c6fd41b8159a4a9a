//! Frames per second of the whole viewer at 200k buildings, rendering on the GPU: every plugin
//! of the offscreen viewer (the instanced buildings, slabs, labels, arcs, lights), drawing into
//! a `--size` image, fed the way the ingest server feeds it. CPU-side systems alone are the
//! `frame` benchmark; this one adds extraction, the render graph and the GPU.
//!
//! Scenarios (`--scenario`):
//! - `worst`: a different 5 % of the methods busy in every frame's new snapshot, so nearly
//!   every building is rising or falling; the camera frames the whole city;
//! - `live`: a new snapshot every 16 ms (the server's publish interval), a different 5 % busy in
//!   each, while the camera circles the city (the user flying around).
//!
//! Each frame waits for the GPU to finish it (`--no-gpu-wait` to let frames queue up), so the
//! figure is a floor: a window's swap chain lets the CPU run a frame or two ahead. Per render
//! pass GPU times come from timestamp queries where the device has them (Vulkan, DX12).
//!
//! Run: `CARGO_PROFILE_DEV_OPT_LEVEL=3 cargo bench --profile dev -p highrise-viewer --bench
//! gpu_frame -- --scenario worst --seconds 10 --size 1920x1080 --png city.png`

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use bevy::app::PluginsState;
use bevy::diagnostic::DiagnosticsStore;
use bevy::prelude::*;
use bevy::render::diagnostic::RenderDiagnosticsPlugin;
use bevy::render::render_resource::Maintain;
use bevy::render::renderer::{RenderAdapterInfo, RenderDevice};
use bevy::render::view::screenshot::{save_to_disk, Screenshot};
use bevy::render::{Render, RenderApp, RenderSet};
use clap::{Parser, ValueEnum};
use highrise_viewer::viewer::camera::{CameraState, MainCamera};
use highrise_viewer::viewer::city::{Cities, CityKey};
use highrise_viewer::viewer::offscreen::{offscreen_app, OffscreenTarget};
use highrise_viewer::viewer::parse_size;
use highrise_viewer::viewer::sessions::{accept_report, Sessions};
use smooth_bevy_cameras::LookTransform;

mod common;
use common::{definitions_200k, report, snapshot};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Scenario {
    Worst,
    Live,
}

#[derive(Debug, Parser)]
struct Args {
    #[arg(long, value_enum, default_value_t = Scenario::Worst)]
    scenario: Scenario,
    /// Seconds measured, after the warm-up.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Seconds run before measuring (shaders compiled, city laid out and drawn).
    #[arg(long, default_value_t = 3.0)]
    warm_up_s: f64,
    /// The image rendered into, WIDTHxHEIGHT.
    #[arg(long, default_value = "1920x1080")]
    size: String,
    /// Save the last frame here (PNG).
    #[arg(long)]
    png: Option<PathBuf>,
    /// Let frames queue up on the GPU instead of finishing each before the next.
    #[arg(long)]
    no_gpu_wait: bool,
    /// Passed by `cargo bench`.
    #[arg(long, hide = true)]
    bench: bool,
}

/// Blocks the render world until the GPU has finished everything submitted.
fn wait_for_gpu(device: Res<'_, RenderDevice>) {
    let _ = device.poll(Maintain::Wait);
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let (width_px, height_px) = parse_size::<u32>(&args.size, "--size")?;

    let definitions = definitions_200k();
    let count = definitions.len();
    let snapshots: Vec<_> = (0..8).map(|f| snapshot(count, f)).collect();

    let mut app = offscreen_app(width_px, height_px, None, Vec::new());
    app.add_plugins(RenderDiagnosticsPlugin);
    if !args.no_gpu_wait {
        app.sub_app_mut(RenderApp)
            .add_systems(Render, wait_for_gpu.in_set(RenderSet::Cleanup));
    }
    while app.plugins_state() == PluginsState::Adding {
        bevy::tasks::tick_global_task_pools_on_main_thread();
    }
    app.finish();
    app.cleanup();
    let adapter = app
        .world()
        .get_resource::<RenderAdapterInfo>()
        .map(|info| {
            format!(
                "{} ({:?}, driver {})",
                info.name, info.backend, info.driver_info
            )
        })
        .unwrap_or_else(|| "unknown adapter".into());
    eprintln!(
        "gpu_frame: {adapter}, {width_px}x{height_px}, {:?}",
        args.scenario
    );

    let start = Instant::now();
    let snapshot_every = match args.scenario {
        Scenario::Worst => Duration::ZERO,
        Scenario::Live => Duration::from_millis(16),
    };
    let mut fed = 0usize;
    let mut last_fed: Option<Instant> = None;
    let mut orbit: Option<(Vec3, Vec3)> = None; // (target, eye − target) when the circle began
    let mut measuring_since: Option<Instant> = None;
    let mut frame_ms: Vec<f64> = Vec::new();
    let mut last_frame = Instant::now();
    loop {
        let now = Instant::now();
        if last_fed.is_none_or(|at| now - at >= snapshot_every) {
            let next = Arc::clone(&snapshots[fed % snapshots.len()]);
            accept_report(
                &mut app.world_mut().resource_mut::<Sessions>(),
                report(&definitions, next),
            );
            fed += 1;
            last_fed = Some(now);
        }
        if let Some((target, arm)) = orbit {
            let angle = measuring_since.map_or(0.0, |at| at.elapsed().as_secs_f32() * 0.3);
            let mut query = app
                .world_mut()
                .query_filtered::<&mut LookTransform, With<MainCamera>>();
            if let Ok(mut look) = query.single_mut(app.world_mut()) {
                look.target = target;
                look.eye = target + Quat::from_rotation_y(angle) * arm;
            }
        }
        app.update();
        let done = Instant::now();
        if let Some(since) = measuring_since {
            frame_ms.push((done - last_frame).as_secs_f64() * 1e3);
            if (done - since).as_secs_f64() >= args.seconds {
                break;
            }
        } else if start.elapsed().as_secs_f64() >= args.warm_up_s && buildings(&app) > 0 {
            if args.scenario == Scenario::Live {
                app.world_mut().resource_mut::<CameraState>().user_moved = true;
                let mut query = app
                    .world_mut()
                    .query_filtered::<&LookTransform, With<MainCamera>>();
                let look = query.single(app.world()).context("no main camera")?;
                orbit = Some((look.target, look.eye - look.target));
            }
            measuring_since = Some(done);
        } else if start.elapsed().as_secs_f64() > 120.0 {
            bail!("no city after 120 s");
        }
        last_frame = done;
    }

    let measured_s = frame_ms.iter().sum::<f64>() / 1e3;
    frame_ms.sort_by(f64::total_cmp);
    let at = |q: f64| frame_ms[((frame_ms.len() - 1) as f64 * q).round() as usize];
    println!(
        "gpu_frame {:?} {width_px}x{height_px} {} buildings: {:.1} frames/s ({} frames in {measured_s:.2} s); frame ms p50 {:.2}, p95 {:.2}, p99 {:.2}, max {:.2}{}",
        args.scenario,
        buildings(&app),
        frame_ms.len() as f64 / measured_s,
        frame_ms.len(),
        at(0.5),
        at(0.95),
        at(0.99),
        at(1.0),
        if args.no_gpu_wait { " (frames not waited for)" } else { "" },
    );
    let store = app.world().resource::<DiagnosticsStore>();
    let mut passes: Vec<(String, f64)> = store
        .iter()
        .filter(|d| d.path().as_str().ends_with("elapsed_gpu"))
        .filter_map(|d| Some((d.path().as_str().to_string(), d.average()?)))
        .collect();
    passes.sort_by(|a, b| b.1.total_cmp(&a.1));
    for (path, ms) in passes {
        println!("  gpu {path}: {ms:.3} ms");
    }

    if let Some(path) = args.png {
        let target = app.world().resource::<OffscreenTarget>().0.clone();
        app.world_mut()
            .spawn(Screenshot::image(target))
            .observe(save_to_disk(path.clone()));
        for _ in 0..600 {
            app.update();
            if path.exists() {
                break;
            }
        }
        // The file appears before it is complete: give the writer a moment.
        std::thread::sleep(Duration::from_millis(500));
        eprintln!("gpu_frame: saved {}", path.display());
    }
    // Dropping a rendering app can wait on its render thread: the figures are out, just go.
    std::process::exit(0);
}

fn buildings(app: &App) -> usize {
    app.world()
        .resource::<Cities>()
        .get(CityKey::Session(1))
        .map_or(0, |city| city.instances.len())
}
