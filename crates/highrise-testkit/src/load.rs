//! Many programs at once against a real listener: well-formed agents connecting and ending at
//! random times, with hostile connections mixed in (garbage, oversized lengths, wrong versions,
//! truncated frames, resets, slow senders, lying counts, absurd nesting). Every well-formed
//! session knows exactly what it sent ([`Expected`]); [`run_load`] reads the server's reports
//! like a consumer (optionally a slow one) and checks each well-formed session's final report
//! against it.
//!
//! Used by highrise-ingest's load test (CI size, ≥ 256 sessions) and its `load` bench (1,000).

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use highrise_ingest::{IngestServer, SessionEnd, SessionReport, SessionSink, SessionStatus};
use highrise_protocol::{
    decode_viewer_message, read_frame, write_frame, AgentMessage, EventBatch, EventKind,
    ViewerMessage, PROTOCOL_VERSION,
};
use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

use crate::messages::{batch, frames, hello, method};

/// What to throw at the server.
#[derive(Debug, Clone)]
pub struct LoadPlan {
    /// Connections in all, well-formed and hostile.
    pub sessions: usize,
    /// Every `hostile_every`-th connection is hostile (4: a quarter).
    pub hostile_every: usize,
    /// Connections start at random within this time, so most of them overlap.
    pub spread: Duration,
    /// The consumer sleeps this long after each report it reads (a slow viewer).
    pub consumer_delay_per_report: Duration,
    /// How long to wait for every well-formed session's end.
    pub timeout: Duration,
    pub seed: u64,
}

impl LoadPlan {
    /// `sessions` connections, a quarter hostile, starting within 2 s, read by a consumer
    /// that takes 1 ms per report.
    pub fn new(sessions: usize) -> Self {
        Self {
            sessions,
            hostile_every: 4,
            spread: Duration::from_secs(2),
            consumer_delay_per_report: Duration::from_millis(1),
            timeout: Duration::from_secs(180),
            seed: 0x5EED,
        }
    }
}

/// What a well-formed session sent: what its final report must say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// The Hello's program name (unique per session: `load-N`).
    pub program: String,
    pub definitions: u64,
    pub events: u64,
    /// Distinct thread ids that sent events.
    pub threads: usize,
    /// Calls (enters) per method id, all threads together.
    pub calls_per_method: Vec<u64>,
    /// `Goodbye`, or `Disconnected` for a program that just closed its socket.
    pub end: SessionEnd,
}

/// The kinds of hostile connection, in the order they are dealt out.
pub const HOSTILE_KINDS: [&str; 8] = [
    "garbage",
    "oversized length",
    "wrong version",
    "truncated frame",
    "reset",
    "slow sender",
    "lying count",
    "absurd nesting",
];

/// The check for sessions aggregated by `AggregateSink`: every method's calls in the final
/// snapshot are the calls the session sent (its whole run fits in the window).
pub fn calls_match(want: &Expected, snapshot: &highrise_aggregate::Snapshot) -> Result<(), String> {
    for (method_id, &calls) in want.calls_per_method.iter().enumerate() {
        let got = u64::from(snapshot.method(method_id as u32).calls);
        if got != calls {
            return Err(format!("method {method_id}: {got} calls, sent {calls}"));
        }
    }
    Ok(())
}

/// What happened.
#[derive(Debug, Default)]
pub struct LoadOutcome {
    pub well_formed: usize,
    pub hostile: usize,
    /// Well-formed sessions whose final report matched exactly.
    pub exact: usize,
    /// What was wrong, one line per well-formed session that did not match (or never ended).
    pub mismatches: Vec<String>,
    /// Final reports read (all sessions, hostile ones included).
    pub ended_reports: usize,
    /// Reports read in all.
    pub reports_read: usize,
    /// Reports that followed an ended report of the same session (must be 0).
    pub reports_after_end: usize,
    /// Most reports waiting in the consumer's mailbox at any read.
    pub max_pending: usize,
    /// Events the well-formed sessions sent.
    pub events_sent: u64,
    /// From the first connection to the last well-formed end read.
    pub wall: Duration,
}

