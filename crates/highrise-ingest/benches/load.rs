//! The load test at full size: 1,000 concurrent sessions connecting and ending at random, a
//! quarter of them hostile, against the real listener and aggregator, read by a consumer that
//! takes 1 ms per report (a slow viewer). Prints what arrived and how fast; exits non-zero if any
//! well-formed session's final report was missing, duplicated or inexact.
//!
//! `cargo bench -p highrise-ingest --bench load [-- SESSIONS [CONSUMER_DELAY_MS]]`
//! (figures in BENCHMARKS.md, "Many sessions at once").

use std::time::Duration;

use highrise_aggregate_sink::AggregateSink;
use highrise_testkit::load::{calls_match, run_load, LoadPlan};
use highrise_testkit::server::{start, test_config};

fn main() {
    // `cargo bench` passes `--bench`; take the first plain numbers.
    let numbers: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|arg| arg.parse().ok())
        .collect();
    let sessions = numbers.first().map_or(1_000, |&n| n as usize);
    let delay_ms = numbers.get(1).copied().unwrap_or(1);
    let server = start(test_config(), AggregateSink::factory);
    let plan = LoadPlan {
        consumer_delay_per_report: Duration::from_millis(delay_ms),
        ..LoadPlan::new(sessions)
    };
    let outcome = run_load(&server, &plan, |want, snapshot| calls_match(want, snapshot));
    let wall_s = outcome.wall.as_secs_f64();
    println!(
        "load: {} sessions ({} well-formed, {} hostile), consumer {} ms/report",
        sessions, outcome.well_formed, outcome.hostile, delay_ms
    );
    println!(
        "  well-formed final reports exact: {}/{}; mismatches: {}",
        outcome.exact,
        outcome.well_formed,
        outcome.mismatches.len()
    );
    println!(
        "  ended reports read: {} (hostile included); reports read: {}; after an end: {}",
        outcome.ended_reports, outcome.reports_read, outcome.reports_after_end
    );
    println!(
        "  most reports waiting in the consumer's mailbox: {}; events sent: {}; wall: {wall_s:.2} s",
        outcome.max_pending, outcome.events_sent
    );
    for line in outcome.mismatches.iter().take(20) {
        println!("  MISMATCH {line}");
    }
    if outcome.exact != outcome.well_formed || outcome.reports_after_end != 0 {
        std::process::exit(1);
    }
}
