//! Decode throughput of event batches (goal ≥ 150 M events/s on one core), and of whole frames
//! (bincode message decode + packed events), on the realistic stream of `highrise_testkit::synthetic`.
//!
//! Run: `cargo bench -p highrise-protocol --bench decode`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use highrise_protocol::{decode_agent_message, decode_events, encode_message, AgentMessage};
use highrise_testkit::synthetic::{realistic_batches, StreamShape};

fn decode(c: &mut Criterion) {
    let batches = realistic_batches(&StreamShape::REALISTIC, 1 << 20, 7);
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