/// Runs `plan` against `server`, reading `server.updates()` on this thread; `check` compares a
/// final report's sink snapshot with what the session sent (`Err` says what differs).
pub fn run_load<S, C>(server: &IngestServer<S>, plan: &LoadPlan, check: C) -> LoadOutcome
where
    S: SessionSink,
    C: Fn(&Expected, &S::Snapshot) -> Result<(), String>,
{
    let addr = server.local_addr();
    let start = Instant::now();
    let mut expected: HashMap<String, Expected> = HashMap::new();
    let mut clients = Vec::with_capacity(plan.sessions);
    let mut outcome = LoadOutcome::default();
    for index in 0..plan.sessions {
        let mut rng = SmallRng::seed_from_u64(plan.seed ^ (index as u64).wrapping_mul(0x9E37_79B9));
        let delay = plan.spread.mul_f64(rng.gen::<f64>());
        let hostile =
            plan.hostile_every > 0 && index % plan.hostile_every == plan.hostile_every - 1;
        if hostile {
            outcome.hostile += 1;
            let kind = (index / plan.hostile_every) % HOSTILE_KINDS.len();
            clients.push(spawn_client(index, move || {
                std::thread::sleep(delay);
                hostile_connection(addr, kind, &mut rng);
            }));
        } else {
            outcome.well_formed += 1;
            let program = format!("load-{index}");
            let (script, want) = well_formed_script(&program, &mut rng);
            outcome.events_sent += want.events;
            expected.insert(program, want);
            clients.push(spawn_client(index, move || {
                std::thread::sleep(delay);
                script.play(addr, &mut rng);
            }));
        }
    }

    let mut ended: HashSet<u64> = HashSet::new();
    let mut finals: HashMap<String, usize> = HashMap::new();
    // Counts one report read; a final one is judged against what its session sent.
    let read = |report: &SessionReport<S::Snapshot>,
                ended: &mut HashSet<u64>,
                finals: &mut HashMap<String, usize>,
                outcome: &mut LoadOutcome| {
        outcome.reports_read += 1;
        if ended.contains(&report.session_id) {
            outcome.reports_after_end += 1;
        }
        if report.is_ended() {
            ended.insert(report.session_id);
            outcome.ended_reports += 1;
            judge(report, &expected, &check, finals, outcome);
        }
    };
    let deadline = start + plan.timeout;
    while finals.len() < expected.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        outcome.max_pending = outcome.max_pending.max(server.updates().len());
        let Ok(report) = server
            .updates()
            .recv_timeout(left.min(Duration::from_millis(200)))
        else {
            continue;
        };
        read(&report, &mut ended, &mut finals, &mut outcome);
        if !plan.consumer_delay_per_report.is_zero() {
            std::thread::sleep(plan.consumer_delay_per_report);
        }
    }
    outcome.wall = start.elapsed();
    for (program, _) in expected.iter().filter(|(p, _)| !finals.contains_key(*p)) {
        outcome.mismatches.push(format!(
            "{program}: no final report within {:?}",
            plan.timeout
        ));
    }
    for client in clients {
        if client.join().is_err() {
            outcome
                .mismatches
                .push("a client thread panicked".to_string());
        }
    }
    // Hostile sessions still ending are read too, so their ends are counted.
    while let Ok(report) = server.updates().recv_timeout(Duration::from_millis(300)) {
        read(&report, &mut ended, &mut finals, &mut outcome);
    }
    outcome.mismatches.sort();
    outcome
}

fn spawn_client(index: usize, body: impl FnOnce() + Send + 'static) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name(format!("load-client-{index}"))
        .stack_size(256 * 1024)
        .spawn(body)
        .expect("client thread starts")
}

/// Checks one final report against what its session sent (hostile ones are only counted).
fn judge<T, C>(
    report: &SessionReport<T>,
    expected: &HashMap<String, Expected>,
    check: &C,
    finals: &mut HashMap<String, usize>,
    outcome: &mut LoadOutcome,
) where
    C: Fn(&Expected, &T) -> Result<(), String>,
{
    let Some(program) = report.info.as_ref().map(|info| info.program.clone()) else {
        return;
    };
    let Some(want) = expected.get(&program) else {
        return;
    };
    let seen = finals.entry(program.clone()).or_default();
    *seen += 1;
    if *seen > 1 {
        outcome
            .mismatches
            .push(format!("{program}: {seen} final reports"));
        return;
    }
    match compare(want, report, check) {
        Ok(()) => outcome.exact += 1,
        Err(why) => outcome.mismatches.push(format!("{program}: {why}")),
    }
}

