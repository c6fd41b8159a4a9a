//! JSON (serde_json) and compression (zstd) of the records.

use serde_json::Value;

/// The records as one JSON document.
#[highrise_agent::profile]
pub fn encode(records: &[Value]) -> Vec<u8> {
    serde_json::to_vec(records).expect("records serialize")
}

/// zstd at `level` (19: slow and small).
#[highrise_agent::profile]
pub fn compress(bytes: &[u8], level: i32) -> Vec<u8> {
    zstd::bulk::compress(bytes, level).expect("zstd compresses")
}

/// Back to the JSON document.
#[highrise_agent::profile]
pub fn decompress(packed: &[u8]) -> Vec<u8> {
    zstd::decode_all(packed).expect("zstd decompresses")
}

/// Back to the records.
#[highrise_agent::profile]
pub fn decode(bytes: &[u8]) -> Vec<Value> {
    serde_json::from_slice(bytes).expect("records parse")
}
