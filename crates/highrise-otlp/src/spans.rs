//! OTLP trace requests → the spans highrise places: who sent them (the resource), what each span
//! names (package, class, method), where it ran (thread), when. Invalid spans are counted with the
//! first reason, never guessed at.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use prost::Message;

use crate::wire;

/// The service instance a session stands for: OTel's `service.name`, `service.instance.id` and
/// `host.name` resource attributes (empty when absent).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceId {
    pub service: String,
    pub instance: String,
    pub host: String,
}

/// What a session's Hello says about its resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceInfo {
    pub id: ResourceId,
    /// `service.version`: the label compare shows.
    pub version: String,
    /// The SDK that sent the spans (`telemetry.sdk.*`), e.g. `opentelemetry python 1.38.0`.
    pub sdk: String,
    /// `process.pid`, or 0.
    pub pid: u32,
}

/// The building a span stands for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MethodName {
    pub package: String,
    pub class: String,
    pub method: String,
}

/// One ended span, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanIn {
    pub trace_id: u128,
    pub span_id: u64,
    /// 0: a root span (or its parent is not known).
    pub parent_span_id: u64,
    pub start_unix_ns: u64,
    pub end_unix_ns: u64,
    /// Shared with every span of the same name ([`NameCache`]).
    pub name: Arc<MethodName>,
    /// `thread.id` (and `thread.name`) when the SDK says where the span ran.
    pub thread: Option<(i64, Option<String>)>,
    /// The parent may be in another service: a server or consumer span, or the span's flags
    /// say its parent context came from elsewhere.
    pub remote_parent: bool,
}

/// One resource's spans from a request.
#[derive(Debug, Clone)]
pub struct ResourceBatch {
    pub info: ResourceInfo,
    pub spans: Vec<SpanIn>,
}

/// A request, decoded: the valid spans by resource, and what was rejected.
#[derive(Debug, Default)]
pub struct Decoded {
    pub resources: Vec<ResourceBatch>,
    pub rejected_spans: u64,
    /// Why the first rejected span was rejected (what the exporter is told).
    pub first_error: Option<String>,
}

impl Decoded {
    pub fn span_count(&self) -> usize {
        self.resources.iter().map(|batch| batch.spans.len()).sum()
    }

    fn reject(&mut self, why: String) {
        self.rejected_spans += 1;
        if self.first_error.is_none() {
            self.first_error = Some(why);
        }
    }
}

/// Span names already turned into buildings' names, by the bytes they came from. A service
/// repeats a few hundred names; a hit costs one hash of the name's bytes instead of three new
/// strings per span, and a session's timeline then finds the method by the shared name.
/// Bounded: emptied when it holds [`NAME_CACHE_ENTRIES`] names.
#[derive(Debug, Default)]
pub struct NameCache {
    names: HashMap<Box<[u8]>, Arc<MethodName>, foldhash::fast::RandomState>,
    /// Bytes of the keys held.
    key_bytes: usize,
    /// Scratch for the key being looked up.
    key: Vec<u8>,
}

/// At most [`MAX_NAME_PART_BYTES`] of `bytes`.
fn name_part(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.len().min(MAX_NAME_PART_BYTES)]
}

/// Names a [`NameCache`] holds at most.
pub const NAME_CACHE_ENTRIES: usize = 1 << 16;
/// Bytes of keys a [`NameCache`] holds at most.
pub const NAME_CACHE_BYTES: usize = 16 << 20;
/// Bytes of a span's name, scope or code attribute that make its building's name; the rest is
/// cut (a name is for people; a request may be 64 MiB).
pub const MAX_NAME_PART_BYTES: usize = 512;
/// Spans lasting longer than this are refused (an end time that is no time at all would keep
/// a lane open for centuries and pull the host's clock correction with it).
pub const MAX_SPAN_NS: u64 = 24 * 3600 * 1_000_000_000;

/// Where a span's name comes from, as sent.
struct NameParts<'a> {
    function_name: Option<&'a [u8]>,
    function: Option<&'a [u8]>,
    namespace: Option<&'a [u8]>,
    span_name: &'a [u8],
    kind: i32,
    scope: &'a [u8],
}

