//! What the receivers and the bridge did, for status lines and tests.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::sample_timeline::SampleCounts;
use crate::timeline::TimelineCounts;

/// Running totals, shared by the receivers and the bridge.
#[derive(Debug, Default)]
pub struct OtlpStats {
    requests: AtomicU64,
    refused_requests: AtomicU64,
    spans_received: AtomicU64,
    spans_rejected: AtomicU64,
    spans_placed: AtomicU64,
    spans_late: AtomicU64,
    spans_refused: AtomicU64,
    samples_received: AtomicU64,
    samples_rejected: AtomicU64,
    samples_placed: AtomicU64,
    samples_late: AtomicU64,
}

/// A copy of [`OtlpStats`] at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OtlpCounts {
    /// Export requests answered (gRPC and HTTP), refused ones included.
    pub requests: u64,
    /// Requests refused whole: malformed, unauthorized, too large, unsupported, or the bridge
    /// behind (the exporter retries those).
    pub refused_requests: u64,
    /// Valid spans taken.
    pub spans_received: u64,
    /// Spans rejected as invalid (no end, bad ids), told to the exporter as partial success.
    pub spans_rejected: u64,
    /// Spans placed in a city as an enter and an exit.
    pub spans_placed: u64,
    /// Spans that arrived after the session's horizon had passed their start.
    pub spans_late: u64,
    /// Spans that could not be placed otherwise (clock far ahead, no session).
    pub spans_refused: u64,
    /// Profile samples taken (each timestamp of a sample, or each count of an aggregated one).
    pub samples_received: u64,
    /// Profile samples not read (bad references, allocation profiles).
    pub samples_rejected: u64,
    /// Profile samples placed in a city.
    pub samples_placed: u64,
    /// Profile samples that arrived after their session had passed their time.
    pub samples_late: u64,
}

impl OtlpStats {
    pub fn counts(&self) -> OtlpCounts {
        let get = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        OtlpCounts {
            requests: get(&self.requests),
            refused_requests: get(&self.refused_requests),
            spans_received: get(&self.spans_received),
            spans_rejected: get(&self.spans_rejected),
            spans_placed: get(&self.spans_placed),
            spans_late: get(&self.spans_late),
            spans_refused: get(&self.spans_refused),
            samples_received: get(&self.samples_received),
            samples_rejected: get(&self.samples_rejected),
            samples_placed: get(&self.samples_placed),
            samples_late: get(&self.samples_late),
        }
    }

    pub(crate) fn count_request(&self, spans: u64, rejected: u64) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.spans_received.fetch_add(spans, Ordering::Relaxed);
        self.spans_rejected.fetch_add(rejected, Ordering::Relaxed);
    }

    pub(crate) fn count_profiles_request(&self, samples: u64, rejected: u64) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.samples_received.fetch_add(samples, Ordering::Relaxed);
        self.samples_rejected.fetch_add(rejected, Ordering::Relaxed);
    }

    /// A session's samples went from `before` to `after`.
    pub(crate) fn count_samples(&self, before: &SampleCounts, after: &SampleCounts) {
        self.samples_placed
            .fetch_add(after.placed - before.placed, Ordering::Relaxed);
        self.samples_late
            .fetch_add(after.late - before.late, Ordering::Relaxed);
    }

    pub(crate) fn count_refused_request(&self) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.refused_requests.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn count_unplaced(&self, spans: u64) {
        self.spans_refused.fetch_add(spans, Ordering::Relaxed);
    }

    /// A session's timeline went from `before` to `after`.
    pub(crate) fn count_progress(&self, before: &TimelineCounts, after: &TimelineCounts) {
        self.spans_placed
            .fetch_add(after.placed - before.placed, Ordering::Relaxed);
        self.spans_late
            .fetch_add(after.late - before.late, Ordering::Relaxed);
        self.spans_refused
            .fetch_add(after.refused - before.refused, Ordering::Relaxed);
    }
}
