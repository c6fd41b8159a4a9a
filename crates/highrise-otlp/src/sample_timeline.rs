//! [`SampleTimeline`]: one resource's OTLP profile samples ([`crate::profiles`] resolves them)
//! turned into a sampled session: each sample a `Resync` of its thread at its time, in time
//! order, once the session's horizon has passed it. A thread not sampled for [`GAP_PERIODS`]
//! periods was on nothing the sampler saw: its last sample ends after one period.

use std::collections::HashMap;
use std::sync::Arc;

use highrise_protocol::{AgentMessage, Measure, MeasureMode, MethodDef};

use crate::profiles::{FrameName, SampleIn, ThreadKey, DEFAULT_PERIOD_NS, GAP_PERIODS};

/// What a [`SampleTimeline`] did so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SampleCounts {
    /// Samples handed to [`SampleTimeline::add`].
    pub received: u64,
    /// Samples placed in the session.
    pub placed: u64,
    /// Samples that arrived after the session had passed their time.
    pub late: u64,
}

#[derive(Debug)]
struct ThreadState {
    /// The session's thread id.
    id: u64,
    name: String,
    started: bool,
    /// The time of its last placed sample, while that sample still holds.
    holding_since_unix_ns: Option<u64>,
}

#[derive(Debug)]
struct Pending {
    time_unix_ns: u64,
    thread: usize,
    stack: Arc<[u32]>,
}

/// One resource's samples on their way into a sampled session: held until the horizon (now −
/// the receivers' delay, so samples exported late still find their place), then placed in time
/// order as `Resync`s of their threads.
#[derive(Debug)]
pub struct SampleTimeline {
    zero_unix_ns: u64,
    /// Everything before this is placed; a sample before it is late.
    emitted_unix_ns: u64,
    period_ns: u64,
    measure_sent_period_ns: u64,
    frames: HashMap<Arc<FrameName>, u32>,
    buildings: HashMap<(String, String, String, Option<String>), u32>,
    new_methods: Vec<MethodDef>,
    threads: Vec<ThreadState>,
    thread_index: HashMap<Arc<ThreadKey>, usize>,
    pending: Vec<Pending>,
    counts: SampleCounts,
    latest_unix_ns: u64,
}

impl SampleTimeline {
    /// A timeline whose wire time 0 is `zero_unix_ns`.
    pub fn new(zero_unix_ns: u64) -> Self {
        Self {
            zero_unix_ns,
            emitted_unix_ns: zero_unix_ns,
            period_ns: DEFAULT_PERIOD_NS,
            measure_sent_period_ns: 0,
            frames: HashMap::new(),
            buildings: HashMap::new(),
            new_methods: Vec::new(),
            threads: Vec::new(),
            thread_index: HashMap::new(),
            pending: Vec::new(),
            counts: SampleCounts::default(),
            latest_unix_ns: zero_unix_ns,
        }
    }

    pub fn counts(&self) -> SampleCounts {
        self.counts
    }

    /// Everything up to here has been placed.
    pub fn emitted_unix_ns(&self) -> u64 {
        self.emitted_unix_ns
    }

    /// Nothing waits and no thread's sample still holds.
    pub fn is_idle(&self) -> bool {
        self.pending.is_empty()
            && self
                .threads
                .iter()
                .all(|thread| thread.holding_since_unix_ns.is_none())
    }

    /// The session's wire time of `unix_ns`.
    pub fn wire_time(&self, unix_ns: u64) -> u64 {
        unix_ns.saturating_sub(self.zero_unix_ns)
    }

    /// Takes a batch's samples (their times already corrected for the host's clock).
    pub fn add(&mut self, period_ns: u64, samples: Vec<SampleIn>) {
        self.period_ns = period_ns.max(1);
        // A stack shared by many samples is translated once.
        let mut stacks: HashMap<*const [Arc<FrameName>], Arc<[u32]>> = HashMap::new();
        for sample in samples {
            self.counts.received += 1;
            if sample.time_unix_ns < self.emitted_unix_ns {
                self.counts.late += 1;
                continue;
            }
            let stack = match stacks.get(&Arc::as_ptr(&sample.stack)) {
                Some(stack) => Arc::clone(stack),
                None => {
                    let ids: Arc<[u32]> = sample
                        .stack
                        .iter()
                        .map(|frame| self.method(frame))
                        .collect();
                    stacks.insert(Arc::as_ptr(&sample.stack), Arc::clone(&ids));
                    ids
                }
            };
            let thread = self.thread(&sample.thread);
            self.latest_unix_ns = self.latest_unix_ns.max(sample.time_unix_ns);
            self.pending.push(Pending {
                time_unix_ns: sample.time_unix_ns,
                thread,
                stack,
            });
        }
    }

