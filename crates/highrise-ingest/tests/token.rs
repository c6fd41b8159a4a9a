//! Tokens against the real listener: a server with a token turns away agents from other
//! machines that bring none or a wrong one, while an agent with the right token and agents on
//! loopback (with no token at all) go on undisturbed.
//!
//! "Another machine" is this machine's own non-loopback address (a connection to it comes
//! *from* it, so the server sees a non-loopback peer). A machine with no such address (a bare
//! container) skips those tests, saying so; the rule itself (which peers need the token) is
//! also unit-tested in `src/token.rs`.

mod support;

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::time::Duration;

use highrise_ingest::{IngestConfig, IngestServer, SessionEnd, SessionError, SessionStatus};
use highrise_protocol::{
    decode_agent_message, decode_hello, decode_viewer_message, encode_hello, frame_payload,
    read_frame, AgentMessage, EventKind, Hello, ViewerMessage, REJECT_UNAUTHORIZED,
};
use highrise_record::RecordingReader;
use highrise_testkit::messages::{batch, frames, method};
use highrise_testkit::server::{non_loopback_address, test_config, wait_for_ended};
use support::*;

use EventKind::{Enter, Exit};

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// A server on all interfaces with [`TOKEN`], or `None` (and a note) without a non-loopback
/// address to come from.
fn remote_setup(config: IngestConfig) -> Option<(IngestServer<RecordingSink>, IpAddr)> {
    let ip = non_loopback_address()?;
    let server = start_server_with(IngestConfig {
        listen_addr: SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)),
        token: Some(TOKEN.into()),
        ..config
    });
    Some((server, ip))
}

/// An agent-side socket to `ip` at the server's port.
struct Agent {
    stream: TcpStream,
}

impl Agent {
    fn connect(ip: IpAddr, port: u16) -> Self {
        let stream = TcpStream::connect((ip, port)).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        Self { stream }
    }

    /// Sends `hello` with `token` (none when empty) and returns the answer.
    fn hello(&mut self, hello: &Hello, token: &str) -> ViewerMessage {
        let frame = frame_payload(&encode_hello(hello, token)).expect("fits");
        self.stream.write_all(&frame).expect("writes");
        let mut payload = Vec::new();
        assert!(read_frame(&mut self.stream, &mut payload).expect("answer"));
        decode_viewer_message(&payload).expect("decodes")
    }

    fn send(&mut self, messages: &[AgentMessage]) {
        self.stream.write_all(&frames(messages)).expect("writes");
    }

    /// Goodbye, then a graceful close (SPEC.md rule 8).
    fn finish(mut self, timestamp: u64) {
        self.send(&[AgentMessage::Goodbye { timestamp }]);
        let _ = self.stream.shutdown(std::net::Shutdown::Write);
        let _ = self.stream.read_to_end(&mut Vec::new());
    }

    /// The server closed the connection after its answer.
    fn assert_closed(mut self) {
        let mut rest = Vec::new();
        let _ = self.stream.read_to_end(&mut rest);
        assert!(rest.is_empty(), "nothing follows a Reject");
    }
}

fn assert_unauthorized(answer: &ViewerMessage, what: &str) {
    match answer {
        ViewerMessage::Reject { reason, .. } => {
            assert!(reason.starts_with(REJECT_UNAUTHORIZED), "{reason}");
            assert!(reason.contains(what), "{reason}");
            assert!(reason.contains("HIGHRISE_TOKEN"), "{reason}");
            assert!(!reason.contains(TOKEN), "a refusal never shows the token");
        }
        other => panic!("expected a Reject, got {other:?}"),
    }
}

/// Some work on one thread, the same for every accepted session.
fn work(agent: &mut Agent) {
    agent.send(&[
        AgentMessage::DefineMethods(vec![method(0, "main", "Game", "run")]),
        batch(
            1,
            &[
                (100, 0, Enter),
                (200, 0, Exit),
                (300, 0, Enter),
                (450, 0, Exit),
            ],
        ),
    ]);
}

