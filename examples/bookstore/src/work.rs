//! Deterministic CPU work standing in for real computation (not instrumented: its time
//! belongs to the caller).

use std::hint::black_box;

/// About `units` microseconds of arithmetic.
pub fn burn(units: u32) -> u64 {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..u64::from(units) * 250 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x = black_box(x);
    }
    x
}
