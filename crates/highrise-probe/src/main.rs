//! `highrise-probe`: a conformance listener for agent tests (Python, Java, Rust).
//!
//! It runs the real ingest server (the same listener the viewer uses) with a sink that replays
//! every thread's events on a shadow stack, and prints, for each session that ends, one JSON
//! line saying exactly what arrived: definitions, per-thread enter/exit counts, whether every
//! thread's stream was balanced, calls per method, the agent's drop counters and any ingest
//! errors. Agent test suites start it, point their agent at the printed address and assert on
//! the JSON.
//!
//! Output (stdout, line-oriented):
//! - first line: `LISTENING <addr>`;
//! - then one JSON object per ended session (see [`session_json`] for the fields).
//!
//! Where to start: `main`; the per-thread bookkeeping is [`ThreadTally`].

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use crossbeam_channel::RecvTimeoutError;
use highrise_ingest::{
    IngestConfig, IngestServer, SessionEnd, SessionReport, SessionSink, SessionStatus,
};
use highrise_protocol::{Event, EventKind, Hello, LiveClass, MemoryAmount, MethodDef};
use serde_json::{json, Value};

#[derive(Debug, Parser)]
#[command(
    name = "highrise-probe",
    about = "Accept highrise agents and print, per ended session, what arrived as one JSON line"
)]
struct Args {
    /// Address to listen on; port 0 picks a free port (printed on the first line).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Exit after this many sessions have ended (default: run until killed or --timeout-s).
    #[arg(long)]
    sessions: Option<usize>,
    /// Exit after this many seconds whatever happened (exit code 3 if sessions were expected).
    #[arg(long)]
    timeout_s: Option<f64>,
    /// The token agents not on loopback must send (to test agents' tokens: listen beyond
    /// loopback and connect through a non-loopback address). Default: none asked.
    #[arg(long)]
    token: Option<String>,
}

/// What one thread's stream looked like, replayed on a shadow stack.
#[derive(Debug, Default, Clone)]
struct ThreadTally {
    enters: u64,
    exits: u64,
    /// Exits whose method was not on top of the stack but further down (frames skipped).
    mismatched_exits: u64,
    /// Exits whose method was nowhere on the stack.
    orphan_exits: u64,
    max_depth: usize,
    /// Timestamps that went backwards within the thread.
    backwards_timestamps: u64,
    first_timestamp_ns: Option<u64>,
    last_timestamp_ns: u64,
    resyncs: u64,
    stack: Vec<u32>,
    calls_by_id: HashMap<u32, u64>,
    /// Memory records by (the stack they arrived on, class id): [created, bytes, freed, freed
    /// bytes]. The conformance oracle for the agents' allocation counting.
    allocations: BTreeMap<(Vec<u32>, u32), [u64; 4]>,
    /// `LiveObjects` snapshots of this thread, as received.
    live_objects: Vec<(u64, Option<u64>, Vec<LiveClass>)>,
}

impl ThreadTally {
    fn apply(&mut self, event: &Event) {
        if event.timestamp_ns < self.last_timestamp_ns {
            self.backwards_timestamps += 1;
        }
        self.last_timestamp_ns = self.last_timestamp_ns.max(event.timestamp_ns);
        self.first_timestamp_ns.get_or_insert(event.timestamp_ns);
        match event.kind {
            EventKind::Enter => {
                self.enters += 1;
                *self.calls_by_id.entry(event.method_id).or_default() += 1;
                self.stack.push(event.method_id);
                self.max_depth = self.max_depth.max(self.stack.len());
            }
            // Counted by `memory`, which has the amounts.
            EventKind::Memory => {}
            EventKind::Exit => {
                self.exits += 1;
                match self.stack.iter().rposition(|&id| id == event.method_id) {
                    Some(index) if index + 1 == self.stack.len() => {
                        self.stack.pop();
                    }
                    Some(index) => {
                        self.mismatched_exits += 1;
                        self.stack.truncate(index);
                    }
                    None => self.orphan_exits += 1,
                }
            }
        }
    }
}