#[test]
fn remote_agents_without_the_right_token_are_turned_away_while_the_others_go_on() {
    let Some((server, remote_ip)) = remote_setup(test_config()) else {
        return;
    };
    let port = server.local_addr().port();

    // Two sessions that must go on: a remote agent with the token, a local one without any.
    let mut with_token = Agent::connect(remote_ip, port);
    assert!(matches!(
        with_token.hello(&hello("remote-with-token"), TOKEN),
        ViewerMessage::Welcome { .. }
    ));
    let mut local = Agent::connect(IpAddr::V4(Ipv4Addr::LOCALHOST), port);
    assert!(matches!(
        local.hello(&hello("local-without-token"), ""),
        ViewerMessage::Welcome { .. }
    ));
    work(&mut with_token);

    // While they run: a remote agent without a token, and one with a wrong token.
    let mut missing = Agent::connect(remote_ip, port);
    assert_unauthorized(&missing.hello(&hello("remote-no-token"), ""), "no token");
    missing.assert_closed();
    let mut wrong = Agent::connect(remote_ip, port);
    let wrong_token = format!("{}0", &TOKEN[..TOKEN.len() - 1]);
    assert_unauthorized(
        &wrong.hello(&hello("remote-wrong-token"), &wrong_token),
        "wrong token",
    );
    wrong.assert_closed();

    work(&mut local);
    with_token.finish(500);
    local.finish(500);

    let reports = wait_for_ended(&server, 4);
    assert_eq!(reports.len(), 4);
    for report in &reports {
        let from_remote = report.peer.ip() == remote_ip;
        match &report.status {
            SessionStatus::Ended(SessionEnd::Goodbye) => {
                let program = &report.info.as_ref().expect("accepted").program;
                assert!(
                    (program == "remote-with-token") == from_remote,
                    "{program} from {}",
                    report.peer
                );
                assert!(report.errors.is_empty(), "{:?}", report.errors);
                assert_eq!(report.stats.events, 4, "{program}: every event arrived");
                let recorded = report.sink.as_ref().expect("snapshot");
                assert_eq!(recorded.events[&1].len(), 4);
            }
            SessionStatus::Ended(SessionEnd::Failed(SessionError::Unauthorized(reason))) => {
                assert!(from_remote, "a loopback peer is never asked for a token");
                assert!(report.info.is_none(), "a refused Hello opens nothing");
                assert_eq!(
                    report.errors,
                    vec![SessionError::Unauthorized(reason.clone())]
                );
                assert!(report.errors[0]
                    .to_string()
                    .starts_with(REJECT_UNAUTHORIZED));
            }
            other => panic!("unexpected end {other:?} for {}", report.peer),
        }
    }
    let refused = reports
        .iter()
        .filter(|r| matches!(r.status, SessionStatus::Ended(SessionEnd::Failed(_))))
        .count();
    assert_eq!(refused, 2);
}

#[test]
fn a_local_agent_with_a_wrong_token_is_still_welcome() {
    // Loopback stays token-free: a token a local agent happens to send is not looked at.
    let server = start_server_with(IngestConfig {
        token: Some(TOKEN.into()),
        ..test_config()
    });
    let mut agent = Agent::connect(IpAddr::V4(Ipv4Addr::LOCALHOST), server.local_addr().port());
    assert!(matches!(
        agent.hello(&hello("local"), "not-the-token"),
        ViewerMessage::Welcome { .. }
    ));
    work(&mut agent);
    agent.finish(500);
    let report = &wait_for_ended(&server, 1)[0];
    assert_eq!(report.status, SessionStatus::Ended(SessionEnd::Goodbye));
    assert_eq!(report.stats.events, 4);
}

#[test]
fn without_a_server_token_remote_agents_need_none() {
    // The server's token is the caller's choice (`highrise` always sets one beyond loopback);
    // without one, nothing is asked of anyone, a token sent is ignored.
    let Some(remote_ip) = non_loopback_address() else {
        return;
    };
    let server = start_server_with(IngestConfig {
        listen_addr: SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)),
        ..test_config()
    });
    let port = server.local_addr().port();
    for token in ["", "whatever"] {
        let mut agent = Agent::connect(remote_ip, port);
        assert!(matches!(
            agent.hello(&hello("remote"), token),
            ViewerMessage::Welcome { .. }
        ));
        agent.finish(1);
    }
    assert!(wait_for_ended(&server, 2)
        .iter()
        .all(|r| r.status == SessionStatus::Ended(SessionEnd::Goodbye)));
}

#[test]
fn a_recording_never_holds_the_token() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("remote.hrec");
    let Some((server, remote_ip)) = remote_setup(IngestConfig {
        record_sessions_to: Some(path.clone()),
        ..test_config()
    }) else {
        return;
    };
    let mut agent = Agent::connect(remote_ip, server.local_addr().port());
    let sent = hello("recorded");
    assert!(matches!(
        agent.hello(&sent, TOKEN),
        ViewerMessage::Welcome { .. }
    ));
    work(&mut agent);
    agent.finish(500);
    assert_eq!(
        wait_for_ended(&server, 1)[0].status,
        SessionStatus::Ended(SessionEnd::Goodbye)
    );
    drop(server);

    let mut reader = RecordingReader::open(&path).expect("opens");
    let first = reader.frames().next().expect("a frame").expect("reads");
    let payload = &first.frame[4..];
    assert_eq!(
        decode_hello(payload).expect("a Hello"),
        (sent.clone(), None)
    );
    assert_eq!(
        decode_agent_message(payload).expect("decodes"),
        AgentMessage::Hello(sent)
    );
}
