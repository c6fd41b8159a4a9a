//! The OTLP receivers against real sockets: a real gRPC client (tonic, the generated OTLP
//! client) and HTTP/1.1 requests, into the real ingest server and aggregator. (Third-party
//! SDKs are tested by `scripts/test-otlp.sh`.)

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use highrise_aggregate::Snapshot;
use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::{IngestServer, SessionReport};
use highrise_otlp::{OtlpConfig, OtlpCounts, OtlpServer};
use highrise_testkit::server::{non_loopback_address, start, test_config, wait_for_ended};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_client::TraceServiceClient;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;

const MS: u64 = 1_000_000;

fn now_unix_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_nanos() as u64
}

fn text(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.into())),
        }),
        ..Default::default()
    }
}

fn int(key: &str, value: i64) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::IntValue(value)),
        }),
        ..Default::default()
    }
}

struct SpanSpec {
    trace: u8,
    id: u8,
    parent: u8,
    function: &'static str,
    start_ms: u64,
    end_ms: u64,
}

fn span(base_ns: u64, spec: &SpanSpec, extra: Vec<KeyValue>) -> Span {
    let mut attributes = vec![text("code.function.name", spec.function)];
    attributes.extend(extra);
    Span {
        trace_id: [spec.trace; 16].to_vec(),
        span_id: [spec.id; 8].to_vec(),
        parent_span_id: if spec.parent == 0 {
            Vec::new()
        } else {
            [spec.parent; 8].to_vec()
        },
        name: spec.function.into(),
        kind: 2,
        start_time_unix_nano: base_ns + spec.start_ms * MS,
        end_time_unix_nano: base_ns + spec.end_ms * MS,
        attributes,
        ..Default::default()
    }
}

fn resource_spans(service: &str, host: &str, spans: Vec<Span>) -> ResourceSpans {
    ResourceSpans {
        resource: Some(Resource {
            attributes: vec![
                text("service.name", service),
                text("host.name", host),
                text("service.version", "v7"),
                text("telemetry.sdk.name", "test"),
                text("telemetry.sdk.language", "rust"),
            ],
            ..Default::default()
        }),
        scope_spans: vec![ScopeSpans {
            scope: Some(InstrumentationScope {
                name: "tests".into(),
                ..Default::default()
            }),
            spans,
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// An encoded request of one 100 ms span of `function` from `service` on `host`.
fn one_span_request(service: &str, host: &str, function: &'static str, base: u64) -> Vec<u8> {
    let spec = SpanSpec {
        trace: 1,
        id: 1,
        parent: 0,
        function,
        start_ms: 0,
        end_ms: 100,
    };
    ExportTraceServiceRequest {
        resource_spans: vec![resource_spans(
            service,
            host,
            vec![span(base, &spec, vec![])],
        )],
    }
    .encode_to_vec()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("compresses");
    encoder.finish().expect("compresses")
}

/// One export through the generated tonic client (compressed with `compression`, if any).
fn grpc_export(
    addr: SocketAddr,
    request: ExportTraceServiceRequest,
    compression: Option<tonic::codec::CompressionEncoding>,
) -> ExportTraceServiceResponse {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let mut client = TraceServiceClient::connect(format!("http://{addr}"))
            .await
            .expect("gRPC connects");
        if let Some(compression) = compression {
            client = client.send_compressed(compression);
        }
        client
            .export(request)
            .await
            .expect("gRPC export")
            .into_inner()
    })
}

/// Lets the horizon (500 ms behind) pass what was sent, then shuts the receivers down: the
/// OTLP counts then, and the last reports of the `sessions` that end.
fn finish(
    ingest: &IngestServer<AggregateSink>,
    otlp: OtlpServer,
    sessions: usize,
) -> (OtlpCounts, Vec<SessionReport<Arc<Snapshot>>>) {
    std::thread::sleep(Duration::from_millis(700));
    let counts = otlp.counts();
    otlp.shutdown();
    (counts, wait_for_ended(ingest, sessions))
}

fn servers(config: OtlpConfig) -> (IngestServer<AggregateSink>, OtlpServer) {
    let ingest = start(test_config(), AggregateSink::factory);
    let otlp = OtlpServer::start(config, ingest.local_sessions()).expect("OTLP listens");
    (ingest, otlp)
}

fn test_otlp_config() -> OtlpConfig {
    OtlpConfig {
        grpc_addr: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
        http_addr: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
        delay: Duration::from_millis(500),
        tick: Duration::from_millis(10),
        ..OtlpConfig::default()
    }
}

/// An HTTP/1.1 request on a fresh connection; the status and body of the answer.
fn http_post(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).expect("connects");
    http_post_on(&mut stream, addr, path, headers, body)
}

fn http_post_on(
    stream: &mut TcpStream,
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Vec<u8>) {
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).expect("writes");
    // A refused oversized body may be answered before it is all sent.
    let _ = stream.write_all(body);
    let mut answer = Vec::new();
    let mut chunk = [0u8; 4096];
    // A server that refused early may reset the connection after answering: keep what came.
    while let Ok(read) = stream.read(&mut chunk) {
        if read == 0 {
            break;
        }
        answer.extend_from_slice(&chunk[..read]);
    }
    let split = answer
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .expect("an HTTP answer");
    let head = String::from_utf8_lossy(&answer[..split]).to_string();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .expect("a status");
    let mut body = answer[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = unchunk(&body);
    }
    (status, body)
}

