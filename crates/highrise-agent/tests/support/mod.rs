//! A real ingest listener (the viewer's, from `highrise_testkit::server`) on a loopback port,
//! with a sink that records every session's stream in order, and checks on what it recorded.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use highrise_ingest::{IngestConfig, IngestServer, SessionEnd, SessionReport, SessionSink};
use highrise_protocol::{ClassDef, Event, EventKind, Hello, MemoryAmount, MethodDef};
use highrise_testkit::server::{start, test_config};

/// One thread's stream, in arrival order.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Event(Event),
    Resync {
        timestamp_ns: u64,
        stack: Vec<u32>,
    },
    /// A memory record: the innermost open frame created or freed objects of `class_id`.
    Memory {
        timestamp_ns: u64,
        class_id: u32,
        amount: MemoryAmount,
    },
}

/// Everything one session's sink was fed.
#[derive(Debug, Clone, Default)]
pub struct Recorded {
    pub hello: Option<Hello>,
    pub definitions: Vec<MethodDef>,
    pub thread_starts: Vec<(u64, String)>,
    pub thread_ends: Vec<u64>,
    pub threads: BTreeMap<u64, Vec<Item>>,
    pub heartbeats: u64,
    pub classes: Vec<ClassDef>,
    /// The latest `MemoryDropped` totals: (allocations, bytes, frees).
    pub memory_dropped: (u64, u64, u64),
}

impl Recorded {
    pub fn method(&self, package: &str, class: &str, method: &str) -> Option<u32> {
        self.definitions
            .iter()
            .find(|d| d.package == package && d.class == class && d.method == method)
            .map(|d| d.id)
    }

    pub fn name_of(&self, id: u32) -> String {
        self.definitions.iter().find(|d| d.id == id).map_or_else(
            || format!("#{id}"),
            |d| format!("{}.{}.{}", d.package, d.class, d.method),
        )
    }

