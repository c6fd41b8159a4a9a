//! The records: a service log with a few fields each, made from a seed.

use serde_json::{json, Value};

const METHODS: [&str; 6] = ["GET", "GET", "GET", "POST", "PUT", "DELETE"];
const PATHS: [&str; 5] = ["/books", "/books/{id}", "/cart", "/cart/items", "/checkout"];

/// `count` records from `seed` (a small xorshift generator: the same seed, the same log).
#[highrise_agent::profile]
pub fn make(seed: u64, count: usize) -> Vec<Value> {
    let mut state = seed | 1;
    (0..count).map(|i| record(i, &mut state)).collect()
}

/// One record.
#[highrise_agent::profile]
pub fn record(index: usize, state: &mut u64) -> Value {
    let mut next = || {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    };
    let (a, b, c) = (next(), next(), next());
    json!({
        "id": index,
        "method": METHODS[(a % METHODS.len() as u64) as usize],
        "path": PATHS[(b % PATHS.len() as u64) as usize].replace("{id}", &(c % 5000).to_string()),
        "status": if c % 17 == 0 { 500 } else if c % 5 == 0 { 404 } else { 200 },
        "micros": a % 250_000,
        "bytes": b % 65_536,
        "user": format!("user-{:04}", c % 1000),
        "tags": ["corpus", if a % 2 == 0 { "even" } else { "odd" }],
    })
}

/// A digest of the records (the round trip must keep it).
#[highrise_agent::profile]
pub fn checksum(records: &[Value]) -> u64 {
    records
        .iter()
        .fold(0u64, |sum, r| sum.rotate_left(5) ^ digest(r))
}

/// One record's digest.
#[highrise_agent::profile]
pub fn digest(record: &Value) -> u64 {
    let text = record.to_string();
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}
