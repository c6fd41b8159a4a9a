//! Packed events: the compact, fast-to-decode body of an [`EventBatch`].
//!
//! Each event is two unsigned LEB128 varints (7 bits per byte, low bits first, high bit set on
//! every byte but the last):
//!
//! 1. `method_id << 1 | kind` where kind is 0 for enter, 1 for exit;
//! 2. `timestamp - previous_timestamp` in ticks, where the previous timestamp of the first event
//!    is the batch's `base_timestamp`.
//!
//! A typical event (method id < 64, delta < 128 ticks) is 2 bytes; ids < 8192 and deltas < 16384
//! ticks take at most 4. LEB128 rather than bincode's varint because its one-byte case covers
//! 0..=127 with a single comparison on decode, and the enter/exit bit rides along for free.

use crate::{EventBatch, ProtocolError};

/// Whether a method was entered or exited, or (packed records only) objects were created or
/// freed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum EventKind {
    Enter = 0,
    Exit = 1,
    /// Objects of one class were created or freed by the innermost open frame of the thread
    /// at this point of its stream; [`Event::method_id`] then holds the *class* id, and the
    /// amounts are in the side vector [`decode_records`] fills (the k-th memory event's
    /// amounts are its k-th entry).
    Memory = 2,
}

/// One decoded event of one thread (the thread is the batch's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Event {
    /// Agent clock, converted to nanoseconds.
    pub timestamp_ns: u64,
    /// The method's id; for [`EventKind::Memory`], the class id.
    pub method_id: u32,
    pub kind: EventKind,
}

/// What one memory record says: `count` objects of its class created (or freed, `free`),
/// `bytes` shallow bytes in all (0: not measured).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MemoryAmount {
    pub count: u64,
    pub bytes: u64,
    pub free: bool,
}

/// Builds an [`EventBatch`] for one thread, event by event.
#[derive(Debug, Clone)]
pub struct PackedEventWriter {
    thread_id: u64,
    base_timestamp: u64,
    last_timestamp: u64,
    event_count: u32,
    packed_events: Vec<u8>,
}

impl PackedEventWriter {
    /// A writer for `thread_id` whose first delta is relative to `base_timestamp` (ticks).
    pub fn new(thread_id: u64, base_timestamp: u64) -> Self {
        Self {
            thread_id,
            base_timestamp,
            last_timestamp: base_timestamp,
            event_count: 0,
            packed_events: Vec::new(),
        }
    }

    /// Appends one event. A timestamp earlier than the previous one is written as delta 0
    /// (timestamps within a batch never go backwards on the wire). This (version 1) layout has
    /// no memory records: an [`EventKind::Memory`] is ignored (use [`PackedRecordWriter`]).
    #[inline]
    pub fn push(&mut self, timestamp: u64, method_id: u32, kind: EventKind) {
        if kind == EventKind::Memory {
            return;
        }
        let head = (u64::from(method_id) << 1) | kind as u64;
        let delta = timestamp.saturating_sub(self.last_timestamp);
        self.last_timestamp = self.last_timestamp.max(timestamp);
        write_leb128(&mut self.packed_events, head);
        write_leb128(&mut self.packed_events, delta);
        self.event_count += 1;
    }

    /// Events pushed so far.
    pub fn len(&self) -> usize {
        self.event_count as usize
    }

    /// True when no event was pushed.
    pub fn is_empty(&self) -> bool {
        self.event_count == 0
    }

    /// Bytes of packed events so far.
    pub fn packed_len_bytes(&self) -> usize {
        self.packed_events.len()
    }

    /// The finished batch.
    pub fn finish(self) -> EventBatch {
        EventBatch {
            thread_id: self.thread_id,
            base_timestamp: self.base_timestamp,
            event_count: self.event_count,
            packed_events: self.packed_events,
        }
    }
}

/// Builds a `Records` batch (SPEC.md "Packed records") for one thread: enters, exits and
/// memory records in the thread's order.
#[derive(Debug, Clone)]
pub struct PackedRecordWriter {
    thread_id: u64,
    base_timestamp: u64,
    last_timestamp: u64,
    record_count: u32,
    packed: Vec<u8>,
}

impl PackedRecordWriter {
    /// A writer for `thread_id` whose first delta is relative to `base_timestamp` (ticks).
    pub fn new(thread_id: u64, base_timestamp: u64) -> Self {
        Self {
            thread_id,
            base_timestamp,
            last_timestamp: base_timestamp,
            record_count: 0,
            packed: Vec::new(),
        }
    }

    #[inline]
    fn head_and_delta(&mut self, timestamp: u64, id: u32, kind: u64) {
        let delta = timestamp.saturating_sub(self.last_timestamp);
        self.last_timestamp = self.last_timestamp.max(timestamp);
        write_leb128(&mut self.packed, (u64::from(id) << 2) | kind);
        write_leb128(&mut self.packed, delta);
        self.record_count += 1;
    }