    fn method(&mut self, frame: &Arc<FrameName>) -> u32 {
        if let Some(&id) = self.frames.get(frame) {
            return id;
        }
        let key = highrise_import::naming::frame_building(&frame.0, frame.1.as_deref());
        let next = self.buildings.len() as u32;
        let id = *self.buildings.entry(key).or_insert_with_key(|key| {
            self.new_methods
                .push(highrise_import::naming::building_definition(next, key));
            next
        });
        self.frames.insert(Arc::clone(frame), id);
        id
    }

    fn thread(&mut self, key: &Arc<ThreadKey>) -> usize {
        if let Some(&index) = self.thread_index.get(key) {
            return index;
        }
        let index = self.threads.len();
        self.threads.push(ThreadState {
            id: index as u64 + 1,
            name: key.display(),
            started: false,
            holding_since_unix_ns: None,
        });
        self.thread_index.insert(Arc::clone(key), index);
        index
    }

    /// Places what the horizon allows: every sample, and every end of a thread's last sample,
    /// up to `horizon_unix_ns` − (GAP_PERIODS − 1) periods (before that point, whether a
    /// thread's sample ends is known: the samples that would continue it are all in).
    pub fn advance(&mut self, horizon_unix_ns: u64) -> Vec<AgentMessage> {
        let gap_ns = GAP_PERIODS.saturating_mul(self.period_ns);
        let settled = horizon_unix_ns
            .saturating_sub(gap_ns.saturating_sub(self.period_ns))
            .max(self.emitted_unix_ns);
        // A session that starts at its first sample may have its horizon behind it at first.
        let horizon_unix_ns = horizon_unix_ns.max(settled);
        let mut messages = Vec::new();
        if self.measure_sent_period_ns != self.period_ns {
            self.measure_sent_period_ns = self.period_ns;
            messages.push(AgentMessage::Measure(Measure {
                mode: MeasureMode::Sampled,
                sample_period_us: (self.period_ns / 1000).clamp(1, u64::from(u32::MAX)) as u32,
                sampled_methods: 0,
            }));
        }
        for chunk in std::mem::take(&mut self.new_methods).chunks(4096) {
            messages.push(AgentMessage::DefineMethods(chunk.to_vec()));
        }
        self.pending
            .sort_by_key(|sample| (sample.time_unix_ns, sample.thread));
        let due = self
            .pending
            .partition_point(|sample| sample.time_unix_ns <= settled);
        let known = self
            .pending
            .partition_point(|sample| sample.time_unix_ns <= horizon_unix_ns);
        // Ends of held samples: a thread's next known sample more than a gap after its last
        // (or none known while the horizon is a gap past it) ends the last after one period.
        // (time, thread, None = an end | Some(pending index) = a sample)
        let mut placed: Vec<(u64, usize, Option<usize>)> = Vec::with_capacity(due + 8);
        let mut last: Vec<Option<u64>> = self
            .threads
            .iter()
            .map(|thread| thread.holding_since_unix_ns)
            .collect();
        for (index, sample) in self.pending[..known].iter().enumerate() {
            if let Some(previous) = last[sample.thread] {
                if sample.time_unix_ns.saturating_sub(previous) > gap_ns {
                    placed.push((previous + self.period_ns, sample.thread, None));
                }
            }
            last[sample.thread] = Some(sample.time_unix_ns);
            if index < due {
                placed.push((sample.time_unix_ns, sample.thread, Some(index)));
            }
        }
        for (thread, previous) in last.iter().enumerate() {
            if let Some(previous) = *previous {
                if previous.saturating_add(gap_ns) <= horizon_unix_ns {
                    placed.push((previous + self.period_ns, thread, None));
                }
            }
        }
        placed.retain(|&(time, _, _)| time <= settled);
        placed.sort_by_key(|&(time, thread, sample)| (time, thread, sample.is_some()));
        for (time_unix_ns, thread, sample) in placed {
            let timestamp = self.wire_time(time_unix_ns);
            let state = &mut self.threads[thread];
            if !state.started {
                state.started = true;
                messages.push(AgentMessage::ThreadStart {
                    thread_id: state.id,
                    name: state.name.clone(),
                    timestamp,
                });
            }
            let stack = match sample {
                Some(index) => {
                    state.holding_since_unix_ns = Some(time_unix_ns);
                    self.counts.placed += 1;
                    self.pending[index].stack.to_vec()
                }
                None => {
                    state.holding_since_unix_ns = None;
                    Vec::new()
                }
            };
            messages.push(AgentMessage::Resync {
                thread_id: state.id,
                timestamp,
                stack,
            });
        }
        self.pending.drain(..due);
        self.emitted_unix_ns = settled;
        messages.push(AgentMessage::Heartbeat {
            timestamp: self.wire_time(settled),
        });
        messages
    }

