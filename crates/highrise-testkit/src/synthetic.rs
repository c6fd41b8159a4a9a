//! A seeded, realistic synthetic event stream: nested call trees on several threads, method
//! popularity skewed (Zipf-like: a few hot methods, a long tail), self time between events
//! log-uniform from 20 ns to 20 µs. Used by the protocol's size test and decode benchmark and by
//! the ingest socket benchmark.

use highrise_protocol::{EventBatch, EventKind, PackedEventWriter};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

#[derive(Debug, Clone, Copy)]
pub struct StreamShape {
    pub threads: u64,
    pub methods: u32,
    pub max_depth: usize,
    pub events_per_batch: usize,
}

impl StreamShape {
    /// 8 threads, 2,000 methods, stacks up to 30 deep, 4096-event batches.
    pub const REALISTIC: StreamShape = StreamShape {
        threads: 8,
        methods: 2_000,
        max_depth: 30,
        events_per_batch: 4096,
    };
}

/// Batches (one thread each, threads interleaved) holding about `total_events` events.
pub fn realistic_batches(shape: &StreamShape, total_events: usize, seed: u64) -> Vec<EventBatch> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut clocks: Vec<u64> = (0..shape.threads).map(|t| 1_000_000 + t * 777).collect();
    let mut stacks: Vec<Vec<u32>> = vec![Vec::new(); shape.threads as usize];
    let mut batches = Vec::new();
    let mut emitted = 0;
    while emitted < total_events {
        for thread in 0..shape.threads as usize {
            let mut writer = PackedEventWriter::new(thread as u64, clocks[thread]);
            while writer.len() < shape.events_per_batch {
                // Self time: log-uniform in [20 ns, 20 µs].
                let delta_ns = (20.0f64 * 1000f64.powf(rng.gen::<f64>())) as u64;
                clocks[thread] += delta_ns;
                let stack = &mut stacks[thread];
                let go_deeper =
                    stack.is_empty() || (stack.len() < shape.max_depth && rng.gen_bool(0.52));
                if go_deeper {
                    let method_id = zipf_like(&mut rng, shape.methods);
                    stack.push(method_id);
                    writer.push(clocks[thread], method_id, EventKind::Enter);
                } else if let Some(method_id) = stack.pop() {
                    writer.push(clocks[thread], method_id, EventKind::Exit);
                }
            }
            emitted += writer.len();
            batches.push(writer.finish());
        }
    }
    batches
}

/// Rank r drawn with probability roughly proportional to 1/r: ids are assigned on first use,
/// so hot methods get small ids, as in a real agent.
fn zipf_like(rng: &mut SmallRng, methods: u32) -> u32 {
    let u: f64 = rng.gen();
    let rank = (f64::from(methods) + 1.0).powf(u) - 1.0;
    (rank as u32).min(methods - 1)
}
