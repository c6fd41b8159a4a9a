//! A real listener (`highrise_testkit::server`), a real socket, and a sink that records
//! everything it is given.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::Arc;

use highrise_ingest::{IngestConfig, IngestServer, SessionReport, SessionSink};
use highrise_protocol::{Event, Hello, MethodDef};
use highrise_testkit::server::{start, test_config};

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
    start_server_with(test_config())
}

pub fn start_server_with(config: IngestConfig) -> IngestServer<RecordingSink> {
    start(config, |_hello: &Hello| RecordingSink::default())
}

pub fn hello(program: &str) -> Hello {
    Hello {
        version_label: "test-1".into(),
        pid: 1234,
        clock_zero_unix_ns: 1_000,
        ..highrise_testkit::messages::hello("highrise-ingest-tests", program)
    }
}
