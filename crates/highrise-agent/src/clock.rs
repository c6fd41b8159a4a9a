//! The agent's clock: the CPU's time-stamp counter through `quanta` (calibrated to
//! nanoseconds once, at start), falling back to the OS monotonic clock where there is no
//! invariant TSC.
//!
//! Threads record raw counter values (one `rdtsc`); the sender converts them to nanoseconds
//! since the agent's clock zero, so the hot path never multiplies.

use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

pub(crate) type Clock = quanta::Clock;

/// The process's clock and its zero.
#[derive(Debug)]
pub(crate) struct GlobalClock {
    pub(crate) clock: Clock,
    /// Raw reading at tick 0.
    pub(crate) zero_raw: u64,
    /// Wall-clock time of tick 0 (ns since the Unix epoch).
    pub(crate) zero_unix_ns: u64,
}

impl GlobalClock {
    /// Nanoseconds since the clock zero of a raw reading (0 for readings before it).
    #[inline]
    pub(crate) fn to_ns(&self, raw: u64) -> u64 {
        self.clock.delta_as_nanos(self.zero_raw, raw)
    }

    /// Nanoseconds since the clock zero, now.
    pub(crate) fn now_ns(&self) -> u64 {
        self.to_ns(self.clock.raw())
    }
}

static CLOCK: OnceLock<GlobalClock> = OnceLock::new();

/// The clock, calibrating it on first use (a few milliseconds, once per process).
pub(crate) fn start() -> &'static GlobalClock {
    CLOCK.get_or_init(|| {
        let clock = Clock::new();
        let zero_raw = clock.raw();
        let zero_unix_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| {
                u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
            });
        GlobalClock {
            clock,
            zero_raw,
            zero_unix_ns,
        }
    })
}

/// The clock if the agent was ever started.
pub(crate) fn global() -> Option<&'static GlobalClock> {
    CLOCK.get()
}