impl NameCache {
    fn resolve(&mut self, parts: &NameParts<'_>) -> Arc<MethodName> {
        self.key.clear();
        for part in [
            parts.function_name,
            parts.function,
            parts.namespace,
            Some(parts.span_name),
            Some(parts.scope),
        ] {
            match part.map(name_part) {
                Some(bytes) => {
                    // Lengths keep the parts apart; `u32::MAX` marks an absent one.
                    let length = u32::try_from(bytes.len()).unwrap_or(u32::MAX - 1);
                    self.key.extend_from_slice(&length.to_le_bytes());
                    self.key.extend_from_slice(bytes);
                }
                None => self.key.extend_from_slice(&u32::MAX.to_le_bytes()),
            }
        }
        self.key.extend_from_slice(&parts.kind.to_le_bytes());
        if let Some(name) = self.names.get(self.key.as_slice()) {
            return Arc::clone(name);
        }
        // A cut in the middle of a character shows as U+FFFD.
        let text = |bytes: &[u8]| String::from_utf8_lossy(name_part(bytes)).into_owned();
        let name = Arc::new(method_name(
            parts.function_name.map(text),
            parts.function.map(text),
            parts.namespace.map(text),
            text(parts.span_name),
            parts.kind,
            &text(parts.scope),
        ));
        if self.names.len() >= NAME_CACHE_ENTRIES || self.key_bytes >= NAME_CACHE_BYTES {
            self.names.clear();
            self.key_bytes = 0;
        }
        self.key_bytes += self.key.len();
        self.names
            .insert(self.key.as_slice().into(), Arc::clone(&name));
        name
    }
}

/// Decodes an encoded export request (OTLP protobuf) and splits it into checked spans per
/// resource ([`check_request`]). Strings and ids are read in place
/// ([`crate::wire`]); names come from `names`.
pub fn decode_request(body: Bytes, names: &mut NameCache) -> Result<Decoded, prost::DecodeError> {
    Ok(check_request(wire::ExportRequest::decode(body)?, names))
}

/// Splits a decoded request into checked spans per resource (resources repeated in one request
/// merge).
pub(crate) fn check_request(request: wire::ExportRequest, names: &mut NameCache) -> Decoded {
    let mut decoded = Decoded::default();
    for resource_spans in request.resource_spans {
        let attributes = resource_spans
            .resource
            .map(|resource| resource.attributes)
            .unwrap_or_default();
        let info = resource_info(&attributes);
        let index = match decoded
            .resources
            .iter()
            .position(|batch| batch.info.id == info.id)
        {
            Some(index) => index,
            None => {
                decoded.resources.push(ResourceBatch {
                    info,
                    spans: Vec::new(),
                });
                decoded.resources.len() - 1
            }
        };
        for scope_spans in resource_spans.scope_spans {
            let scope = scope_spans
                .scope
                .map(|scope| scope.name)
                .unwrap_or_default();
            let spans = &mut decoded.resources[index].spans;
            spans.reserve(scope_spans.spans.len());
            for span in scope_spans.spans {
                match check_span(span, &scope, names) {
                    Ok(span) => decoded.resources[index].spans.push(span),
                    Err(why) => decoded.reject(why),
                }
            }
        }
    }
    decoded.resources.retain(|batch| !batch.spans.is_empty());
    decoded
}

fn resource_info(attributes: &[wire::KeyValue]) -> ResourceInfo {
    resource_info_with(|key| {
        attributes
            .iter()
            .find(|kv| kv.key == key.as_bytes())
            .and_then(|kv| kv.value.as_ref())
            .map(wire::AnyValue::display)
            .unwrap_or_default()
    })
}

/// A resource's identity from its attributes, `text(key)` giving each as text ("" if absent).
pub(crate) fn resource_info_with(text: impl Fn(&str) -> String) -> ResourceInfo {
    let mut service = text("service.name");
    if service.is_empty() {
        // What the SDKs themselves call a service without a name.
        service = "unknown_service".to_owned();
    }
    let sdk = [
        text("telemetry.sdk.name"),
        text("telemetry.sdk.language"),
        text("telemetry.sdk.version"),
    ]
    .into_iter()
    .filter(|part| !part.is_empty())
    .collect::<Vec<_>>()
    .join(" ");
    ResourceInfo {
        id: ResourceId {
            service,
            instance: text("service.instance.id"),
            host: text("host.name"),
        },
        version: text("service.version"),
        sdk,
        pid: text("process.pid").parse().unwrap_or(0),
    }
}

fn id_u64(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.try_into().ok()?))
}

