//! The calling-context tree: one node per call path, with its calls, time and allocations per
//! class; the paper's running example, a reference built from the full event list (threads,
//! recursion, unmatched exits, resyncs), and the node cap.

mod support;

use std::collections::BTreeMap;

use highrise_aggregate::{Aggregator, AggregatorConfig, ContextTree, MemoryFold, OTHER_CONTEXTS};
use highrise_protocol::{Event, EventKind, MemoryAmount};
use proptest::prelude::*;
use support::{enter, exit};

fn memory(timestamp_ns: u64, class_id: u32) -> Event {
    Event {
        timestamp_ns,
        method_id: class_id,
        kind: EventKind::Memory,
    }
}

fn made(count: u64) -> MemoryAmount {
    MemoryAmount {
        count,
        bytes: count * 24,
        free: false,
    }
}

fn with_contexts() -> Aggregator {
    Aggregator::new(AggregatorConfig {
        contexts: true,
        ..AggregatorConfig::default()
    })
}

/// Every node's path of method ids (root excluded) → (calls, direct counts per class).
fn paths(tree: &ContextTree) -> BTreeMap<Vec<u32>, (u64, BTreeMap<u32, u64>)> {
    let mut out = BTreeMap::new();
    let mut path: Vec<u32> = Vec::new();
    for (index, node) in tree.nodes.iter().enumerate().skip(1) {
        path.truncate(node.depth as usize - 1);
        path.push(node.method_id);
        let classes = tree
            .direct(index)
            .iter()
            .map(|(class, amount)| (*class, amount.count))
            .filter(|(_, count)| *count > 0)
            .collect();
        out.insert(path.clone(), (node.calls, classes));
    }
    out
}

// The paper's example: main (A) makes a Canvas; Canvas.<init> (B) makes a list and a
// ShapeFactory; createCircles (C) → createShape (F) → create (D) ×15 Circles; createBoxes (E)
// → F → D ×8 Boxes; then main → F twice, 15 Circles and 8 Boxes through the same D.
const MAIN: u32 = 0;
const INIT: u32 = 1;
const CIRCLES: u32 = 2;
const BOXES: u32 = 3;
const SHAPE: u32 = 4;
const CREATE: u32 = 5;
const CANVAS: u32 = 10;
const LIST: u32 = 11;
const FACTORY: u32 = 12;
const CIRCLE: u32 = 13;
const BOX: u32 = 14;

fn paper_example() -> Vec<Event> {
    let mut t = 0;
    let mut next = || {
        t += 10;
        t
    };
    let mut events = vec![enter(next(), MAIN), memory(next(), CANVAS)];
    events.extend([
        enter(next(), INIT),
        memory(next(), LIST),
        memory(next(), FACTORY),
        exit(next(), INIT),
    ]);
    let shapes = |events: &mut Vec<Event>, next: &mut dyn FnMut() -> u64, n: usize, class| {
        events.push(enter(next(), SHAPE));
        for _ in 0..n {
            events.extend([
                enter(next(), CREATE),
                memory(next(), class),
                exit(next(), CREATE),
            ]);
        }
        events.push(exit(next(), SHAPE));
    };
    events.push(enter(next(), CIRCLES));
    shapes(&mut events, &mut next, 15, CIRCLE);
    events.push(exit(next(), CIRCLES));
    events.push(enter(next(), BOXES));
    shapes(&mut events, &mut next, 8, BOX);
    events.push(exit(next(), BOXES));
    shapes(&mut events, &mut next, 15, CIRCLE);
    shapes(&mut events, &mut next, 8, BOX);
    events.push(exit(next(), MAIN));
    events
}

