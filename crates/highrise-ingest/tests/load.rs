//! Many programs at once, a quarter of them hostile, against the real listener with the real
//! aggregator, read by a slow consumer: every well-formed session's end arrives exactly once and
//! says exactly what the program sent. (The 1,000-session version is `benches/load.rs`.)

use highrise_aggregate_sink::AggregateSink;
use highrise_testkit::load::{calls_match, run_load, LoadPlan};
use highrise_testkit::server::{start, test_config};

#[test]
fn every_well_formed_session_of_256_ends_exactly_while_64_hostile_ones_come_and_go() {
    let server = start(test_config(), AggregateSink::factory);
    let plan = LoadPlan::new(256);
    let outcome = run_load(&server, &plan, |want, snapshot| calls_match(want, snapshot));
    eprintln!("{outcome:#?}");
    assert_eq!(outcome.well_formed, 192);
    assert_eq!(outcome.hostile, 64);
    assert!(outcome.mismatches.is_empty(), "{:#?}", outcome.mismatches);
    assert_eq!(outcome.exact, 192);
    assert_eq!(outcome.reports_after_end, 0);
    // Hostile connections end too, and are reported like any session.
    assert!(
        outcome.ended_reports >= 192 + 56,
        "only {} ended reports",
        outcome.ended_reports
    );
}