fn unchunk(mut bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(line_end) = bytes.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size =
            usize::from_str_radix(std::str::from_utf8(&bytes[..line_end]).unwrap_or("0"), 16)
                .unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&bytes[line_end + 2..line_end + 2 + size]);
        bytes = &bytes[line_end + 2 + size + 2..];
    }
}

const PROTOBUF: (&str, &str) = ("Content-Type", "application/x-protobuf");
const JSON: (&str, &str) = ("Content-Type", "application/json");

fn by_program<'a>(
    reports: &'a [SessionReport<Arc<Snapshot>>],
    program: &str,
) -> &'a SessionReport<Arc<Snapshot>> {
    reports
        .iter()
        .find(|report| {
            report
                .info
                .as_ref()
                .is_some_and(|info| info.program == program)
        })
        .unwrap_or_else(|| panic!("no session for {program}"))
}

/// (elevation, calls) of `package.class.method` in the session's final snapshot.
fn method(
    report: &SessionReport<Arc<Snapshot>>,
    package: &str,
    class: &str,
    name: &str,
) -> (f32, u32) {
    let def = report
        .definitions()
        .find(|def| def.package == package && def.class == class && def.method == name)
        .unwrap_or_else(|| {
            let names: Vec<String> = report
                .definitions()
                .map(|d| format!("{}|{}|{}", d.package, d.class, d.method))
                .collect();
            panic!("no method {package}|{class}|{name} in {names:?}")
        });
    let stats = report.sink.as_ref().expect("a snapshot").methods[def.id as usize];
    (stats.elevation, stats.calls)
}

