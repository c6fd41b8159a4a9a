//! Starting and stopping the agent: [`init`], [`AgentBuilder`], [`AgentGuard`], the runtime
//! switch and the statistics.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Gates every enter: true while an agent runs and the runtime switch is on.
pub(crate) static ACTIVE: AtomicBool = AtomicBool::new(false);
/// True while an agent runs (whatever the switch): the tracing layer still records exits of
/// spans entered before the switch went off, so no frame is left open.
pub(crate) static RUNNING: AtomicBool = AtomicBool::new(false);
/// The runtime switch ([`set_enabled`]).
static ENABLED: AtomicBool = AtomicBool::new(true);
/// The running agent counts allocations ([`AgentBuilder::allocations`]).
static ALLOCATIONS: AtomicBool = AtomicBool::new(false);

/// Allocations are counted while events are recorded and the agent wants them.
fn update_counting() {
    #[cfg(feature = "enable")]
    crate::alloc::COUNTING.store(
        ACTIVE.load(Ordering::Relaxed) && ALLOCATIONS.load(Ordering::Relaxed),
        Ordering::Relaxed,
    );
}

#[cfg(feature = "enable")]
static AGENT: Mutex<Option<running::Running>> = Mutex::new(None);

#[cfg(feature = "enable")]
fn agent_slot() -> std::sync::MutexGuard<'static, Option<running::Running>> {
    match AGENT.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// True when events are being recorded now.
#[inline(always)]
pub(crate) fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// Settings of an agent; built with [`AgentBuilder`].
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) program: String,
    pub(crate) version_label: String,
    /// `None`: `HIGHRISE_ADDR`, else `127.0.0.1:7878`.
    pub(crate) addr: Option<String>,
    /// `None`: `HIGHRISE_TOKEN`, else no token.
    pub(crate) token: Option<String>,
    pub(crate) ring_capacity_events: usize,
    pub(crate) max_batch_events: usize,
    pub(crate) flush_interval: Duration,
    pub(crate) heartbeat_interval: Duration,
    pub(crate) reconnect_min: Duration,
    pub(crate) reconnect_max: Duration,
    pub(crate) shutdown_timeout: Duration,
    pub(crate) log_to_stderr: bool,
    /// Count allocations through [`crate::Allocator`] (when it is the global allocator).
    pub(crate) allocations: bool,
}

/// Configures and starts the agent. [`init`] is `AgentBuilder::new(program).start()` with
/// the defaults below.
///
/// ```no_run
/// let _agent = highrise_agent::AgentBuilder::new("tetris")
///     .version_label("v1.2")
///     .addr("127.0.0.1:7878")
///     .start()
///     .expect("no other agent is running in this process");
/// ```
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `start`"]
pub struct AgentBuilder {
    config: Config,
}

impl AgentBuilder {
    /// An agent for the program called `program` (shown by the viewer).
    pub fn new(program: impl Into<String>) -> Self {
        Self {
            config: Config {
                program: program.into(),
                version_label: String::new(),
                addr: None,
                token: None,
                ring_capacity_events: 1 << 15,
                max_batch_events: 4096,
                flush_interval: Duration::from_millis(10),
                heartbeat_interval: Duration::from_millis(250),
                reconnect_min: Duration::from_millis(50),
                reconnect_max: Duration::from_secs(2),
                shutdown_timeout: Duration::from_secs(3),
                log_to_stderr: true,
                allocations: std::env::var("HIGHRISE_ALLOC").map_or(true, |value| {
                    !matches!(value.as_str(), "off" | "0" | "false")
                }),
            },
        }
    }

    /// A version label (a git commit, `before`, `v2.1`); compare mode shows it. Default empty.
    pub fn version_label(mut self, label: impl Into<String>) -> Self {
        self.config.version_label = label.into();
        self
    }

    /// The viewer's address (`host:port`). Default: `HIGHRISE_ADDR`, else `127.0.0.1:7878`.
    pub fn addr(mut self, addr: impl Into<String>) -> Self {
        self.config.addr = Some(addr.into());
        self
    }

