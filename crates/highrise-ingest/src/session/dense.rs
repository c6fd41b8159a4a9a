//! Definitions under dense ids (methods, classes): each id defined once, kept in the chunks
//! they arrived in (shared with reports as `Arc<[T]>`), with an id → (chunk, index) table for
//! the per-event "is it defined" test and for duplicate checks.

use std::sync::Arc;

/// Why one definition of a chunk was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    /// The id is at or above the most the protocol allows.
    TooLarge,
    /// The id is too far past the number defined so far (ids must be dense).
    TooSparse { defined: u64 },
    /// The same definition again: harmless.
    Duplicate,
    /// Another definition for an id already defined (the first is kept).
    Conflicting,
}

/// The ids a chunk left out, and why, in their order.
pub(super) type Refused = Vec<(u32, Refusal)>;

/// The definitions of one kind, by id.
#[derive(Debug)]
pub(super) struct DenseTable<T> {
    chunks: Vec<Arc<[T]>>,
    /// Indexed by id: the definition's (chunk, index).
    at: Vec<Option<(u32, u32)>>,
    defined: u64,
    max_id: u32,
    max_gap: u32,
}

impl<T: PartialEq> DenseTable<T> {
    /// Ids below `max_id`, each less than `max_gap` past the number defined before it.
    pub(super) fn new(max_id: u32, max_gap: u32) -> Self {
        Self {
            chunks: Vec::new(),
            at: Vec::new(),
            defined: 0,
            max_id,
            max_gap,
        }
    }

    pub(super) fn contains(&self, id: u32) -> bool {
        matches!(self.at.get(id as usize), Some(Some(_)))
    }

    /// How many are defined.
    pub(super) fn len(&self) -> u64 {
        self.defined
    }

    /// Every chunk taken, in arrival order.
    pub(super) fn chunks(&self) -> &[Arc<[T]>] {
        &self.chunks
    }

    /// Takes the definitions of `definitions` that are new and valid, as one chunk (`None`
    /// when none was), with the id of each one left out and why, in their order.
    pub(super) fn admit(
        &mut self,
        definitions: Vec<T>,
        id_of: impl Fn(&T) -> u32,
    ) -> (Option<Arc<[T]>>, Refused) {
        let chunk_index = self.chunks.len() as u32;
        let mut accepted: Vec<T> = Vec::with_capacity(definitions.len());
        let mut refused = Vec::new();
        for definition in definitions {
            let id = id_of(&definition);
            let defined_so_far = self.defined + accepted.len() as u64;
            if id >= self.max_id {
                refused.push((id, Refusal::TooLarge));
                continue;
            }
            if u64::from(id) >= defined_so_far + u64::from(self.max_gap) {
                refused.push((
                    id,
                    Refusal::TooSparse {
                        defined: defined_so_far,
                    },
                ));
                continue;
            }
            let slot = id as usize;
            if self.at.len() <= slot {
                self.at.resize(slot + 1, None);
            }
            if let Some((chunk, index)) = self.at[slot] {
                let existing = if chunk == chunk_index {
                    &accepted[index as usize]
                } else {
                    &self.chunks[chunk as usize][index as usize]
                };
                let refusal = if *existing == definition {
                    Refusal::Duplicate
                } else {
                    Refusal::Conflicting
                };
                refused.push((id, refusal));
                continue;
            }
            self.at[slot] = Some((chunk_index, accepted.len() as u32));
            accepted.push(definition);
        }
        if accepted.is_empty() {
            return (None, refused);
        }
        self.defined += accepted.len() as u64;
        let chunk: Arc<[T]> = accepted.into();
        self.chunks.push(Arc::clone(&chunk));
        (Some(chunk), refused)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_once_each_and_below_the_maximum() {
        // (id, payload) definitions.
        let mut table = DenseTable::<(u32, char)>::new(100, 4);
        let (chunk, refusals) = table.admit(
            vec![(0, 'a'), (2, 'b'), (0, 'a'), (2, 'x'), (9, 'c'), (100, 'd')],
            |d| d.0,
        );
        assert_eq!(chunk.as_deref(), Some(&[(0, 'a'), (2, 'b')][..]));
        assert_eq!(
            refusals,
            [
                (0, Refusal::Duplicate),
                (2, Refusal::Conflicting),
                (9, Refusal::TooSparse { defined: 2 }),
                (100, Refusal::TooLarge),
            ]
        );
        assert!(table.contains(0) && table.contains(2) && !table.contains(1));
        // A later chunk is checked against the earlier ones.
        let (chunk, refusals) = table.admit(vec![(2, 'b'), (1, 'e')], |d| d.0);
        assert_eq!(chunk.as_deref(), Some(&[(1, 'e')][..]));
        assert_eq!(refusals, [(2, Refusal::Duplicate)]);
        assert_eq!((table.len(), table.chunks().len()), (3, 2));
        assert!(table.admit(vec![(1, 'e')], |d| d.0).0.is_none());
    }
}
