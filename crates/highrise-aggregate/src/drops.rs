//! The share of events the agent dropped over about the last window: a short history of the
//! session's event and drop totals, one sample per bucket.

use std::collections::VecDeque;

/// Running totals at one moment of the session's clock.
#[derive(Debug, Clone, Copy, Default)]
struct DropSample {
    now_ns: u64,
    events: u64,
    events_dropped: u64,
}

/// Totals sampled at most once per bucket, kept for one window (plus the sample just before
/// it, the baseline). At most about 130 samples; no allocation once warm.
#[derive(Debug, Clone, Default)]
pub(crate) struct DropHistory {
    samples: VecDeque<DropSample>,
    /// The agent's latest running total of dropped events.
    pub events_dropped: u64,
}

impl DropHistory {
    /// Notes the totals at `now_ns`: a sample younger than one bucket is updated in place,
    /// otherwise a new one is added; samples before the window's baseline are forgotten.
    pub(crate) fn sample(&mut self, now_ns: u64, events: u64, window_ns: u64, bucket_ns: u64) {
        let totals = DropSample {
            now_ns,
            events,
            events_dropped: self.events_dropped,
        };
        match self.samples.back_mut() {
            // Keep the sample's time (its bucket), take the newer totals.
            Some(last) if now_ns < last.now_ns.saturating_add(bucket_ns) => {
                last.events = events;
                last.events_dropped = self.events_dropped;
            }
            _ => self.samples.push_back(totals),
        }
        let window_start_ns = now_ns.saturating_sub(window_ns);
        while self.samples.len() >= 2 && self.samples[1].now_ns <= window_start_ns {
            self.samples.pop_front();
        }
    }

    /// Dropped events over the window as a share of the events the agent produced in it
    /// (received plus dropped), from the samples so far; 0 when nothing happened. A session
    /// younger than the window counts from its start.
    pub(crate) fn share(&self, now_ns: u64, window_ns: u64) -> f32 {
        let Some(latest) = self.samples.back() else {
            return 0.0;
        };
        let window_start_ns = now_ns.saturating_sub(window_ns);
        let baseline = match self.samples.front() {
            Some(first) if first.now_ns <= window_start_ns => *first,
            _ => DropSample::default(),
        };
        let dropped = latest
            .events_dropped
            .saturating_sub(baseline.events_dropped);
        let received = latest.events.saturating_sub(baseline.events);
        if dropped == 0 {
            return 0.0;
        }
        (dropped as f64 / (dropped as f64 + received as f64)) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn the_share_counts_only_the_window() {
        let (window_ns, bucket_ns) = (3_000 * MS, 32 * MS);
        // 0..1 s: 1,000 events received, 1,000 dropped.
        let mut history = DropHistory {
            events_dropped: 1_000,
            ..DropHistory::default()
        };
        history.sample(1_000 * MS, 1_000, window_ns, bucket_ns);
        assert!((history.share(1_000 * MS, window_ns) - 0.5).abs() < 1e-6);
        // 1..5 s: 3,000 more received, none dropped. At 5 s the window is 2..5 s.
        for step in 1..=40 {
            let now_ns = 1_000 * MS + step * 100 * MS;
            history.sample(now_ns, 1_000 + step * 75, window_ns, bucket_ns);
        }
        assert_eq!(history.share(5_000 * MS, window_ns), 0.0);
        // A new loss at 5 s: 900 dropped against the window's 2,250 received.
        history.events_dropped = 1_900;
        history.sample(5_010 * MS, 4_000, window_ns, bucket_ns);
        let share = history.share(5_010 * MS, window_ns);
        let expected = 900.0 / (900.0 + 2_250.0);
        assert!((share - expected).abs() < 0.02, "{share} vs {expected}");
    }

    #[test]
    fn samples_stay_bounded_whatever_the_rate() {
        let mut history = DropHistory::default();
        for step in 0..100_000u64 {
            history.events_dropped = step;
            history.sample(step * MS, step * 10, 3_000 * MS, 32 * MS);
        }
        assert!(history.samples.len() <= 100, "{}", history.samples.len());
    }
}
