//! Per-host clock skew. Spans are exported after they end, so on a host whose clock agrees with
//! ours every request's latest span end is at or before the moment it arrives. The smallest
//! lag (arrival − latest end) over the last minute of requests estimates the host's offset plus
//! its fastest export; it is corrected when it matters:
//! - a host **ahead** of ours (spans ending in our future, beyond a small tolerance) is moved
//!   back by that much;
//! - a host so far **behind** that its spans would miss the session's delay is moved forward.
//!
//! Lags between the two are export latency (batching), not skew, and are left alone. The
//! correction only changes when the estimate moves by more than a step, so a session's times
//! do not jitter.

use std::collections::VecDeque;

/// Requests remembered per host at most.
const MAX_SAMPLES: usize = 256;
/// How long a request's lag is remembered.
const WINDOW_NS: u64 = 60 * 1_000_000_000;
/// Spans "ending in the future" by less than this are rounding and network, not skew.
const AHEAD_TOLERANCE_NS: i64 = 50_000_000;
/// A correction changes only by more than this.
const STEP_NS: i64 = 100_000_000;

/// One host's clock, as far as its requests tell.
#[derive(Debug, Clone)]
pub struct SkewEstimator {
    /// (arrival, arrival − latest end) per request, oldest first.
    samples: VecDeque<(u64, i64)>,
    /// Lags beyond this mean the host is behind (half the session delay).
    behind_threshold_ns: i64,
    correction_ns: i64,
}

impl SkewEstimator {
    /// An estimator for sessions that run `delay_ns` behind.
    pub fn new(delay_ns: u64) -> Self {
        Self {
            samples: VecDeque::new(),
            behind_threshold_ns: i64::try_from(delay_ns / 2).unwrap_or(i64::MAX),
            correction_ns: 0,
        }
    }

    /// A request arrived at `received_unix_ns` (our clock) whose latest span ended at
    /// `latest_end_unix_ns` (the host's clock).
    pub fn observe(&mut self, received_unix_ns: u64, latest_end_unix_ns: u64) {
        let lag = i128::from(received_unix_ns) - i128::from(latest_end_unix_ns);
        let lag = lag.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
        while self
            .samples
            .front()
            .is_some_and(|&(at, _)| at + WINDOW_NS < received_unix_ns)
            || self.samples.len() >= MAX_SAMPLES
        {
            self.samples.pop_front();
        }
        self.samples.push_back((received_unix_ns, lag));
        let Some(min_lag) = self.samples.iter().map(|&(_, lag)| lag).min() else {
            return;
        };
        let wanted = if min_lag < -AHEAD_TOLERANCE_NS || min_lag > self.behind_threshold_ns {
            min_lag
        } else {
            0
        };
        if wanted.abs_diff(self.correction_ns) > STEP_NS.unsigned_abs()
            || (wanted == 0) != (self.correction_ns == 0)
        {
            self.correction_ns = wanted;
        }
    }

    /// Nanoseconds to add to this host's times to put them on our clock.
    pub fn correction_ns(&self) -> i64 {
        self.correction_ns
    }

    /// `unix_ns` on this host's clock, on ours.
    pub fn correct(&self, unix_ns: u64) -> u64 {
        unix_ns.saturating_add_signed(self.correction_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;
    const NOW: u64 = 1_700_000_000 * S;

    #[test]
    fn a_host_in_step_is_left_alone_even_when_it_exports_in_batches() {
        let mut skew = SkewEstimator::new(6 * S);
        for (i, lag_ms) in [5u64, 4_900, 1_200, 30, 2_500].into_iter().enumerate() {
            let at = NOW + i as u64 * 5 * S;
            skew.observe(at, at - lag_ms * 1_000_000);
        }
        assert_eq!(skew.correction_ns(), 0);
    }

    #[test]
    fn a_host_ahead_is_moved_back_and_one_far_behind_forward() {
        let mut ahead = SkewEstimator::new(6 * S);
        for i in 0..5 {
            let at = NOW + i * S;
            // Its spans end 2 s in our future (plus up to 1 s of batching).
            ahead.observe(at, at + 2 * S - (i % 2) * S);
        }
        assert_eq!(ahead.correction_ns(), -2_000_000_000);
        assert_eq!(ahead.correct(NOW + 2 * S), NOW);

        let mut behind = SkewEstimator::new(6 * S);
        for i in 0..5 {
            let at = NOW + i * S;
            behind.observe(at, at - 30 * S - (i % 3) * S);
        }
        assert_eq!(behind.correction_ns(), 30_000_000_000);
    }

    #[test]
    fn the_correction_moves_in_steps_not_jitter() {
        let mut skew = SkewEstimator::new(6 * S);
        skew.observe(NOW, NOW + 2 * S);
        assert_eq!(skew.correction_ns(), -2_000_000_000);
        // A request a little further ahead (by less than a step): unchanged.
        skew.observe(NOW + S, NOW + 3 * S + 50_000_000);
        assert_eq!(skew.correction_ns(), -2_000_000_000);
        skew.observe(NOW + 2 * S, NOW + 5 * S);
        assert_eq!(skew.correction_ns(), -3_000_000_000);
    }

    #[test]
    fn times_at_the_ends_of_the_range_do_not_overflow() {
        let mut skew = SkewEstimator::new(6 * S);
        skew.observe(100 * S, u64::MAX);
        skew.observe(100 * S, 0);
        skew.observe(u64::MAX, 0);
        assert_eq!(skew.correct(u64::MAX), u64::MAX);
        let _ = skew.correct(0);
    }
}