impl ThreadTally {
    fn memory(&mut self, class_id: u32, amount: &MemoryAmount) {
        let entry = self
            .allocations
            .entry((self.stack.clone(), class_id))
            .or_default();
        let base = if amount.free { 2 } else { 0 };
        entry[base] += amount.count;
        entry[base + 1] += amount.bytes;
    }
}

/// The probe's sink: a tally per thread, shared with the consumer through an `Arc`.
#[derive(Debug, Default)]
struct ProbeSink {
    tallies: Arc<Mutex<BTreeMap<u64, ThreadTally>>>,
}

impl SessionSink for ProbeSink {
    type Snapshot = Arc<Mutex<BTreeMap<u64, ThreadTally>>>;
    type Command = ();

    fn define_methods(&mut self, _definitions: &[MethodDef]) {}
    fn thread_started(&mut self, thread_id: u64, _name: &str, _timestamp_ns: u64) {
        self.lock().entry(thread_id).or_default();
    }
    fn thread_ended(&mut self, _thread_id: u64, _timestamp_ns: u64) {}
    fn events(&mut self, thread_id: u64, events: &[Event]) {
        let mut tallies = self.lock();
        let tally = tallies.entry(thread_id).or_default();
        for event in events {
            tally.apply(event);
        }
    }
    fn records(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        let mut tallies = self.lock();
        let tally = tallies.entry(thread_id).or_default();
        let mut amounts = amounts.iter();
        for event in events {
            tally.apply(event);
            if event.kind == EventKind::Memory {
                if let Some(amount) = amounts.next() {
                    tally.memory(event.method_id, amount);
                }
            }
        }
    }
    fn resync(&mut self, thread_id: u64, _timestamp_ns: u64, stack: &[u32]) {
        let mut tallies = self.lock();
        let tally = tallies.entry(thread_id).or_default();
        tally.resyncs += 1;
        tally.stack = stack.to_vec();
    }
    fn live_objects(
        &mut self,
        thread_id: u64,
        timestamp_ns: u64,
        heap_live_bytes: Option<u64>,
        classes: &[LiveClass],
    ) {
        let mut tallies = self.lock();
        let tally = tallies.entry(thread_id).or_default();
        tally
            .live_objects
            .push((timestamp_ns, heap_live_bytes, classes.to_vec()));
    }
    fn heartbeat(&mut self, _timestamp_ns: u64) {}
    fn command(&mut self, _command: ()) {}
    fn snapshot(&mut self) -> Self::Snapshot {
        Arc::clone(&self.tallies)
    }
}