    /// The viewer's token, which a viewer listening beyond loopback (`--allow-remote`) asks of
    /// agents on other machines: it prints it at start (or was given one with `--token`).
    /// Default: `HIGHRISE_TOKEN`, else none. Agents on the viewer's machine need none.
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.config.token = Some(token.into());
        self
    }

    /// Events each thread can hold before the sender takes them (rounded up to a power of
    /// two, at least 64). Each event takes 16 bytes; default 32 768 (512 KiB per thread).
    /// A thread whose buffer is full drops events, counts them and resynchronises later.
    pub fn ring_capacity_events(mut self, events: usize) -> Self {
        self.config.ring_capacity_events = events;
        self
    }

    /// Most events per `Events` message. Default 4096.
    pub fn max_batch_events(mut self, events: usize) -> Self {
        self.config.max_batch_events = events.max(1);
        self
    }

    /// How often the sender collects events from idle threads. Default 10 ms (the viewer's
    /// event-to-screen goal is 50 ms).
    pub fn flush_interval(mut self, interval: Duration) -> Self {
        self.config.flush_interval = interval.max(Duration::from_micros(100));
        self
    }

    /// A heartbeat goes out after this long without events. Default 250 ms.
    pub fn heartbeat_interval(mut self, interval: Duration) -> Self {
        self.config.heartbeat_interval = interval;
        self
    }

    /// Reconnection delays: the first retry after `min`, doubling up to `max`. Default
    /// 50 ms .. 2 s.
    pub fn reconnect_backoff(mut self, min: Duration, max: Duration) -> Self {
        self.config.reconnect_min = min;
        self.config.reconnect_max = max.max(min);
        self
    }

    /// How long dropping the guard may wait for the last events to be written. Default 3 s.
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.config.shutdown_timeout = timeout;
        self
    }

    /// Whether the agent prints connection changes on stderr (one line each). Default on.
    pub fn log_to_stderr(mut self, on: bool) -> Self {
        self.config.log_to_stderr = on;
        self
    }

    /// Whether allocations are counted per method, when [`crate::Allocator`] is the program's
    /// global allocator (without it there is nothing to count). Default on, unless
    /// `HIGHRISE_ALLOC=off`.
    pub fn allocations(mut self, on: bool) -> Self {
        self.config.allocations = on;
        self
    }

    /// Starts the agent: returns at once; connecting happens in the background. Fails only if
    /// an agent already runs in this process or its thread cannot start.
    pub fn start(self) -> Result<AgentGuard, AgentError> {
        #[cfg(feature = "enable")]
        {
            running::start(self.config)
        }
        #[cfg(not(feature = "enable"))]
        {
            let _ = self.config;
            Ok(AgentGuard { owns_agent: false })
        }
    }
}

/// Why [`AgentBuilder::start`] failed.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// One agent per process; drop the first guard before starting another.
    #[error("a highrise agent is already running in this process")]
    AlreadyRunning,
    /// The sender thread could not be started.
    #[error("cannot start the highrise sender thread: {0}")]
    Spawn(#[from] std::io::Error),
}

/// Starts the agent for `program` with the defaults (see [`AgentBuilder`]) and returns the
/// guard that stops it. Never fails: if an agent already runs, prints why on stderr and
/// returns a guard that does nothing.
///
/// ```no_run
/// let _highrise = highrise_agent::init("my-program"); // first line of `main`
/// ```
pub fn init(program: &str) -> AgentGuard {
    match AgentBuilder::new(program).start() {
        Ok(guard) => guard,
        Err(error) => {
            eprintln!("highrise-agent: {error}");
            AgentGuard { owns_agent: false }
        }
    }
}

/// Keeps the agent running; dropping it writes what was recorded, says Goodbye to the viewer
/// and stops the sender (waiting at most the shutdown timeout).
#[derive(Debug)]
#[must_use = "the agent stops when the guard is dropped; bind it: `let _agent = ...`"]
pub struct AgentGuard {
    owns_agent: bool,
}

impl AgentGuard {
    /// Writes everything recorded so far to the viewer (if connected) and waits for it, at
    /// most `timeout`. True when the sender finished in time.
    pub fn flush(&self, timeout: Duration) -> bool {
        flush(timeout)
    }

    /// The agent's counters now.
    pub fn stats(&self) -> AgentStats {
        stats()
    }
}

impl Drop for AgentGuard {
    fn drop(&mut self) {
        #[cfg(feature = "enable")]
        if self.owns_agent {
            running::stop();
        }
    }
}

/// Writes everything recorded so far and waits (at most `timeout`); false when no agent runs
/// or the sender did not finish in time.
pub fn flush(timeout: Duration) -> bool {
    #[cfg(feature = "enable")]
    {
        running::flush(timeout)
    }
    #[cfg(not(feature = "enable"))]
    {
        let _ = timeout;
        false
    }
}