#[test]
fn grpc_and_http_spans_become_one_session_per_resource_with_nested_elevations() {
    let (ingest, otlp) = servers(test_otlp_config());
    let grpc_addr = otlp.grpc_addr().expect("gRPC port");
    let http_addr = otlp.http_addr().expect("HTTP port");
    // Spans that ended just now, exported at once (no skew), as an SDK's processor does.
    let base = now_unix_ns() - 400 * MS;
    let checkout = [
        SpanSpec {
            trace: 1,
            id: 1,
            parent: 0,
            function: "shop.api.Checkout.post",
            start_ms: 0,
            end_ms: 300,
        },
        SpanSpec {
            trace: 1,
            id: 2,
            parent: 1,
            function: "shop.db.Orders.insert",
            start_ms: 60,
            end_ms: 210,
        },
        SpanSpec {
            trace: 2,
            id: 3,
            parent: 0,
            function: "shop.api.Checkout.post",
            start_ms: 100,
            end_ms: 160,
        },
    ];
    let thread = |name: &str| vec![int("thread.id", 42), text("thread.name", name)];
    let cart = [SpanSpec {
        trace: 9,
        id: 9,
        parent: 0,
        function: "cart.Cart.add",
        start_ms: 20,
        end_ms: 320,
    }];
    let request = ExportTraceServiceRequest {
        resource_spans: vec![
            resource_spans(
                "checkout",
                "host-a",
                checkout.iter().map(|s| span(base, s, vec![])).collect(),
            ),
            resource_spans(
                "cart",
                "host-b",
                cart.iter()
                    .map(|s| span(base, s, thread("worker-7")))
                    .collect(),
            ),
        ],
    };
    let answer = grpc_export(grpc_addr, request, None);
    assert_eq!(answer.partial_success, None);

    // The same trace's other services, over HTTP/protobuf: a third resource.
    let payments = [SpanSpec {
        trace: 1,
        id: 5,
        parent: 2,
        function: "pay.Gateway.charge",
        start_ms: 70,
        end_ms: 200,
    }];
    let body = ExportTraceServiceRequest {
        resource_spans: vec![resource_spans(
            "payments",
            "host-b",
            payments.iter().map(|s| span(base, s, vec![])).collect(),
        )],
    }
    .encode_to_vec();
    let (status, answer) = http_post(http_addr, "/v1/traces", &[PROTOBUF], &body);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
    let answer = ExportTraceServiceResponse::decode(answer.as_slice()).expect("an OTLP answer");
    assert_eq!(answer.partial_success, None);

    // Let the horizon pass them, then end everything: every span placed, each session ended.
    let board = otlp.links().clone();
    let (counts, reports) = finish(&ingest, otlp, 3);
    assert_eq!(counts.spans_received, 5);
    assert_eq!(counts.spans_placed, 5, "{counts:?}");
    assert_eq!(counts.spans_late, 0);

    let checkout = by_program(&reports, "checkout");
    let info = checkout.info.as_ref().expect("hello");
    assert!(info.agent.contains("host=host-a"), "{}", info.agent);
    assert_eq!(info.version_label, "v7");
    // Two concurrent traces: two lanes.
    let lanes: Vec<&str> = checkout.threads.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(lanes, ["lane 1", "lane 2"]);
    // post: 300 − 150 (insert) on lane 1, 60 on lane 2: the elevation is the larger, 150 ms of
    // the 3 s window; insert is 150 ms on top.
    let (post, post_calls) = method(checkout, "shop.api", "Checkout", "post");
    let (insert, insert_calls) = method(checkout, "shop.db", "Orders", "insert");
    assert_eq!((post_calls, insert_calls), (2, 1));
    assert!((post - 0.05).abs() < 0.002, "post {post}");
    assert!((insert - 0.05).abs() < 0.002, "insert {insert}");

    let cart = by_program(&reports, "cart");
    let lanes: Vec<&str> = cart.threads.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(lanes, ["worker-7"]);
    let (add, _) = method(cart, "cart", "Cart", "add");
    assert!((add - 0.1).abs() < 0.002, "add {add}");

    let payments = by_program(&reports, "payments");
    let (charge, calls) = method(payments, "pay", "Gateway", "charge");
    assert_eq!(calls, 1);
    assert!((charge - 130.0 / 3000.0).abs() < 0.002, "charge {charge}");

    // The charge's parent is checkout's insert (another resource, another request): the one
    // call that crosses services. Checkout's own nesting is no link.
    let links = board.latest();
    let method_id = |report: &SessionReport<Arc<Snapshot>>, name: &str| {
        report
            .definitions()
            .find(|def| def.method == name)
            .map(|def| def.id)
            .expect("defined")
    };
    let link = |report: &SessionReport<Arc<Snapshot>>, name: &str| highrise_links::MethodRef {
        session_id: report.session_id,
        method_id: method_id(report, name),
    };
    assert_eq!(links.links.len(), 1, "{links:?}");
    assert_eq!(links.links[0].caller, link(checkout, "insert"));
    assert_eq!(links.links[0].callee, link(payments, "charge"));
    assert_eq!(links.links[0].calls_total, 1);
}

