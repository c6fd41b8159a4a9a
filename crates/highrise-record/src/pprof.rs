//! pprof's `profile.proto` (github.com/google/pprof, `proto/profile.proto`), the messages
//! [`import`](crate::import) reads and [`export`](crate::export) writes, gzipped or not.
//!
//! Written out with prost's derive rather than generated: the schema is small and stable (it
//! has only grown by optional fields since 2016), and generating it would need `protoc` or a
//! build script in a crate that has neither.

use std::io::Read;

use prost::Message;

use crate::RecordError;

/// A whole profile: `string_table[0]` is always `""`; every `*_index`/`name`/`filename` field
/// is an index into it.
#[derive(Clone, PartialEq, Message)]
pub struct Profile {
    #[prost(message, repeated, tag = "1")]
    pub sample_type: Vec<ValueType>,
    #[prost(message, repeated, tag = "2")]
    pub sample: Vec<Sample>,
    #[prost(message, repeated, tag = "3")]
    pub mapping: Vec<Mapping>,
    #[prost(message, repeated, tag = "4")]
    pub location: Vec<Location>,
    #[prost(message, repeated, tag = "5")]
    pub function: Vec<Function>,
    #[prost(string, repeated, tag = "6")]
    pub string_table: Vec<String>,
    #[prost(int64, tag = "7")]
    pub drop_frames: i64,
    #[prost(int64, tag = "8")]
    pub keep_frames: i64,
    #[prost(int64, tag = "9")]
    pub time_nanos: i64,
    #[prost(int64, tag = "10")]
    pub duration_nanos: i64,
    #[prost(message, optional, tag = "11")]
    pub period_type: Option<ValueType>,
    #[prost(int64, tag = "12")]
    pub period: i64,
    #[prost(int64, repeated, tag = "13")]
    pub comment: Vec<i64>,
    #[prost(int64, tag = "14")]
    pub default_sample_type: i64,
}

/// A kind of value and its unit (`cpu`/`nanoseconds`, `samples`/`count`, `alloc_space`/`bytes`).
#[derive(Clone, PartialEq, Message)]
pub struct ValueType {
    #[prost(int64, tag = "1")]
    pub r#type: i64,
    #[prost(int64, tag = "2")]
    pub unit: i64,
}

/// One stack (leaf first) and its values, one per sample type.
#[derive(Clone, PartialEq, Message)]
pub struct Sample {
    #[prost(uint64, repeated, tag = "1")]
    pub location_id: Vec<u64>,
    #[prost(int64, repeated, tag = "2")]
    pub value: Vec<i64>,
    #[prost(message, repeated, tag = "3")]
    pub label: Vec<Label>,
}

/// A sample's label: a string (`thread` → `main`) or a number.
#[derive(Clone, PartialEq, Message)]
pub struct Label {
    #[prost(int64, tag = "1")]
    pub key: i64,
    #[prost(int64, tag = "2")]
    pub str: i64,
    #[prost(int64, tag = "3")]
    pub num: i64,
    #[prost(int64, tag = "4")]
    pub num_unit: i64,
}

/// A binary mapped into the process (its file names a native frame's library).
#[derive(Clone, PartialEq, Message)]
pub struct Mapping {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(uint64, tag = "2")]
    pub memory_start: u64,
    #[prost(uint64, tag = "3")]
    pub memory_limit: u64,
    #[prost(uint64, tag = "4")]
    pub file_offset: u64,
    #[prost(int64, tag = "5")]
    pub filename: i64,
    #[prost(int64, tag = "6")]
    pub build_id: i64,
    #[prost(bool, tag = "7")]
    pub has_functions: bool,
    #[prost(bool, tag = "8")]
    pub has_filenames: bool,
    #[prost(bool, tag = "9")]
    pub has_line_numbers: bool,
    #[prost(bool, tag = "10")]
    pub has_inline_frames: bool,
}

/// An address; its lines are the functions there, inlined ones first and the caller last.
#[derive(Clone, PartialEq, Message)]
pub struct Location {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(uint64, tag = "2")]
    pub mapping_id: u64,
    #[prost(uint64, tag = "3")]
    pub address: u64,
    #[prost(message, repeated, tag = "4")]
    pub line: Vec<Line>,
    #[prost(bool, tag = "5")]
    pub is_folded: bool,
}