/// The runtime switch: off, enters are not recorded (≈ 1 ns per scope); spans and scopes open
/// when it goes off still record their exits, so the viewer's stacks stay whole.
pub fn set_enabled(enabled: bool) {
    ENABLED.store(enabled, Ordering::Relaxed);
    #[cfg(feature = "enable")]
    {
        let slot = agent_slot();
        ACTIVE.store(enabled && slot.is_some(), Ordering::Relaxed);
    }
    update_counting();
}

/// The runtime switch's position.
pub fn is_enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// What the agent did so far.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentStats {
    /// An agent is running.
    pub running: bool,
    /// Connected to a viewer now.
    pub connected: bool,
    /// The viewer's name for the current connection (from its Welcome).
    pub session_id: Option<u64>,
    /// Connections made so far (a reconnect counts again).
    pub connections: u64,
    /// Events written to the viewer.
    pub events_sent: u64,
    pub batches_sent: u64,
    /// Events lost (buffers full, viewer absent or gone); the viewer is told these totals.
    pub events_dropped: u64,
    /// Runs of lost events (one per buffer overflow or lost write).
    pub batches_dropped: u64,
    /// Methods defined so far.
    pub methods: u32,
    /// Threads the sender knows now.
    pub threads: u64,
    /// The last connection problem, if the agent is not connected.
    pub last_error: Option<String>,
}

impl AgentStats {
    pub(crate) const EMPTY: Self = Self {
        running: false,
        connected: false,
        session_id: None,
        connections: 0,
        events_sent: 0,
        batches_sent: 0,
        events_dropped: 0,
        batches_dropped: 0,
        methods: 0,
        threads: 0,
        last_error: None,
    };
}

impl Default for AgentStats {
    fn default() -> Self {
        Self::EMPTY
    }
}

/// The agent's counters now (updated by the sender every cycle, ~10 ms).
pub fn stats() -> AgentStats {
    #[cfg(feature = "enable")]
    {
        match crate::sender::STATS.lock() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
    #[cfg(not(feature = "enable"))]
    {
        AgentStats::EMPTY
    }
}

#[cfg(feature = "enable")]
mod running {
    use std::sync::atomic::Ordering;
    use std::sync::mpsc;
    use std::thread::JoinHandle;
    use std::time::Duration;

    use super::{
        agent_slot, update_counting, AgentError, AgentGuard, Config, ACTIVE, ALLOCATIONS, ENABLED,
        RUNNING,
    };
    use crate::sender::{Command, Sender};
    use crate::{clock, thread};

    #[derive(Debug)]
    pub(super) struct Running {
        commands: mpsc::Sender<Command>,
        thread: JoinHandle<()>,
        shutdown_timeout: Duration,
    }

    pub(super) fn start(config: Config) -> Result<AgentGuard, AgentError> {
        let mut slot = agent_slot();
        if slot.is_some() {
            return Err(AgentError::AlreadyRunning);
        }
        let clock = clock::start();
        thread::RING_CAPACITY.store(config.ring_capacity_events, Ordering::Relaxed);
        let (commands, receiver) = mpsc::channel();
        let shutdown_timeout = config.shutdown_timeout;
        let allocations = config.allocations;
        let sender = Sender::new(config, clock, receiver);
        let handle = std::thread::Builder::new()
            .name("highrise-agent".into())
            .spawn(move || sender.run())?;
        *slot = Some(Running {
            commands,
            thread: handle,
            shutdown_timeout,
        });
        RUNNING.store(true, Ordering::Relaxed);
        ACTIVE.store(ENABLED.load(Ordering::Relaxed), Ordering::Relaxed);
        ALLOCATIONS.store(allocations, Ordering::Relaxed);
        update_counting();
        Ok(AgentGuard { owns_agent: true })
    }

    pub(super) fn stop() {
        let Some(running) = agent_slot().take() else {
            return;
        };
        ACTIVE.store(false, Ordering::Relaxed);
        RUNNING.store(false, Ordering::Relaxed);
        update_counting();
        let (done, finished) = mpsc::channel();
        if running.commands.send(Command::Shutdown(done)).is_ok()
            && finished.recv_timeout(running.shutdown_timeout).is_ok()
        {
            let _ = running.thread.join();
        }
        // Otherwise the sender is stuck on a slow viewer: leave it; the process goes on.
    }

    pub(super) fn flush(timeout: Duration) -> bool {
        let commands = match agent_slot().as_ref() {
            Some(running) => running.commands.clone(),
            None => return false,
        };
        let (done, finished) = mpsc::channel();
        commands.send(Command::Flush(done)).is_ok() && finished.recv_timeout(timeout).is_ok()
    }
}
