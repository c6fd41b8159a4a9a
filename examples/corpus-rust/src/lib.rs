//! The Rust program of the test corpus (`scripts/test-corpus.sh`): a round trip of a log of
//! records through two real crates, each step a `#[highrise_agent::profile]` function —
//! [`records::make`] builds the records (one [`records::record`] call each), [`codec::encode`]
//! writes them as JSON with `serde_json`, [`codec::compress`] compresses that with `zstd` at a
//! high level, [`codec::decompress`] and [`codec::decode`] read it back, and
//! [`records::checksum`] checks it (one [`records::digest`] call per record).
//!
//! The hot method is [`codec::compress`]: zstd at level 19 spends about three quarters of a
//! round there (measured without a viewer: each step timed on its own, `corpus-rust --timings`:
//! compress 76 %, checksum 8 %, encode 6 %, make and decode 5 % each).

pub mod codec;
pub mod records;

use std::time::{Duration, Instant};

/// Time spent in each step of [`round`] (for `--timings`: the reference the corpus checks the
/// report's hottest method against).
#[derive(Debug, Default, Clone)]
pub struct Timings {
    pub steps: Vec<(&'static str, Duration)>,
}

impl Timings {
    fn add(&mut self, name: &'static str, took: Duration) {
        match self.steps.iter_mut().find(|(step, _)| *step == name) {
            Some((_, total)) => *total += took,
            None => self.steps.push((name, took)),
        }
    }
}

fn timed<T>(timings: &mut Timings, name: &'static str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let value = f();
    timings.add(name, start.elapsed());
    value
}

/// One round trip of `count` records; returns the compressed size. Panics if what comes back
/// differs from what went in.
#[highrise_agent::profile]
pub fn round(seed: u64, count: usize, level: i32, timings: &mut Timings) -> usize {
    let log = timed(timings, "records.make", || records::make(seed, count));
    let json = timed(timings, "codec.encode", || codec::encode(&log));
    let packed = timed(timings, "codec.compress", || codec::compress(&json, level));
    let unpacked = timed(timings, "codec.decompress", || codec::decompress(&packed));
    let back = timed(timings, "codec.decode", || codec::decode(&unpacked));
    let sums = timed(timings, "records.checksum", || {
        (records::checksum(&log), records::checksum(&back))
    });
    assert_eq!(sums.0, sums.1, "the round trip changed the records");
    packed.len()
}