#[test]
fn bad_requests_get_a_clear_error_and_lose_nothing_else() {
    let (ingest, otlp) = servers(OtlpConfig {
        max_request_bytes: 64 * 1024,
        ..test_otlp_config()
    });
    let addr = otlp.http_addr().expect("HTTP port");
    let base = now_unix_ns() - 200 * MS;
    let good = one_span_request("survivor", "host-a", "app.Main.run", base);

    // Each refused with its status and a message that says why.
    let refused = |headers: &[(&str, &str)], body: &[u8], status: u16, says: &str| {
        let (got, answer) = http_post(addr, "/v1/traces", headers, body);
        let answer = String::from_utf8_lossy(&answer).into_owned();
        assert_eq!(got, status, "{answer}");
        assert!(answer.contains(says), "{answer:?} does not say {says:?}");
    };
    let gzip_body = [PROTOBUF, ("Content-Encoding", "gzip")];
    refused(
        &[PROTOBUF],
        b"\xff\xff\xff\xff not protobuf",
        400,
        "malformed OTLP protobuf",
    );
    refused(
        &[JSON],
        br#"{"resourceSpans": 5}"#,
        400,
        "malformed OTLP JSON",
    );
    refused(
        &[("Content-Type", "text/plain")],
        b"hello",
        415,
        "application/x-protobuf",
    );
    // Said to be gzip, but not.
    refused(&gzip_body, &good, 400, "gzip body");
    refused(
        &[PROTOBUF, ("Content-Encoding", "br")],
        &good,
        415,
        "compression",
    );
    // A gzip bomb: small on the wire, over the limit inflated.
    refused(
        &gzip_body,
        &gzip(&vec![0u8; 1024 * 1024]),
        413,
        "larger than",
    );

    let (status, _) = http_post(addr, "/v1/metrics", &[PROTOBUF], &good);
    assert_eq!(status, 404);

    refused(&[PROTOBUF], &vec![0u8; 200 * 1024], 413, "larger than");

    // A span without an end, one with a short id and a parent cycle, beside a good one: the
    // bad ones are rejected by name (OTLP partial success), the rest placed.
    let mut no_end = span(
        base,
        &SpanSpec {
            trace: 2,
            id: 2,
            parent: 0,
            function: "app.Main.open",
            start_ms: 0,
            end_ms: 0,
        },
        vec![],
    );
    no_end.end_time_unix_nano = 0;
    let mut short_id = span(
        base,
        &SpanSpec {
            trace: 2,
            id: 3,
            parent: 0,
            function: "app.Main.bad",
            start_ms: 0,
            end_ms: 10,
        },
        vec![],
    );
    short_id.span_id = vec![1, 2, 3];
    let cycle_a = span(
        base,
        &SpanSpec {
            trace: 3,
            id: 4,
            parent: 5,
            function: "app.Loop.a",
            start_ms: 0,
            end_ms: 50,
        },
        vec![],
    );
    let cycle_b = span(
        base,
        &SpanSpec {
            trace: 3,
            id: 5,
            parent: 4,
            function: "app.Loop.b",
            start_ms: 10,
            end_ms: 40,
        },
        vec![int("some.unknown", 1)],
    );
    let mixed = ExportTraceServiceRequest {
        resource_spans: vec![resource_spans(
            "survivor",
            "host-a",
            vec![no_end, short_id, cycle_a, cycle_b],
        )],
    }
    .encode_to_vec();
    let (status, body) = http_post(addr, "/v1/traces", &[PROTOBUF], &mixed);
    assert_eq!(status, 200);
    let answer = ExportTraceServiceResponse::decode(body.as_slice()).expect("an OTLP answer");
    let partial = answer.partial_success.expect("partial success");
    assert_eq!(partial.rejected_spans, 2);
    assert!(
        partial.error_message.contains("no end"),
        "{}",
        partial.error_message
    );

    let (status, _) = http_post(addr, "/v1/traces", &[PROTOBUF], &good);
    assert_eq!(status, 200);

    let (counts, reports) = finish(&ingest, otlp, 1);
    // Malformed protobuf and JSON, text, not gzip, brotli, the bomb, too large (a wrong path
    // is no export request).
    assert_eq!(
        (counts.requests, counts.refused_requests),
        (9, 7),
        "{counts:?}"
    );
    assert_eq!(
        (counts.spans_rejected, counts.spans_placed),
        (2, 3),
        "{counts:?}"
    );
    let survivor = by_program(&reports, "survivor");
    assert_eq!(method(survivor, "app", "Main", "run").1, 1);
    assert_eq!(method(survivor, "app", "Loop", "a").1, 1);
    assert_eq!(method(survivor, "app", "Loop", "b").1, 1);
}