    /// Appends an enter or exit (an [`EventKind::Memory`] without amounts is ignored). Backward
    /// timestamps are written as delta 0, as in [`PackedEventWriter::push`].
    #[inline]
    pub fn push(&mut self, timestamp: u64, method_id: u32, kind: EventKind) {
        if kind != EventKind::Memory {
            self.head_and_delta(timestamp, method_id, kind as u64);
        }
    }

    /// Appends a memory record: the innermost open frame created (or freed) `amount.count`
    /// objects of `class_id`, `amount.bytes` bytes in all.
    #[inline]
    pub fn push_memory(&mut self, timestamp: u64, class_id: u32, amount: MemoryAmount) {
        self.head_and_delta(timestamp, class_id, EventKind::Memory as u64);
        write_leb128(
            &mut self.packed,
            (amount.count << 1) | u64::from(amount.free),
        );
        write_leb128(&mut self.packed, amount.bytes);
    }

    /// Records pushed so far.
    pub fn len(&self) -> usize {
        self.record_count as usize
    }

    /// True when nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.record_count == 0
    }

    /// Bytes of packed records so far.
    pub fn packed_len_bytes(&self) -> usize {
        self.packed.len()
    }

    /// The finished batch (the body of an `AgentMessage::Records`).
    pub fn finish(self) -> EventBatch {
        EventBatch {
            thread_id: self.thread_id,
            base_timestamp: self.base_timestamp,
            event_count: self.record_count,
            packed_events: self.packed,
        }
    }
}

#[inline]
fn write_leb128(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Why the fast loop stopped; turned into a readable error outside the loop.
#[derive(Debug)]
enum PackedFault {
    Truncated,
    VarintTooLong,
    MethodIdTooLarge,
    TimestampOverflow,
    ReservedKind,
}

#[inline(always)]
fn read_leb128(bytes: &[u8], pos: &mut usize) -> Result<u64, PackedFault> {
    let first = *bytes.get(*pos).ok_or(PackedFault::Truncated)?;
    *pos += 1;
    if first < 0x80 {
        return Ok(u64::from(first));
    }
    read_leb128_slow(bytes, pos, first)
}

/// Decodes a LEB128 varint of at most 3 bytes from the low bytes of `word`:
/// `(value, bytes used)`, or `None` when it is longer.
#[inline(always)]
fn leb128_from_word(word: u64) -> Option<(u64, usize)> {
    if word & 0x80 == 0 {
        Some((word & 0x7f, 1))
    } else if word & 0x8000 == 0 {
        Some(((word & 0x7f) | ((word >> 1) & 0x3f80), 2))
    } else if word & 0x80_0000 == 0 {
        Some((
            (word & 0x7f) | ((word >> 1) & 0x3f80) | ((word >> 2) & 0x1f_c000),
            3,
        ))
    } else {
        None
    }
}

/// Both varints of one event from an 8-byte window: `(head, delta, bytes used)`.
#[inline(always)]
fn decode_pair_from_word(word: u64) -> Option<(u64, u64, usize)> {
    let (head, head_len) = leb128_from_word(word)?;
    let (delta, delta_len) = leb128_from_word(word >> (8 * head_len))?;
    Some((head, delta, head_len + delta_len))
}

#[cold]
fn read_leb128_slow(bytes: &[u8], pos: &mut usize, first: u8) -> Result<u64, PackedFault> {
    let mut value = u64::from(first & 0x7f);
    let mut shift = 7u32;
    loop {
        let byte = *bytes.get(*pos).ok_or(PackedFault::Truncated)?;
        *pos += 1;
        if shift == 63 && byte > 1 {
            return Err(PackedFault::VarintTooLong);
        }
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Ok(value);
        }
        shift += 7;
        if shift > 63 {
            return Err(PackedFault::VarintTooLong);
        }
    }
}

/// Decodes the packed events of `batch` (a version-1 `Events` body) and appends them to `out`,
/// timestamps converted to nanoseconds with `clock_unit_ns`. On error nothing is appended.
pub fn decode_events(
    batch: &EventBatch,
    clock_unit_ns: u32,
    out: &mut Vec<Event>,
) -> Result<(), ProtocolError> {
    let mut no_amounts = Vec::new();
    decode_packed::<1>(batch, clock_unit_ns, out, &mut no_amounts)
}