    /// Places everything left and ends every held sample; returns the messages and the
    /// session's end (wire time).
    pub fn finish(&mut self) -> (Vec<AgentMessage>, u64) {
        let horizon = self
            .latest_unix_ns
            .max(self.emitted_unix_ns)
            .saturating_add(GAP_PERIODS.saturating_mul(self.period_ns));
        let messages = self.advance(horizon);
        (messages, self.wire_time(self.emitted_unix_ns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(thread: &Arc<ThreadKey>, ms: u64, frames: &[&str]) -> SampleIn {
        SampleIn {
            thread: Arc::clone(thread),
            time_unix_ns: ms * 1_000_000,
            stack: frames
                .iter()
                .map(|name| Arc::new(((*name).to_owned(), Some("app.py".to_owned()))))
                .collect(),
        }
    }

    fn resyncs(messages: &[AgentMessage]) -> Vec<(u64, u64, usize)> {
        messages
            .iter()
            .filter_map(|message| match message {
                AgentMessage::Resync {
                    thread_id,
                    timestamp,
                    stack,
                } => Some((*thread_id, *timestamp / 1_000_000, stack.len())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn samples_are_placed_in_time_order_and_a_silent_thread_ends_after_one_period() {
        let a = Arc::new(ThreadKey {
            id: 1,
            name: "a".into(),
        });
        let b = Arc::new(ThreadKey {
            id: 2,
            name: "b".into(),
        });
        let mut timeline = SampleTimeline::new(0);
        // a at 0, 10, 20 then silent; b at 5 and 500 (a gap: ended at 15).
        timeline.add(
            10_000_000,
            vec![
                sample(&a, 20, &["main"]),
                sample(&b, 500, &["main", "wait"]),
                sample(&a, 0, &["main", "work"]),
                sample(&b, 5, &["main"]),
                sample(&a, 10, &["main", "work"]),
            ],
        );
        // Settled up to 590 − 90 = 500 ms.
        let messages = timeline.advance(590_000_000);
        assert!(matches!(
            messages[0],
            AgentMessage::Measure(Measure {
                mode: MeasureMode::Sampled,
                sample_period_us: 10_000,
                ..
            })
        ));
        assert!(matches!(&messages[1], AgentMessage::DefineMethods(defs) if defs.len() == 3));
        assert_eq!(
            resyncs(&messages),
            [
                (1, 0, 2),
                (2, 5, 1),
                (1, 10, 2),
                (2, 15, 0),
                (1, 20, 1),
                (1, 30, 0),
                (2, 500, 2),
            ]
        );
        assert_eq!(timeline.counts().placed, 5);
        // b's last sample holds: a later sample of b is within a gap of it.
        assert!(!timeline.is_idle());
        // Before the placed point: late.
        timeline.add(10_000_000, vec![sample(&a, 100, &["main"])]);
        assert_eq!(timeline.counts().late, 1);
        let (messages, end) = timeline.finish();
        assert_eq!(resyncs(&messages), [(2, 510, 0)]);
        assert!(end >= 510_000_000);
        assert!(timeline.is_idle());
    }

    #[test]
    fn every_sample_is_placed_when_the_session_starts_ahead_of_its_horizon() {
        let a = Arc::new(ThreadKey {
            id: 1,
            name: "a".into(),
        });
        // The session starts at its first sample, 2 s ahead of the horizon (now − delay).
        let zero = 10_000_000_000u64;
        let mut timeline = SampleTimeline::new(zero);
        let mut horizon = zero - 2_000_000_000;
        for batch in 0..5u64 {
            let at = |i: u64| (zero - 1_000_000_000) / 1_000_000 + 1000 + batch * 1000 + i * 10;
            timeline.add(
                10_000_000,
                (0..100).map(|i| sample(&a, at(i), &["f"])).collect(),
            );
            for _ in 0..50 {
                horizon += 20_000_000;
                timeline.advance(horizon);
            }
        }
        timeline.finish();
        assert_eq!(timeline.counts().placed, 500, "{:?}", timeline.counts());
    }

    #[test]
    fn a_sample_near_the_horizon_waits_until_its_thread_is_known_to_go_on_or_end() {
        let a = Arc::new(ThreadKey {
            id: 1,
            name: "a".into(),
        });
        let mut timeline = SampleTimeline::new(0);
        timeline.add(
            10_000_000,
            vec![sample(&a, 0, &["main"]), sample(&a, 50, &["main"])],
        );
        // Settled up to 100 − 90 = 10 ms: the sample at 50 waits.
        assert_eq!(resyncs(&timeline.advance(100_000_000)), [(1, 0, 1)]);
        timeline.add(10_000_000, vec![sample(&a, 60, &["main", "work"])]);
        assert_eq!(
            resyncs(&timeline.advance(200_000_000)),
            [(1, 50, 1), (1, 60, 2), (1, 70, 0)]
        );
        assert_eq!(timeline.counts().late, 0);
    }
}
