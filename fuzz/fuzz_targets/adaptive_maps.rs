//! The aggregator's adaptive structures (per-thread method → pair maps that switch between a
//! hash table and a dense array, the per-class tables, the context tree, the memory slots)
//! driven directly through [`Aggregator`] with arbitrary method-id sequences: ids that run
//! dense, jump far up (another class loader) and come back down, on several threads, with
//! windows expiring and threads ending so maps empty out and switch again. This is the
//! pattern that broke `PairMap` on a real program (Maven) and that synthetic streams never
//! made. Must hold: nothing panics; snapshots and stats can be taken at any point.
#![no_main]

use arbitrary::Arbitrary;
use highrise_aggregate::{Aggregator, AggregatorConfig, MemoryFold};
use highrise_protocol::{Event, EventKind, MemoryAmount};
use libfuzzer_sys::fuzz_target;

/// Method ids defined up front (ids below this: far enough apart for the maps to switch,
/// few enough that each input is cheap).
const METHODS: u32 = 4_096;
const CLASSES: u32 = 512;

#[derive(Debug, Arbitrary)]
enum Id {
    /// A small dense id.
    Near(u8),
    /// Near the last id used on this thread (a run of one class's methods).
    Step(i8),
    /// Anywhere.
    Far(u32),
}

#[derive(Debug, Arbitrary)]
enum Op {
    Enter { thread: u8, id: Id, dt_us: u16 },
    Exit { thread: u8, dt_us: u16 },
    /// Enter and exit `count` methods in a row (many short calls).
    Burst { thread: u8, first: Id, stride: u8, count: u8 },
    Memory { thread: u8, class: u16, count: u8 },
    /// Jump the clock: the window expires and maps empty out.
    Advance { ms: u16 },
    EndThread { thread: u8 },
    Resync { thread: u8, stack: Vec<u16> },
    Snapshot,
}

#[derive(Debug, Arbitrary)]
struct Input {
    contexts: bool,
    threaded: bool,
    ops: Vec<Op>,
}

struct Driver {
    aggregator: Aggregator,
    now_ns: u64,
    stacks: Vec<Vec<u32>>,
    last_id: Vec<u32>,
}

impl Driver {
    fn id(&mut self, thread: usize, id: &Id) -> u32 {
        let method_id = match *id {
            Id::Near(near) => u32::from(near),
            Id::Step(step) => self.last_id[thread].saturating_add_signed(i32::from(step)),
            Id::Far(far) => far,
        } % METHODS;
        self.last_id[thread] = method_id;
        method_id
    }

    fn tick(&mut self, dt_us: u16) -> u64 {
        self.now_ns += u64::from(dt_us) * 1_000 + 1;
        self.now_ns
    }

    fn apply(&mut self, op: &Op) {
        match op {
            Op::Enter { thread, id, dt_us } => {
                let thread = usize::from(*thread % 8);
                let method_id = self.id(thread, id);
                let timestamp_ns = self.tick(*dt_us);
                if self.stacks[thread].len() < 200 {
                    self.stacks[thread].push(method_id);
                    let event = Event { timestamp_ns, method_id, kind: EventKind::Enter };
                    self.aggregator.apply_events(thread as u64, &[event]);
                }
            }
            Op::Exit { thread, dt_us } => {
                let thread = usize::from(*thread % 8);
                let timestamp_ns = self.tick(*dt_us);
                if let Some(method_id) = self.stacks[thread].pop() {
                    let event = Event { timestamp_ns, method_id, kind: EventKind::Exit };
                    self.aggregator.apply_events(thread as u64, &[event]);
                }
            }
            Op::Burst { thread, first, stride, count } => {
                let thread = usize::from(*thread % 8);
                let mut method_id = self.id(thread, first);
                let mut events = Vec::with_capacity(usize::from(*count) * 2);
                for _ in 0..*count {
                    let timestamp_ns = self.tick(1);
                    events.push(Event { timestamp_ns, method_id, kind: EventKind::Enter });
                    events.push(Event { timestamp_ns: timestamp_ns + 1, method_id, kind: EventKind::Exit });
                    self.now_ns += 1;
                    method_id = (method_id + u32::from(*stride)) % METHODS;
                }
                self.aggregator.apply_events(thread as u64, &events);
            }
            Op::Memory { thread, class, count } => {
                let thread = usize::from(*thread % 8);
                let timestamp_ns = self.tick(1);
                let event = Event {
                    timestamp_ns,
                    method_id: u32::from(*class) % CLASSES,
                    kind: EventKind::Memory,
                };
                let amount = MemoryAmount { count: u64::from(*count) + 1, bytes: 16, free: false };
                self.aggregator.apply_records(thread as u64, &[event], &[amount]);
            }
            Op::Advance { ms } => {
                self.now_ns += u64::from(*ms) * 1_000_000;
                self.aggregator.advance_to(self.now_ns);
            }
            Op::EndThread { thread } => {
                let thread = usize::from(*thread % 8);
                let timestamp_ns = self.tick(1);
                self.stacks[thread].clear();
                self.aggregator.thread_ended(thread as u64, timestamp_ns);
            }
            Op::Resync { thread, stack } => {
                let thread = usize::from(*thread % 8);
                let timestamp_ns = self.tick(1);
                let stack: Vec<u32> =
                    stack.iter().take(64).map(|&id| u32::from(id) % METHODS).collect();
                self.aggregator.resync(thread as u64, timestamp_ns, &stack);
                self.stacks[thread] = stack;
            }
            Op::Snapshot => {
                let snapshot = self.aggregator.snapshot();
                assert!(snapshot.methods.len() <= METHODS as usize);
                let _ = self.aggregator.stats();
            }
        }
    }
}

fuzz_target!(|input: Input| {
    let config = AggregatorConfig {
        contexts: input.contexts,
        contexts_thread: input.threaded,
        memory_fold: if input.threaded { MemoryFold::OwnThread } else { MemoryFold::Inline },
        ..AggregatorConfig::default()
    };
    let mut aggregator = Aggregator::new(config);
    for method_id in 0..METHODS {
        aggregator.define_method(method_id, "p");
    }
    let mut driver = Driver {
        aggregator,
        now_ns: 0,
        stacks: vec![Vec::new(); 8],
        last_id: vec![0; 8],
    };
    for op in input.ops.iter().take(4_000) {
        driver.apply(op);
    }
    let _ = driver.aggregator.snapshot();
});