/// What exporters send unless told otherwise, other than plain protobuf: OTLP/JSON (Node's
/// `exporter-trace-otlp-http`), gzip over HTTP and gRPC (the Collector's exporters).
#[test]
fn json_and_gzip_bodies_are_taken_like_protobuf() {
    let (ingest, otlp) = servers(test_otlp_config());
    let http_addr = otlp.http_addr().expect("HTTP port");
    let grpc_addr = otlp.grpc_addr().expect("gRPC port");
    let base = now_unix_ns() - 200 * MS;

    // OTLP/JSON as the specification writes it: hex ids, 64-bit integers as strings, a
    // nested child, attributes highrise does not read.
    let json = format!(
        r#"{{"resourceSpans":[{{"resource":{{"attributes":[
            {{"key":"service.name","value":{{"stringValue":"json-svc"}}}},
            {{"key":"host.name","value":{{"stringValue":"host-j"}}}},
            {{"key":"process.pid","value":{{"intValue":"4242"}}}}]}},
          "scopeSpans":[{{"scope":{{"name":"tests","version":"1"}},"spans":[
            {{"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B174",
              "name":"GET /run","kind":2,"startTimeUnixNano":"{start}","endTimeUnixNano":"{end}",
              "attributes":[{{"key":"code.function.name","value":{{"stringValue":"j.Json.run"}}}},
                            {{"key":"http.status_code","value":{{"intValue":"200"}}}}],
              "status":{{"code":1}}}},
            {{"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B175",
              "parentSpanId":"EEE19B7EC3C1B174","name":"step","kind":1,
              "startTimeUnixNano":{child_start},"endTimeUnixNano":{child_end}}}
          ]}}]}}]}}"#,
        start = base,
        end = base + 100 * MS,
        child_start = base + 10 * MS,
        child_end = base + 40 * MS,
    );
    let (status, answer) = http_post(http_addr, "/v1/traces", &[JSON], json.as_bytes());
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
    let answer: serde_json::Value = serde_json::from_slice(&answer).expect("a JSON answer");
    assert!(answer.is_object(), "{answer}");

    let (status, answer) = http_post(
        http_addr,
        "/v1/traces",
        &[PROTOBUF, ("Content-Encoding", "gzip")],
        &gzip(&one_span_request(
            "gzip-http",
            "host-g",
            "g.Http.post",
            base,
        )),
    );
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));

    let request = ExportTraceServiceRequest::decode(
        one_span_request("gzip-grpc", "host-g", "g.Grpc.call", base).as_slice(),
    )
    .expect("decodes");
    let answer = grpc_export(
        grpc_addr,
        request,
        Some(tonic::codec::CompressionEncoding::Gzip),
    );
    assert_eq!(answer.partial_success, None);

    let (counts, reports) = finish(&ingest, otlp, 3);
    assert_eq!(
        (counts.spans_placed, counts.refused_requests),
        (4, 0),
        "{counts:?}"
    );
    let json = by_program(&reports, "json-svc");
    let info = json.info.as_ref().expect("hello");
    assert_eq!(info.pid, 4242);
    assert!(info.agent.contains("host=host-j"), "{}", info.agent);
    let (run, calls) = method(json, "j", "Json", "run");
    assert_eq!(calls, 1);
    // 100 ms less the child's 30 ms on top.
    assert!((run - 70.0 / 3000.0).abs() < 0.002, "run {run}");
    // No code attributes: package from the scope, class from the kind, method from the name.
    let (step, calls) = method(json, "tests", "internal", "step");
    assert_eq!(calls, 1);
    assert!((step - 30.0 / 3000.0).abs() < 0.002, "step {step}");
    assert_eq!(
        method(by_program(&reports, "gzip-http"), "g", "Http", "post").1,
        1
    );
    assert_eq!(
        method(by_program(&reports, "gzip-grpc"), "g", "Grpc", "call").1,
        1
    );
}

