//! The parts of an OTLP trace export request that highrise reads, as prost messages over
//! [`Bytes`]: the same field numbers and wire types as opentelemetry-proto's
//! `ExportTraceServiceRequest`, minus every field highrise never looks at (prost skips unknown
//! fields, as protobuf says a reader must). Decoded from a `Bytes` body, every string and id is
//! a slice of that body instead of an allocation of its own: this halved the receiver's cost
//! per span (BENCHMARKS.md, "OTLP"). The full generated messages stay the source of truth for
//! replies, JSON bodies and tests.

use bytes::Bytes;

/// `opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExportRequest {
    #[prost(message, repeated, tag = "1")]
    pub resource_spans: Vec<ResourceSpans>,
}

/// `opentelemetry.proto.trace.v1.ResourceSpans`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ResourceSpans {
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    #[prost(message, repeated, tag = "2")]
    pub scope_spans: Vec<ScopeSpans>,
}

/// `opentelemetry.proto.resource.v1.Resource`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Resource {
    #[prost(message, repeated, tag = "1")]
    pub attributes: Vec<KeyValue>,
}

/// `opentelemetry.proto.trace.v1.ScopeSpans`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ScopeSpans {
    #[prost(message, optional, tag = "1")]
    pub scope: Option<InstrumentationScope>,
    #[prost(message, repeated, tag = "2")]
    pub spans: Vec<Span>,
}

/// `opentelemetry.proto.common.v1.InstrumentationScope`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InstrumentationScope {
    /// A string on the wire; read as bytes (UTF-8 is checked where it becomes a name).
    #[prost(bytes = "bytes", tag = "1")]
    pub name: Bytes,
}

/// `opentelemetry.proto.trace.v1.Span`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Span {
    #[prost(bytes = "bytes", tag = "1")]
    pub trace_id: Bytes,
    #[prost(bytes = "bytes", tag = "2")]
    pub span_id: Bytes,
    #[prost(bytes = "bytes", tag = "4")]
    pub parent_span_id: Bytes,
    #[prost(fixed32, tag = "16")]
    pub flags: u32,
    #[prost(bytes = "bytes", tag = "5")]
    pub name: Bytes,
    /// `SpanKind`, an enum: an int32 on the wire.
    #[prost(int32, tag = "6")]
    pub kind: i32,
    #[prost(fixed64, tag = "7")]
    pub start_time_unix_nano: u64,
    #[prost(fixed64, tag = "8")]
    pub end_time_unix_nano: u64,
    #[prost(message, repeated, tag = "9")]
    pub attributes: Vec<KeyValue>,
}

/// `opentelemetry.proto.common.v1.KeyValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyValue {
    #[prost(bytes = "bytes", tag = "1")]
    pub key: Bytes,
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
}

/// `opentelemetry.proto.common.v1.AnyValue`: the scalar kinds (arrays, key-value lists and
/// bytes are skipped).
#[derive(Clone, PartialEq, prost::Message)]
pub struct AnyValue {
    #[prost(oneof = "Value", tags = "1, 2, 3, 4")]
    pub value: Option<Value>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Value {
    #[prost(bytes = "bytes", tag = "1")]
    String(Bytes),
    #[prost(bool, tag = "2")]
    Bool(bool),
    #[prost(int64, tag = "3")]
    Int(i64),
    #[prost(double, tag = "4")]
    Double(f64),
}

impl AnyValue {
    /// The value as text (`service.name`, `process.pid`, …); other kinds are empty.
    pub fn display(&self) -> String {
        match &self.value {
            Some(Value::String(text)) => String::from_utf8_lossy(text).into_owned(),
            Some(Value::Int(number)) => number.to_string(),
            Some(Value::Bool(flag)) => flag.to_string(),
            Some(Value::Double(number)) => number.to_string(),
            None => String::new(),
        }
    }

