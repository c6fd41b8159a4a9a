//! Latency from an exported span to its method's elevation in a published snapshot (what the
//! viewer's buildings read): a real OTLP/HTTP request over loopback into the real receiver,
//! bridge, ingest session and aggregator, with the viewer's settings (reports every 16 ms, the
//! horizon moved every 20 ms). Each sample exports one span that has just ended (1 ms long,
//! a method of its own) and waits for the first report whose snapshot shows it.
//!
//! `cargo bench -p highrise-otlp --bench latency` (about a minute); `-- DELAY_MS SAMPLES` for
//! one delay.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::{IngestConfig, IngestServer};
use highrise_otlp::{OtlpConfig, OtlpServer};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;
use support::text;

mod support;

fn unix_now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as u64)
}

/// One span of `function` that ended just now.
fn request(function: &str, index: u64) -> Vec<u8> {
    let end = unix_now_ns();
    let span = Span {
        trace_id: (index as u128 + 1).to_be_bytes().to_vec(),
        span_id: (index + 1).to_be_bytes().to_vec(),
        name: function.into(),
        kind: 1,
        start_time_unix_nano: end - 1_000_000,
        end_time_unix_nano: end,
        attributes: vec![text("code.function.name", function)],
        ..Default::default()
    };
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![text("service.name", "latency")],
                ..Default::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: "bench".into(),
                    ..Default::default()
                }),
                spans: vec![span],
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
    .encode_to_vec()
}

fn post(addr: SocketAddr, body: &[u8]) {
    let mut stream = TcpStream::connect(addr).expect("connects");
    let head = format!(
        "POST /v1/traces HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-protobuf\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("writes");
    stream.write_all(body).expect("writes");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("reads");
    assert!(answer.starts_with(b"HTTP/1.1 200"), "{answer:?}");
}

/// Latencies of `samples` spans with the session `delay`.
fn measure(delay: Duration, samples: u64) -> Vec<Duration> {
    let ingest = IngestServer::start(
        IngestConfig {
            listen_addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            // The viewer's.
            publish_interval: Duration::from_millis(16),
            ..IngestConfig::default()
        },
        AggregateSink::factory,
    )
    .expect("ingest listens");
    let otlp = OtlpServer::start(
        OtlpConfig {
            grpc_addr: None,
            http_addr: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
            delay,
            ..OtlpConfig::default()
        },
        ingest.local_sessions(),
    )
    .expect("OTLP listens");
    let addr = otlp.http_addr().expect("HTTP port");
    let mut latencies = Vec::new();
    for index in 0..samples {
        let function = format!("bench.Latency.m{index}");
        let method = format!("m{index}");
        let sent = Instant::now();
        post(addr, &request(&function, index));
        loop {
            let left = (delay + Duration::from_secs(5)).saturating_sub(sent.elapsed());
            let report = ingest
                .updates()
                .recv_timeout(left)
                .expect("the span shows up in a report");
            let Some(def) = report.definitions().find(|def| def.method == method) else {
                continue;
            };
            let shown = report
                .sink
                .as_ref()
                .and_then(|snapshot| snapshot.methods.get(def.id as usize))
                .is_some_and(|stats| stats.elevation > 0.0);
            if shown {
                latencies.push(sent.elapsed());
                break;
            }
        }
        // Apart, as exports are.
        std::thread::sleep(Duration::from_millis(37));
    }
    otlp.shutdown();
    latencies
}

fn summary(delay: Duration, mut latencies: Vec<Duration>) {
    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
    let delay_ms = ms(delay);
    println!(
        "delay {delay_ms:.0} ms, {} spans: latency min {:.1}, median {:.1}, p95 {:.1}, max {:.1} ms \
         (over the delay: median +{:.1}, max +{:.1} ms; goal ≤ +100)",
        latencies.len(),
        ms(latencies[0]),
        ms(at(0.5)),
        ms(at(0.95)),
        ms(at(1.0)),
        ms(at(0.5)) - delay_ms,
        ms(at(1.0)) - delay_ms,
    );
}

fn main() {
    let numbers: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|arg| arg.parse().ok())
        .collect();
    let runs: Vec<(u64, u64)> = match numbers.as_slice() {
        [delay_ms, samples, ..] => vec![(*delay_ms, *samples)],
        // 1 s: a short delay for spans exported as they end; 6 s: the default.
        _ => vec![(1_000, 30), (6_000, 5)],
    };
    for (delay_ms, samples) in runs {
        let delay = Duration::from_millis(delay_ms);
        summary(delay, measure(delay, samples));
    }
}
