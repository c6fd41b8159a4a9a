//! The agent's clock: the CPU's time-stamp counter through `quanta` (calibrated to
//! nanoseconds once, at start), falling back to the OS monotonic clock where there is no
//! invariant TSC.
//!
//! Threads record raw counter values (one `rdtsc`); the sender converts them to nanoseconds
//! since the agent's clock zero, so the hot path never multiplies.

use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

pub(crate) type Clock = quanta::Clock;

/// The hot path's clock: `rdtsc` inline when quanta itself reads the TSC (so raw values and
/// quanta's calibration agree), quanta's raw read otherwise. quanta's own `raw()` is not
/// inlined across crates; calling it costs a few ns per event.
#[derive(Debug, Clone)]
pub(crate) struct FastClock {
    tsc: bool,
    clock: Clock,
}

impl FastClock {
    #[inline(always)]
    pub(crate) fn raw(&self) -> u64 {
        if self.tsc {
            tsc::read()
        } else {
            self.clock.raw()
        }
    }
}

/// Direct TSC reads.
#[allow(unsafe_code)]
mod tsc {
    /// True when the CPU has an invariant TSC and RDTSCP: exactly quanta's condition for
    /// reading the TSC (`quanta::detection::has_counter_support`).
    #[cfg(target_arch = "x86_64")]
    pub(super) fn available() -> bool {
        use core::arch::x86_64::__cpuid;
        // SAFETY: CPUID exists on every x86_64 CPU, has no side effects, and the extended
        // leaves are only read after checking the highest one supported.
        #[allow(unused_unsafe)]
        unsafe {
            if __cpuid(0x8000_0000).eax < 0x8000_0007 {
                return false;
            }
            let invariant_tsc = __cpuid(0x8000_0007).edx & (1 << 8) != 0;
            let rdtscp = __cpuid(0x8000_0001).edx & (1 << 27) != 0;
            invariant_tsc && rdtscp
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    pub(super) fn available() -> bool {
        false
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(super) fn read() -> u64 {
        // SAFETY: RDTSC has no preconditions on x86_64; it only reads the time-stamp counter.
        #[allow(unused_unsafe)]
        unsafe {
            core::arch::x86_64::_rdtsc()
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    pub(super) fn read() -> u64 {
        0
    }
}

/// The process's clock and its zero.
#[derive(Debug)]
pub(crate) struct GlobalClock {
    pub(crate) clock: Clock,
    /// What recording threads read.
    pub(crate) fast: FastClock,
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
        self.to_ns(self.fast.raw())
    }
}

static CLOCK: OnceLock<GlobalClock> = OnceLock::new();

/// The clock, calibrating it on first use (a few milliseconds, once per process).
pub(crate) fn start() -> &'static GlobalClock {
    CLOCK.get_or_init(|| {
        let clock = Clock::new();
        // Use the TSC directly only when quanta does too, which shows as its raw reading lying
        // between two TSC readings.
        let tsc = tsc::available() && {
            let before = tsc::read();
            let quanta_raw = clock.raw();
            let after = tsc::read();
            before <= quanta_raw && quanta_raw <= after
        };
        let fast = FastClock {
            tsc,
            clock: clock.clone(),
        };
        let zero_raw = clock.raw();
        let zero_unix_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| {
                u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
            });
        GlobalClock {
            clock,
            fast,
            zero_raw,
            zero_unix_ns,
        }
    })
}

/// The clock if the agent was ever started.
pub(crate) fn global() -> Option<&'static GlobalClock> {
    CLOCK.get()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_clock_reads_the_same_counter_as_quanta() {
        let global = start();
        for _ in 0..1000 {
            let before = global.fast.raw();
            let quanta_raw = global.clock.raw();
            let after = global.fast.raw();
            assert!(before <= quanta_raw && quanta_raw <= after);
            assert!(global.to_ns(before) <= global.to_ns(after));
        }
        // Nanoseconds, not ticks: 10 ms of sleep reads as roughly 10 ms.
        let start_ns = global.now_ns();
        std::thread::sleep(std::time::Duration::from_millis(10));
        let slept_ns = global.now_ns() - start_ns;
        assert!((9_000_000..1_000_000_000).contains(&slept_ns), "{slept_ns}");
    }
}
