//! Per-(method, thread) accumulation records and the per-thread method → pair map.

/// Marks "no pair" in frames (e.g. the charge of a frame whose whole stack is excluded).
pub(crate) const NO_PAIR: u32 = u32::MAX;
/// `Pair::method_id` of a free slot.
pub(crate) const FREE_METHOD: u32 = u32::MAX;
/// `Pair::acc_epoch` when the accumulator holds nothing.
pub(crate) const NO_EPOCH: u64 = u64::MAX;

/// The hot half of a (method, thread) pair: what the event loop touches. 24 bytes.
///
/// Time is accumulated lazily into `acc_*`, the pair's values for bucket `acc_epoch` (the
/// bucket its thread is in; the pair is then in its thread's touched list). When the thread
/// moves to a later bucket the accumulator is flushed: appended as a record to its bucket's
/// list, later added to the window sums in [`PairInfo`]; expiring a bucket subtracts its
/// records. An accumulator whose bucket has left the window before its thread moved on is
/// dead: ignored by snapshots, dropped at the thread's next bucket or when the pair is
/// released.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pair {
    pub acc_epoch: u64,
    pub acc_excl_ns: u32,
    pub acc_incl_ns: u32,
    pub acc_calls: u32,
    /// Frames of this pair on its thread's stack (more than one under recursion).
    pub open_frames: u32,
}

impl Pair {
    pub(crate) const EMPTY: Self = Self {
        acc_epoch: NO_EPOCH,
        acc_excl_ns: 0,
        acc_incl_ns: 0,
        acc_calls: 0,
        open_frames: 0,
    };

    pub(crate) fn clear_accumulator(&mut self) {
        self.acc_epoch = NO_EPOCH;
        self.acc_excl_ns = 0;
        self.acc_incl_ns = 0;
        self.acc_calls = 0;
    }
}

/// The cold half of a pair: identity, reference count and window sums; touched when bucket
/// records are summed or expire (at random) and by snapshots (in order). 32 bytes, aligned so
/// that a random access touches one cache line. (The pair's thread is in
/// [`crate::event_engine::Engine::pair_thread`], needed only on release.)
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
pub(crate) struct PairInfo {
    /// Sums over the pair's flushed records of live buckets.
    pub win_excl_ns: u64,
    pub win_incl_ns: u64,
    pub win_calls: u64,
    /// [`FREE_METHOD`] for a free slot.
    pub method_id: u32,
    /// Bucket records naming this pair; the pair can be released when this and
    /// `open_frames` are zero and its accumulator is empty or out of the window.
    pub log_refs: u32,
}

impl PairInfo {
    pub(crate) fn new(method_id: u32) -> Self {
        Self {
            win_excl_ns: 0,
            win_incl_ns: 0,
            win_calls: 0,
            method_id,
            log_refs: 0,
        }
    }

    #[inline]
    pub(crate) fn is_free(&self) -> bool {
        self.method_id == FREE_METHOD
    }
}

/// A thread's method → pair index is a plain array once its pairs are at least this dense
/// among the method ids up to its largest one: then the array (4 B per id) is no larger than
/// the hash table would be (8 B slots, load factor 1/4 to 1/2), and it needs no probing.
const DENSE_RATIO: usize = 8;

/// Dense arrays up to this many ids (256 KiB) stay in the core's L2 cache: prefetching
/// their slots costs more than it saves.
const PREFETCH_DENSE_IDS: usize = 64 * 1024;

/// Method id → pair index for one thread. Starts as a small hash table; once the thread has
/// touched at least a quarter of the ids up to its largest one, switches to a plain array
/// indexed by method id (4 bytes per id, no more than the table would take, and one load per
/// lookup); switches back when it empties out.
#[derive(Debug, Clone, Default)]
pub(crate) struct PairMap {
    table: HashTable,
    /// Dense mode when non-empty: pair index per method id, [`NO_PAIR`] for none.
    dense: Vec<u32>,
    len: usize,
    max_method_id: u32,
}

impl PairMap {
    #[inline(always)]
    pub(crate) fn get(&self, method_id: u32) -> Option<u32> {
        if self.dense.is_empty() {
            self.table.get(method_id)
        } else {
            match self.dense.get(method_id as usize) {
                Some(&pair_index) if pair_index != NO_PAIR => Some(pair_index),
                _ => None,
            }
        }
    }

    /// Like [`get`](Self::get), [`NO_PAIR`] for none; no branch in dense mode beyond the
    /// (predictable) bounds check.
    #[inline(always)]
    pub(crate) fn get_or_none(&self, method_id: u32) -> u32 {
        if self.dense.is_empty() {
            self.table.get(method_id).unwrap_or(NO_PAIR)
        } else {
            self.dense
                .get(method_id as usize)
                .copied()
                .unwrap_or(NO_PAIR)
        }
    }

