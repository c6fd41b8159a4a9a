//! The viewer goes away and comes back: the host keeps running, the agent reconnects with
//! backoff, the new session gets every definition again and each thread's current stack as
//! a Resync, and its stream is balanced from there.
#![cfg(feature = "enable")]

mod support;

use std::time::Duration;

use highrise_testkit::server::wait_for_end;
use support::{ended_with_goodbye, start_server, start_server_on, wait_connected};

#[highrise_agent::profile]
fn frame_work(i: u64) -> u64 {
    std::hint::black_box(i * 3)
}

#[highrise_agent::profile]
fn long_running(rounds: u64, between: &mut dyn FnMut(u64)) -> u64 {
    let mut sum = 0;
    for round in 0..rounds {
        sum += frame_work(round);
        between(round);
    }
    sum
}

#[test]
fn after_the_viewer_restarts_the_agent_reconnects_and_resynchronises() {
    let first = start_server();
    let port = first.local_addr().port();
    let agent = highrise_agent::AgentBuilder::new("reconnect-test")
        .addr(first.local_addr().to_string())
        .reconnect_backoff(Duration::from_millis(10), Duration::from_millis(100))
        .log_to_stderr(false)
        .start()
        .expect("starts");
    wait_connected();

    let mut first = Some(first);
    let mut second = None;
    long_running(400, &mut |round| {
        std::thread::sleep(Duration::from_millis(1));
        if round == 100 {
            // The viewer goes away while this thread is inside long_running.
            if let Some(server) = first.take() {
                server.shutdown();
            }
        }
        if round == 200 {
            second = Some(start_server_on(port));
        }
    });
    // Let the agent find the second viewer if it has not yet.
    let second = second.expect("second server started");
    for _ in 0..1000 {
        if highrise_agent::stats().connections >= 2 {
            break;
        }
        frame_work(0);
        std::thread::sleep(Duration::from_millis(5));
    }
    wait_connected();
    assert!(highrise_agent::stats().connections >= 2);
    // Inside long_running again on this connection, then out.
    long_running(10, &mut |_| {});
    drop(agent);

    let report = wait_for_end(&second);
    assert!(ended_with_goodbye(&report), "{:?}", report.status);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let recorded = report.sink.as_ref().expect("opened").get().clone();
    let long = recorded
        .method("reconnect", "reconnect", "long_running")
        .expect("definitions sent again on the new connection");
    let frame = recorded
        .method("reconnect", "reconnect", "frame_work")
        .expect("definitions sent again");
    assert!(long != frame);
    assert_eq!(
        recorded.thread_starts.len(),
        1,
        "{:?}",
        recorded.thread_starts
    );
    // The first thing the new viewer hears about this thread may be its stack.
    let finals = recorded.replay_strictly();
    assert!(finals.values().all(Vec::is_empty), "{finals:?}");
    let items = recorded.threads.values().next().expect("one thread");
    let first_item_is_a_resync_into_long_running = matches!(
        items.first(),
        Some(support::Item::Resync { stack, .. }) if stack == &vec![long]
    );
    let started_fresh = matches!(
        items.first(),
        Some(support::Item::Event(e)) if e.method_id == long || e.method_id == frame
    );
    assert!(
        first_item_is_a_resync_into_long_running || started_fresh,
        "{:?}",
        items.first()
    );
}