    pub fn events_of(&self, thread_id: u64) -> Vec<Event> {
        self.threads
            .get(&thread_id)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| match item {
                        Item::Event(event) => Some(*event),
                        Item::Resync { .. } | Item::Memory { .. } => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn event_count(&self) -> usize {
        self.threads.keys().map(|&t| self.events_of(t).len()).sum()
    }

    /// Replays every thread: each exit must close the frame on top (after a Resync, the
    /// thread's stack is the one it carries). Returns each thread's final stack.
    pub fn replay_strictly(&self) -> BTreeMap<u64, Vec<u32>> {
        let mut finals = BTreeMap::new();
        for (&thread_id, items) in &self.threads {
            let mut stack: Vec<u32> = Vec::new();
            let mut last_ns = 0;
            for (index, item) in items.iter().enumerate() {
                match item {
                    Item::Event(event) => {
                        assert!(
                            event.timestamp_ns >= last_ns,
                            "thread {thread_id}: time went back at item {index}"
                        );
                        last_ns = event.timestamp_ns;
                        match event.kind {
                            EventKind::Enter => stack.push(event.method_id),
                            EventKind::Exit => {
                                let top = stack.pop();
                                assert_eq!(
                                    top,
                                    Some(event.method_id),
                                    "thread {thread_id}: exit of {} at item {index} does not close the top frame ({:?})",
                                    self.name_of(event.method_id),
                                    top.map(|id| self.name_of(id)),
                                );
                            }
                            EventKind::Memory => unreachable!("kept as Item::Memory"),
                        }
                    }
                    Item::Resync { stack: given, .. } => stack = given.clone(),
                    Item::Memory { .. } => {}
                }
            }
            finals.insert(thread_id, stack);
        }
        finals
    }
}

#[derive(Debug, Clone, Default)]
pub struct Shared(pub Arc<Mutex<Recorded>>);

impl Shared {
    pub fn get(&self) -> MutexGuard<'_, Recorded> {
        self.0.lock().expect("not poisoned")
    }
}

pub struct RecordingSink(Shared);

impl SessionSink for RecordingSink {
    type Snapshot = Shared;
    type Command = ();
    fn define_methods(&mut self, definitions: &[MethodDef]) {
        self.0.get().definitions.extend_from_slice(definitions);
    }
    fn thread_started(&mut self, thread_id: u64, name: &str, _timestamp_ns: u64) {
        self.0
            .get()
            .thread_starts
            .push((thread_id, name.to_string()));
    }
    fn thread_ended(&mut self, thread_id: u64, _timestamp_ns: u64) {
        self.0.get().thread_ends.push(thread_id);
    }
    fn events(&mut self, thread_id: u64, events: &[Event]) {
        self.0
            .get()
            .threads
            .entry(thread_id)
            .or_default()
            .extend(events.iter().copied().map(Item::Event));
    }
    fn define_classes(&mut self, definitions: &[ClassDef]) {
        self.0.get().classes.extend_from_slice(definitions);
    }
    fn records(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        let mut amounts = amounts.iter();
        let mut recorded = self.0.get();
        let items = recorded.threads.entry(thread_id).or_default();
        for event in events {
            items.push(match event.kind {
                EventKind::Memory => Item::Memory {
                    timestamp_ns: event.timestamp_ns,
                    class_id: event.method_id,
                    amount: *amounts.next().expect("one amount per memory record"),
                },
                _ => Item::Event(*event),
            });
        }
    }
    fn memory_dropped(&mut self, allocations: u64, bytes: u64, frees: u64) {
        self.0.get().memory_dropped = (allocations, bytes, frees);
    }
    fn resync(&mut self, thread_id: u64, timestamp_ns: u64, stack: &[u32]) {
        self.0
            .get()
            .threads
            .entry(thread_id)
            .or_default()
            .push(Item::Resync {
                timestamp_ns,
                stack: stack.to_vec(),
            });
    }
    fn heartbeat(&mut self, _timestamp_ns: u64) {
        self.0.get().heartbeats += 1;
    }
    fn command(&mut self, _command: ()) {}
    fn snapshot(&mut self) -> Shared {
        self.0.clone()
    }
}

pub type Server = IngestServer<RecordingSink>;
pub type Report = SessionReport<Shared>;

/// A listener on a free loopback port.
pub fn start_server() -> Server {
    start_server_on(0)
}

/// A listener on `port` (0 = any free port).
pub fn start_server_on(port: u16) -> Server {
    start_server_with(config_on(port))
}

/// The test configuration, listening on loopback `port`.
pub fn config_on(port: u16) -> IngestConfig {
    IngestConfig {
        listen_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
        ..test_config()
    }
}

/// An agent for `program` that starts before any viewer listens on `port`: a 4096-event ring
/// (so a busy program drops soon), and quick reconnects once one appears.
pub fn agent_before_the_viewer(program: &str, port: u16) -> highrise_agent::AgentGuard {
    highrise_agent::AgentBuilder::new(program)
        .addr(format!("127.0.0.1:{port}"))
        .ring_capacity_events(4096)
        .reconnect_backoff(Duration::from_millis(10), Duration::from_millis(50))
        .log_to_stderr(false)
        .start()
        .expect("starts")
}

/// A listener with `config`.
pub fn start_server_with(config: IngestConfig) -> Server {
    start(config, |hello: &Hello| {
        let shared = Shared::default();
        shared.get().hello = Some(hello.clone());
        RecordingSink(shared)
    })
}

/// A loopback port nothing listens on (now).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("binds");
    listener.local_addr().expect("addr").port()
}

pub fn ended_with_goodbye(report: &Report) -> bool {
    report.status == highrise_ingest::SessionStatus::Ended(SessionEnd::Goodbye)
}

/// Waits until the agent says it is connected.
pub fn wait_connected() {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !highrise_agent::stats().connected {
        assert!(Instant::now() < deadline, "agent never connected");
        std::thread::sleep(Duration::from_millis(5));
    }
}