fn compare<T, C>(want: &Expected, report: &SessionReport<T>, check: &C) -> Result<(), String>
where
    C: Fn(&Expected, &T) -> Result<(), String>,
{
    if report.status != SessionStatus::Ended(want.end.clone()) {
        return Err(format!(
            "ended {:?}, expected {:?} (errors {:?})",
            report.status, want.end, report.errors
        ));
    }
    if !report.errors.is_empty() {
        return Err(format!("errors {:?}", report.errors));
    }
    let stats = &report.stats;
    let got = (stats.definitions, stats.events, report.threads.len());
    let wanted = (want.definitions, want.events, want.threads);
    if got != wanted {
        return Err(format!(
            "(definitions, events, threads) = {got:?}, expected {wanted:?}"
        ));
    }
    let sink = report.sink.as_ref().ok_or("no sink snapshot")?;
    check(want, sink)
}

/// The frames a well-formed session sends, and how it ends.
struct Script {
    program: String,
    messages: Vec<AgentMessage>,
    goodbye: bool,
}

fn well_formed_script(program: &str, rng: &mut SmallRng) -> (Script, Expected) {
    let methods = rng.gen_range(3..40u32);
    let threads = rng.gen_range(1..=4u64);
    let mut messages = vec![AgentMessage::DefineMethods(
        (0..methods)
            .map(|id| {
                method(
                    id,
                    &format!("pkg{}", id % 3),
                    &format!("C{}", id % 5),
                    &format!("m{id}"),
                )
            })
            .collect(),
    )];
    let mut calls_per_method = vec![0u64; methods as usize];
    let mut events = 0u64;
    // One clock for all threads, 1 µs a step: a session spans well under the 3 s window, so
    // the final snapshot's window holds every call.
    let mut now = 1_000u64;
    let mut used_threads = HashSet::new();
    for _ in 0..rng.gen_range(1..=30) {
        let thread_id = rng.gen_range(1..=threads);
        used_threads.insert(thread_id);
        let mut triples = Vec::new();
        for _ in 0..rng.gen_range(1..=6) {
            let depth = rng.gen_range(1..=6);
            let stack: Vec<u32> = (0..depth).map(|_| rng.gen_range(0..methods)).collect();
            for &method_id in &stack {
                now += 1_000;
                triples.push((now, method_id, EventKind::Enter));
                calls_per_method[method_id as usize] += 1;
            }
            for &method_id in stack.iter().rev() {
                now += 1_000;
                triples.push((now, method_id, EventKind::Exit));
            }
        }
        events += triples.len() as u64;
        messages.push(batch(thread_id, &triples));
    }
    let goodbye = rng.gen_bool(0.75);
    if goodbye {
        messages.push(AgentMessage::Goodbye { timestamp: now + 1 });
    }
    let want = Expected {
        program: program.to_string(),
        definitions: u64::from(methods),
        events,
        threads: used_threads.len(),
        calls_per_method,
        end: if goodbye {
            SessionEnd::Goodbye
        } else {
            SessionEnd::Disconnected
        },
    };
    let script = Script {
        program: program.to_string(),
        messages,
        goodbye,
    };
    (script, want)
}

impl Script {
    /// Connects, says Hello, sends everything with short random pauses, and ends.
    fn play(self, addr: SocketAddr, rng: &mut SmallRng) {
        let mut stream = TcpStream::connect(addr).expect("well-formed client connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        write_all(
            &mut stream,
            &frames(&[AgentMessage::Hello(hello("load", &self.program))]),
        );
        let mut payload = Vec::new();
        let answered = read_frame(&mut stream, &mut payload).expect("answer frame");
        assert!(answered, "{}: no answer to Hello", self.program);
        let answer = decode_viewer_message(&payload).expect("answer decodes");
        assert!(
            matches!(answer, ViewerMessage::Welcome { .. }),
            "{}: {answer:?}",
            self.program
        );
        for message in &self.messages {
            write_all(&mut stream, &frames(std::slice::from_ref(message)));
            if rng.gen_bool(0.3) {
                std::thread::sleep(Duration::from_millis(rng.gen_range(0..5)));
            }
        }
        if self.goodbye {
            // Wait for the server to close its side: the Goodbye was read.
            let _ = stream.shutdown(std::net::Shutdown::Write);
            let mut rest = Vec::new();
            let _ = stream.read_to_end(&mut rest);
        }
        // Otherwise the program just goes away (a clean close, no Goodbye).
    }
}

