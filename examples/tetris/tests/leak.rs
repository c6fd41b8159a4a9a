//! The paper's bug, seen through the real viewer pipeline (ingest + aggregator): after two
//! restarts, `Game.run` sits at 100 % with three threads (two leaked games and the live one).

mod support;

#[test]
fn two_restarts_leave_run_at_100_percent_on_three_threads() {
    let viewer = support::start_viewer();
    let (summary, report) = support::play_against(&viewer, "restart\nrestart\n", 4.0, false);
    assert_eq!(summary.games, 3);
    assert_eq!(summary.leaked_threads, 2);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let run = support::method(&report, "Game", "run");
    assert!(run.elevation >= 0.95, "Game.run at {}", run.elevation);
    assert_eq!(run.thread_count, 3);
    let tick = support::method(&report, "Game", "tick");
    assert!(
        tick.calls > 100,
        "the live game ticked {} times",
        tick.calls
    );
}
