//! The background sender thread: the only code that touches the network.
//!
//! Every `flush_interval` (sooner while rings fill up) it drains every thread's ring, encodes
//! the records ([`crate::wire`]) and writes frames to the viewer. It owns the connection:
//! connects (Hello, reads the Welcome), re-announces everything on a new connection
//! (definitions, threads, each thread's current stack as a Resync), reconnects with backoff
//! after a failure, sends heartbeats while idle, reports drop totals, and says Goodbye at
//! shutdown.
//!
//! While there is no viewer it leaves live threads' rings alone: they are the bounded buffer,
//! and a thread whose ring fills drops (and counts) events and resynchronises later. Ended
//! threads' rings are discarded (and counted) so their memory goes back.

use std::io::{self, BufWriter, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use highrise_protocol::{
    decode_viewer_message, read_frame, write_frame, AgentMessage, ViewerMessage, DEFAULT_PORT,
};

use crate::agent::{AgentStats, Config};
use crate::clock::GlobalClock;
use crate::thread::{self, Ring, RINGS_GENERATION};
use crate::wire;
use crate::{alloc, callsite};

/// What the host side asks of the sender.
#[derive(Debug)]
pub(crate) enum Command {
    /// Drain and write everything recorded so far, then answer.
    Flush(std::sync::mpsc::Sender<()>),
    /// Drain, write, say Goodbye, close, answer, and end the thread.
    Shutdown(std::sync::mpsc::Sender<()>),
}

/// The sender's statistics, read by [`crate::stats`].
pub(crate) static STATS: Mutex<AgentStats> = Mutex::new(AgentStats::EMPTY);

/// How long connecting and reading the viewer's answer may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
const ANSWER_TIMEOUT: Duration = Duration::from_secs(2);
/// A viewer that accepts no bytes for this long is considered gone.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// The address the agent connects to: the builder's, else `HIGHRISE_ADDR`, else
/// `127.0.0.1:7878`.
pub(crate) fn target_addr(explicit: Option<&str>) -> String {
    explicit.map(str::to_string).unwrap_or_else(|| {
        std::env::var("HIGHRISE_ADDR")
            .ok()
            .filter(|addr| !addr.trim().is_empty())
            .unwrap_or_else(|| format!("127.0.0.1:{DEFAULT_PORT}"))
    })
}

/// The token the agent sends in its Hello: the builder's, else `HIGHRISE_TOKEN`, else none
/// (empty). Only a viewer listening beyond loopback asks for it, and only of agents on other
/// machines.
pub(crate) fn target_token(explicit: Option<&str>) -> String {
    explicit.map(str::to_string).unwrap_or_else(|| {
        std::env::var(highrise_protocol::TOKEN_ENV)
            .map(|token| token.trim().to_string())
            .unwrap_or_default()
    })
}

struct Connection {
    writer: BufWriter<TcpStream>,
    /// Method definitions sent on this connection (ids below this).
    defs_sent: u32,
    /// Class definitions sent on this connection (ids below this; 0: not even `(untyped)`).
    classes_sent: u32,
}

struct ThreadState {
    ring: Arc<Ring>,
    /// ThreadStart sent on the current connection.
    announced: bool,
    /// The viewer's idea of this thread's stack may be wrong: send a Resync before its next
    /// events (new connection, or events lost on the way).
    resync: bool,
    /// Records drained from the ring in the latest cycle: with the time since the cycle
    /// before, the rate the ring fills at.
    drained: usize,
}

/// The shortest wait between cycles while a ring fills fast.
const MIN_WAIT: Duration = Duration::from_micros(100);

pub(crate) struct Sender {
    config: Config,
    clock: &'static GlobalClock,
    commands: Receiver<Command>,
    connection: Option<Connection>,
    next_attempt: Instant,
    backoff: Duration,
    /// A connection failure was reported on stderr since the last success.
    failure_logged: bool,
    threads: Vec<ThreadState>,
    generation: u64,
    scratch: Vec<(u64, u64)>,
    /// Events and batches the sender itself lost (write failures, ended threads without viewer).
    sender_dropped: (u64, u64),
    /// Drops counted by rings that have since been retired.
    retired_dropped: (u64, u64),
    /// Totals last sent in a Dropped message on this connection.
    reported_dropped: (u64, u64),
    /// Memory counts (allocations, bytes, frees) dropped by rings since retired, and the
    /// totals last sent in a MemoryDropped message on this connection.
    retired_memory_dropped: [u64; 3],
    reported_memory_dropped: [u64; 3],
    last_events_at: Instant,
    last_heartbeat_at: Instant,
    /// Turned away for its token: never connects again (the token does not change while the
    /// program runs), not even for a final drain.
    gave_up: bool,
    /// When the latest cycle began, and how long after the one before.
    cycle_at: Instant,
    cycle_span: Duration,
    stats: AgentStats,
}

impl Sender {
    pub(crate) fn new(
        config: Config,
        clock: &'static GlobalClock,
        commands: Receiver<Command>,
    ) -> Self {
        let now = Instant::now();
        let backoff = config.reconnect_min;
        Self {
            config,
            clock,
            commands,
            connection: None,
            next_attempt: now,
            backoff,
            failure_logged: false,
            threads: Vec::new(),
            generation: u64::MAX,
            scratch: Vec::new(),
            sender_dropped: (0, 0),
            retired_dropped: (0, 0),
            reported_dropped: (0, 0),
            retired_memory_dropped: [0; 3],
            reported_memory_dropped: [0; 3],
            last_events_at: now,
            last_heartbeat_at: now,
            gave_up: false,
            cycle_at: now,
            cycle_span: Duration::ZERO,
            stats: AgentStats {
                running: true,
                ..AgentStats::EMPTY
            },
        }
    }

    /// The thread's body: cycles until told to shut down (or the host side is gone).
    pub(crate) fn run(mut self) {
        alloc::exclude_this_thread();
        let mut wait = Duration::ZERO;
        loop {
            match self.commands.recv_timeout(wait) {
                Ok(Command::Flush(done)) => {
                    self.cycle(false);
                    let _ = done.send(());
                }
                Ok(Command::Shutdown(done)) => {
                    self.finish();
                    let _ = done.send(());
                    return;
                }
                Err(RecvTimeoutError::Timeout) => self.cycle(false),
                Err(RecvTimeoutError::Disconnected) => {
                    self.finish();
                    return;
                }
            }
            wait = self.next_wait();
        }
    }

    /// Connected: the flush interval, or sooner so that no ring passes a quarter full at the
    /// rate it filled since the last cycle (one busy thread can make 100 M events/s; a
    /// fixed 10 ms wait let a 32 Ki-event ring overflow above 3 M events/s). Not connected:
    /// until the next connection attempt.
    fn next_wait(&self) -> Duration {
        if self.connection.is_none() {
            let until_attempt = self.next_attempt.saturating_duration_since(Instant::now());
            return until_attempt.min(self.config.flush_interval);
        }
        let span_s = self.cycle_span.as_secs_f64();
        let mut wait = self.config.flush_interval;
        for thread in &self.threads {
            let quarter = (thread.ring.capacity() / 4) as f64;
            let pending = thread.ring.pending() as f64;
            if pending >= quarter {
                return MIN_WAIT;
            }
            if thread.drained > 0 && span_s > 0.0 {
                let fill_per_s = thread.drained as f64 / span_s;
                wait = wait.min(Duration::from_secs_f64((quarter - pending) / fill_per_s));
            }
        }
        wait.max(MIN_WAIT)
    }

    fn cycle(&mut self, force_connect: bool) {
        // Threads that allocate without calling or returning write their counts out soon.
        alloc::FLUSH_EPOCH.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let now = Instant::now();
        self.cycle_span = now - self.cycle_at;
        self.cycle_at = now;
        self.refresh_threads();
        let may_connect = !self.gave_up && (force_connect || Instant::now() >= self.next_attempt);
        if self.connection.is_none() && may_connect {
            self.connect();
        }
        if self.connection.is_some() {
            if let Err(error) = self.send_pending() {
                self.lost_connection(&error);
            }
        } else {
            self.discard_ended_threads();
        }
        self.publish_stats();
    }

    /// Final drain, Goodbye, close.
    fn finish(&mut self) {
        self.cycle(true);
        if let Some(mut connection) = self.connection.take() {
            let goodbye = AgentMessage::Goodbye {
                timestamp: self.clock.now_ns(),
            };
            let result = write_frame(&mut connection.writer, &goodbye)
                .and_then(|()| connection.writer.flush());
            if let Ok(stream) = connection.writer.into_inner() {
                let _ = stream.shutdown(std::net::Shutdown::Both);
            }
            if let Err(error) = result {
                self.log(format_args!("could not say goodbye to the viewer: {error}"));
            }
        }
        self.stats.running = false;
        self.stats.connected = false;
        self.publish_stats();
    }

    fn refresh_threads(&mut self) {
        let generation = RINGS_GENERATION.load(std::sync::atomic::Ordering::Acquire);
        if generation == self.generation {
            return;
        }
        self.generation = generation;
        let rings = thread::rings();
        let mut old = std::mem::take(&mut self.threads);
        for ring in rings {
            match old.iter().position(|state| Arc::ptr_eq(&state.ring, &ring)) {
                Some(index) => self.threads.push(old.swap_remove(index)),
                None => self.threads.push(ThreadState {
                    ring,
                    announced: false,
                    // A thread that appears with a non-empty stack (its ring outlived an
                    // earlier agent session) is resynchronised; a new one has nothing to say.
                    resync: true,
                    drained: 0,
                }),
            }
        }
    }

    fn log(&self, message: std::fmt::Arguments<'_>) {
        if self.config.log_to_stderr {
            eprintln!("highrise-agent: {message}");
        }
    }

    fn connect(&mut self) {
        let addr = target_addr(self.config.addr.as_deref());
        match open(&addr, &self.config, self.clock) {
            Ok((stream, session_id)) => {
                self.log(format_args!(
                    "connected to the viewer at {addr} (session {session_id})"
                ));
                self.connection = Some(Connection {
                    writer: BufWriter::with_capacity(256 * 1024, stream),
                    defs_sent: 0,
                    classes_sent: 0,
                });
                for thread in &mut self.threads {
                    thread.announced = false;
                    thread.resync = true;
                }
                self.reported_dropped = (0, 0);
                self.reported_memory_dropped = [0; 3];
                self.backoff = self.config.reconnect_min;
                self.failure_logged = false;
                self.stats.connected = true;
                self.stats.connections += 1;
                self.stats.session_id = Some(session_id);
                self.stats.last_error = None;
            }
            Err(error) if error.kind() == io::ErrorKind::PermissionDenied => {
                self.log(format_args!(
                    "{error} (viewer at {addr}); not retrying: give the agent the viewer's token \
                     (HIGHRISE_TOKEN); the program runs on without profiling"
                ));
                self.failure_logged = true;
                self.stats.last_error = Some(format!("{addr}: {error}"));
                self.gave_up = true;
            }
            Err(error) => {
                if !self.failure_logged {
                    self.log(format_args!(
                        "no viewer at {addr} ({error}); recording into bounded buffers and retrying in the background"
                    ));
                    self.failure_logged = true;
                }
                self.stats.last_error = Some(format!("{addr}: {error}"));
                self.next_attempt = Instant::now() + self.backoff;
                self.backoff = (self.backoff * 2).min(self.config.reconnect_max);
            }
        }
    }

    fn lost_connection(&mut self, error: &io::Error) {
        self.log(format_args!("lost the viewer ({error}); reconnecting"));
        self.connection = None;
        self.stats.connected = false;
        self.stats.session_id = None;
        self.stats.last_error = Some(error.to_string());
        self.next_attempt = Instant::now() + self.backoff;
        self.failure_logged = true;
    }

    /// Without a viewer: forget ended threads (their events are counted as dropped).
    fn discard_ended_threads(&mut self) {
        let mut index = 0;
        while index < self.threads.len() {
            let ring = Arc::clone(&self.threads[index].ring);
            if ring.ended_at().is_none() {
                index += 1;
                continue;
            }
            self.scratch.clear();
            ring.drain_into(&mut self.scratch);
            let events = wire::count_events(&self.scratch);
            if events > 0 {
                self.sender_dropped.0 += events;
                self.sender_dropped.1 += 1;
            }
            self.retire(index);
        }
    }

    fn retire(&mut self, index: usize) {
        let state = self.threads.swap_remove(index);
        let (events, batches) = state.ring.drops();
        self.retired_dropped.0 += events;
        self.retired_dropped.1 += batches;
        for (total, dropped) in self
            .retired_memory_dropped
            .iter_mut()
            .zip(state.ring.memory_drops())
        {
            *total += dropped;
        }
        // The next refresh re-reads the list: another thread may have registered since the
        // last one, so the generation must not be taken as seen here.
        thread::retire(&state.ring);
    }

    fn dropped_totals(&self) -> (u64, u64) {
        let mut totals = (
            self.sender_dropped.0 + self.retired_dropped.0,
            self.sender_dropped.1 + self.retired_dropped.1,
        );
        for thread in &self.threads {
            let (events, batches) = thread.ring.drops();
            totals.0 += events;
            totals.1 += batches;
        }
        totals
    }

    /// Drains every ring and writes everything; any I/O error ends the connection.
    fn send_pending(&mut self) -> io::Result<()> {
        let Some(connection) = self.connection.as_mut() else {
            return Ok(());
        };
        let clock = self.clock;
        let max_batch_events = self.config.max_batch_events;
        let allocations = self.config.allocations;
        let mut wrote_events = false;
        let mut ended = Vec::new();
        let mut failure: Option<io::Error> = None;
        let mut lost = (0u64, 0u64);
        for (index, state) in self.threads.iter_mut().enumerate() {
            let ring = &state.ring;
            // Read "ended" before draining: everything the thread recorded precedes it.
            let ended_at = ring.ended_at();
            self.scratch.clear();
            ring.drain_into(&mut self.scratch);
            state.drained = self.scratch.len();
            if failure.is_some() {
                lost.0 += self.scratch.len() as u64;
                lost.1 += u64::from(!self.scratch.is_empty());
                continue;
            }
            let result = (|| -> io::Result<()> {
                send_definitions(connection, allocations)?;
                if !state.announced {
                    write_frame(
                        &mut connection.writer,
                        &AgentMessage::ThreadStart {
                            thread_id: ring.thread_id,
                            name: ring.name.clone(),
                            timestamp: clock.to_ns(ring.start_raw),
                        },
                    )?;
                    state.announced = true;
                }
                let mut shadow = ring.lock_shadow();
                if state.resync {
                    let (events_dropped, _) = ring.drops();
                    if !shadow.stack.is_empty() || events_dropped > 0 {
                        write_frame(
                            &mut connection.writer,
                            &AgentMessage::Resync {
                                thread_id: ring.thread_id,
                                timestamp: shadow.last_ns,
                                stack: shadow.stack.clone(),
                            },
                        )?;
                    }
                    state.resync = false;
                }
                let mut write_error = None;
                let mut emit = |message: AgentMessage| {
                    if write_error.is_some() {
                        if let AgentMessage::Events(batch) = &message {
                            lost.0 += u64::from(batch.event_count);
                            lost.1 += 1;
                        }
                        return;
                    }
                    if let Err(error) = write_frame(&mut connection.writer, &message) {
                        if let AgentMessage::Events(batch) = &message {
                            lost.0 += u64::from(batch.event_count);
                            lost.1 += 1;
                        }
                        write_error = Some(error);
                    }
                };
                let events = wire::encode_records(
                    ring.thread_id,
                    &self.scratch,
                    |raw| clock.to_ns(raw),
                    &mut shadow,
                    max_batch_events,
                    &mut emit,
                );
                if let Some(error) = write_error {
                    return Err(error);
                }
                if events > 0 {
                    wrote_events = true;
                    self.stats.events_sent += events;
                    self.stats.batches_sent += events.div_ceil(max_batch_events as u64);
                }
                if let Some(end_raw) = ended_at {
                    write_frame(
                        &mut connection.writer,
                        &AgentMessage::ThreadEnd {
                            thread_id: ring.thread_id,
                            timestamp: clock.to_ns(end_raw).max(shadow.last_ns),
                        },
                    )?;
                    ended.push(index);
                }
                Ok(())
            })();
            if let Err(error) = result {
                failure = Some(error);
            }
        }
        self.sender_dropped.0 += lost.0;
        self.sender_dropped.1 += lost.1;
        if let Some(error) = failure {
            return Err(error);
        }
        for index in ended.into_iter().rev() {
            self.retire(index);
        }
        let totals = self.dropped_totals();
        let Some(connection) = self.connection.as_mut() else {
            return Ok(());
        };
        if totals != self.reported_dropped {
            write_frame(
                &mut connection.writer,
                &AgentMessage::Dropped {
                    events_dropped: totals.0,
                    batches_dropped: totals.1,
                },
            )?;
            self.reported_dropped = totals;
        }
        let mut memory_totals = self.retired_memory_dropped;
        for thread in &self.threads {
            for (total, dropped) in memory_totals.iter_mut().zip(thread.ring.memory_drops()) {
                *total += dropped;
            }
        }
        if memory_totals != self.reported_memory_dropped {
            write_frame(
                &mut connection.writer,
                &AgentMessage::MemoryDropped {
                    allocations_dropped: memory_totals[0],
                    bytes_dropped: memory_totals[1],
                    frees_dropped: memory_totals[2],
                },
            )?;
            self.reported_memory_dropped = memory_totals;
        }
        let now = Instant::now();
        if wrote_events {
            self.last_events_at = now;
        } else if now.duration_since(self.last_events_at) >= self.config.heartbeat_interval
            && now.duration_since(self.last_heartbeat_at) >= self.config.heartbeat_interval
        {
            send_definitions(connection, allocations)?;
            write_frame(
                &mut connection.writer,
                &AgentMessage::Heartbeat {
                    timestamp: clock.now_ns(),
                },
            )?;
            self.last_heartbeat_at = now;
        }
        connection.writer.flush()
    }

    fn publish_stats(&mut self) {
        let (events, batches) = self.dropped_totals();
        self.stats.events_dropped = events;
        self.stats.batches_dropped = batches;
        self.stats.methods = callsite::method_count();
        self.stats.threads = self.threads.len() as u64;
        let mut shared = match STATS.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        *shared = self.stats.clone();
    }
}

/// Sends the definitions registered since the last ones this connection got (and the one
/// class of memory records, once, when the agent counts allocations).
fn send_definitions(connection: &mut Connection, allocations: bool) -> io::Result<()> {
    if allocations {
        let mut classes = Vec::new();
        if connection.classes_sent == 0 {
            classes.push(wire::untyped_class());
        }
        for (id, name) in alloc::classes_from(connection.classes_sent.max(1)) {
            classes.push(wire::typed_class(id, name));
        }
        if let Some(last) = classes.last() {
            connection.classes_sent = last.id + 1;
            write_frame(
                &mut connection.writer,
                &AgentMessage::DefineClasses(classes),
            )?;
        }
    }
    let count = callsite::method_count();
    if count <= connection.defs_sent {
        return Ok(());
    }
    let definitions: Vec<_> = callsite::methods_from(connection.defs_sent)
        .iter()
        .map(|(id, info)| wire::method_def(*id, info))
        .collect();
    // Split so no frame comes near the protocol's 4 MiB limit.
    for chunk in definitions.chunks(4096) {
        write_frame(
            &mut connection.writer,
            &AgentMessage::DefineMethods(chunk.to_vec()),
        )?;
    }
    connection.defs_sent += definitions.len() as u32;
    Ok(())
}

/// Connects, says Hello and reads the viewer's answer.
fn open(addr: &str, config: &Config, clock: &GlobalClock) -> io::Result<(TcpStream, u64)> {
    let candidates: Vec<SocketAddr> = addr.to_socket_addrs()?.collect();
    let mut last_error = io::Error::new(io::ErrorKind::NotFound, "address resolves to nothing");
    for candidate in candidates {
        match TcpStream::connect_timeout(&candidate, CONNECT_TIMEOUT) {
            Ok(mut stream) => {
                stream.set_nodelay(true)?;
                stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
                stream.set_read_timeout(Some(ANSWER_TIMEOUT))?;
                let hello = wire::hello(
                    wire::AGENT_NAME,
                    &config.program,
                    &config.version_label,
                    std::process::id(),
                    clock.zero_unix_ns,
                );
                let token = target_token(config.token.as_deref());
                let frame = wire::hello_frame(&hello, &token)
                    .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?;
                stream.write_all(&frame)?;
                let session_id = read_answer(&mut stream)?;
                return Ok((stream, session_id));
            }
            Err(error) => last_error = error,
        }
    }
    Err(last_error)
}

/// Reads the viewer's one answer to the Hello (a frame): the session id of a `Welcome`, else
/// why not (a `Reject`'s reason, a closed connection, bytes that are no answer).
pub fn read_answer(input: &mut impl Read) -> io::Result<u64> {
    let mut payload = Vec::new();
    let answered =
        read_frame(input, &mut payload).map_err(|error| io::Error::other(error.to_string()))?;
    if !answered {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the viewer closed the connection without answering",
        ));
    }
    match decode_viewer_message(&payload) {
        Ok(ViewerMessage::Welcome { session_id, .. }) => Ok(session_id),
        // A wrong or missing token will not get better by retrying: the sender gives up.
        Ok(ViewerMessage::Reject { reason, .. })
            if reason.starts_with(highrise_protocol::REJECT_UNAUTHORIZED) =>
        {
            Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("the viewer refused this agent's token: {reason}"),
            ))
        }
        Ok(ViewerMessage::Reject { reason, .. }) => Err(io::Error::new(
            io::ErrorKind::ConnectionRefused,
            format!("the viewer refused this agent: {reason}"),
        )),
        Err(error) => Err(io::Error::new(io::ErrorKind::InvalidData, error)),
    }
}