#[test]
fn the_papers_example_has_its_three_branches() {
    let mut aggregator = with_contexts();
    let events = paper_example();
    let amounts: Vec<MemoryAmount> = events
        .iter()
        .filter(|e| e.kind == EventKind::Memory)
        .map(|_| made(1))
        .collect();
    aggregator.apply_records(1, &events, &amounts);
    let tree = aggregator.contexts().expect("contexts on");
    let paths = paths(&tree);
    let direct = |path: &[u32]| paths.get(path).cloned().unwrap_or_default();
    assert_eq!(direct(&[MAIN]), (1, BTreeMap::from([(CANVAS, 1)])));
    assert_eq!(
        direct(&[MAIN, INIT]),
        (1, BTreeMap::from([(LIST, 1), (FACTORY, 1)]))
    );
    assert_eq!(
        direct(&[MAIN, CIRCLES, SHAPE, CREATE]),
        (15, BTreeMap::from([(CIRCLE, 15)]))
    );
    assert_eq!(
        direct(&[MAIN, BOXES, SHAPE, CREATE]),
        (8, BTreeMap::from([(BOX, 8)]))
    );
    // main → createShape twice: one context (the paper's merged branch), both classes.
    assert_eq!(direct(&[MAIN, SHAPE]).0, 2);
    assert_eq!(
        direct(&[MAIN, SHAPE, CREATE]),
        (23, BTreeMap::from([(CIRCLE, 15), (BOX, 8)]))
    );
    // Preorder with children in order of first call: INIT, CIRCLES, BOXES, SHAPE under main.
    let main = tree.children(0).next().expect("main");
    let order: Vec<u32> = tree
        .children(main)
        .map(|child| tree.nodes[child].method_id)
        .collect();
    assert_eq!(order, vec![INIT, CIRCLES, BOXES, SHAPE]);
    // Inclusive at main: everything.
    let all: BTreeMap<u32, u64> = tree
        .inclusive(main)
        .iter()
        .map(|(class, amount)| (*class, amount.count))
        .collect();
    assert_eq!(
        all,
        BTreeMap::from([
            (CANVAS, 1),
            (LIST, 1),
            (FACTORY, 1),
            (CIRCLE, 30),
            (BOX, 16)
        ])
    );
    // Time: main's frame is closed, its time is its whole span.
    let main_node = &tree.nodes[main];
    assert_eq!(main_node.time_ns, events.last().unwrap().timestamp_ns - 10);
}

#[test]
fn past_the_cap_new_paths_go_to_other_contexts() {
    let mut aggregator = Aggregator::new(AggregatorConfig {
        contexts: true,
        max_context_nodes: 16,
        ..AggregatorConfig::default()
    });
    let mut events = vec![enter(0, 0)];
    for method in 1..40u32 {
        let t = u64::from(method) * 10;
        events.extend([enter(t, method), memory(t + 1, 0), exit(t + 2, method)]);
    }
    events.push(exit(1000, 0));
    let amounts: Vec<MemoryAmount> = (1..40).map(|_| made(1)).collect();
    aggregator.apply_records(1, &events, &amounts);
    let tree = aggregator.contexts().expect("contexts on");
    assert!(tree.nodes.len() <= 17, "{} nodes", tree.nodes.len());
    // Node 0 is the root (its method id is OTHER_CONTEXTS too, it stands for no method).
    let other = tree
        .nodes
        .iter()
        .skip(1)
        .position(|node| node.method_id == OTHER_CONTEXTS)
        .expect("an overflow node")
        + 1;
    assert!(tree.nodes[other].calls > 0);
    assert_eq!(tree.capped_calls, tree.nodes[other].calls);
    // Nothing is lost: the calls and allocations of every path are somewhere.
    let calls: u64 = tree.nodes.iter().map(|node| node.calls).sum();
    assert_eq!(calls, 40);
    let made_total: u64 = tree.amounts.iter().map(|(_, amount)| amount.count).sum();
    assert_eq!(made_total, 39);
}

/// Generated steps of one thread: `(kind, id, count)`.
type Steps = Vec<(u8, u32, u64)>;

/// Generated steps per thread as batches: kind (after `kind_of`) 0 enters `id`, 1 exits it,
/// 2 makes `count` objects of class `id`; 5 ns apart.
fn batches_of(
    batches: &[(u64, Steps)],
    kind_of: impl Fn(u8, u32) -> u8,
) -> Vec<(u64, Vec<Event>, Vec<MemoryAmount>)> {
    let mut clock = 0u64;
    batches
        .iter()
        .map(|(thread, steps)| {
            let mut events = Vec::new();
            let mut amounts = Vec::new();
            for &(kind, id, count) in steps {
                clock += 5;
                events.push(match kind_of(kind, id) {
                    0 => enter(clock, id),
                    1 => exit(clock, id),
                    _ => {
                        amounts.push(made(count));
                        memory(clock, id)
                    }
                });
            }
            (*thread, events, amounts)
        })
        .collect()
}

