//! A real ingest listener on a free loopback port, waiting for its session reports, and an
//! agent-side socket to talk to it.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, SocketAddrV4, TcpStream, UdpSocket};
use std::time::{Duration, Instant};

use highrise_ingest::{IngestConfig, IngestServer, SessionId, SessionReport, SessionSink};
use highrise_protocol::{
    decode_viewer_message, read_frame, write_frame, AgentMessage, Hello, ViewerMessage,
};

use crate::messages::frames;

/// 127.0.0.1, on a port the system picks.
pub const LOOPBACK_ANY_PORT: SocketAddr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0));

/// How long the `wait_for_*` functions wait for the report they want.
pub const REPORT_TIMEOUT: Duration = Duration::from_secs(30);

/// An address of this machine that is not loopback, if it has one: the source address the
/// system would use towards the outside (found with a UDP `connect`, which sends nothing). A
/// connection to it comes *from* it, so a server sees a peer that is not on loopback: how tests
/// play an agent on another machine. `None` (a bare container) also prints that the caller's
/// test is skipped.
pub fn non_loopback_address() -> Option<IpAddr> {
    let found = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0))
        .ok()
        .and_then(|socket| {
            ["192.0.2.1:9", "10.255.255.1:9", "198.51.100.1:9"]
                .iter()
                .find_map(|target| {
                    socket.connect(target).ok()?;
                    let ip = socket.local_addr().ok()?.ip();
                    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
                })
        });
    if found.is_none() {
        eprintln!("SKIPPED: this machine has no non-loopback address to connect from");
    }
    found
}

/// The server's defaults, listening on [`LOOPBACK_ANY_PORT`] and publishing every 10 ms, so
/// tests see changes quickly.
pub fn test_config() -> IngestConfig {
    IngestConfig {
        listen_addr: LOOPBACK_ANY_PORT,
        publish_interval: Duration::from_millis(10),
        ..IngestConfig::default()
    }
}

/// Starts a server with `config`; `make_sink` builds each session's sink from its Hello.
pub fn start<S, F>(config: IngestConfig, make_sink: F) -> IngestServer<S>
where
    S: SessionSink,
    F: Fn(&Hello) -> S + Send + Sync + 'static,
{
    IngestServer::start(config, make_sink).expect("listener starts")
}

/// The first report (of any session) for which `condition` holds; panics after
/// [`REPORT_TIMEOUT`].
pub fn wait_for_report<S: SessionSink>(
    server: &IngestServer<S>,
    mut condition: impl FnMut(&SessionReport<S::Snapshot>) -> bool,
) -> SessionReport<S::Snapshot> {
    let deadline = Instant::now() + REPORT_TIMEOUT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "no report in time met the condition");
        if let Ok(report) = server.updates().recv_timeout(left) {
            if condition(&report) {
                return report;
            }
        }
    }
}

/// The last report of the first session that ends.
pub fn wait_for_end<S: SessionSink>(server: &IngestServer<S>) -> SessionReport<S::Snapshot> {
    wait_for_report(server, SessionReport::is_ended)
}

/// Reads reports until `count` sessions have ended; returns the last report of each, by
/// session id. Checks on the way that no report follows an ended one.
pub fn wait_for_ended<S: SessionSink>(
    server: &IngestServer<S>,
    count: usize,
) -> Vec<SessionReport<S::Snapshot>>
where
    S::Snapshot: std::fmt::Debug,
{
    let deadline = Instant::now() + REPORT_TIMEOUT;
    let mut latest: HashMap<SessionId, SessionReport<S::Snapshot>> = HashMap::new();
    loop {
        let ended = latest.values().filter(|r| r.is_ended()).count();
        if ended >= count {
            let mut reports: Vec<_> = latest.into_values().filter(|r| r.is_ended()).collect();
            reports.sort_by_key(|r| r.session_id);
            return reports;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "timed out waiting for {count} ended sessions: {latest:#?}"
        );
        if let Ok(report) = server.updates().recv_timeout(left) {
            let previous = latest.get(&report.session_id);
            assert!(
                previous.is_none_or(|p| !p.is_ended()),
                "a report followed an ended one"
            );
            latest.insert(report.session_id, report);
        }
    }
}

/// A connected agent-side socket.
#[derive(Debug)]
pub struct Client {
    pub stream: TcpStream,
    pub bytes_sent: u64,
}

impl Client {
    /// Connects to `server` (reads time out after 10 s).
    pub fn connect<S: SessionSink>(server: &IngestServer<S>) -> Self {
        let stream = TcpStream::connect(server.local_addr()).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        Self {
            stream,
            bytes_sent: 0,
        }
    }

    /// One message, as one frame.
    pub fn send(&mut self, message: &AgentMessage) {
        let mut frame = Vec::new();
        write_frame(&mut frame, message).expect("encodes");
        self.send_raw(&frame);
    }

    /// Several messages in one write.
    pub fn send_all(&mut self, messages: &[AgentMessage]) {
        self.send_raw(&frames(messages));
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("writes");
        self.bytes_sent += bytes.len() as u64;
    }

    /// Sends a Hello and returns the viewer's answer.
    pub fn handshake(&mut self, hello: Hello) -> ViewerMessage {
        self.send(&AgentMessage::Hello(hello));
        self.read_answer()
    }

    pub fn read_answer(&mut self) -> ViewerMessage {
        let mut payload = Vec::new();
        assert!(read_frame(&mut self.stream, &mut payload).expect("answer frame"));
        decode_viewer_message(&payload).expect("answer decodes")
    }

    /// Closes the socket cleanly and waits until the server has closed its side too.
    pub fn close(mut self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Write);
        let mut rest = Vec::new();
        let _ = self.stream.read_to_end(&mut rest);
    }
}
