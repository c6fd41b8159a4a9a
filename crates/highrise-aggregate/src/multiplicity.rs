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
    /// Per relation: parts its callees passed up unclaimed.
    passed: Vec<(u32, u64)>,
}

/// Counts parts per owner for a set of relations over a stream of enters, exits and memory
/// records ([`Multiplicities::apply`]); [`Multiplicities::finish`] gives one result per
/// relation, in the order given.
#[derive(Debug)]
pub struct Multiplicities {
    /// Per relation: the owner class and the part classes (the field's class and its
    /// subclasses).
    relations: Vec<(u32, Vec<u32>)>,
    /// Per class: the relations it owns or is a part of.
    by_class: HashMap<u32, Vec<u32>>,
    /// Per thread: its calls, outermost first, under a root for records outside any call.
    threads: HashMap<u64, (Vec<Call>, usize)>,
    results: Vec<PartsPerOwner>,
    touched: Vec<u32>,
}

impl Multiplicities {
    /// `relations`: (owner class, part classes) each.
    pub fn new(relations: Vec<(u32, Vec<u32>)>) -> Self {
        let mut by_class: HashMap<u32, Vec<u32>> = HashMap::new();
        for (index, (owner, parts)) in relations.iter().enumerate() {
            for &class in std::iter::once(owner).chain(parts) {
                let list = by_class.entry(class).or_default();
                if list.last() != Some(&(index as u32)) {
                    list.push(index as u32);
                }
            }
        }
        Self {
            results: vec![PartsPerOwner::default(); relations.len()],
            relations,
            by_class,
            threads: HashMap::new(),
            touched: Vec::new(),
        }
    }

    /// One thread's batch: enters, exits and memory records (their amounts in order).
    pub fn apply(&mut self, thread_id: u64, events: &[Event], amounts: &[MemoryAmount]) {
        if self.relations.is_empty() {
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
                    if amount.free || !self.by_class.contains_key(&event.method_id) {
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
        self.results
    }

    /// Closes the innermost call: it claims its parts or passes them to its caller.
    fn close(&mut self, calls: &mut Vec<Call>) {
        let Some(call) = calls.pop() else {
            return;
        };
        self.touched.clear();
        self.touched.extend(call.passed.iter().map(|(r, _)| *r));
        for (class, _) in &call.direct {
            self.touched
                .extend(self.by_class.get(class).map_or(&[][..], Vec::as_slice));
        }
        self.touched.sort_unstable();
        self.touched.dedup();
        let mut up: Vec<(u32, u64)> = Vec::new();
        for &r in &self.touched {
            let (owner, parts) = &self.relations[r as usize];
            let count = |class: u32| {
                call.direct
                    .iter()
                    .find(|(c, _)| *c == class)
                    .map_or(0, |(_, n)| *n)
            };
            let owners = count(*owner);
            let direct_parts: u64 = parts.iter().map(|&class| count(class)).sum();
            let passed = call
                .passed
                .iter()
                .find(|(p, _)| *p == r)
                .map_or(0, |(_, n)| *n);
            let result = &mut self.results[r as usize];
            result.parts_total += direct_parts;
            let pass = if owners > 0 {
                let own = if parts.contains(owner) { owners } else { 0 };
                let claimed = passed + direct_parts - own;
                result.owners += owners;
                result.parts += claimed;
                result.max_per_owner = result.max_per_owner.max(claimed as f64 / owners as f64);
                own
            } else {
                passed + direct_parts
            };
            if pass > 0 {
                up.push((r, pass));
            }
        }
        if let Some(caller) = calls.last_mut() {
            for (r, n) in up {
                match caller.passed.iter_mut().find(|(p, _)| *p == r) {
                    Some((_, count)) => *count += n,
                    None => caller.passed.push((r, n)),
                }
            }
        }
    }
}
