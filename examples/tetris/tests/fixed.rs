//! With `--fixed`, restarts stop the old game: `Game.run` stays low and on one thread.

mod support;

#[test]
fn fixed_restarts_leak_nothing() {
    let viewer = support::start_viewer();
    let (summary, report) = support::play_against(&viewer, "restart\nrestart\n", 4.0, true);
    assert_eq!(summary.games, 3);
    assert_eq!(summary.leaked_threads, 0);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let run = support::method(&report, "Game", "run");
    assert!(run.elevation < 0.5, "Game.run at {}", run.elevation);
    assert_eq!(run.thread_count, 1);
}
