//! Sustained rate from one busy thread: the thread calls an instrumented function at a paced
//! rate (2 events per call) for a few seconds per rate; the agent's counters say how many
//! events it sent and how many it dropped (never blocking the thread). Where the loss starts
//! tells where the pipeline's limit is:
//! - `--sink null`: the real ingest server decoding and validating, no aggregation (the agent's
//!   sender and the socket are the limit);
//! - `--sink aggregate` (default): ingest plus the aggregator, the viewer's whole path except
//!   rendering;
//! - `--addr HOST:PORT`: an external listener, e.g. a running `highrise` viewer window.
//!
//! Run: `cargo bench -p highrise-agent --bench rate -- --sink aggregate --rates 2.5,5,10,20,max`
//! (rates in M events/s; `max` = unpaced; `--seconds 5` per rate). Figures: BENCHMARKS.md
//! ("Rust agent", "Sustained rate").

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::{IngestConfig, IngestServer, NullSink};

#[highrise_agent::profile]
#[inline(never)]
fn step(i: u64) -> u64 {
    std::hint::black_box(i & 7)
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// Calls `step` at `calls_per_s` (unpaced when `None`) for `duration`; returns the calls made.
fn run_paced(calls_per_s: Option<f64>, duration: Duration) -> u64 {
    let start = Instant::now();
    let mut calls = 0u64;
    let mut sum = 0u64;
    loop {
        for _ in 0..256 {
            sum = sum.wrapping_add(step(calls));
            calls += 1;
        }
        let elapsed = start.elapsed();
        if elapsed >= duration {
            break;
        }
        if let Some(rate) = calls_per_s {
            // Ahead of the pace: wait (spinning, as a busy program would be busy).
            while (calls as f64) > rate * start.elapsed().as_secs_f64() {
                std::hint::spin_loop();
            }
        }
    }
    std::hint::black_box(sum);
    calls
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        return; // `cargo test --benches`: nothing to measure
    }
    let seconds: f64 = arg(&args, "--seconds").map_or(5.0, |s| s.parse().expect("seconds"));
    let rates = arg(&args, "--rates").unwrap_or_else(|| "2.5,5,10,20,max".into());
    let sink = arg(&args, "--sink").unwrap_or_else(|| "aggregate".into());
    let local = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
    let config = IngestConfig {
        listen_addr: local,
        ..IngestConfig::default()
    };
    // Kept alive for the whole run.
    let (addr, _null, _aggregate) = match arg(&args, "--addr") {
        Some(addr) => (addr, None, None),
        None if sink == "null" => {
            let server = IngestServer::start(config, NullSink::factory).expect("listener");
            (server.local_addr().to_string(), Some(server), None)
        }
        None => {
            let server = IngestServer::start(config, AggregateSink::factory).expect("listener");
            (server.local_addr().to_string(), None, Some(server))
        }
    };
    let consumer = arg(&args, "--addr").map_or(sink.clone(), |a| format!("external {a}"));
    let agent = highrise_agent::AgentBuilder::new("rate-bench")
        .addr(addr)
        .log_to_stderr(false)
        .start()
        .expect("agent starts");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !agent.stats().connected {
        assert!(Instant::now() < deadline, "never connected");
        std::thread::sleep(Duration::from_millis(10));
    }
    println!(
        "consumer: {consumer}; one thread, {seconds} s per rate; load average at start: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    println!("| target M events/s | produced M events/s | sent M events/s | dropped |");
    println!("|---:|---:|---:|---:|");
    for rate in rates.split(',') {
        let calls_per_s = match rate.trim() {
            "max" => None,
            m => Some(m.parse::<f64>().expect("rate in M events/s") * 1e6 / 2.0),
        };
        let before = agent.stats();
        let start = Instant::now();
        let calls = run_paced(calls_per_s, Duration::from_secs_f64(seconds));
        let elapsed_s = start.elapsed().as_secs_f64();
        assert!(agent.flush(Duration::from_secs(30)), "flush");
        let after = agent.stats();
        let produced = 2 * calls;
        let sent = after.events_sent - before.events_sent;
        let dropped = after.events_dropped - before.events_dropped;
        println!(
            "| {} | {:.2} | {:.2} | {:.2} % |",
            rate.trim(),
            produced as f64 / elapsed_s / 1e6,
            sent as f64 / elapsed_s / 1e6,
            100.0 * dropped as f64 / produced as f64
        );
        // Let the pipeline drain before the next rate.
        std::thread::sleep(Duration::from_millis(500));
    }
}