impl ProbeSink {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, ThreadTally>> {
        self.tallies.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The JSON line for one ended session.
///
/// Fields: `peer` (the agent's address), `program`, `version_label`, `agent`, `pid`,
/// `clock_unit_ns`, `end` (`goodbye`, `disconnected`, `failed: …`, `server shutdown`), `errors` (strings), `stats` (frames, bytes,
/// events, batches, definitions, duplicate_definitions, heartbeats, resyncs, skipped_records,
/// errors_total, agent_events_dropped, agent_batches_dropped), `methods` (id, package, class,
/// method, signature, file, name), `threads` (thread_id, name, started, ended, enters, exits,
/// balanced, open_frames, mismatched_exits, orphan_exits, max_depth, backwards_timestamps,
/// resyncs, calls: {qualified name → enters}, calls_by_id: {id → enters}), and `calls`
/// (qualified name → enters over all threads). Protocol version 2 adds `classes` (id,
/// package, name, kind, display), per thread `allocations` ([{stack: [names, outermost
/// first], class: display name, count, bytes, frees, freed_bytes}]) and stats
/// memory_records, allocations, class_definitions, agent_allocations_dropped,
/// agent_allocation_bytes_dropped, agent_frees_dropped; per thread `live_objects`
/// ([{timestamp_ns, heap_live_bytes, classes: {display name → {count, bytes}}}]); and
/// `class_relations` ([{from, to: display names, kind: extends|implements|field, field,
/// many}]).
fn session_json(report: &SessionReport<Arc<Mutex<BTreeMap<u64, ThreadTally>>>>) -> Value {
    let names: HashMap<u32, String> = report
        .definitions()
        .map(|definition| (definition.id, definition.qualified_name()))
        .collect();
    let name_of = |id: u32| names.get(&id).cloned().unwrap_or_else(|| format!("#{id}"));
    let methods: Vec<Value> = report
        .definitions()
        .map(|definition| {
            json!({
                "id": definition.id,
                "package": definition.package,
                "class": definition.class,
                "method": definition.method,
                "signature": definition.signature,
                "file": definition.file,
                "name": definition.qualified_name(),
            })
        })
        .collect();
    let class_names: HashMap<u32, String> = report
        .classes()
        .map(|class| (class.id, class.display_name()))
        .collect();
    let classes: Vec<Value> = report
        .classes()
        .map(|class| {
            json!({
                "id": class.id,
                "package": class.package,
                "name": class.name,
                "kind": format!("{:?}", class.kind),
                "display": class.display_name(),
            })
        })
        .collect();
    let tallies = report
        .sink
        .as_ref()
        .map(|shared| {
            shared
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone()
        })
        .unwrap_or_default();
    let mut all_calls: BTreeMap<String, u64> = BTreeMap::new();
    let mut threads = Vec::new();
    for info in report.threads.iter() {
        let tally = tallies.get(&info.thread_id).cloned().unwrap_or_default();
        let mut calls: BTreeMap<String, u64> = BTreeMap::new();
        let mut calls_by_id: BTreeMap<String, u64> = BTreeMap::new();
        for (&id, &count) in &tally.calls_by_id {
            *calls.entry(name_of(id)).or_default() += count;
            *all_calls.entry(name_of(id)).or_default() += count;
            calls_by_id.insert(id.to_string(), count);
        }
        threads.push(json!({
            "thread_id": info.thread_id,
            "name": info.name,
            "started": info.started_ns.is_some(),
            "ended": info.ended_ns.is_some(),
            "events": info.events,
            "enters": tally.enters,
            "exits": tally.exits,
            "balanced": tally.stack.is_empty()
                && tally.mismatched_exits == 0
                && tally.orphan_exits == 0
                && tally.enters == tally.exits,
            "open_frames": tally.stack.iter().map(|&id| name_of(id)).collect::<Vec<_>>(),
            "mismatched_exits": tally.mismatched_exits,
            "orphan_exits": tally.orphan_exits,
            "max_depth": tally.max_depth,
            "backwards_timestamps": tally.backwards_timestamps,
            "resyncs": tally.resyncs,
            "first_timestamp_ns": tally.first_timestamp_ns,
            "last_timestamp_ns": tally.last_timestamp_ns,
            "calls": calls,
            "calls_by_id": calls_by_id,
            "allocations": tally.allocations.iter().map(|((stack, class_id), amounts)| json!({
                "stack": stack.iter().map(|&id| name_of(id)).collect::<Vec<_>>(),
                "class": class_names.get(class_id).cloned().unwrap_or_else(|| format!("#{class_id}")),
                "count": amounts[0],
                "bytes": amounts[1],
                "frees": amounts[2],
                "freed_bytes": amounts[3],
            })).collect::<Vec<_>>(),
            "live_objects": tally.live_objects.iter().map(|(timestamp_ns, heap, classes)| json!({
                "timestamp_ns": timestamp_ns,
                "heap_live_bytes": heap,
                "classes": classes.iter().map(|class| (
                    class_names.get(&class.class_id).cloned().unwrap_or_else(|| format!("#{}", class.class_id)),
                    json!({"count": class.count, "bytes": class.bytes}),
                )).collect::<serde_json::Map<String, Value>>(),
            })).collect::<Vec<_>>(),
        }));
    }
    let end = match &report.status {
        SessionStatus::Ended(SessionEnd::Goodbye) => "goodbye".to_owned(),
        SessionStatus::Ended(SessionEnd::Disconnected) => "disconnected".to_owned(),
        SessionStatus::Ended(SessionEnd::Failed(error)) => format!("failed: {error}"),
        SessionStatus::Ended(SessionEnd::ServerShutdown) => "server shutdown".to_owned(),
        SessionStatus::Ended(SessionEnd::Detached) => "detached".to_owned(),
        other => format!("{other:?}"),
    };
    let info = report.info.as_ref();
    let stats = &report.stats;
    json!({
        "session_id": report.session_id,
        "peer": report.peer.to_string(),
        "program": info.map(|i| i.program.clone()),
        "version_label": info.map(|i| i.version_label.clone()),
        "agent": info.map(|i| i.agent.clone()),
        "pid": info.map(|i| i.pid),
        "clock_unit_ns": info.map(|i| i.clock_unit_ns),
        "end": end,
        "errors": report.errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "notices": info.map_or_else(Vec::new, |i| i.notices.iter().map(|n| json!({"key": n.key, "text": n.text})).collect()),
        "stats": {
            "frames": stats.frames,
            "bytes": stats.bytes,
            "events": stats.events,
            "batches": stats.batches,
            "definitions": stats.definitions,
            "duplicate_definitions": stats.duplicate_definitions,
            "heartbeats": stats.heartbeats,
            "resyncs": stats.resyncs,
            "threads_implicit": stats.threads_implicit,
            "skipped_records": stats.skipped_records,
            "errors_total": stats.errors_total,
            "agent_events_dropped": stats.agent_events_dropped,
            "agent_batches_dropped": stats.agent_batches_dropped,
            "last_timestamp_ns": stats.last_timestamp_ns,
            "memory_records": stats.memory_records,
            "allocations": stats.allocations,
            "class_definitions": stats.class_definitions,
            "agent_allocations_dropped": stats.agent_allocations_dropped,
            "agent_allocation_bytes_dropped": stats.agent_allocation_bytes_dropped,
            "agent_frees_dropped": stats.agent_frees_dropped,
        },
        "methods": methods,
        "classes": classes,
        "class_relations": report.relations().map(|relation| json!({
            "from": class_names.get(&relation.from_class).cloned().unwrap_or_else(|| format!("#{}", relation.from_class)),
            "to": class_names.get(&relation.to_class).cloned().unwrap_or_else(|| format!("#{}", relation.to_class)),
            "kind": format!("{:?}", relation.kind).to_lowercase(),
            "field": relation.field,
            "many": relation.many,
        })).collect::<Vec<_>>(),
        "threads": threads,
        "calls": all_calls,
    })
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let config = IngestConfig {
        listen_addr: args.listen,
        token: args.token.clone(),
        ..IngestConfig::default()
    };
    let server = IngestServer::start(config, |_hello: &Hello| ProbeSink::default())
        .with_context(|| format!("listening on {}", args.listen))?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "LISTENING {}", server.local_addr())?;
    stdout.flush()?;
    let deadline = args
        .timeout_s
        .map(|seconds| Instant::now() + Duration::from_secs_f64(seconds.max(0.0)));
    let mut ended = 0usize;
    loop {
        if args.sessions.is_some_and(|wanted| ended >= wanted) {
            break;
        }
        let wait = match deadline {
            Some(deadline) => match deadline.checked_duration_since(Instant::now()) {
                Some(left) => left.min(Duration::from_millis(200)),
                None => {
                    server.shutdown();
                    if args.sessions.is_some() {
                        std::process::exit(3);
                    }
                    return Ok(());
                }
            },
            None => Duration::from_millis(200),
        };
        match server.updates().recv_timeout(wait) {
            Ok(report) if report.is_ended() => {
                writeln!(stdout, "{}", session_json(&report))?;
                stdout.flush()?;
                ended += 1;
            }
            Ok(_) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    server.shutdown();
    Ok(())
}
