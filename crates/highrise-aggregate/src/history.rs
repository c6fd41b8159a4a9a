//! A session's recent past: snapshots kept at a steady program-time rate, in bounded
//! memory, so a consumer can go back to any kept moment ([`History::at`]), draw a method's
//! elevation over time ([`History::series`]) or the whole session's activity
//! ([`History::activity`]).
//!
//! Samples are stored as *keyframes* (every method with non-zero statistics) every
//! [`HistoryConfig::keyframe_every_ns`], with *deltas* (the methods whose statistics changed
//! since the previous sample) between them; a moment is rebuilt from its segment's keyframe and
//! the deltas up to it, exactly as it was. Memory is bounded twice: by the span kept
//! ([`HistoryConfig::span_ns`]) and by bytes ([`HistoryConfig::max_bytes`]); the oldest segment
//! goes first. Only the per-method statistics are kept: a rebuilt snapshot has no allocations,
//! calling-context tree or call edges (those are live only).

use std::collections::VecDeque;

use crate::snapshot::{MethodStats, Snapshot};
use crate::stats::AggregatorStats;

/// How much of the past a [`History`] keeps and how finely.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryConfig {
    /// How far back the history reaches (program time), at least, memory permitting.
    pub span_ns: u64,
    /// Least program time between two kept samples.
    pub sample_every_ns: u64,
    /// A keyframe at least this often (program time); deltas between.
    pub keyframe_every_ns: u64,
    /// Most bytes the samples may hold; beyond it the oldest segments go, whatever the span.
    pub max_bytes: usize,
}

impl Default for HistoryConfig {
    /// Ten minutes at 4 samples per second, a keyframe every 10 s, at most 256 MiB.
    fn default() -> Self {
        Self {
            span_ns: 600_000_000_000,
            sample_every_ns: 250_000_000,
            keyframe_every_ns: 10_000_000_000,
            max_bytes: 256 << 20,
        }
    }
}

/// One kept moment.
#[derive(Debug, Clone)]
struct Sample {
    now_ns: u64,
    window_ns: u64,
    bucket_ns: u64,
    method_count: u32,
    dropped_share: f32,
    /// Exclusive time of all methods on all threads over the window / L: threads busy in
    /// profiled code on average.
    busy_threads: f32,
    stats: AggregatorStats,
    keyframe: bool,
    /// Keyframe: every method with non-zero statistics; delta: every method whose statistics
    /// changed since the previous sample. Sorted by method id.
    entries: Box<[(u32, MethodStats)]>,
}

impl Sample {
    fn bytes(&self) -> usize {
        size_of::<Sample>() + self.entries.len() * size_of::<(u32, MethodStats)>()
    }

    /// The method's statistics if this sample lists it.
    fn entry(&self, method_id: u32) -> Option<MethodStats> {
        self.entries
            .binary_search_by_key(&method_id, |(id, _)| *id)
            .ok()
            .map(|index| self.entries[index].1)
    }
}

/// A session's kept past; see the module documentation.
#[derive(Debug, Clone, Default)]
pub struct History {
    config: HistoryConfig,
    samples: VecDeque<Sample>,
    /// The statistics as of the newest sample (what the next delta is taken against).
    last: Vec<MethodStats>,
    /// Bytes of all samples.
    bytes: usize,
    /// Bytes of the samples since (and with) the newest keyframe.
    segment_bytes: usize,
}

/// One point of [`History::activity`] or [`History::series`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistoryPoint<T> {
    pub now_ns: u64,
    pub value: T,
}

impl History {
    pub fn new(config: HistoryConfig) -> Self {
        Self {
            config,
            ..Self::default()
        }
    }

    pub fn config(&self) -> HistoryConfig {
        self.config
    }

    /// Keeps `snapshot` if it is at least [`HistoryConfig::sample_every_ns`] after the newest
    /// sample (or the first); returns whether it was kept. Cost: one pass over its methods.
    pub fn push(&mut self, snapshot: &Snapshot) -> bool {
        let now_ns = snapshot.now_ns;
        let newest_ns = self.samples.back().map(|newest| newest.now_ns);
        let keyframe_ns = self
            .samples
            .len()
            .checked_sub(1)
            .map(|newest| self.samples[self.segment_start(newest)].now_ns);
        if newest_ns.is_some_and(|newest_ns| {
            now_ns < newest_ns.saturating_add(self.config.sample_every_ns.max(1))
        }) {
            return false;
        }
        let methods = &snapshot.methods;
        let keyframe = keyframe_ns.is_none_or(|keyframe_ns| {
            now_ns >= keyframe_ns.saturating_add(self.config.keyframe_every_ns)
        }) || self.segment_bytes >= self.config.max_bytes / 8
            || methods.len() < self.last.len();
        let entries: Box<[(u32, MethodStats)]> = if keyframe {
            methods
                .iter()
                .enumerate()
                .filter(|(_, stats)| **stats != MethodStats::default())
                .map(|(id, stats)| (id as u32, *stats))
                .collect()
        } else {
            self.last.resize(methods.len(), MethodStats::default());
            methods
                .iter()
                .zip(&self.last)
                .enumerate()
                .filter(|(_, (now, before))| now != before)
                .map(|(id, (stats, _))| (id as u32, *stats))
                .collect()
        };
        self.last.clear();
        self.last.extend_from_slice(methods);
        let sample = Sample {
            now_ns,
            window_ns: snapshot.window_ns,
            bucket_ns: snapshot.bucket_ns,
            method_count: methods.len() as u32,
            dropped_share: snapshot.dropped_share,
            busy_threads: methods.iter().map(|m| m.summed_elevation).sum(),
            stats: snapshot.stats,
            keyframe,
            entries,
        };
        let bytes = sample.bytes();
        self.bytes += bytes;
        self.segment_bytes = if keyframe {
            bytes
        } else {
            self.segment_bytes + bytes
        };
        self.samples.push_back(sample);
        self.evict();
        true
    }