fn write_all(stream: &mut TcpStream, bytes: &[u8]) {
    stream.write_all(bytes).expect("well-formed client writes");
}

/// One hostile connection of kind `kind` (an index into [`HOSTILE_KINDS`]). Write errors are
/// expected (the server may close first) and ignored.
fn hostile_connection(addr: SocketAddr, kind: usize, rng: &mut SmallRng) {
    let Ok(mut stream) = TcpStream::connect(addr) else {
        return;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let hello_frame = frames(&[AgentMessage::Hello(hello("hostile", HOSTILE_KINDS[kind]))]);
    let send = |stream: &mut TcpStream, bytes: &[u8]| stream.write_all(bytes).is_ok();
    match HOSTILE_KINDS[kind] {
        "garbage" => {
            let mut bytes = vec![0u8; rng.gen_range(1..4096)];
            rng.fill_bytes(&mut bytes);
            send(&mut stream, &bytes);
        }
        "oversized length" => {
            send(&mut stream, &hello_frame);
            let mut bytes = u32::MAX.to_le_bytes().to_vec();
            bytes.extend_from_slice(&[0xAB; 64]);
            send(&mut stream, &bytes);
        }
        "wrong version" => {
            let wrong = AgentMessage::Hello(highrise_protocol::Hello {
                protocol_version: PROTOCOL_VERSION + 7,
                ..hello("hostile", "wrong version")
            });
            send(&mut stream, &frames(&[wrong]));
            let mut payload = Vec::new();
            let _ = read_frame(&mut stream, &mut payload);
        }
        "truncated frame" => {
            send(&mut stream, &hello_frame);
            let mut bytes = 1_000u32.to_le_bytes().to_vec();
            bytes.extend_from_slice(&[3; 10]);
            send(&mut stream, &bytes);
        }
        "reset" => {
            send(&mut stream, &hello_frame);
            send(
                &mut stream,
                &frames(&[
                    AgentMessage::DefineMethods(vec![method(0, "p", "C", "m")]),
                    batch(1, &[(10, 0, EventKind::Enter)]),
                ]),
            );
            std::thread::sleep(Duration::from_millis(rng.gen_range(0..20)));
            // SO_LINGER 0: closing sends a reset instead of a clean end.
            let _ = socket2::SockRef::from(&stream).set_linger(Some(Duration::ZERO));
        }
        "slow sender" => {
            for byte in &hello_frame {
                if !send(&mut stream, std::slice::from_ref(byte)) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        "lying count" => {
            send(&mut stream, &hello_frame);
            let AgentMessage::Events(honest) =
                batch(1, &[(10, 0, EventKind::Enter), (20, 0, EventKind::Exit)])
            else {
                return;
            };
            let lie = AgentMessage::Events(EventBatch {
                event_count: 1_000_000,
                ..honest
            });
            send(
                &mut stream,
                &frames(&[
                    AgentMessage::DefineMethods(vec![method(0, "p", "C", "m")]),
                    lie,
                ]),
            );
        }
        _ => {
            // Absurd nesting: a hundred thousand enters and never an exit.
            send(&mut stream, &hello_frame);
            send(
                &mut stream,
                &frames(&[AgentMessage::DefineMethods(vec![method(0, "p", "C", "m")])]),
            );
            let mut now = 0u64;
            for _ in 0..10 {
                let triples: Vec<_> = (0..10_000)
                    .map(|_| {
                        now += 1;
                        (now, 0, EventKind::Enter)
                    })
                    .collect();
                let mut bytes = Vec::new();
                let _ = write_frame(&mut bytes, &batch(7, &triples));
                if !send(&mut stream, &bytes) {
                    return;
                }
            }
        }
    }
}
