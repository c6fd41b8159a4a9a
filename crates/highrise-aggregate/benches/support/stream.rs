//! The synthetic program shared by the benchmarks and `examples/throughput.rs` (see the
//! description at the top of `benches/aggregate.rs`).
#![allow(dead_code)]

use highrise_aggregate::Aggregator;
use highrise_protocol::{Event, EventKind};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub const THREADS: u64 = 8;
const BATCH_EVENTS: usize = 1024;
const MIN_DEPTH: usize = 5;
const MAX_DEPTH: usize = 50;

pub struct CallGraph {
    pub callees: Vec<[u32; 4]>,
}

impl CallGraph {
    pub fn new(methods: u32, rng: &mut SmallRng) -> Self {
        let callees = (0..methods)
            .map(|caller| {
                let near = |rng: &mut SmallRng| {
                    let offset = rng.gen_range(1..=256u32);
                    (caller + offset) % methods
                };
                [near(rng), near(rng), near(rng), rng.gen_range(0..methods)]
            })
            .collect();
        Self { callees }
    }
}

/// One thread's batches; its stack is empty at the end.
pub fn thread_stream(
    graph: &CallGraph,
    root: u32,
    events: usize,
    mean_gap_ns: u64,
    rng: &mut SmallRng,
) -> Vec<Vec<Event>> {
    let mut out = Vec::with_capacity(events + MAX_DEPTH);
    let mut stack: Vec<u32> = Vec::new();
    let mut t = 0u64;
    loop {
        let finishing = out.len() >= events;
        if finishing && stack.is_empty() {
            break;
        }
        let go_deeper = match stack.len() {
            0 => true,
            _ if finishing => false,
            depth if depth < MIN_DEPTH => true,
            depth if depth >= MAX_DEPTH => false,
            // Drift up and down between MIN_DEPTH and MAX_DEPTH.
            depth => rng.gen_bool(0.5 + 0.1 * (depth as f64 / 8.0).sin()),
        };
        t += rng.gen_range(0..=2 * mean_gap_ns);
        let (method_id, kind) = match stack.last() {
            None => (root, EventKind::Enter),
            Some(&caller) if go_deeper => (
                graph.callees[caller as usize][rng.gen_range(0..4)],
                EventKind::Enter,
            ),
            Some(&method) => (method, EventKind::Exit),
        };
        match kind {
            EventKind::Enter => stack.push(method_id),
            EventKind::Exit => {
                stack.pop();
            }
            EventKind::Memory => {}
        }
        out.push(Event {
            timestamp_ns: t,
            method_id,
            kind,
        });
    }
    out.chunks(BATCH_EVENTS).map(<[Event]>::to_vec).collect()
}

/// All threads' batches, interleaved round-robin, with the span of program time they cover.
pub struct Stream {
    pub batches: Vec<(u64, Vec<Event>)>,
    pub span_ns: u64,
    pub events: u64,
}

impl Stream {
    pub fn new(methods: u32, events_per_thread: usize, mean_gap_ns: u64, seed: u64) -> Self {
        let mut rng = SmallRng::seed_from_u64(seed);
        let graph = CallGraph::new(methods, &mut rng);
        let per_thread: Vec<Vec<Vec<Event>>> = (0..THREADS)
            .map(|thread| {
                let root = (thread as u32 * (methods / THREADS as u32)) % methods;
                thread_stream(&graph, root, events_per_thread, mean_gap_ns, &mut rng)
            })
            .collect();
        Self::interleave(per_thread)
    }

    /// A program whose threads repeat a pool of `transactions` recorded walks (each about
    /// `transaction_events` long, from a root of its own), picked at random: the call paths
    /// of a server's request handlers, bounded, rather than a walk that never repeats one.
    pub fn repeating(
        methods: u32,
        events_per_thread: usize,
        mean_gap_ns: u64,
        seed: u64,
        transactions: usize,
        transaction_events: usize,
    ) -> Self {
        let mut rng = SmallRng::seed_from_u64(seed);
        let graph = CallGraph::new(methods, &mut rng);
        let pool: Vec<Vec<Event>> = (0..transactions)
            .map(|_| {
                let root = rng.gen_range(0..methods);
                thread_stream(&graph, root, transaction_events, mean_gap_ns, &mut rng).concat()
            })
            .collect();
        let per_thread: Vec<Vec<Vec<Event>>> = (0..THREADS)
            .map(|_| {
                let mut events: Vec<Event> =
                    Vec::with_capacity(events_per_thread + 2 * transaction_events);
                let mut t = 0u64;
                while events.len() < events_per_thread {
                    let transaction = &pool[rng.gen_range(0..pool.len())];
                    events.extend(transaction.iter().map(|event| Event {
                        timestamp_ns: t + event.timestamp_ns,
                        ..*event
                    }));
                    t += transaction.last().map_or(0, |event| event.timestamp_ns) + mean_gap_ns;
                }
                events.chunks(BATCH_EVENTS).map(<[Event]>::to_vec).collect()
            })
            .collect();
        Self::interleave(per_thread)
    }

    /// Threads' batches, interleaved round-robin.
    fn interleave(per_thread: Vec<Vec<Vec<Event>>>) -> Self {
        let span_ns = per_thread
            .iter()
            .filter_map(|batches| batches.last()?.last().map(|e| e.timestamp_ns))
            .max()
            .unwrap_or(0)
            + 1;
        let mut batches = Vec::new();
        let longest = per_thread.iter().map(Vec::len).max().unwrap_or(0);
        for index in 0..longest {
            for (thread, thread_batches) in per_thread.iter().enumerate() {
                if let Some(batch) = thread_batches.get(index) {
                    batches.push((thread as u64 + 1, batch.clone()));
                }
            }
        }
        let events = batches.iter().map(|(_, b)| b.len() as u64).sum();
        Self {
            batches,
            span_ns,
            events,
        }
    }

    pub fn shift(&mut self) {
        for (_, batch) in &mut self.batches {
            for event in batch {
                event.timestamp_ns += self.span_ns;
            }
        }
    }

    pub fn apply(&self, aggregator: &mut Aggregator) {
        for (thread, batch) in &self.batches {
            aggregator.apply_events(*thread, batch);
        }
    }
}

pub fn define(aggregator: &mut Aggregator, methods: u32) {
    for id in 0..methods {
        aggregator.define_method(id, &format!("pkg{}.sub{}", id % 97, id % 13));
    }
}
