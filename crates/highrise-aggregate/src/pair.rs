//! Per-(method, thread) accumulation records and the per-thread method → pair map.

/// Marks "no pair" in frames (e.g. the charge of a frame whose whole stack is excluded).
pub(crate) const NO_PAIR: u32 = u32::MAX;
/// `Pair::method_id` of a free slot.
pub(crate) const FREE_METHOD: u32 = u32::MAX;
/// `Pair::acc_epoch` when the accumulator holds nothing.
pub(crate) const NO_EPOCH: u64 = u64::MAX;

/// Everything known about one method on one thread: exactly one cache line.
///
/// Time is accumulated lazily into `acc_*`, the pair's values for bucket `acc_epoch` (the
/// bucket its thread is in). When the pair is next touched in a later bucket the accumulator
/// is flushed: appended as a record to its bucket's list and added to `win_*`, the sums over
/// all flushed, still-live records; expiring a bucket subtracts its records.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub(crate) struct Pair {
    pub acc_epoch: u64,
    pub acc_excl_ns: u32,
    pub acc_incl_ns: u32,
    pub acc_calls: u32,
    /// Frames of this pair on its thread's stack (more than one under recursion).
    pub open_frames: u32,
    /// [`FREE_METHOD`] for a free slot.
    pub method_id: u32,
    pub thread_index: u32,
    /// Bucket records naming this pair, plus one for an open accumulator; the pair can be
    /// released when this and `open_frames` are zero.
    pub log_refs: u32,
    pub win_excl_ns: u64,
    pub win_incl_ns: u64,
    pub win_calls: u64,
}

impl Pair {
    pub(crate) fn new(method_id: u32, thread_index: u32) -> Self {
        Self {
            acc_epoch: NO_EPOCH,
            acc_excl_ns: 0,
            acc_incl_ns: 0,
            acc_calls: 0,
            open_frames: 0,
            method_id,
            win_excl_ns: 0,
            win_incl_ns: 0,
            win_calls: 0,
            thread_index,
            log_refs: 0,
        }
    }

    #[inline]
    pub(crate) fn is_free(&self) -> bool {
        self.method_id == FREE_METHOD
    }
}

/// Open-addressing hash map from method id to pair index, one per thread (linear probing,
/// backward-shift deletion, load factor at most 1/2). Kept per thread so a thread's lookups
/// stay within its own, smaller table.
#[derive(Debug, Clone)]
pub(crate) struct PairMap {
    /// (method id, pair index); method id [`FREE_METHOD`] = empty slot.
    slots: Vec<(u32, u32)>,
    len: usize,
    shift: u32,
}

impl Default for PairMap {
    fn default() -> Self {
        Self::with_capacity_pow2(16)
    }
}

impl PairMap {
    fn with_capacity_pow2(capacity: usize) -> Self {
        Self {
            slots: vec![(FREE_METHOD, 0); capacity],
            len: 0,
            shift: 64 - capacity.trailing_zeros(),
        }
    }

    #[inline(always)]
    fn home(&self, method_id: u32) -> usize {
        // Fibonacci hashing: the high bits of the product.
        ((u64::from(method_id).wrapping_mul(0x9E37_79B9_7F4A_7C15)) >> self.shift) as usize
    }

    #[inline]
    pub(crate) fn get(&self, method_id: u32) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut index = self.home(method_id);
        loop {
            let (key, value) = self.slots[index];
            if key == method_id {
                return Some(value);
            }
            if key == FREE_METHOD {
                return None;
            }
            index = (index + 1) & mask;
        }
    }

    /// Inserts a key that is not present.
    pub(crate) fn insert_new(&mut self, method_id: u32, pair_index: u32) {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut index = self.home(method_id);
        while self.slots[index].0 != FREE_METHOD {
            index = (index + 1) & mask;
        }
        self.slots[index] = (method_id, pair_index);
        self.len += 1;
    }

    pub(crate) fn remove(&mut self, method_id: u32) {
        let mask = self.slots.len() - 1;
        let mut index = self.home(method_id);
        loop {
            let key = self.slots[index].0;
            if key == FREE_METHOD {
                return;
            }
            if key == method_id {
                break;
            }
            index = (index + 1) & mask;
        }
        // Backward-shift deletion: pull later members of the probe run into the hole.
        let mut hole = index;
        let mut next = (hole + 1) & mask;
        loop {
            let (key, _) = self.slots[next];
            if key == FREE_METHOD {
                break;
            }
            let home = self.home(key);
            // Move `next` into the hole if its home is not within (hole, next].
            let distance_to_home = next.wrapping_sub(home) & mask;
            let distance_to_hole = next.wrapping_sub(hole) & mask;
            if distance_to_home >= distance_to_hole {
                self.slots[hole] = self.slots[next];
                hole = next;
            }
            next = (next + 1) & mask;
        }
        self.slots[hole] = (FREE_METHOD, 0);
        self.len -= 1;
        if self.slots.len() > 16 && self.len * 8 < self.slots.len() {
            self.shrink();
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.slots.capacity() * size_of::<(u32, u32)>()
    }

    fn grow(&mut self) {
        self.rehash(self.slots.len() * 2);
    }

    fn shrink(&mut self) {
        self.rehash(self.slots.len() / 2);
    }

    fn rehash(&mut self, capacity: usize) {
        let old = std::mem::replace(self, Self::with_capacity_pow2(capacity));
        for (key, value) in old.slots {
            if key != FREE_METHOD {
                self.insert_new(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn pair_map_matches_a_hash_map_under_churn() {
        let mut map = PairMap::default();
        let mut model = HashMap::new();
        let mut state = 12345u64;
        for step in 0..20_000u32 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let key = ((state >> 33) % 500) as u32;
            if model.remove(&key).is_some() {
                map.remove(key);
            } else {
                map.insert_new(key, step);
                model.insert(key, step);
            }
            assert_eq!(map.len(), model.len());
        }
        for key in 0..500 {
            assert_eq!(map.get(key), model.get(&key).copied());
        }
    }

    #[test]
    fn pair_record_stays_small() {
        assert!(size_of::<Pair>() <= 72);
    }
}
