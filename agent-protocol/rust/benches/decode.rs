//! Decode throughput of event batches (goal ≥ 150 M events/s on one core), and of whole frames
//! (bincode message decode + packed events), on the realistic stream of `tests/support`.
//!
//! Run: `cargo bench -p highrise-protocol --bench decode`

#[path = "../tests/support/synthetic.rs"]
mod synthetic;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use highrise_protocol::{decode_agent_message, decode_events, encode_message, AgentMessage};
use synthetic::{realistic_batches, StreamShape};

fn decode(c: &mut Criterion) {
    let shape = StreamShape {
        threads: 8,
        methods: 2_000,
        max_depth: 30,
        events_per_batch: 4096,
    };
    let batches = realistic_batches(&shape, 1 << 20, 7);
    let events: u64 = batches.iter().map(|b| u64::from(b.event_count)).sum();
    let payloads: Vec<Vec<u8>> = batches
        .iter()
        .map(|b| encode_message(&AgentMessage::Events(b.clone())))
        .collect();
    let mut out = Vec::with_capacity(8192);

    let mut group = c.benchmark_group("decode");
    group.throughput(Throughput::Elements(events));
    group.bench_function("packed_events_1M", |b| {
        b.iter(|| {
            for batch in &batches {
                out.clear();
                decode_events(batch, 1, &mut out).expect("valid batch");
            }
            out.len()
        })
    });
    group.bench_function("frames_1M", |b| {
        b.iter(|| {
            for payload in &payloads {
                let Ok(AgentMessage::Events(batch)) = decode_agent_message(payload) else {
                    panic!("not an event batch");
                };
                out.clear();
                decode_events(&batch, 1, &mut out).expect("valid batch");
            }
            out.len()
        })
    });
    group.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