#[test]
fn exporters_beyond_loopback_need_the_token() {
    let Some(ip) = non_loopback_address() else {
        return;
    };
    let (ingest, otlp) = servers(OtlpConfig {
        grpc_addr: None,
        http_addr: Some(SocketAddr::new(ip, 0)),
        token: Some("s3cret".into()),
        ..test_otlp_config()
    });
    let addr = otlp.http_addr().expect("HTTP port");
    let base = now_unix_ns() - 200 * MS;
    let body = one_span_request("remote", "host-r", "r.R.run", base);
    let (status, answer) = http_post(addr, "/v1/traces", &[PROTOBUF], &body);
    assert_eq!(status, 401);
    assert!(String::from_utf8_lossy(&answer).contains("authorization=Bearer"));
    let (status, _) = http_post(
        addr,
        "/v1/traces",
        &[PROTOBUF, ("Authorization", "Bearer wrong")],
        &body,
    );
    assert_eq!(status, 401);
    let (status, _) = http_post(
        addr,
        "/v1/traces",
        &[PROTOBUF, ("Authorization", "Bearer s3cret")],
        &body,
    );
    assert_eq!(status, 200);
    let (_, reports) = finish(&ingest, otlp, 1);
    assert_eq!(method(by_program(&reports, "remote"), "r", "R", "run").1, 1);
}

mod profiles {
    use super::*;
    use opentelemetry_proto::tonic::collector::profiles::v1development::profiles_service_client::ProfilesServiceClient;
    use opentelemetry_proto::tonic::collector::profiles::v1development::{
        ExportProfilesServiceRequest, ExportProfilesServiceResponse,
    };
    use opentelemetry_proto::tonic::profiles::v1development::{
        Function, KeyValueAndUnit, Line, Location, Profile, ProfilesDictionary, ResourceProfiles,
        Sample, ScopeProfiles, Stack, ValueType,
    };

    const STRINGS: [&str; 10] = [
        "",
        "shop.Main.main",
        "shop.Cart.total",
        "thread.id",
        "thread.name",
        "worker",
        "samples",
        "count",
        "cpu",
        "nanoseconds",
    ];

    /// `main` (stack 1) and `main` → `total` (stack 2), Java names; attribute 1 and 2: thread 7,
    /// "worker".
    fn dictionary() -> ProfilesDictionary {
        let function = |name| Function {
            name_strindex: name,
            ..Default::default()
        };
        let location = |function_index| Location {
            lines: vec![Line {
                function_index,
                ..Default::default()
            }],
            ..Default::default()
        };
        let attribute = |key, value| KeyValueAndUnit {
            key_strindex: key,
            value: Some(AnyValue { value: Some(value) }),
            unit_strindex: 0,
        };
        ProfilesDictionary {
            string_table: STRINGS.iter().map(|s| (*s).to_owned()).collect(),
            function_table: vec![Function::default(), function(1), function(2)],
            location_table: vec![Location::default(), location(1), location(2)],
            stack_table: vec![
                Stack::default(),
                Stack {
                    location_indices: vec![1],
                },
                Stack {
                    location_indices: vec![2, 1],
                },
            ],
            attribute_table: vec![
                KeyValueAndUnit::default(),
                attribute(3, any_value::Value::IntValue(7)),
                attribute(4, any_value::Value::StringValue("worker".into())),
            ],
            ..Default::default()
        }
    }

