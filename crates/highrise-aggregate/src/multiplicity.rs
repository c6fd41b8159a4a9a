//! Per-relation multiplicities from where objects are made: for a relation "an owner class
//! refers to part classes" (a field of the class diagram), how many part objects are created
//! with each owner object — what Murphy & Saenko (1998, section 5.2) wished their totals were
//! ("how many PanelItem objects were created per Panel object").
//!
//! Each thread's calls are replayed with the engine's stack semantics (an exit closes the
//! matching frame and any above it, an unmatched exit is ignored, a resync replaces the
//! stack); memory records belong to the innermost open call. A **call** that creates owners
//! claims the parts created in it and in its callees, down to (not into) callees that create
//! owners themselves; when the owner is also a part (a tree of nodes), its own objects are
//! parts of the owner above. Parts made elsewhere stay unclaimed ([`PartsPerOwner::parts_total`]
//! says how many). Exact where each owner's parts are made in the call that makes it (a
//! constructor filling its fields, a parser building a node from what it reads). Per call, so
//! a method that makes different owners in different calls keeps them apart; the largest
//! parts per owner of one call is the maximum.

use std::collections::HashMap;

use highrise_protocol::{Event, EventKind, MemoryAmount};

/// What one relation's counting found.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PartsPerOwner {
    /// Owner objects created.
    pub owners: u64,
    /// Part objects created in the owners' calls (claimed by them).
    pub parts: u64,
    /// Part objects created anywhere.
    pub parts_total: u64,
    /// The most parts per owner of one call that created owners.
    pub max_per_owner: f64,
}

impl PartsPerOwner {
    /// Parts per owner on average, when owners were created.
    pub fn per_owner(&self) -> Option<f64> {
        (self.owners > 0).then(|| self.parts as f64 / self.owners as f64)
    }
}

/// Deepest stack kept per thread; deeper calls count in the deepest kept one.
const MAX_DEPTH: usize = 4096;

#[derive(Debug, Default)]
struct Call {
    method_id: u32,
    /// Objects this call created itself, per class (only classes of some relation).
    direct: Vec<(u32, u64)>,
    /// Per pair of owner and part classes: parts its callees passed up unclaimed.
    passed: Vec<(u32, u64)>,
}

/// Counts parts per owner for a set of relations over a stream of enters, exits and memory
/// records ([`Multiplicities::apply`]); [`Multiplicities::finish`] gives one result per
/// relation, in the order given. Relations with the same owner and part classes (several fields
/// of one type) are counted once.
#[derive(Debug)]
pub struct Multiplicities {
    /// Per relation given to [`Self::new`]: its pair, a distinct (owner class, part classes),
    /// counted once.
    pair_of: Vec<u32>,
    /// Per pair: whether the owner class is one of its part classes (a tree).
    owner_is_part: Vec<bool>,
    /// Per class: the pairs it owns, and those it is a part of.
    roles: HashMap<u32, (Vec<u32>, Vec<u32>)>,
    /// Per thread: its calls, outermost first, under a root for records outside any call.
    threads: HashMap<u64, (Vec<Call>, usize)>,
    results: Vec<PartsPerOwner>,
    /// Scratch per pair for [`Self::close`] (zero between closes): owners, parts and passed
    /// counts, and the position in a caller's `passed` list.
    scratch: Vec<[u64; 3]>,
    position: Vec<u32>,
    touched: Vec<u32>,
}

impl Multiplicities {
    /// `relations`: (owner class, part classes) each.
    pub fn new(relations: Vec<(u32, Vec<u32>)>) -> Self {
        let mut pairs: Vec<(u32, Vec<u32>)> = Vec::new();
        let mut index: HashMap<(u32, Vec<u32>), u32> = HashMap::new();
        let mut pair_of = Vec::with_capacity(relations.len());
        for (owner, mut parts) in relations {
            parts.sort_unstable();
            parts.dedup();
            let next = pairs.len() as u32;
            let pair = *index.entry((owner, parts.clone())).or_insert_with(|| {
                pairs.push((owner, parts));
                next
            });
            pair_of.push(pair);
        }
        let mut roles: HashMap<u32, (Vec<u32>, Vec<u32>)> = HashMap::new();
        for (pair, (owner, parts)) in pairs.iter().enumerate() {
            roles.entry(*owner).or_default().0.push(pair as u32);
            for &class in parts {
                roles.entry(class).or_default().1.push(pair as u32);
            }
        }
        Self {
            owner_is_part: pairs.iter().map(|(o, parts)| parts.contains(o)).collect(),
            results: vec![PartsPerOwner::default(); pairs.len()],
            scratch: vec![[0; 3]; pairs.len()],
            position: vec![u32::MAX; pairs.len()],
            pair_of,
            roles,
            threads: HashMap::new(),
            touched: Vec::new(),
        }
    }

