//! [`KeyedTable`]: a value per 64-bit key, for the hot paths that fold queued updates in with
//! prefetching (memory records' (method, class) totals, calls below "(other contexts)").

use crate::prefetch::prefetch;

/// The one key a [`KeyedTable`] cannot hold (it marks free slots).
pub(crate) const FREE_KEY: u64 = u64::MAX;

/// A value per key: open addressing with linear probing, load at most one half. Written here
/// rather than taken from `std`'s map because its users prefetch the slot a key will land in
/// a few updates ahead, which needs the table's layout.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyedTable<V> {
    slots: Vec<(u64, V)>,
    len: usize,
}

impl<V: Copy + Default> KeyedTable<V> {
    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        // Fibonacci hashing: the top bits of the product; `slots.len()` is a power of two.
        let bits = self.slots.len().trailing_zeros();
        if bits == 0 {
            return 0;
        }
        let product = (key ^ key >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (product >> (64 - bits)) as usize
    }

    /// Starts loading the slot where `key`'s lookup begins.
    #[inline(always)]
    pub(crate) fn prefetch(&self, key: u64) {
        if let Some(slot) = self.slots.get(self.home(key)) {
            prefetch(slot);
        }
    }

    /// Where `key`'s probe ends (the table is not empty): its slot, or the free slot it would
    /// take.
    #[inline(always)]
    fn probe(&self, key: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut index = self.home(key);
        loop {
            let slot_key = self.slots[index].0;
            if slot_key == key || slot_key == FREE_KEY {
                return index;
            }
            index = (index + 1) & mask;
        }
    }

    /// The value of `key` (not [`FREE_KEY`]), a default one inserted if new.
    #[inline]
    pub(crate) fn entry(&mut self, key: u64) -> &mut V {
        debug_assert_ne!(key, FREE_KEY);
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let index = self.probe(key);
        if self.slots[index].0 == FREE_KEY {
            self.slots[index].0 = key;
            self.len += 1;
        }
        &mut self.slots[index].1
    }

    /// The value of `key`, if it has one.
    #[inline]
    pub(crate) fn get_mut(&mut self, key: u64) -> Option<&mut V> {
        if self.slots.is_empty() || key == FREE_KEY {
            return None;
        }
        let index = self.probe(key);
        (self.slots[index].0 == key).then(|| &mut self.slots[index].1)
    }

    fn grow(&mut self) {
        let capacity = (self.slots.len() * 2).max(64);
        let old = std::mem::replace(&mut self.slots, vec![(FREE_KEY, V::default()); capacity]);
        self.len = 0;
        for (key, value) in old {
            if key != FREE_KEY {
                *self.entry(key) = value;
            }
        }
    }

    /// Keys held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (u64, V)> + '_ {
        self.slots
            .iter()
            .filter(|(key, _)| *key != FREE_KEY)
            .copied()
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.slots.capacity() * size_of::<(u64, V)>()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    proptest::proptest! {
        /// The table agrees with `std`'s map through growth and probing collisions.
        #[test]
        fn agrees_with_a_map(keys in proptest::collection::vec(0u64..5000, 0..2000)) {
            let mut table: KeyedTable<u64> = KeyedTable::default();
            let mut model: HashMap<u64, u64> = HashMap::new();
            for &key in &keys {
                // Keys spread over the whole range too.
                let key = key.wrapping_mul(0x1000_0000_0001) % FREE_KEY;
                *table.entry(key) += 1;
                *model.entry(key).or_default() += 1;
            }
            proptest::prop_assert_eq!(table.len(), model.len());
            for (&key, &count) in &model {
                proptest::prop_assert_eq!(table.get_mut(key).copied(), Some(count));
            }
            proptest::prop_assert_eq!(table.get_mut(FREE_KEY - 1).is_some(), model.contains_key(&(FREE_KEY - 1)));
            let listed: HashMap<u64, u64> = table.iter().collect();
            proptest::prop_assert_eq!(listed, model);
        }
    }
}