/// The reference: replays each thread over the full list with the same stack rules.
fn reference(
    threads: &[(u64, Vec<Event>, Vec<MemoryAmount>)],
) -> BTreeMap<Vec<u32>, (u64, BTreeMap<u32, u64>)> {
    let mut out: BTreeMap<Vec<u32>, (u64, BTreeMap<u32, u64>)> = BTreeMap::new();
    let mut stacks: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    for (thread, events, amounts) in threads {
        let stack = stacks.entry(*thread).or_default();
        let mut amounts = amounts.iter();
        for event in events {
            match event.kind {
                EventKind::Enter => {
                    stack.push(event.method_id);
                    out.entry(stack.clone()).or_default().0 += 1;
                }
                EventKind::Exit => {
                    if let Some(at) = stack.iter().rposition(|&id| id == event.method_id) {
                        stack.truncate(at);
                    }
                }
                EventKind::Memory => {
                    let amount = amounts.next().expect("amount");
                    if !stack.is_empty() {
                        *out.entry(stack.clone())
                            .or_default()
                            .1
                            .entry(event.method_id)
                            .or_default() += amount.count;
                    }
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Batches of several threads interleaved; recursion and unmatched exits included.
    #[test]
    fn the_tree_matches_the_reference(
        batches in prop::collection::vec(
            (1u64..4, prop::collection::vec((0u8..3, 0u32..5, 1u64..9), 0..40)),
            1..12,
        ),
    ) {
        let threads = batches_of(&batches, |kind, _| kind);
        let mut aggregator = with_contexts();
        for (thread, events, amounts) in &threads {
            aggregator.apply_records(*thread, events, amounts);
        }
        let tree = aggregator.contexts().expect("contexts on");
        let mut got = paths(&tree);
        // Paths the reference never entered do not exist; drop empty entries on both sides.
        got.retain(|_, (calls, classes)| *calls > 0 || !classes.is_empty());
        let mut want = reference(&threads);
        want.retain(|_, (calls, classes)| *calls > 0 || !classes.is_empty());
        prop_assert_eq!(got, want);
    }
}

/// The reference with a node cap, node by node as the design states it: a new path gets a
/// node while there is room; past the cap it goes to its parent's "(other contexts)" node,
/// whose own new paths fold into it. Paths name overflow nodes `OTHER_CONTEXTS`.
fn capped_reference(
    threads: &[(u64, Vec<Event>, Vec<MemoryAmount>)],
    max_nodes: usize,
) -> BTreeMap<Vec<u32>, (u64, BTreeMap<u32, u64>)> {
    // Per node: (path, calls, classes); node 0 is the root.
    let mut nodes: Vec<(Vec<u32>, u64, BTreeMap<u32, u64>)> =
        vec![(Vec::new(), 0, BTreeMap::new())];
    let mut children: BTreeMap<(usize, u32), usize> = BTreeMap::new();
    let mut stacks: BTreeMap<u64, Vec<(u32, usize)>> = BTreeMap::new();
    for (thread, events, amounts) in threads {
        let stack = stacks.entry(*thread).or_default();
        let mut amounts = amounts.iter();
        for event in events {
            let top = stack.last().map_or(0, |&(_, node)| node);
            match event.kind {
                EventKind::Enter => {
                    let node = match children.get(&(top, event.method_id)) {
                        Some(&node) => node,
                        None if nodes.len() < max_nodes => {
                            let mut path = nodes[top].0.clone();
                            path.push(event.method_id);
                            nodes.push((path, 0, BTreeMap::new()));
                            children.insert((top, event.method_id), nodes.len() - 1);
                            nodes.len() - 1
                        }
                        None if nodes[top].0.last() == Some(&OTHER_CONTEXTS) => top,
                        None => *children.entry((top, OTHER_CONTEXTS)).or_insert_with(|| {
                            let mut path = nodes[top].0.clone();
                            path.push(OTHER_CONTEXTS);
                            nodes.push((path, 0, BTreeMap::new()));
                            nodes.len() - 1
                        }),
                    };
                    nodes[node].1 += 1;
                    stack.push((event.method_id, node));
                }
                EventKind::Exit => {
                    if let Some(at) = stack.iter().rposition(|&(id, _)| id == event.method_id) {
                        stack.truncate(at);
                    }
                }
                EventKind::Memory => {
                    let amount = amounts.next().expect("amount");
                    *nodes[top].2.entry(event.method_id).or_default() += amount.count;
                }
            }
        }
    }
    nodes
        .into_iter()
        .skip(1)
        .map(|(path, calls, classes)| (path, (calls, classes)))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Past a small cap (many overflow nodes, paths below them folding in), on the tree's
    /// own thread and inline.
    #[test]
    fn the_capped_tree_matches_the_reference(
        batches in prop::collection::vec(
            (1u64..4, prop::collection::vec((0u8..3, 0u32..7, 1u64..9), 0..60)),
            1..16,
        ),
        max_nodes in 16usize..40,
        contexts_thread in any::<bool>(),
    ) {
        // Most exits become enters: deep paths, so the cap is reached.
        let threads = batches_of(&batches, |kind, id| if kind == 1 && id % 3 != 0 { 0 } else { kind });
        let mut aggregator = Aggregator::new(AggregatorConfig {
            contexts: true,
            contexts_thread,
            max_context_nodes: max_nodes as u32,
            ..AggregatorConfig::default()
        });
        for (thread, events, amounts) in &threads {
            aggregator.apply_records(*thread, events, amounts);
        }
        let tree = aggregator.contexts().expect("contexts on");
        let mut got = paths(&tree);
        got.retain(|_, (calls, classes)| *calls > 0 || !classes.is_empty());
        let mut want = capped_reference(&threads, max_nodes);
        want.retain(|_, (calls, classes)| *calls > 0 || !classes.is_empty());
        prop_assert_eq!(got, want);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The tree built on its own thread (the default) is the inline one, whole: batches,
    /// thread ends and resyncs in any order, reads in between, and a copy made mid-stream
    /// going on by itself. With a share of the memory records folded on the tree's thread,
    /// the allocation counts are the inline ones too, copy included.
    #[test]
    fn the_tree_on_its_own_thread_is_the_inline_tree(
        steps in prop::collection::vec(
            (0u8..8, 1u64..4, prop::collection::vec((0u8..3, 0u32..5, 1u64..9), 0..40)),
            1..24,
        ),
        copy_at in 0usize..24,
    ) {
        let config = |contexts_thread, memory_fold| AggregatorConfig {
            contexts: true,
            contexts_thread,
            max_context_nodes: 24,
            memory_fold,
            ..AggregatorConfig::default()
        };
        // The same placement of memory records on these two (their queues' room counts in
        // the memory compared below).
        let mut inline = Aggregator::new(config(false, MemoryFold::Inline));
        let mut threaded = Aggregator::new(config(true, MemoryFold::Inline));
        let mut shared = Aggregator::new(config(true, MemoryFold::SharedWithTree));
        let mut copy: Option<Aggregator> = None;
        let mut shared_copy: Option<Aggregator> = None;
        let mut clock = 0u64;
        for (index, (what, thread, events)) in steps.iter().enumerate() {
            if index == copy_at {
                copy = Some(threaded.clone());
                shared_copy = Some(shared.clone());
            }
            clock += 5;
            let targets = [
                Some(&mut inline),
                Some(&mut threaded),
                Some(&mut shared),
                copy.as_mut(),
                shared_copy.as_mut(),
            ];
            match what {
                0 => {
                    for aggregator in targets.into_iter().flatten() {
                        aggregator.thread_ended(*thread, clock);
                    }
                }
                1 => {
                    let stack: Vec<u32> = events.iter().map(|&(_, id, _)| id).take(4).collect();
                    for aggregator in targets.into_iter().flatten() {
                        aggregator.resync(*thread, clock, &stack);
                    }
                }
                _ => {
                    let mut batch = Vec::new();
                    let mut amounts = Vec::new();
                    for &(kind, id, count) in events {
                        clock += 5;
                        batch.push(match kind {
                            0 => enter(clock, id),
                            1 => exit(clock, id),
                            _ => {
                                amounts.push(made(count));
                                memory(clock, id)
                            }
                        });
                    }
                    for aggregator in targets.into_iter().flatten() {
                        aggregator.apply_records(*thread, &batch, &amounts);
                    }
                }
            }
            if what % 4 == 3 {
                prop_assert_eq!(threaded.contexts(), inline.contexts());
                let memory = inline.snapshot().memory;
                prop_assert_eq!(&threaded.snapshot().memory, &memory);
                prop_assert_eq!(&shared.snapshot().memory, &memory);
            }
        }
        let want = inline.contexts();
        prop_assert_eq!(threaded.contexts(), want.clone());
        prop_assert_eq!(threaded.context_nodes(), inline.context_nodes());
        prop_assert_eq!(threaded.stats().memory_bytes, inline.stats().memory_bytes);
        prop_assert_eq!(shared.contexts(), want.clone());
        let memory = inline.snapshot().memory;
        prop_assert_eq!(&shared.snapshot().memory, &memory);
        if let Some(copy) = copy {
            prop_assert_eq!(copy.contexts(), want);
        }
        if let Some(mut copy) = shared_copy {
            prop_assert_eq!(&copy.snapshot().memory, &memory);
        }
    }
}

/// The memory budget: a million call paths in at most 200 MiB (nodes, the child index and
/// a class slot per path that allocates).
#[test]
fn a_million_contexts_fit_in_200_mib() {
    let mut aggregator = with_contexts();
    let before = aggregator.stats().memory_bytes;
    let mut events = Vec::with_capacity(4096);
    let mut amounts = Vec::with_capacity(1024);
    let mut t = 0u64;
    // 1000 callers × 1000 callees under one root: 1 001 001 paths.
    for caller in 0..1000u32 {
        events.clear();
        amounts.clear();
        t += 1;
        events.push(enter(t, 1_000_000));
        events.push(enter(t, caller));
        for callee in 0..1000u32 {
            t += 1;
            events.push(enter(t, 1000 + callee));
            events.push(memory(t, callee % 3));
            amounts.push(made(1));
            events.push(exit(t, 1000 + callee));
        }
        events.push(exit(t, caller));
        events.push(exit(t, 1_000_000));
        aggregator.apply_records(1, &events, &amounts);
    }
    assert!(aggregator.context_nodes() > 1_000_000);
    let bytes = aggregator.stats().memory_bytes - before;
    let mib = bytes as f64 / (1 << 20) as f64;
    eprintln!("{} nodes: {mib:.1} MiB", aggregator.context_nodes());
    assert!(mib <= 200.0, "{mib:.1} MiB");
}

/// A node's depth is a `u16`: with the default depth limit (65,536 frames) the deepest node of a
/// deeper recursion once had its parent's depth (saturated), and the preorder export put it
/// beside its parent instead of under it. The tree now stops at 65,535 frames.
#[test]
fn a_recursion_deeper_than_a_u16_keeps_every_node_under_its_parent() {
    let mut aggregator = with_contexts();
    aggregator.define_method(0, "p");
    let frames = 70_000u64;
    let enters: Vec<Event> = (0..frames).map(|i| enter(i + 1, 0)).collect();
    aggregator.apply_events(1, &enters);
    let tree = aggregator.contexts().expect("tree");
    // One chain: the root, then node k at depth k.
    assert!(tree.nodes.len() > 1);
    for (index, node) in tree.nodes.iter().enumerate() {
        assert_eq!(usize::from(node.depth), index, "node {index}");
    }
    assert_eq!(tree.nodes.len(), usize::from(u16::MAX) + 1);
}
