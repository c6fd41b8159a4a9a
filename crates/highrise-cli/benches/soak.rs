//! Soak: busy programs for an hour (by default) through both consumers a user runs:
//! - the viewer's headless path, in this process: the real ingest server and aggregator and
//!   the viewer's intake and city systems, updated at 60 frames per second (no rendering);
//! - `highrise serve`, a child process printing its status as usual.
//!
//! Each is fed by its own busy demo process (`highrise demo`, the tetris game at a 1 ms tick,
//! no restarts) over the real socket. Resident memory of this process and of `serve` is
//! sampled every `--sample-s`; after `--warmup-minutes` every sample must lie within ±5 % of
//! the samples' median, or the bench exits with code 1.
//!
//! Run: `cargo bench -p highrise-cli --bench soak -- --minutes 60` (also `--warmup-minutes 5`,
//! `--sample-s 10`, `--csv FILE`). Figures: BENCHMARKS.md ("Soak").

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::{IngestConfig, IngestServer};
use highrise_viewer::viewer::city::{headless_city_app, Cities};
use highrise_viewer::viewer::sessions::{Ingest, Sessions, SessionsPlugin};

const HIGHRISE: &str = env!("CARGO_BIN_EXE_highrise");
const FRAME: Duration = Duration::from_nanos(16_666_667);
const FLAT_TOLERANCE: f64 = 0.05;

struct Options {
    minutes: f64,
    warmup_minutes: f64,
    sample_s: f64,
    csv: Option<String>,
}

fn options() -> Option<Options> {
    let args: Vec<String> = std::env::args().collect();
    // `cargo test --benches` runs bench binaries without `--bench`: nothing to do then.
    if !args.iter().any(|a| a == "--bench") {
        return None;
    }
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let number = |name: &str, default: f64| {
        value(name).map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} wants a number, got {v}"))
        })
    };
    Some(Options {
        minutes: number("--minutes", 60.0),
        warmup_minutes: number("--warmup-minutes", 5.0),
        sample_s: number("--sample-s", 10.0),
        csv: value("--csv"),
    })
}

/// Resident memory of process `pid` ("self" for this one), in KiB.
fn rss_kib(pid: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap_or(0)
}

fn free_addr() -> SocketAddr {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("binds");
    listener.local_addr().expect("addr")
}

/// A child that is killed when dropped.
struct Owned(Child);

impl Drop for Owned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn busy_demo(addr: SocketAddr, label: &str) -> Owned {
    let child = Command::new(HIGHRISE)
        .args(["demo", "--addr", &addr.to_string(), "--tick-ms", "1"])
        .args(["--restart-every-s", "1000000", "--version-label", label])
        .arg("--exit-on-stdin-eof")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the demo starts");
    Owned(child)
}

/// Whether every sample after the warm-up lies within the tolerance of their median; prints
/// the figures.
fn flat(name: &str, samples_kib: &[u64]) -> bool {
    let mut sorted = samples_kib.to_vec();
    sorted.sort_unstable();
    let Some(&median) = sorted.get(sorted.len() / 2) else {
        println!("{name}: no samples after the warm-up");
        return false;
    };
    let (min, max) = (sorted[0], sorted[sorted.len() - 1]);
    let deviation = |v: u64| (v as f64 - median as f64) / median as f64;
    let ok = deviation(min) >= -FLAT_TOLERANCE && deviation(max) <= FLAT_TOLERANCE;
    println!(
        "{name}: {} samples after warm-up, RSS median {:.1} MiB, min {:.1} ({:+.1} %), max {:.1} ({:+.1} %), first {:.1}, last {:.1}: {}",
        samples_kib.len(),
        median as f64 / 1024.0,
        min as f64 / 1024.0,
        deviation(min) * 100.0,
        max as f64 / 1024.0,
        deviation(max) * 100.0,
        samples_kib[0] as f64 / 1024.0,
        samples_kib[samples_kib.len() - 1] as f64 / 1024.0,
        if ok { "flat" } else { "NOT FLAT" }
    );
    ok
}