    fn request(service: &str, base: u64, samples: Vec<Sample>) -> ExportProfilesServiceRequest {
        ExportProfilesServiceRequest {
            resource_profiles: vec![ResourceProfiles {
                resource: Some(Resource {
                    attributes: vec![text("service.name", service), text("host.name", "host-p")],
                    ..Default::default()
                }),
                scope_profiles: vec![ScopeProfiles {
                    profiles: vec![Profile {
                        sample_type: Some(ValueType {
                            type_strindex: 6,
                            unit_strindex: 7,
                        }),
                        period_type: Some(ValueType {
                            type_strindex: 8,
                            unit_strindex: 9,
                        }),
                        period: 10_000_000,
                        time_unix_nano: base,
                        duration_nano: 300 * MS,
                        samples,
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            }],
            dictionary: Some(dictionary()),
        }
    }

    fn grpc_export_profiles(
        addr: SocketAddr,
        request: ExportProfilesServiceRequest,
    ) -> ExportProfilesServiceResponse {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            ProfilesServiceClient::connect(format!("http://{addr}"))
                .await
                .expect("gRPC connects")
                .export(request)
                .await
                .expect("gRPC export")
                .into_inner()
        })
    }

    #[test]
    fn profiles_over_grpc_and_http_become_sampled_sessions_with_their_shares() {
        let (ingest, otlp) = servers(test_otlp_config());
        let base = now_unix_ns() - 400 * MS;
        // "shop" over gRPC: the eBPF profiler's shape, a timestamp per sample every 10 ms on
        // thread 7: 200 ms in total, then 100 ms in main alone.
        let at = |from_ms: u64, to_ms: u64| (from_ms..to_ms).step_by(10).map(|ms| base + ms * MS);
        let timed = vec![
            Sample {
                stack_index: 2,
                attribute_indices: vec![1, 2],
                timestamps_unix_nano: at(0, 200).collect(),
                ..Default::default()
            },
            Sample {
                stack_index: 1,
                attribute_indices: vec![1, 2],
                timestamps_unix_nano: at(200, 300).collect(),
                ..Default::default()
            },
            // Outside the dictionary: rejected, the rest taken.
            Sample {
                stack_index: 9,
                timestamps_unix_nano: vec![base],
                ..Default::default()
            },
        ];
        let answer = grpc_export_profiles(
            otlp.grpc_addr().expect("gRPC"),
            request("shop", base, timed),
        );
        let partial = answer.partial_success.expect("the bad sample is told");
        assert_eq!(partial.rejected_profiles, 1);
        assert!(
            partial.error_message.contains("stack index 9"),
            "{partial:?}"
        );

        // "cart" over HTTP/protobuf, aggregated counts (a Collector's pprof conversion's shape):
        // 20 samples in total, 10 in main, spread over the profile's 300 ms.
        let counted = vec![
            Sample {
                stack_index: 2,
                values: vec![20],
                ..Default::default()
            },
            Sample {
                stack_index: 1,
                values: vec![10],
                ..Default::default()
            },
        ];
        let body = request("cart", base, counted).encode_to_vec();
        let http = otlp.http_addr().expect("HTTP");
        let (status, answer) = http_post(http, "/v1development/profiles", &[PROTOBUF], &body);
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
        let answer =
            ExportProfilesServiceResponse::decode(answer.as_slice()).expect("an OTLP answer");
        assert_eq!(answer.partial_success, None);

        let (counts, reports) = finish(&ingest, otlp, 2);
        assert_eq!(
            (counts.samples_received, counts.samples_rejected),
            (60, 1),
            "{counts:?}"
        );
        assert_eq!((counts.samples_placed, counts.samples_late), (60, 0));

        for (program, total_ms, main_ms) in [("shop", 200.0, 100.0), ("cart", 200.0, 100.0)] {
            let report = by_program(&reports, program);
            let info = report.info.as_ref().expect("hello");
            assert!(info.agent.ends_with("signal=profiles"), "{}", info.agent);
            assert_eq!(info.measure.mode_name(), "sampled");
            assert_eq!(info.measure.sample_period_us, 10_000);
            let (total, total_calls) = method(report, "shop", "Cart", "total");
            let (main, _) = method(report, "shop", "Main", "main");
            assert_eq!(total_calls, 0, "samples count no calls");
            // Elevations over the 3 s window, within a sample period.
            assert!(
                (total * 3000.0 - total_ms).abs() <= 16.0,
                "{program} total {total}"
            );
            assert!(
                (main * 3000.0 - main_ms).abs() <= 16.0,
                "{program} main {main}"
            );
        }
        let shop = by_program(&reports, "shop");
        let threads: Vec<&str> = shop.threads.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(threads, ["worker (7)"]);
    }
}