    /// A non-empty string value, as the bytes sent.
    pub fn string(&self) -> Option<&Bytes> {
        match &self.value {
            Some(Value::String(text)) if !text.is_empty() => Some(text),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue as FullValue};
    use opentelemetry_proto::tonic::common::v1::{
        InstrumentationScope as FullScope, KeyValue as Kv,
    };
    use opentelemetry_proto::tonic::resource::v1::Resource as FullResource;
    use opentelemetry_proto::tonic::trace::v1::span::{Event, Link};
    use opentelemetry_proto::tonic::trace::v1::{
        ResourceSpans as FullResourceSpans, ScopeSpans as FullScopeSpans, Span as FullSpan, Status,
    };
    use prost::Message;

    fn kv(key: &str, value: any_value::Value) -> Kv {
        Kv {
            key: key.into(),
            value: Some(FullValue { value: Some(value) }),
            ..Default::default()
        }
    }

    /// Everything the generated messages can carry, the fields highrise skips included, reads
    /// back through the lean messages with the same values.
    #[test]
    fn the_lean_messages_read_what_the_generated_ones_write() {
        let span = FullSpan {
            trace_id: (1..=16).collect(),
            span_id: (1..=8).collect(),
            trace_state: "vendor=x".into(),
            parent_span_id: (9..=16).collect(),
            flags: 0x301,
            name: "GET /users".into(),
            kind: 2,
            start_time_unix_nano: 1_000,
            end_time_unix_nano: 2_000,
            attributes: vec![
                kv(
                    "code.function.name",
                    any_value::Value::StringValue("a.B.c".into()),
                ),
                kv("thread.id", any_value::Value::IntValue(-7)),
                kv("flag", any_value::Value::BoolValue(true)),
                kv("ratio", any_value::Value::DoubleValue(0.5)),
                kv("blob", any_value::Value::BytesValue(vec![1, 2, 3])),
            ],
            dropped_attributes_count: 3,
            events: vec![Event {
                name: "exception".into(),
                attributes: vec![kv("x", any_value::Value::IntValue(1))],
                ..Default::default()
            }],
            links: vec![Link {
                trace_id: vec![5; 16],
                ..Default::default()
            }],
            status: Some(Status {
                message: "boom".into(),
                code: 2,
            }),
            ..Default::default()
        };
        let request = ExportTraceServiceRequest {
            resource_spans: vec![FullResourceSpans {
                resource: Some(FullResource {
                    attributes: vec![kv(
                        "service.name",
                        any_value::Value::StringValue("shop".into()),
                    )],
                    ..Default::default()
                }),
                scope_spans: vec![FullScopeSpans {
                    scope: Some(FullScope {
                        name: "shop.api".into(),
                        version: "1.0".into(),
                        ..Default::default()
                    }),
                    spans: vec![span],
                    schema_url: "https://example.invalid/schema".into(),
                }],
                schema_url: String::new(),
            }],
        };
        let lean = ExportRequest::decode(Bytes::from(request.encode_to_vec())).expect("decodes");
        let resource = &lean.resource_spans[0];
        let attributes = &resource.resource.as_ref().expect("resource").attributes;
        assert_eq!(attributes[0].key, "service.name");
        assert_eq!(
            attributes[0]
                .value
                .as_ref()
                .map(AnyValue::display)
                .as_deref(),
            Some("shop")
        );
        let scope = &resource.scope_spans[0];
        assert_eq!(
            scope.scope.as_ref().map(|scope| &scope.name[..]),
            Some(&b"shop.api"[..])
        );
        let span = &scope.spans[0];
        assert_eq!(span.trace_id[..], (1..=16).collect::<Vec<u8>>()[..]);
        assert_eq!(span.span_id[..], [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(span.parent_span_id[..], [9, 10, 11, 12, 13, 14, 15, 16]);
        assert_eq!(span.flags, 0x301);
        assert_eq!(span.name, "GET /users");
        assert_eq!(span.kind, 2);
        assert_eq!(
            (span.start_time_unix_nano, span.end_time_unix_nano),
            (1_000, 2_000)
        );
        let shown: Vec<(String, String)> = span
            .attributes
            .iter()
            .map(|kv| {
                (
                    String::from_utf8_lossy(&kv.key).into_owned(),
                    kv.value.as_ref().map(AnyValue::display).unwrap_or_default(),
                )
            })
            .collect();
        let expected = [
            ("code.function.name", "a.B.c"),
            ("thread.id", "-7"),
            ("flag", "true"),
            ("ratio", "0.5"),
            ("blob", ""),
        ];
        assert_eq!(
            shown,
            expected.map(|(key, value)| (key.to_owned(), value.to_owned()))
        );
    }
}