fn check_span(span: wire::Span, scope: &Bytes, names: &mut NameCache) -> Result<SpanIn, String> {
    let shown = || String::from_utf8_lossy(name_part(&span.name)).into_owned();
    let trace_id = <[u8; 16]>::try_from(&span.trace_id[..])
        .map(u128::from_be_bytes)
        .map_err(|_| format!("span {:?}: trace_id is not 16 bytes", shown()))?;
    let span_id = id_u64(&span.span_id)
        .filter(|id| *id != 0)
        .ok_or_else(|| format!("span {:?}: span_id is not 8 non-zero bytes", shown()))?;
    let parent_span_id = if span.parent_span_id.is_empty() {
        0
    } else {
        id_u64(&span.parent_span_id)
            .ok_or_else(|| format!("span {:?}: parent_span_id is not 8 bytes", shown()))?
    };
    if span.start_time_unix_nano == 0 {
        return Err(format!("span {:?} has no start time", shown()));
    }
    if span.end_time_unix_nano == 0 || span.end_time_unix_nano < span.start_time_unix_nano {
        return Err(format!(
            "span {:?} has no end (end {} before start {})",
            shown(),
            span.end_time_unix_nano,
            span.start_time_unix_nano
        ));
    }
    if trace_id == 0 {
        return Err(format!("span {:?}: trace_id is zero", shown()));
    }
    if span.end_time_unix_nano - span.start_time_unix_nano > MAX_SPAN_NS {
        return Err(format!(
            "span {:?} lasts longer than a day (start {}, end {})",
            shown(),
            span.start_time_unix_nano,
            span.end_time_unix_nano
        ));
    }
    // The attributes highrise reads; everything else is ignored.
    let mut function_name = None; // code.function.name (semantic conventions 1.30+)
    let mut function = None; // code.function (older)
    let mut namespace = None; // code.namespace (older)
    let mut thread_id = None;
    let mut thread_name = None;
    for kv in &span.attributes {
        let Some(value) = kv.value.as_ref() else {
            continue;
        };
        match &kv.key[..] {
            b"code.function.name" => function_name = value.string(),
            b"code.function" => function = value.string(),
            b"code.namespace" => namespace = value.string(),
            b"thread.id" => {
                if let Some(wire::Value::Int(id)) = value.value {
                    thread_id = Some(id);
                }
            }
            b"thread.name" => thread_name = value.string(),
            _ => {}
        }
    }
    let name = names.resolve(&NameParts {
        function_name: function_name.map(|bytes| &bytes[..]),
        function: function.map(|bytes| &bytes[..]),
        namespace: namespace.map(|bytes| &bytes[..]),
        span_name: &span.name,
        kind: span.kind,
        scope,
    });
    Ok(SpanIn {
        trace_id,
        span_id,
        parent_span_id,
        start_unix_ns: span.start_time_unix_nano,
        end_unix_ns: span.end_time_unix_nano,
        name,
        thread: thread_id.map(|id| {
            (
                id,
                thread_name.map(|name| String::from_utf8_lossy(name).into_owned()),
            )
        }),
        remote_parent: parent_span_id != 0
            && (matches!(span.kind, KIND_SERVER | KIND_CONSUMER)
                || span.flags & PARENT_IS_REMOTE == PARENT_IS_REMOTE),
    })
}

/// Package, class and method from the code attributes of the semantic conventions, else from
/// the instrumentation scope (package), the span kind (class) and the span name (method).
fn method_name(
    function_name: Option<String>,
    function: Option<String>,
    namespace: Option<String>,
    span_name: String,
    kind: i32,
    scope: &str,
) -> MethodName {
    // `code.function.name` is fully qualified (`com.example.Foo.bar`, `myapp.views.index`);
    // the older pair is `code.namespace` + `code.function`.
    let (namespace, method) = match (function_name, function, namespace) {
        (Some(full), _, None) => match full.rsplit_once(['.', ':']) {
            Some((namespace, method)) if !namespace.is_empty() && !method.is_empty() => (
                Some(namespace.trim_end_matches(':').to_owned()),
                method.to_owned(),
            ),
            _ => (None, full),
        },
        (Some(function), _, Some(namespace)) | (None, Some(function), Some(namespace)) => {
            (Some(namespace), function)
        }
        (None, Some(function), None) => (None, function),
        (None, None, namespace) => {
            let name = if span_name.is_empty() {
                "(unnamed span)".to_owned()
            } else {
                span_name
            };
            return MethodName {
                package: match namespace {
                    Some(namespace) => namespace,
                    None if scope.is_empty() => "(no scope)".to_owned(),
                    None => scope.to_owned(),
                },
                class: kind_name(kind).to_owned(),
                method: name,
            };
        }
    };
    match namespace {
        Some(namespace) => match namespace.rsplit_once('.') {
            Some((package, class)) if !class.is_empty() => MethodName {
                package: package.to_owned(),
                class: class.to_owned(),
                method,
            },
            _ => MethodName {
                package: String::new(),
                class: namespace,
                method,
            },
        },
        None => MethodName {
            package: if scope.is_empty() {
                "(no scope)".to_owned()
            } else {
                scope.to_owned()
            },
            class: kind_name(kind).to_owned(),
            method,
        },
    }
}