/// A function at a line.
#[derive(Clone, PartialEq, Message)]
pub struct Line {
    #[prost(uint64, tag = "1")]
    pub function_id: u64,
    #[prost(int64, tag = "2")]
    pub line: i64,
    #[prost(int64, tag = "3")]
    pub column: i64,
}

/// A function: its name, system name and source file.
#[derive(Clone, PartialEq, Message)]
pub struct Function {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(int64, tag = "2")]
    pub name: i64,
    #[prost(int64, tag = "3")]
    pub system_name: i64,
    #[prost(int64, tag = "4")]
    pub filename: i64,
    #[prost(int64, tag = "5")]
    pub start_line: i64,
}

/// A pprof file's gzip magic.
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// At most this many bytes of decompressed profile, and at most [`MAX_GZIP_RATIO`] times the
/// file: a gzip bomb stops there with an error.
pub const MAX_DECODED_BYTES: u64 = 4 << 30;
/// pprof files shrink 5–20× gzipped; this is far beyond any real one.
pub const MAX_GZIP_RATIO: u64 = 1000;

/// Whether `start` (a file's first bytes, gzip already undone) looks like a pprof profile: it
/// is binary (a text file may begin with the same bytes), and its first fields (up to the end
/// of `start`, at least two) are `Profile` fields with their wire types (writers order them
/// differently: Go's begins with `time_nanos`).
pub fn looks_like_profile(start: &[u8]) -> bool {
    let binary = start
        .iter()
        .take(64)
        .any(|&b| b < 0x09 || (0x0e..0x20).contains(&b));
    if !binary {
        return false;
    }
    let varint = |at: &mut usize| -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *start.get(*at)?;
            *at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    };
    let mut at = 0;
    let mut fields = 0;
    while fields < 8 && at < start.len() {
        let Some(key) = varint(&mut at) else {
            break; // cut off by the end of `start`
        };
        let wire_type = key & 7;
        let expected: &[u64] = match key >> 3 {
            1..=6 | 11 => &[2],
            7..=10 | 12 | 14 => &[0],
            13 => &[0, 2],
            _ => &[],
        };
        if !expected.contains(&wire_type) {
            return false;
        }
        fields += 1;
        let Some(value) = varint(&mut at) else {
            break;
        };
        if wire_type == 2 {
            at = at.saturating_add(value as usize);
        }
    }
    fields >= 2 || (fields == 1 && at >= start.len())
}

/// The first bytes of `bytes` once gzip is undone (where it is gzipped), for detection.
pub fn peek_decoded(bytes: &[u8]) -> Vec<u8> {
    if !bytes.starts_with(&GZIP_MAGIC) {
        return bytes.to_vec();
    }
    let mut out = Vec::new();
    let _ = flate2::read::GzDecoder::new(bytes)
        .take(64)
        .read_to_end(&mut out);
    out
}

/// Decodes a profile, gunzipping it first where it is gzipped.
pub fn decode(bytes: &[u8]) -> Result<Profile, RecordError> {
    let invalid = |reason: String| RecordError::InvalidProfile { reason };
    if bytes.starts_with(&GZIP_MAGIC) {
        let limit = (bytes.len() as u64)
            .saturating_mul(MAX_GZIP_RATIO)
            .clamp(1 << 20, MAX_DECODED_BYTES);
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .take(limit + 1)
            .read_to_end(&mut raw)
            .map_err(|e| invalid(format!("pprof: gzip: {e}")))?;
        if raw.len() as u64 > limit {
            return Err(invalid(format!(
                "pprof: more than {limit} bytes once unzipped ({MAX_GZIP_RATIO}× the file)"
            )));
        }
        return Profile::decode(raw.as_slice()).map_err(|e| invalid(format!("pprof: {e}")));
    }
    Profile::decode(bytes).map_err(|e| invalid(format!("pprof: {e}")))
}

/// `profile` as pprof's files hold it: gzipped protobuf.
pub fn encode_gzipped(profile: &Profile) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into a Vec cannot fail.
    let _ = gz.write_all(&profile.encode_to_vec());
    gz.finish().unwrap_or_default()
}
