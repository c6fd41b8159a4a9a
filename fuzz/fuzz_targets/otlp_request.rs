//! Bytes as an OTLP trace export request body, read by the receivers' own code: protobuf
//! through the lean messages (`highrise_otlp::spans::decode_request`), and the same bytes as
//! OTLP/JSON through the generated messages, encoded again and read the same way (as
//! `receive.rs` does). Must hold: nothing panics; whatever opentelemetry-proto's generated
//! messages decode, the lean reading decodes too, every span either placed or rejected;
//! placed spans have their ids and an end.
#![no_main]

use bytes::Bytes;
use highrise_otlp::spans::{decode_request, NameCache};
use libfuzzer_sys::fuzz_target;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use prost::Message;

fuzz_target!(|data: &[u8]| {
    let mut names = NameCache::default();
    let lean = decode_request(Bytes::copy_from_slice(data), &mut names);
    if let Ok(full) = ExportTraceServiceRequest::decode(data) {
        let lean = lean.as_ref().expect("what the generated messages read, the lean ones read");
        let spans: usize = full
            .resource_spans
            .iter()
            .flat_map(|resource| &resource.scope_spans)
            .map(|scope| scope.spans.len())
            .sum();
        assert_eq!(lean.span_count() as u64 + lean.rejected_spans, spans as u64);
    }
    if let Ok(decoded) = &lean {
        for span in decoded.resources.iter().flat_map(|batch| &batch.spans) {
            assert!(span.trace_id != 0 && span.span_id != 0);
            assert!(span.start_unix_ns > 0 && span.end_unix_ns >= span.start_unix_ns);
        }
    }
    if let Ok(json) = serde_json::from_slice::<ExportTraceServiceRequest>(data) {
        let _ = decode_request(Bytes::from(json.encode_to_vec()), &mut names);
    }
});