const KIND_SERVER: i32 = 2;
const KIND_CONSUMER: i32 = 5;
/// `SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK | SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK`: the exporter
/// knows, and the parent is remote.
const PARENT_IS_REMOTE: u32 = 0x300;

/// The span kind as a class name (OTLP `SpanKind`).
fn kind_name(kind: i32) -> &'static str {
    match kind {
        1 => "internal",
        KIND_SERVER => "server",
        3 => "client",
        4 => "producer",
        KIND_CONSUMER => "consumer",
        _ => "span",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(
        function_name: Option<&str>,
        function: Option<&str>,
        namespace: Option<&str>,
    ) -> MethodName {
        method_name(
            function_name.map(str::to_owned),
            function.map(str::to_owned),
            namespace.map(str::to_owned),
            "GET /users".to_owned(),
            2,
            "opentelemetry.instrumentation.flask",
        )
    }

    #[test]
    fn names_come_from_code_attributes_then_scope_and_kind() {
        let expect = |package: &str, class: &str, method: &str| MethodName {
            package: package.to_owned(),
            class: class.to_owned(),
            method: method.to_owned(),
        };
        assert_eq!(
            name(Some("com.example.shop.Cart.add"), None, None),
            expect("com.example.shop", "Cart", "add")
        );
        assert_eq!(
            name(None, Some("add"), Some("com.example.shop.Cart")),
            expect("com.example.shop", "Cart", "add")
        );
        assert_eq!(
            name(Some("add"), None, Some("Cart")),
            expect("", "Cart", "add")
        );
        assert_eq!(
            name(Some("main"), None, None),
            expect("opentelemetry.instrumentation.flask", "server", "main")
        );
        assert_eq!(
            name(None, None, None),
            expect(
                "opentelemetry.instrumentation.flask",
                "server",
                "GET /users"
            )
        );
        // Ruby and PHP style.
        assert_eq!(
            name(Some("Shop::Cart::add"), None, None),
            expect("", "Shop::Cart", "add")
        );
    }

    /// Remote input cannot make names (and so memory) as large as the request, nor keep a
    /// lane open for centuries.
    #[test]
    fn long_names_are_cut_and_endless_spans_refused() {
        use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
        use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
        use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
        use prost::Message;
        let span = |id: u8, name: String, end: u64| Span {
            trace_id: vec![1; 16],
            span_id: vec![id; 8],
            name,
            start_time_unix_nano: 1_000,
            end_time_unix_nano: end,
            ..Default::default()
        };
        let request = ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                scope_spans: vec![ScopeSpans {
                    scope: Some(InstrumentationScope {
                        name: "s".repeat(100_000),
                        ..Default::default()
                    }),
                    spans: vec![
                        span(1, "é".repeat(10_000), 2_000),
                        span(2, "forever".into(), u64::MAX),
                    ],
                    ..Default::default()
                }],
                ..Default::default()
            }],
        };
        let mut names = NameCache::default();
        let decoded =
            decode_request(Bytes::from(request.encode_to_vec()), &mut names).expect("decodes");
        assert_eq!((decoded.span_count(), decoded.rejected_spans), (1, 1));
        assert!(decoded
            .first_error
            .as_deref()
            .is_some_and(|why| why.contains("\"forever\" lasts longer than a day")));
        let name = &decoded.resources[0].spans[0].name;
        assert_eq!(name.package.len(), MAX_NAME_PART_BYTES);
        // 512 bytes of two-byte characters: 256 whole ones.
        assert_eq!(name.method, "é".repeat(256));
        assert!(names.key_bytes < 4 * MAX_NAME_PART_BYTES);
    }
}