    /// Starts loading the slot `get(method_id)` will read.
    #[inline(always)]
    pub(crate) fn prefetch(&self, method_id: u32) {
        if self.dense.is_empty() {
            crate::prefetch::prefetch(&self.table.slots[self.table.home(method_id)]);
        } else if self.dense.len() > PREFETCH_DENSE_IDS {
            if let Some(slot) = self.dense.get(method_id as usize) {
                crate::prefetch::prefetch(slot);
            }
        }
    }

    /// Inserts a key that is not present.
    pub(crate) fn insert_new(&mut self, method_id: u32, pair_index: u32) {
        self.len += 1;
        self.max_method_id = self.max_method_id.max(method_id);
        if self.dense.is_empty() {
            self.table.insert_new(method_id, pair_index);
            if self.len >= 64 && self.len * DENSE_RATIO > self.max_method_id as usize {
                self.dense = vec![NO_PAIR; self.max_method_id as usize + 1];
                for (key, value) in self.table.drain() {
                    self.dense[key as usize] = value;
                }
            }
        } else {
            let index = method_id as usize;
            if index >= self.dense.len() {
                if self.len * DENSE_RATIO <= index {
                    // The array would be mostly empty: back to the table. The new key goes
                    // into the table, so the maximum must cover it too (the switch derives it
                    // from the array alone).
                    self.switch_to_table();
                    self.max_method_id = self.max_method_id.max(method_id);
                    self.table.insert_new(method_id, pair_index);
                    return;
                }
                self.dense.resize(index + 1, NO_PAIR);
            }
            self.dense[index] = pair_index;
        }
    }

    /// Moves the array's entries into the table; `max_method_id` becomes the array's largest
    /// key (the caller raises it for any key it adds after).
    fn switch_to_table(&mut self) {
        let dense = std::mem::take(&mut self.dense);
        self.max_method_id = 0;
        for (method_id, &pair_index) in dense.iter().enumerate() {
            if pair_index != NO_PAIR {
                self.table.insert_new(method_id as u32, pair_index);
                self.max_method_id = method_id as u32;
            }
        }
    }

    pub(crate) fn remove(&mut self, method_id: u32) {
        if self.dense.is_empty() {
            if self.table.remove(method_id) {
                self.len -= 1;
            }
            return;
        }
        if let Some(slot) = self.dense.get_mut(method_id as usize) {
            if *slot != NO_PAIR {
                *slot = NO_PAIR;
                self.len -= 1;
            }
        }
        if self.len * 16 < self.dense.len() {
            self.switch_to_table();
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The method ids with a pair here, in no particular order.
    pub(crate) fn method_ids(&self) -> impl Iterator<Item = u32> + '_ {
        let dense = self
            .dense
            .iter()
            .enumerate()
            .filter(|(_, &pair_index)| pair_index != NO_PAIR)
            .map(|(method_id, _)| method_id as u32);
        let table = self
            .table
            .slots
            .iter()
            .filter(|(method_id, _)| *method_id != FREE_METHOD)
            .map(|(method_id, _)| *method_id);
        dense.chain(table)
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.table.memory_bytes() + self.dense.capacity() * 4
    }
}

/// Open-addressing hash map from method id to pair index (linear probing, backward-shift
/// deletion, load factor at most 1/2).
#[derive(Debug, Clone)]
struct HashTable {
    /// (method id, pair index); method id [`FREE_METHOD`] = empty slot.
    slots: Vec<(u32, u32)>,
    len: usize,
    shift: u32,
}

impl Default for HashTable {
    fn default() -> Self {
        Self::with_capacity_pow2(16)
    }
}

impl HashTable {
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

    #[inline(always)]
    fn get(&self, method_id: u32) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut index = self.home(method_id);
        loop {
            let (key, value) = self.slots[index];
            // Empty first: `u32::MAX` (an invalid id) is the empty key and must miss.
            if key == FREE_METHOD {
                return None;
            }
            if key == method_id {
                return Some(value);
            }
            index = (index + 1) & mask;
        }
    }