    /// One thread's batch: enters, exits and memory records (their amounts in order).
    pub fn apply(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        if self.results.is_empty() {
            return;
        }
        let (mut calls, mut phantom) = self.threads.remove(&thread_id).unwrap_or_default();
        if calls.is_empty() {
            calls.push(Call {
                method_id: u32::MAX,
                ..Call::default()
            });
        }
        let mut amounts = amounts.iter();
        for event in events {
            match event.kind {
                EventKind::Enter => {
                    if calls.len() > MAX_DEPTH || phantom > 0 {
                        phantom += 1;
                    } else {
                        calls.push(Call {
                            method_id: event.method_id,
                            ..Call::default()
                        });
                    }
                }
                EventKind::Exit => {
                    if phantom > 0 {
                        phantom -= 1;
                    } else if let Some(at) = calls
                        .iter()
                        .skip(1)
                        .rposition(|call| call.method_id == event.method_id)
                    {
                        while calls.len() > at + 1 {
                            self.close(&mut calls);
                        }
                    }
                }
                EventKind::Memory => {
                    let Some(amount) = amounts.next() else {
                        continue;
                    };
                    if amount.free || !self.roles.contains_key(&event.method_id) {
                        continue;
                    }
                    if let Some(call) = calls.last_mut() {
                        match call.direct.iter_mut().find(|(c, _)| *c == event.method_id) {
                            Some((_, count)) => *count += amount.count,
                            None => call.direct.push((event.method_id, amount.count)),
                        }
                    }
                }
            }
        }
        self.threads.insert(thread_id, (calls, phantom));
    }

    /// After lost events: the thread's stack is now `stack` (outermost first); calls not in
    /// common with it close.
    pub fn resync(&mut self, thread_id: u64, stack: &[u32]) {
        let Some((mut calls, _)) = self.threads.remove(&thread_id) else {
            return;
        };
        let common = calls
            .iter()
            .skip(1)
            .zip(stack)
            .take_while(|(call, &method_id)| call.method_id == method_id)
            .count();
        while calls.len() > common + 1 {
            self.close(&mut calls);
        }
        calls.extend(
            stack[common..]
                .iter()
                .take(MAX_DEPTH)
                .map(|&method_id| Call {
                    method_id,
                    ..Call::default()
                }),
        );
        self.threads.insert(thread_id, (calls, 0));
    }

    /// The thread ended: its open calls close.
    pub fn thread_ended(&mut self, thread_id: u64) {
        if let Some((mut calls, _)) = self.threads.remove(&thread_id) {
            while !calls.is_empty() {
                self.close(&mut calls);
            }
        }
    }

    /// Every open call closes; one result per relation, in the order of [`Self::new`].
    pub fn finish(mut self) -> Vec<PartsPerOwner> {
        let threads: Vec<u64> = self.threads.keys().copied().collect();
        for thread_id in threads {
            self.thread_ended(thread_id);
        }
        self.pair_of
            .iter()
            .map(|&pair| self.results[pair as usize])
            .collect()
    }

    /// Closes the innermost call: it claims its parts or passes them to its caller. Linear in
    /// what the call made and was passed (scratch arrays per pair, no searching).
    fn close(&mut self, calls: &mut Vec<Call>) {
        let Some(call) = calls.pop() else {
            return;
        };
        const OWNERS: usize = 0;
        const PARTS: usize = 1;
        const PASSED: usize = 2;
        let mut touch = |pair: u32, slot: usize, n: u64, scratch: &mut Vec<[u64; 3]>| {
            let counts = &mut scratch[pair as usize];
            if *counts == [0; 3] {
                self.touched.push(pair);
            }
            counts[slot] += n;
        };
        for &(pair, n) in &call.passed {
            touch(pair, PASSED, n, &mut self.scratch);
        }
        for (class, n) in &call.direct {
            if let Some((owns, part_of)) = self.roles.get(class) {
                for &pair in owns {
                    touch(pair, OWNERS, *n, &mut self.scratch);
                }
                for &pair in part_of {
                    touch(pair, PARTS, *n, &mut self.scratch);
                }
            }
        }
        let mut up: Vec<(u32, u64)> = Vec::new();
        for &pair in &self.touched {
            let [owners, direct_parts, passed] = std::mem::take(&mut self.scratch[pair as usize]);
            let result = &mut self.results[pair as usize];
            result.parts_total += direct_parts;
            let pass = if owners > 0 {
                let own = if self.owner_is_part[pair as usize] {
                    owners
                } else {
                    0
                };
                let claimed = passed + direct_parts - own;
                result.owners += owners;
                result.parts += claimed;
                result.max_per_owner = result.max_per_owner.max(claimed as f64 / owners as f64);
                own
            } else {
                passed + direct_parts
            };
            if pass > 0 {
                up.push((pair, pass));
            }
        }
        self.touched.clear();
        if let Some(caller) = calls.last_mut() {
            for (at, &(pair, _)) in caller.passed.iter().enumerate() {
                self.position[pair as usize] = at as u32;
            }
            for (pair, n) in up {
                match self.position[pair as usize] {
                    u32::MAX => caller.passed.push((pair, n)),
                    at => caller.passed[at as usize].1 += n,
                }
            }
            for &(pair, _) in &caller.passed {
                self.position[pair as usize] = u32::MAX;
            }
        }
    }
}
