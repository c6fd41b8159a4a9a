//! Spans per second through OTLP into the aggregator, on one core: protobuf decoding (prost),
//! checking ([`decode_request`]), the session's timeline (waiting, lanes, nesting) and the
//! session logic with the aggregator (`SessionProcessor` + `AggregateSink`, as a live
//! session's worker runs them). Requests are 512 spans (the SDKs' default batch), traces of
//! four nested spans (the shop example's shape) on 16 concurrent lanes, 5 attributes a span.
//!
//! `cargo bench -p highrise-otlp --bench otlp -- --warm-up-time 1 --measurement-time 3`

use std::time::Duration;

use bytes::Bytes;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::SessionProcessor;
use highrise_links::MethodRef;
use highrise_otlp::link_tracker::{LinkTracker, SpanIds};
use highrise_otlp::spans::{decode_request, NameCache};
use highrise_otlp::timeline::Timeline;
use highrise_protocol::{encode_message, AgentMessage, Hello, MAGIC, PROTOCOL_VERSION};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;
use support::text;

mod support;

const ZERO_NS: u64 = 1_800_000_000_000_000_000;
const SPANS_PER_REQUEST: usize = 512;
const REQUESTS: usize = 200;
const LANES: u64 = 16;

/// Encoded export requests: traces of handle → (get, query → borrow), one after another on
/// each of 16 lanes, in the order an SDK exports them (children end first).
fn requests() -> Vec<Bytes> {
    let functions = [
        "shop.api.Handler.handle",
        "shop.cache.Cache.get",
        "shop.db.Repository.query",
        "shop.db.Pool.borrow",
    ];
    // (function, parent index, start µs, end µs) within a 100 µs trace.
    let shape = [
        (3usize, 2usize, 20u64, 30u64),
        (1, 0, 2, 8),
        (2, 0, 10, 80),
        (0, 9, 0, 100),
    ];
    let mut spans = Vec::new();
    let mut trace = 0u64;
    while spans.len() < SPANS_PER_REQUEST * REQUESTS {
        trace += 1;
        let lane = trace % LANES;
        let base = ZERO_NS + (trace / LANES) * 110_000 + lane * 1_000;
        for (function, parent, start_us, end_us) in shape {
            let id = trace * 4 + function as u64;
            let parent_id = if parent == 9 {
                0
            } else {
                trace * 4 + parent as u64
            };
            spans.push(Span {
                trace_id: u128::from(trace).to_be_bytes().to_vec(),
                span_id: id.to_be_bytes().to_vec(),
                parent_span_id: if parent_id == 0 {
                    Vec::new()
                } else {
                    parent_id.to_be_bytes().to_vec()
                },
                name: functions[function].rsplit('.').next().unwrap_or("").into(),
                kind: 1,
                start_time_unix_nano: base + start_us * 1_000,
                end_time_unix_nano: base + end_us * 1_000,
                attributes: vec![
                    text("code.function.name", functions[function]),
                    text("code.file.path", "/srv/shop/app.py"),
                    text("http.request.method", "GET"),
                    text("db.system.name", "postgresql"),
                    text("server.address", "db.internal"),
                ],
                ..Default::default()
            });
        }
    }
    spans
        .chunks(SPANS_PER_REQUEST)
        .map(|chunk| {
            ExportTraceServiceRequest {
                resource_spans: vec![ResourceSpans {
                    resource: Some(Resource {
                        attributes: vec![
                            text("service.name", "shop"),
                            text("host.name", "host-1"),
                            text("telemetry.sdk.language", "python"),
                        ],
                        ..Default::default()
                    }),
                    scope_spans: vec![ScopeSpans {
                        scope: Some(InstrumentationScope {
                            name: "shop".into(),
                            ..Default::default()
                        }),
                        spans: chunk.to_vec(),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
            }
            .encode_to_vec()
            .into()
        })
        .collect()
}

/// The horizon after request `index` arrived: 8 requests (64 traces a lane) behind its spans,
/// as the delay keeps it behind what arrives.
fn horizon(index: usize) -> u64 {
    let traces_per_lane = ((index + 1) * SPANS_PER_REQUEST / 4) as u64 / LANES;
    ZERO_NS + traces_per_lane.saturating_sub(64) * 110_000
}

/// Decodes every request into `timeline`, moving the horizon every 8 requests and at the end;
/// `out` gets the messages. Every placed span goes through a [`LinkTracker`] too, as in the
/// bridge (calls between services).
fn place_all(requests: &[Bytes], timeline: &mut Timeline, mut out: impl FnMut(Vec<AgentMessage>)) {
    let mut links = LinkTracker::new();
    let mut names = NameCache::default();
    for (index, request) in requests.iter().enumerate() {
        let decoded = decode_request(request.clone(), &mut names).expect("decodes");
        for batch in decoded.resources {
            for span in batch.spans {
                let ids = SpanIds::of(&span);
                if let Some(method_id) = timeline.add(span) {
                    let method = MethodRef {
                        session_id: 1,
                        method_id,
                    };
                    links.observe(method, ids, index as u64);
                }
            }
        }
        if index % 8 == 7 {
            out(timeline.advance(horizon(index)));
            links.advance(1, horizon(index));
        }
    }
    out(timeline.finish().0);
}

fn processor() -> SessionProcessor<AggregateSink> {
    let mut processor = SessionProcessor::for_replay(1, "bench".into(), AggregateSink::factory);
    let hello = Hello {
        magic: MAGIC,
        protocol_version: PROTOCOL_VERSION,
        agent: "otlp bench".into(),
        program: "shop".into(),
        version_label: String::new(),
        pid: 0,
        clock_unit_ns: 1,
        clock_zero_unix_ns: ZERO_NS,
    };
    processor.feed_payload(&encode_message(&AgentMessage::Hello(hello)));
    processor
}

fn bench_otlp(c: &mut Criterion) {
    let requests = requests();
    let spans = (SPANS_PER_REQUEST * REQUESTS) as u64;
    let bytes: usize = requests.iter().map(Bytes::len).sum();
    eprintln!(
        "{REQUESTS} requests of {SPANS_PER_REQUEST} spans, {:.0} bytes a span",
        bytes as f64 / spans as f64
    );
    let mut group = c.benchmark_group("otlp");
    group.throughput(Throughput::Elements(spans));
    // What decoding into opentelemetry-proto's generated messages alone costs (owned strings),
    // for comparison with `decode`, which reads the lean messages and checks every span.
    group.bench_function("protobuf_generated_messages", |b| {
        b.iter(|| {
            requests
                .iter()
                .map(|request| {
                    ExportTraceServiceRequest::decode(request.clone())
                        .expect("decodes")
                        .resource_spans
                        .len()
                })
                .sum::<usize>()
        });
    });
    group.bench_function("decode", |b| {
        b.iter(|| {
            let mut names = NameCache::default();
            let mut placed = 0;
            for request in &requests {
                let decoded = decode_request(request.clone(), &mut names).expect("decodes");
                placed += decoded.span_count();
            }
            placed
        });
    });
    group.bench_function("decode_and_place", |b| {
        b.iter_batched(
            || Timeline::new(ZERO_NS),
            |mut timeline| {
                let mut messages = 0;
                place_all(&requests, &mut timeline, |out| messages += out.len());
                messages
            },
            BatchSize::LargeInput,
        );
    });
    group.bench_function("into_the_aggregator", |b| {
        b.iter_batched(
            || (Timeline::new(ZERO_NS), processor()),
            |(mut timeline, mut processor)| {
                place_all(&requests, &mut timeline, |messages| {
                    for message in messages {
                        processor.feed_payload(&encode_message(&message));
                    }
                });
                assert_eq!(timeline.counts().placed, spans);
                processor.stats().events
            },
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3));
    targets = bench_otlp
}
criterion_main!(benches);