    fn insert_new(&mut self, method_id: u32, pair_index: u32) {
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

    fn remove(&mut self, method_id: u32) -> bool {
        let mask = self.slots.len() - 1;
        let mut index = self.home(method_id);
        loop {
            let key = self.slots[index].0;
            if key == FREE_METHOD {
                return false;
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
        true
    }

    /// Empties the table, returning its (method id, pair index) pairs.
    fn drain(&mut self) -> impl Iterator<Item = (u32, u32)> {
        let old = std::mem::take(self);
        old.slots.into_iter().filter(|(key, _)| *key != FREE_METHOD)
    }

    fn memory_bytes(&self) -> usize {
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
            // Dense ids at first, then sparse ones, so both modes and both switches run.
            let key = if step < 10_000 {
                ((state >> 33) % 500) as u32
            } else {
                ((state >> 33) % 500) as u32 * 1000
            };
            if model.remove(&key).is_some() {
                map.remove(key);
            } else {
                map.insert_new(key, step);
                model.insert(key, step);
            }
            assert_eq!(map.len(), model.len());
        }
        for key in (0..500).chain((0..500).map(|key| key * 1000)) {
            assert_eq!(map.get(key), model.get(&key).copied());
            assert_eq!(
                map.get_or_none(key),
                model.get(&key).copied().unwrap_or(NO_PAIR)
            );
        }
    }

    /// Regression (Maven under the Java agent, `mvn -o validate`): the session thread panicked
    /// in `insert_new` with "index out of bounds: the len is 733 but the index is 955". The
    /// switch from the array to the table forgot the key that caused it, so the next switch
    /// back sized the array below that key.
    #[test]
    fn maven_jumping_method_ids_do_not_overflow_the_dense_array() {
        let mut map = PairMap::default();
        let mut model = HashMap::new();
        // 64 dense ids: the map goes dense.
        for id in 0..64u32 {
            map.insert_new(id, id);
            model.insert(id, id);
        }
        assert!(!map.dense.is_empty());
        // An id far beyond the array: back to the table, with 955 in it.
        map.insert_new(955, 955);
        model.insert(955, 955);
        // More dense ids until the table goes dense again: the array must cover 955.
        for id in 64..200u32 {
            map.insert_new(id, id);
            model.insert(id, id);
        }
        for (&key, &value) in &model {
            assert_eq!(map.get(key), Some(value), "key {key}");
        }
        map.insert_new(954, 954);
        assert_eq!(map.get(954), Some(954));
        assert_eq!(map.get(955), Some(955));
    }

    /// A run of consecutive ids from `base` (what one class's methods get), inserted or
    /// removed.
    #[derive(Debug, Clone)]
    struct Run {
        base: u32,
        count: u32,
        remove: bool,
    }

    /// Id sequences that jump up and down across the dense/table thresholds: dense runs of
    /// small ids (what one class loader gives), runs far up (a class loaded by another loader)
    /// and removals that empty the array out.
    fn run_strategy() -> impl proptest::strategy::Strategy<Value = Run> {
        use proptest::prelude::*;
        let base = prop_oneof![4 => 0u32..64, 3 => 64u32..2_000, 2 => 2_000u32..200_000];
        (base, 1u32..200, prop::bool::weighted(0.2)).prop_map(|(base, count, remove)| Run {
            base,
            count,
            remove,
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        #[test]
        fn pair_map_is_a_plain_map_whatever_the_ids(
            runs in proptest::collection::vec(run_strategy(), 1..60),
        ) {
            let mut map = PairMap::default();
            let mut model: HashMap<u32, u32> = HashMap::new();
            for (step, run) in runs.into_iter().enumerate() {
                for id in run.base..run.base + run.count {
                    if run.remove {
                        if model.remove(&id).is_some() {
                            map.remove(id);
                        }
                    } else if let std::collections::hash_map::Entry::Vacant(slot) = model.entry(id) {
                        slot.insert(step as u32);
                        map.insert_new(id, step as u32);
                    }
                }
                proptest::prop_assert_eq!(map.len(), model.len());
                proptest::prop_assert!(
                    model.keys().all(|&id| id <= map.max_method_id),
                    "max_method_id {} below a key", map.max_method_id
                );
            }
            for (&id, &value) in &model {
                proptest::prop_assert_eq!(map.get(id), Some(value));
                proptest::prop_assert_eq!(map.get_or_none(id), value);
            }
            let mut ids: Vec<u32> = map.method_ids().collect();
            ids.sort_unstable();
            let mut expected: Vec<u32> = model.keys().copied().collect();
            expected.sort_unstable();
            proptest::prop_assert_eq!(ids, expected);
            // The empty slots' key is no key.
            proptest::prop_assert_eq!(map.get(FREE_METHOD), None);
            proptest::prop_assert_eq!(map.get_or_none(FREE_METHOD), NO_PAIR);
        }
    }

    #[test]
    fn pair_record_stays_small() {
        assert!(size_of::<Pair>() <= 72);
        assert_eq!(size_of::<PairInfo>(), 32);
    }
}
