//! An agent on "another machine" (this machine's own non-loopback address, so the viewer sees
//! a peer not on loopback) and a viewer with a token: with a wrong token the agent is turned
//! away, never counts as connected and does not retry; with the right one ([`AgentBuilder::token`]) its session
//! arrives whole.
#![cfg(feature = "enable")]

mod support;

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use highrise_agent::AgentBuilder;
use highrise_ingest::{IngestConfig, SessionEnd, SessionError, SessionStatus};
use highrise_testkit::server::{non_loopback_address, test_config, wait_for_report};
use support::{ended_with_goodbye, start_server_with, wait_connected};

const TOKEN: &str = "feedfacefeedfacefeedfacefeedface";

#[highrise_agent::profile]
fn remote_work(i: u64) -> u64 {
    std::hint::black_box(i + 1)
}

fn agent(addr: SocketAddr, token: &str) -> highrise_agent::AgentGuard {
    AgentBuilder::new("token-test")
        .addr(addr.to_string())
        .token(token)
        .reconnect_backoff(Duration::from_millis(10), Duration::from_millis(50))
        .shutdown_timeout(Duration::from_millis(500))
        .log_to_stderr(false)
        .start()
        .expect("starts")
}

#[test]
fn a_remote_agent_needs_the_viewers_token() {
    let Some(ip) = non_loopback_address() else {
        return;
    };
    let server = start_server_with(IngestConfig {
        listen_addr: SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)),
        token: Some(TOKEN.into()),
        ..test_config()
    });
    let addr = SocketAddr::new(ip, server.local_addr().port());

    let wrong = agent(addr, "not-the-token");
    let refused = wait_for_report(&server, |report| report.is_ended());
    assert!(
        matches!(
            &refused.status,
            SessionStatus::Ended(SessionEnd::Failed(SessionError::Unauthorized(reason)))
                if reason.starts_with("wrong token")
        ),
        "{:?}",
        refused.status
    );
    assert!(!highrise_agent::stats().connected);
    // Turned away for its token, the agent does not knock again (its backoff is 10–50 ms).
    std::thread::sleep(Duration::from_millis(400));
    assert!(
        server.updates().try_recv().is_err(),
        "the refused agent tried again"
    );
    let stats = highrise_agent::stats();
    assert!(
        stats
            .last_error
            .as_deref()
            .is_some_and(|e| e.contains("token")),
        "{:?}",
        stats.last_error
    );
    drop(wrong);
    // Not even its shutdown's final drain knocks again.
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        server.updates().try_recv().is_err(),
        "the refused agent tried again at shutdown"
    );

    let right = agent(addr, TOKEN);
    wait_connected();
    for i in 0..100 {
        remote_work(i);
    }
    drop(right);
    let report = wait_for_report(&server, ended_with_goodbye);
    assert_eq!(report.peer.ip(), ip);
    let recorded = report.sink.as_ref().expect("snapshot").get().clone();
    assert!(recorded.method("token", "token", "remote_work").is_some());
    assert_eq!(recorded.event_count(), 200);
}
