//! Short-string helpers for the full layout's hot loops. Names are mostly shorter than 32
//! bytes, where a call to `memcmp` / `memcpy` costs more than the work; these compare and load
//! in 8-byte words instead (safe code: fixed-size copies compile to single loads).

use std::cmp::Ordering;

/// Bytes `i..i + 8` of `s` as a big-endian word (`s.len() >= i + 8`).
#[inline(always)]
fn word(s: &[u8], i: usize) -> u64 {
    let mut w = [0_u8; 8];
    w.copy_from_slice(&s[i..i + 8]);
    u64::from_be_bytes(w)
}

/// The first 8 bytes of `s` as a big-endian word, zero-padded: ordered like the strings
/// themselves up to ties.
#[inline]
pub(crate) fn prefix(s: &[u8]) -> u64 {
    if s.len() >= 8 {
        return word(s, 0);
    }
    let mut w = 0_u64;
    for (k, &b) in s.iter().enumerate() {
        w |= u64::from(b) << (56 - 8 * k);
    }
    w
}

/// `a == b`, word by word.
#[inline]
pub(crate) fn eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return prefix(a) == prefix(b);
    }
    let mut i = 0;
    while i + 8 < n {
        if word(a, i) != word(b, i) {
            return false;
        }
        i += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

/// `a.cmp(b)` (lexicographic by bytes, like `str`'s order), word by word.
#[inline]
pub(crate) fn cmp(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let (x, y) = (word(a, i), word(b, i));
        if x != y {
            return x.cmp(&y);
        }
        i += 8;
    }
    prefix(&a[i..])
        .cmp(&prefix(&b[i..]))
        .then(a.len().cmp(&b.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agree_with_the_standard_library() {
        let words: Vec<&[u8]> = vec![
            b"",
            b"a",
            b"a\0",
            b"ab",
            b"abc",
            b"abcdefg",
            b"abcdefgh",
            b"abcdefgh\0",
            b"abcdefghi",
            b"abcdefgi",
            b"abcdefghijklmnop",
            b"abcdefghijklmnoq",
            b"abcdefghijklmnopq",
            b"\xff",
            b"\xff\xff\xff\xff\xff\xff\xff\xff\xff",
            b"b",
            b"getset12",
            b"getset120",
            b"getset13",
            b"drawload7",
            b"drawload12",
        ];
        for a in &words {
            for b in &words {
                assert_eq!(eq(a, b), a == b, "{a:?} == {b:?}");
                assert_eq!(cmp(a, b), a.cmp(b), "{a:?} cmp {b:?}");
                if prefix(a) != prefix(b) {
                    assert_eq!(prefix(a).cmp(&prefix(b)), a.cmp(b), "{a:?} prefix {b:?}");
                }
            }
        }
    }
}
