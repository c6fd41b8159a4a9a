//! What the OTLP benches share (a module of each bench, not a bench of its own).

use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};

/// A string attribute.
pub fn text(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.into())),
        }),
        ..Default::default()
    }
}