    /// The keyframe the sample at `index` is rebuilt from (the oldest kept sample is always
    /// one: eviction drops whole segments).
    fn segment_start(&self, index: usize) -> usize {
        (0..=index)
            .rev()
            .find(|&i| self.samples[i].keyframe)
            .unwrap_or(0)
    }

    /// Drops whole segments from the front while the rest still covers the span, or while
    /// over the byte budget (never the newest segment).
    fn evict(&mut self) {
        let Some(newest_ns) = self.samples.back().map(|s| s.now_ns) else {
            return;
        };
        loop {
            // The second segment's keyframe: where the history would start without the first.
            let Some(next) = self
                .samples
                .iter()
                .skip(1)
                .position(|sample| sample.keyframe)
                .map(|index| index + 1)
            else {
                return;
            };
            let covers_span =
                self.samples[next].now_ns <= newest_ns.saturating_sub(self.config.span_ns);
            if !covers_span && self.bytes <= self.config.max_bytes {
                return;
            }
            for sample in self.samples.drain(..next) {
                self.bytes -= sample.bytes();
            }
        }
    }

    /// Kept samples.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Program time of the oldest and newest kept samples.
    pub fn range_ns(&self) -> Option<(u64, u64)> {
        Some((self.samples.front()?.now_ns, self.samples.back()?.now_ns))
    }

    /// Heap bytes held (samples and the delta base).
    pub fn memory_bytes(&self) -> usize {
        self.bytes
            + self.samples.capacity() * size_of::<Sample>()
            + self.last.capacity() * size_of::<MethodStats>()
    }

    /// The index of the kept sample at or just before `time_ns` (the oldest if `time_ns` is
    /// before it).
    fn index_at(&self, time_ns: u64) -> Option<usize> {
        if self.samples.is_empty() {
            return None;
        }
        let after = self
            .samples
            .partition_point(|sample| sample.now_ns <= time_ns);
        Some(after.saturating_sub(1))
    }

    /// Program time of the kept sample [`History::at`] would rebuild for `time_ns`.
    pub fn sample_time_at(&self, time_ns: u64) -> Option<u64> {
        self.index_at(time_ns)
            .map(|index| self.samples[index].now_ns)
    }

    /// The snapshot of the kept moment at or just before `time_ns` (the oldest one if
    /// `time_ns` is earlier), rebuilt exactly: `now_ns`, window, methods, counters and dropped
    /// share as they were. Allocations, tree and edges are not kept (empty / `None`), and
    /// `changed_method_ids` is empty. Cost: the sample's segment.
    pub fn at(&self, time_ns: u64) -> Option<Snapshot> {
        let index = self.index_at(time_ns)?;
        let keyframe = self.segment_start(index);
        let sample = &self.samples[index];
        let mut methods = vec![MethodStats::default(); sample.method_count as usize];
        for kept in self.samples.range(keyframe..=index) {
            for &(method_id, stats) in kept.entries.iter() {
                if let Some(slot) = methods.get_mut(method_id as usize) {
                    *slot = stats;
                }
            }
        }
        Some(Snapshot {
            now_ns: sample.now_ns,
            window_ns: sample.window_ns,
            bucket_ns: sample.bucket_ns,
            methods,
            changed_method_ids: Vec::new(),
            stats: sample.stats,
            dropped_share: sample.dropped_share,
            ..Snapshot::default()
        })
    }

    /// Threads busy in profiled code (summed exclusive time / L) at each kept sample in
    /// `from_ns..=to_ns`, oldest first.
    pub fn activity(&self, from_ns: u64, to_ns: u64) -> Vec<HistoryPoint<f32>> {
        self.samples
            .iter()
            .filter(|sample| (from_ns..=to_ns).contains(&sample.now_ns))
            .map(|sample| HistoryPoint {
                now_ns: sample.now_ns,
                value: sample.busy_threads,
            })
            .collect()
    }

    /// Threads busy in profiled code at the kept sample [`History::at`] would rebuild for
    /// `time_ns`.
    pub fn busy_threads_at(&self, time_ns: u64) -> Option<f32> {
        self.index_at(time_ns)
            .map(|index| self.samples[index].busy_threads)
    }

    /// One method's statistics at each kept sample in `from_ns..=to_ns`, oldest first. Cost: a
    /// binary search per sample from the keyframe before `from_ns` on.
    pub fn series(
        &self,
        method_id: u32,
        from_ns: u64,
        to_ns: u64,
    ) -> Vec<HistoryPoint<MethodStats>> {
        let Some(first) = self.index_at(from_ns) else {
            return Vec::new();
        };
        let start = self.segment_start(first);
        let mut value = MethodStats::default();
        let mut points = Vec::new();
        for sample in self.samples.range(start..) {
            if sample.now_ns > to_ns {
                break;
            }
            match sample.entry(method_id) {
                Some(stats) => value = stats,
                // A keyframe lists every non-zero method: absent means zero.
                None if sample.keyframe => value = MethodStats::default(),
                None => {}
            }
            if (method_id as usize) >= sample.method_count as usize {
                value = MethodStats::default();
            }
            if sample.now_ns >= from_ns {
                points.push(HistoryPoint {
                    now_ns: sample.now_ns,
                    value,
                });
            }
        }
        points
    }
}