fn main() {
    let Some(options) = options() else {
        return;
    };
    // The viewer's headless path, in this process.
    let server = IngestServer::start(
        IngestConfig {
            listen_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            ..IngestConfig::default()
        },
        AggregateSink::factory,
    )
    .expect("listener");
    let viewer_addr = server.local_addr();
    let mut app = headless_city_app(None);
    app.insert_resource(Ingest(server))
        .add_plugins(SessionsPlugin);
    // `highrise serve` as a user runs it, its output kept for the record.
    let serve_addr = free_addr();
    let serve_log =
        std::env::temp_dir().join(format!("highrise-soak-serve-{}.log", std::process::id()));
    let serve = Owned(
        Command::new(HIGHRISE)
            .args([
                "serve",
                "--listen",
                &serve_addr.to_string(),
                "--interval-s",
                "60",
            ])
            .stdout(std::fs::File::create(&serve_log).expect("log file"))
            .stderr(Stdio::null())
            .spawn()
            .expect("serve starts"),
    );
    std::thread::sleep(Duration::from_millis(500));
    let _viewer_demo = busy_demo(viewer_addr, "soak-viewer");
    let _serve_demo = busy_demo(serve_addr, "soak-serve");
    let serve_pid = serve.0.id().to_string();
    println!(
        "soak: {} min ({} min warm-up), RSS every {} s; serve's log: {}",
        options.minutes,
        options.warmup_minutes,
        options.sample_s,
        serve_log.display()
    );

    let start = Instant::now();
    let total = Duration::from_secs_f64(options.minutes * 60.0);
    let sample_every = Duration::from_secs_f64(options.sample_s);
    let mut next_sample = start + sample_every;
    let mut next_frame = start;
    let mut csv =
        String::from("elapsed_s,viewer_rss_kib,serve_rss_kib,viewer_events,viewer_buildings\n");
    let (mut viewer_after, mut serve_after) = (Vec::new(), Vec::new());
    let mut frames = 0u64;
    let samples_per_minute = (60.0 / options.sample_s).round().max(1.0) as u64;
    let mut samples = 0u64;
    while start.elapsed() < total {
        let now = Instant::now();
        if now >= next_frame {
            app.update();
            frames += 1;
            next_frame += FRAME;
            if next_frame < now {
                next_frame = now + FRAME; // fell behind: do not catch up in a burst
            }
        }
        if now >= next_sample {
            next_sample += sample_every;
            samples += 1;
            let elapsed_s = start.elapsed().as_secs_f64();
            let (viewer_kib, serve_kib) = (rss_kib("self"), rss_kib(&serve_pid));
            let sessions = app.world().resource::<Sessions>();
            let events: u64 = sessions
                .by_id
                .values()
                .map(|view| view.report.stats.events)
                .sum();
            let buildings: usize = sessions
                .by_id
                .keys()
                .filter_map(|&id| app.world().resource::<Cities>().session(id))
                .filter_map(|city| city.layout.as_ref())
                .map(|layout| layout.buildings().len())
                .sum();
            csv.push_str(&format!(
                "{elapsed_s:.0},{viewer_kib},{serve_kib},{events},{buildings}\n"
            ));
            if elapsed_s >= options.warmup_minutes * 60.0 {
                viewer_after.push(viewer_kib);
                serve_after.push(serve_kib);
            }
            if samples % samples_per_minute == 0 {
                println!(
                    "{:>6.1} min: viewer path {:.1} MiB ({events} events, {buildings} buildings, {:.1} fps), serve {:.1} MiB",
                    elapsed_s / 60.0,
                    viewer_kib as f64 / 1024.0,
                    frames as f64 / elapsed_s,
                    serve_kib as f64 / 1024.0,
                );
            }
        }
        std::thread::sleep(
            next_frame
                .min(next_sample)
                .saturating_duration_since(Instant::now()),
        );
    }
    if let Some(path) = &options.csv {
        std::fs::write(path, &csv).expect("writes the CSV");
    }
    let viewer_flat = flat("viewer headless path", &viewer_after);
    let serve_flat = flat("highrise serve", &serve_after);
    drop(serve);
    let log = std::fs::read_to_string(&serve_log).unwrap_or_default();
    if let Some(line) = log.lines().rev().find(|line| line.contains("events (")) {
        println!("serve's last status: {line}");
    }
    if !(viewer_flat && serve_flat) {
        std::process::exit(1);
    }
}
