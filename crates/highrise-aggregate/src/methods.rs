//! The method table: per-method package and exclusion flag, indexed by method id.

use std::collections::{HashMap, HashSet};

use highrise_protocol::MAX_METHOD_ID;

/// `Methods::flags` bit: the method is transparent (excluded).
pub(crate) const EXCLUDED: u8 = 1;

/// Dense per-method tables (method ids are dense and below [`MAX_METHOD_ID`]). A method seen in
/// events but never defined gets package `""` (index 0).
#[derive(Debug, Clone)]
pub(crate) struct Methods {
    /// Per method id: [`EXCLUDED`] or 0. Its length is the number of method ids known.
    pub flags: Vec<u8>,
    /// The same exclusion flags, one bit per method id (bit `id % 64` of word `id / 64`): the
    /// event loop reads these, and at 200k methods 25 KiB stay in cache where 200 KiB do not.
    excluded_bits: Vec<u64>,
    package_of: Vec<u32>,
    packages: Vec<String>,
    package_lookup: HashMap<String, u32>,
    package_excluded: Vec<bool>,
    excluded_ids: HashSet<u32>,
    excluded_packages: Vec<String>,
}

impl Default for Methods {
    fn default() -> Self {
        Self {
            flags: Vec::new(),
            excluded_bits: Vec::new(),
            package_of: Vec::new(),
            packages: vec![String::new()],
            package_lookup: HashMap::from([(String::new(), 0)]),
            package_excluded: vec![false],
            excluded_ids: HashSet::new(),
            excluded_packages: Vec::new(),
        }
    }
}

/// Whether `package` is `prefix` itself or inside it (`a.b` covers `a.b` and `a.b.*`).
pub(crate) fn package_is_within(package: &str, prefix: &str) -> bool {
    match package.strip_prefix(prefix) {
        Some("") => true,
        Some(rest) => !prefix.is_empty() && rest.starts_with('.'),
        None => false,
    }
}

impl Methods {
    /// Number of method ids known (defined or seen); snapshots have this many entries.
    pub(crate) fn len(&self) -> usize {
        self.flags.len()
    }

    /// Makes `method_id` known. Returns false (and does nothing) for ids at or above
    /// [`MAX_METHOD_ID`].
    #[cold]
    pub(crate) fn ensure(&mut self, method_id: u32) -> bool {
        if method_id >= MAX_METHOD_ID {
            return false;
        }
        let wanted = method_id as usize + 1;
        if wanted > self.flags.len() {
            let start = self.flags.len() as u32;
            self.package_of.resize(wanted, 0);
            self.flags.resize(wanted, 0);
            self.excluded_bits.resize(wanted.div_ceil(64), 0);
            for id in start..=method_id {
                self.refresh(id);
            }
        }
        true
    }

    /// Records `method_id`'s package. Returns false for an invalid id.
    pub(crate) fn define(&mut self, method_id: u32, package: &str) -> bool {
        if !self.ensure(method_id) {
            return false;
        }
        let package_index = match self.package_lookup.get(package) {
            Some(&index) => index,
            None => {
                let index = self.packages.len() as u32;
                self.packages.push(package.to_owned());
                self.package_lookup.insert(package.to_owned(), index);
                let excluded = self.package_matches_exclusion(package);
                self.package_excluded.push(excluded);
                index
            }
        };
        self.package_of[method_id as usize] = package_index;
        self.refresh(method_id);
        true
    }

    pub(crate) fn set_excluded_ids(&mut self, method_ids: &[u32]) {
        self.excluded_ids = method_ids.iter().copied().collect();
        self.refresh_all();
    }

    pub(crate) fn set_excluded_packages(&mut self, packages: &[String]) {
        self.excluded_packages = packages.to_vec();
        for index in 0..self.packages.len() {
            self.package_excluded[index] = self.package_matches_exclusion(&self.packages[index]);
        }
        self.refresh_all();
    }

    #[inline(always)]
    pub(crate) fn is_excluded(&self, method_id: u32) -> bool {
        self.excluded_bits
            .get(method_id as usize / 64)
            .is_some_and(|word| word >> (method_id % 64) & 1 != 0)
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        self.flags.capacity()
            + self.excluded_bits.capacity() * 8
            + self.package_of.capacity() * 4
            + self.package_excluded.capacity()
            + self
                .packages
                .iter()
                .map(|package| package.capacity() * 2 + 48)
                .sum::<usize>()
            + self.excluded_ids.capacity() * 8
    }

    fn package_matches_exclusion(&self, package: &str) -> bool {
        self.excluded_packages
            .iter()
            .any(|prefix| package_is_within(package, prefix))
    }

    fn refresh_all(&mut self) {
        for id in 0..self.flags.len() as u32 {
            self.refresh(id);
        }
    }

    fn refresh(&mut self, method_id: u32) {
        let index = method_id as usize;
        let excluded = self.excluded_ids.contains(&method_id)
            || self.package_excluded[self.package_of[index] as usize];
        self.flags[index] = if excluded { EXCLUDED } else { 0 };
        let bit = 1u64 << (method_id % 64);
        let word = &mut self.excluded_bits[index / 64];
        if excluded {
            *word |= bit;
        } else {
            *word &= !bit;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_prefixes_cover_subpackages_only_at_dots() {
        assert!(package_is_within("a.b", "a.b"));
        assert!(package_is_within("a.b.c", "a.b"));
        assert!(!package_is_within("a.bc", "a.b"));
        assert!(!package_is_within("a", "a.b"));
        assert!(package_is_within("", ""));
        assert!(!package_is_within("a", ""));
    }

    #[test]
    fn exclusion_follows_ids_and_packages_including_later_definitions() {
        let mut methods = Methods::default();
        methods.define(0, "a.b");
        methods.define(1, "a.bc");
        methods.set_excluded_packages(&["a.b".to_owned()]);
        assert!(methods.is_excluded(0));
        assert!(!methods.is_excluded(1));
        methods.define(2, "a.b.c");
        assert!(methods.is_excluded(2));
        methods.set_excluded_ids(&[1]);
        assert!(methods.is_excluded(1));
        // Undefined ids are package "".
        methods.set_excluded_packages(&[String::new()]);
        assert!(methods.ensure(10));
        assert!(methods.is_excluded(10));
        assert!(!methods.is_excluded(0));
        assert!(!methods.ensure(MAX_METHOD_ID));
        // The bitset the event loop reads follows ids across word bounds, and ids made known
        // later take their package's flag.
        methods.set_excluded_packages(&[]);
        methods.set_excluded_ids(&[63, 64, 127, 130]);
        for id in 0..200 {
            assert!(methods.ensure(id));
            assert_eq!(
                methods.is_excluded(id),
                [63, 64, 127, 130].contains(&id),
                "{id}"
            );
            assert_eq!(
                methods.is_excluded(id),
                methods.flags[id as usize] & EXCLUDED != 0
            );
        }
        methods.set_excluded_packages(&[String::new()]);
        assert!(methods.ensure(1000));
        assert!(methods.is_excluded(1000));
        assert!(methods.is_excluded(199));
        assert!(!methods.is_excluded(0));
    }
}
