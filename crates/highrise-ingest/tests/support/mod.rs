//! A real listener, a real socket, and a sink that records everything it is given.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use highrise_ingest::{IngestConfig, IngestServer, SessionId, SessionReport, SessionSink};
use highrise_protocol::{
    decode_viewer_message, read_frame, write_frame, AgentMessage, Event, EventKind, Hello,
    MethodDef, PackedEventWriter, ViewerMessage, MAGIC, PROTOCOL_VERSION,
};

/// Everything a session's sink was fed, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recorded {
    pub definitions: Vec<MethodDef>,
    pub thread_starts: Vec<(u64, String, u64)>,
    pub thread_ends: Vec<(u64, u64)>,
    pub events: HashMap<u64, Vec<Event>>,
    pub resyncs: Vec<(u64, u64, Vec<u32>)>,
    pub heartbeats: Vec<u64>,
    pub commands: Vec<String>,
}

#[derive(Debug, Default)]
pub struct RecordingSink(Recorded);

impl SessionSink for RecordingSink {
    type Snapshot = Arc<Recorded>;
    type Command = String;
    fn define_methods(&mut self, definitions: &[MethodDef]) {
        self.0.definitions.extend_from_slice(definitions);
    }
    fn thread_started(&mut self, thread_id: u64, name: &str, timestamp_ns: u64) {
        self.0
            .thread_starts
            .push((thread_id, name.to_string(), timestamp_ns));
    }
    fn thread_ended(&mut self, thread_id: u64, timestamp_ns: u64) {
        self.0.thread_ends.push((thread_id, timestamp_ns));
    }
    fn events(&mut self, thread_id: u64, events: &[Event]) {
        self.0
            .events
            .entry(thread_id)
            .or_default()
            .extend_from_slice(events);
    }
    fn resync(&mut self, thread_id: u64, timestamp_ns: u64, stack: &[u32]) {
        self.0
            .resyncs
            .push((thread_id, timestamp_ns, stack.to_vec()));
    }
    fn heartbeat(&mut self, timestamp_ns: u64) {
        self.0.heartbeats.push(timestamp_ns);
    }
    fn command(&mut self, command: String) {
        self.0.commands.push(command);
    }
    fn snapshot(&mut self) -> Arc<Recorded> {
        Arc::new(self.0.clone())
    }
}

pub type Report = SessionReport<Arc<Recorded>>;

pub fn start_server() -> IngestServer<RecordingSink> {
    start_server_with(IngestConfig::default())
}

pub fn start_server_with(config: IngestConfig) -> IngestServer<RecordingSink> {
    let config = IngestConfig {
        listen_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        publish_interval: Duration::from_millis(10),
        ..config
    };
    IngestServer::start(config, |_hello: &Hello| RecordingSink::default()).expect("listener starts")
}

/// Reads reports until `count` sessions have ended; returns the last report of each.
pub fn wait_for_ended(server: &IngestServer<RecordingSink>, count: usize) -> Vec<Report> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut latest: HashMap<SessionId, Report> = HashMap::new();
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

pub fn hello(program: &str) -> Hello {
    Hello {
        magic: MAGIC,
        protocol_version: PROTOCOL_VERSION,
        agent: "highrise-ingest-tests".into(),
        program: program.into(),
        version_label: "test-1".into(),
        pid: 1234,
        clock_unit_ns: 1,
        clock_zero_unix_ns: 1_000,
    }
}

pub fn method(id: u32, package: &str, class: &str, name: &str) -> MethodDef {
    MethodDef {
        id,
        package: package.into(),
        class: class.into(),
        method: name.into(),
        signature: None,
        file: None,
        line: None,
    }
}

/// A connected agent-side socket.
pub struct Client {
    pub stream: TcpStream,
    pub bytes_sent: u64,
}

impl Client {
    pub fn connect(server: &IngestServer<RecordingSink>) -> Self {
        let stream = TcpStream::connect(server.local_addr()).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        Self {
            stream,
            bytes_sent: 0,
        }
    }

    pub fn send(&mut self, message: &AgentMessage) {
        let mut frame = Vec::new();
        write_frame(&mut frame, message).expect("encodes");
        self.send_raw(&frame);
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

/// A batch for `thread_id` from (timestamp, method, kind) triples.
pub fn batch(thread_id: u64, events: &[(u64, u32, EventKind)]) -> AgentMessage {
    let base = events.first().map_or(0, |e| e.0);
    let mut writer = PackedEventWriter::new(thread_id, base);
    for &(timestamp, method_id, kind) in events {
        writer.push(timestamp, method_id, kind);
    }
    AgentMessage::Events(writer.finish())
}