/// Decodes the packed records of `batch` (a `Records` body, SPEC.md "Packed records"):
/// enters and exits as in [`decode_events`], memory records as [`EventKind::Memory`] events
/// whose amounts are appended to `amounts`, in order. On error nothing is appended to either.
pub fn decode_records(
    batch: &EventBatch,
    clock_unit_ns: u32,
    out: &mut Vec<Event>,
    amounts: &mut Vec<MemoryAmount>,
) -> Result<(), ProtocolError> {
    decode_packed::<2>(batch, clock_unit_ns, out, amounts)
}

/// The decoder of both layouts: `KIND_BITS` 1 (events: enter/exit) or 2 (records).
#[inline(always)]
fn decode_packed<const KIND_BITS: u32>(
    batch: &EventBatch,
    clock_unit_ns: u32,
    out: &mut Vec<Event>,
    amounts: &mut Vec<MemoryAmount>,
) -> Result<(), ProtocolError> {
    let bytes = batch.packed_events.as_slice();
    let count = batch.event_count as usize;
    // Every record takes at least two bytes: refuse counts the payload cannot hold before
    // reserving memory for them.
    if count > bytes.len() / 2 {
        return Err(ProtocolError::bad_events(format!(
            "event_count {count} cannot fit in {} bytes",
            bytes.len()
        )));
    }
    let start_len = out.len();
    let start_amounts = amounts.len();
    out.reserve(count);
    let unit_ns = u64::from(clock_unit_ns);
    let kind_mask = (1u64 << KIND_BITS) - 1;
    let mut pos = 0usize;
    let mut ticks = batch.base_timestamp;
    let mut decode = || -> Result<(), PackedFault> {
        for _ in 0..count {
            let (head, delta) = match bytes.get(pos..pos + 8) {
                // Fast path: one 8-byte load decodes both varints when each is ≤ 3 bytes.
                Some(word) => {
                    let word = u64::from_le_bytes(word.try_into().unwrap_or([0xff; 8]));
                    match decode_pair_from_word(word) {
                        Some((head, delta, used)) => {
                            pos += used;
                            (head, delta)
                        }
                        None => (read_leb128(bytes, &mut pos)?, read_leb128(bytes, &mut pos)?),
                    }
                }
                None => (read_leb128(bytes, &mut pos)?, read_leb128(bytes, &mut pos)?),
            };
            ticks = ticks
                .checked_add(delta)
                .ok_or(PackedFault::TimestampOverflow)?;
            let method_id =
                u32::try_from(head >> KIND_BITS).map_err(|_| PackedFault::MethodIdTooLarge)?;
            let kind = match head & kind_mask {
                0 => EventKind::Enter,
                1 => EventKind::Exit,
                2 => {
                    let count_and_free = read_leb128(bytes, &mut pos)?;
                    let bytes_total = read_leb128(bytes, &mut pos)?;
                    amounts.push(MemoryAmount {
                        count: count_and_free >> 1,
                        bytes: bytes_total,
                        free: count_and_free & 1 != 0,
                    });
                    EventKind::Memory
                }
                _ => return Err(PackedFault::ReservedKind),
            };
            out.push(Event {
                timestamp_ns: ticks.saturating_mul(unit_ns),
                method_id,
                kind,
            });
        }
        Ok(())
    };
    let result = decode();
    let error = match result {
        Ok(()) if pos == bytes.len() => return Ok(()),
        Ok(()) => format!("{} bytes left after {count} events", bytes.len() - pos),
        Err(fault) => {
            let decoded = out.len() - start_len;
            match fault {
                PackedFault::Truncated => {
                    format!("packed events end after {decoded} of {count} events")
                }
                PackedFault::VarintTooLong => {
                    format!("varint longer than 64 bits in event {decoded}")
                }
                PackedFault::MethodIdTooLarge => format!("method id over u32 in event {decoded}"),
                PackedFault::TimestampOverflow => {
                    format!("timestamp overflows u64 in event {decoded}")
                }
                PackedFault::ReservedKind => format!("reserved record kind 3 in event {decoded}"),
            }
        }
    };
    out.truncate(start_len);
    amounts.truncate(start_amounts);
    Err(ProtocolError::bad_events(error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leb128_round_trips_edges() {
        for value in [
            0,
            1,
            127,
            128,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut bytes = Vec::new();
            write_leb128(&mut bytes, value);
            let mut pos = 0;
            assert_eq!(read_leb128(&bytes, &mut pos).unwrap(), value);
            assert_eq!(pos, bytes.len());
        }
    }

    #[test]
    fn word_fast_path_agrees_with_the_byte_loop() {
        for value in [0u64, 1, 127, 128, 300, 16_383, 16_384, 2_097_151, 2_097_152] {
            let mut bytes = Vec::new();
            write_leb128(&mut bytes, value);
            let used = bytes.len();
            bytes.resize(8, 0xee);
            let word = u64::from_le_bytes(bytes.clone().try_into().unwrap());
            match leb128_from_word(word) {
                Some((decoded, len)) => {
                    assert_eq!((decoded, len), (value, used));
                }
                None => assert!(used > 3, "{value}"),
            }
        }
    }

    #[test]
    fn eleven_byte_varint_is_rejected() {
        let bytes = [0xffu8; 11];
        let mut pos = 0;
        assert!(matches!(
            read_leb128(&bytes, &mut pos),
            Err(PackedFault::VarintTooLong)
        ));
    }

    #[test]
    fn writer_clamps_backwards_timestamps_to_zero_delta() {
        let mut writer = PackedEventWriter::new(7, 100);
        writer.push(110, 3, EventKind::Enter);
        writer.push(105, 3, EventKind::Exit);
        let batch = writer.finish();
        let mut events = Vec::new();
        decode_events(&batch, 1, &mut events).unwrap();
        assert_eq!(events[0].timestamp_ns, 110);
        assert_eq!(events[1].timestamp_ns, 110);
    }

    #[test]
    fn clock_unit_scales_timestamps() {
        let mut writer = PackedEventWriter::new(1, 10);
        writer.push(12, 0, EventKind::Enter);
        let mut events = Vec::new();
        decode_events(&writer.finish(), 1000, &mut events).unwrap();
        assert_eq!(events[0].timestamp_ns, 12_000);
    }

    #[test]
    fn inconsistent_batches_are_errors_and_append_nothing() {
        let mut writer = PackedEventWriter::new(1, 0);
        writer.push(5, 300, EventKind::Enter);
        writer.push(9, 300, EventKind::Exit);
        let good = writer.finish();
        let mut out = vec![Event {
            timestamp_ns: 1,
            method_id: 1,
            kind: EventKind::Enter,
        }];

        let mut truncated = good.clone();
        truncated.packed_events.pop();
        assert!(decode_events(&truncated, 1, &mut out).is_err());

        let mut too_many = good.clone();
        too_many.event_count = 3;
        assert!(decode_events(&too_many, 1, &mut out).is_err());

        let mut trailing = good.clone();
        trailing.packed_events.push(0);
        assert!(decode_events(&trailing, 1, &mut out).is_err());

        let mut huge_count = good;
        huge_count.event_count = u32::MAX;
        assert!(decode_events(&huge_count, 1, &mut out).is_err());

        assert_eq!(out.len(), 1);
    }

    #[test]
    fn records_round_trip_with_memory_between_events() {
        let mut writer = PackedRecordWriter::new(9, 100);
        writer.push(100, 5, EventKind::Enter);
        let made = MemoryAmount {
            count: 3,
            bytes: 72,
            free: false,
        };
        writer.push_memory(110, 2, made);
        let freed = MemoryAmount {
            count: 1,
            bytes: 0,
            free: true,
        };
        writer.push_memory(120, 1 << 20, freed);
        writer.push(130, 5, EventKind::Exit);
        let batch = writer.finish();
        let (mut events, mut amounts) = (Vec::new(), Vec::new());
        decode_records(&batch, 1, &mut events, &mut amounts).unwrap();
        let kinds: Vec<_> = events
            .iter()
            .map(|e| (e.timestamp_ns, e.method_id, e.kind))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (100, 5, EventKind::Enter),
                (110, 2, EventKind::Memory),
                (120, 1 << 20, EventKind::Memory),
                (130, 5, EventKind::Exit),
            ]
        );
        assert_eq!(amounts, vec![made, freed]);
    }

    #[test]
    fn reserved_record_kind_rejects_the_batch_and_appends_nothing() {
        let batch = EventBatch {
            thread_id: 1,
            base_timestamp: 0,
            event_count: 2,
            packed_events: vec![0x00, 0x00, 0x07, 0x01],
        };
        let (mut events, mut amounts) = (Vec::new(), Vec::new());
        let error = decode_records(&batch, 1, &mut events, &mut amounts).unwrap_err();
        assert!(
            error.to_string().contains("reserved record kind 3"),
            "{error}"
        );
        assert!(events.is_empty() && amounts.is_empty());
    }

    #[test]
    fn a_truncated_memory_record_appends_no_amount() {
        let mut writer = PackedRecordWriter::new(1, 0);
        writer.push(0, 1, EventKind::Enter);
        writer.push_memory(
            1,
            1,
            MemoryAmount {
                count: 300,
                bytes: 1 << 40,
                free: false,
            },
        );
        let mut batch = writer.finish();
        batch.packed_events.pop();
        let (mut events, mut amounts) = (Vec::new(), Vec::new());
        assert!(decode_records(&batch, 1, &mut events, &mut amounts).is_err());
        assert!(events.is_empty() && amounts.is_empty());
    }
}
