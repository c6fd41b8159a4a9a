//! Method id -> building index. Sessions hand out ids densely, so a plain table indexed by id
//! is the usual case (and several times faster than hashing at 200k ids); a hash map takes
//! over when ids are sparse.

use crate::fxhash::{map_with_capacity, FxHashMap};
use crate::plan::NONE;

/// Ids may exceed the number of methods by this factor (plus a constant) before the table
/// turns into a hash map.
const DENSE_SLACK: usize = 2;
const DENSE_EXTRA: usize = 4096;

#[derive(Debug, Clone)]
pub(crate) enum IdMap {
    Dense(Vec<u32>),
    Sparse(FxHashMap<u32, u32>),
}

impl Default for IdMap {
    fn default() -> Self {
        IdMap::Dense(Vec::new())
    }
}

impl IdMap {
    /// An empty map sized for `count` ids whose largest is `max_id`.
    pub fn for_ids(max_id: Option<u32>, count: usize) -> IdMap {
        match max_id {
            Some(max) if (max as usize) < DENSE_SLACK * count + DENSE_EXTRA => {
                IdMap::Dense(vec![NONE; max as usize + 1])
            }
            Some(_) => IdMap::Sparse(map_with_capacity(count)),
            None => IdMap::Dense(Vec::new()),
        }
    }

    pub fn get(&self, id: u32) -> Option<u32> {
        match self {
            IdMap::Dense(table) => table.get(id as usize).copied().filter(|&b| b != NONE),
            IdMap::Sparse(map) => map.get(&id).copied(),
        }
    }

    pub fn contains(&self, id: u32) -> bool {
        self.get(id).is_some()
    }

    /// Records `id -> building`; false (and no change) if `id` is already present.
    #[inline]
    pub fn insert(&mut self, id: u32, building: u32) -> bool {
        if let IdMap::Dense(table) = self {
            if let Some(slot) = table.get_mut(id as usize) {
                if *slot != NONE {
                    return false;
                }
                *slot = building;
                return true;
            }
        }
        self.insert_slow(id, building)
    }

    /// [`IdMap::insert`] past the end of the dense table, or into the hash map.
    #[cold]
    fn insert_slow(&mut self, id: u32, building: u32) -> bool {
        match self {
            IdMap::Dense(table) => {
                let i = id as usize;
                if i >= table.len() {
                    let live = table.iter().filter(|&&b| b != NONE).count();
                    if i >= DENSE_SLACK * (live + 1) + DENSE_EXTRA {
                        let mut map = map_with_capacity(live + 1);
                        for (k, &b) in table.iter().enumerate() {
                            if b != NONE {
                                map.insert(k as u32, b);
                            }
                        }
                        map.insert(id, building);
                        *self = IdMap::Sparse(map);
                        return true;
                    }
                    let new_len = (i + 1).max(table.len() + table.len() / 2);
                    table.resize(new_len, NONE);
                }
                if table[i] != NONE {
                    return false;
                }
                table[i] = building;
                true
            }
            IdMap::Sparse(map) => {
                if map.contains_key(&id) {
                    return false;
                }
                map.insert(id, building);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_agree() {
        let mut dense = IdMap::for_ids(Some(10), 10);
        let mut sparse = IdMap::for_ids(Some(u32::MAX - 1), 10);
        assert!(matches!(dense, IdMap::Dense(_)));
        assert!(matches!(sparse, IdMap::Sparse(_)));
        for (k, id) in [3_u32, 7, 0, 10, 50_000, u32::MAX - 1]
            .into_iter()
            .enumerate()
        {
            assert!(dense.insert(id, k as u32));
            assert!(sparse.insert(id, k as u32));
            assert!(!dense.insert(id, 99), "duplicate refused");
        }
        for id in [3_u32, 7, 0, 10, 50_000, u32::MAX - 1, 4, 11] {
            assert_eq!(dense.get(id), sparse.get(id));
        }
        assert!(
            matches!(dense, IdMap::Sparse(_)),
            "huge id turned the table into a map"
        );
    }
}
