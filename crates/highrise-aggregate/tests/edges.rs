//! Call edges (who calls whom): exact totals on a known call graph, against a replay of the
//! stream past the tree's node cap, and calls over about the last window.

mod support;

use std::collections::BTreeMap;

use highrise_aggregate::{Aggregator, AggregatorConfig, CallEdge};
use highrise_protocol::Event;
use proptest::prelude::*;
use support::{enter, exit};

const MAIN: u32 = 0;
const PARSE: u32 = 1;
const TOKEN: u32 = 2;
const EVAL: u32 = 3;

fn with_contexts(contexts_thread: bool, max_context_nodes: u32) -> Aggregator {
    Aggregator::new(AggregatorConfig {
        contexts: true,
        contexts_thread,
        max_context_nodes,
        ..AggregatorConfig::default()
    })
}

fn totals(edges: &[CallEdge]) -> BTreeMap<(u32, u32), u64> {
    edges
        .iter()
        .map(|edge| ((edge.caller, edge.callee), edge.calls))
        .collect()
}

/// main → parse ×3 (each → token ×2, and parse → parse once: recursion), main → eval ×1
/// (→ token ×1), from two threads.
fn program(t0: u64) -> Vec<Event> {
    let mut t = t0;
    let mut tick = || {
        t += 10;
        t
    };
    let mut events = vec![enter(tick(), MAIN)];
    for call in 0..3 {
        events.push(enter(tick(), PARSE));
        if call == 0 {
            events.push(enter(tick(), PARSE));
            events.push(exit(tick(), PARSE));
        }
        for _ in 0..2 {
            events.push(enter(tick(), TOKEN));
            events.push(exit(tick(), TOKEN));
        }
        events.push(exit(tick(), PARSE));
    }
    events.push(enter(tick(), EVAL));
    events.push(enter(tick(), TOKEN));
    events.push(exit(tick(), TOKEN));
    events.push(exit(tick(), EVAL));
    events.push(exit(tick(), MAIN));
    events
}

#[test]
fn a_known_call_graph_has_its_exact_edges() {
    for contexts_thread in [false, true] {
        let mut aggregator = with_contexts(contexts_thread, 1 << 20);
        aggregator.apply_events(1, &program(0));
        aggregator.apply_events(2, &program(5));
        let edges = aggregator.call_edges().expect("contexts on");
        let want = BTreeMap::from([
            ((MAIN, PARSE), 6),
            ((MAIN, EVAL), 2),
            ((PARSE, PARSE), 2),
            ((PARSE, TOKEN), 12),
            ((EVAL, TOKEN), 2),
        ]);
        assert_eq!(totals(&edges.edges), want);
        // The first read: every call is recent.
        assert!(edges
            .edges
            .iter()
            .all(|edge| edge.recent_calls == edge.calls));
        let callers: Vec<u32> = edges.callers_of(TOKEN).map(|edge| edge.caller).collect();
        assert_eq!(callers, [PARSE, EVAL]);
        let callees: Vec<u32> = edges.callees_of(MAIN).iter().map(|e| e.callee).collect();
        assert_eq!(callees, [PARSE, EVAL]);
        assert_eq!(edges.top_recent(1)[0].callee, TOKEN);
        assert_eq!(edges.capped_calls, 0);
    }
}

#[test]
fn recent_calls_are_those_of_about_the_last_window() {
    let mut aggregator = with_contexts(true, 1 << 20);
    let second = 1_000_000_000u64;
    // Ten runs of the program, one per second; reads after each.
    let mut reads = Vec::new();
    for run in 0..10u64 {
        aggregator.apply_events(1, &program(run * second));
        reads.push(aggregator.call_edges().expect("contexts on"));
    }
    let last = reads.last().expect("reads");
    let token = last
        .edges
        .iter()
        .find(|edge| (edge.caller, edge.callee) == (PARSE, TOKEN))
        .expect("parse → token");
    assert_eq!(token.calls, 60);
    // The default window is 3 s: the base is the read of three runs before (18 calls since).
    assert_eq!(token.recent_calls, 18);
    assert_eq!(last.span_ns, 3 * second);
    assert!((last.calls_per_s(token) - 6.0).abs() < 1e-9);
}

/// The reference: every enter below another frame of its thread is one call of
/// (that frame's method, the entered method); exits close the matching frame.
fn reference(batches: &[(u64, Vec<Event>)]) -> BTreeMap<(u32, u32), u64> {
    let mut out = BTreeMap::new();
    let mut stacks: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    for (thread, events) in batches {
        let stack = stacks.entry(*thread).or_default();
        for event in events {
            if event.kind == highrise_protocol::EventKind::Enter {
                if let Some(&caller) = stack.last() {
                    *out.entry((caller, event.method_id)).or_default() += 1;
                }
                stack.push(event.method_id);
            } else if let Some(at) = stack.iter().rposition(|&id| id == event.method_id) {
                stack.truncate(at);
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Past the node cap too (calls in "(other contexts)" nodes are counted per call).
    #[test]
    fn edges_match_the_replay_even_past_the_cap(
        batches in prop::collection::vec(
            (1u64..4, prop::collection::vec((0u8..3, 0u32..7), 0..60)),
            1..16,
        ),
        max_nodes in 16u32..200,
        contexts_thread in any::<bool>(),
    ) {
        let mut clock = 0u64;
        let batches: Vec<(u64, Vec<Event>)> = batches
            .iter()
            .map(|(thread, steps)| {
                let events = steps
                    .iter()
                    .map(|&(kind, id)| {
                        clock += 5;
                        if kind < 2 { enter(clock, id) } else { exit(clock, id) }
                    })
                    .collect();
                (*thread, events)
            })
            .collect();
        let mut aggregator = with_contexts(contexts_thread, max_nodes);
        for (thread, events) in &batches {
            aggregator.apply_events(*thread, events);
        }
        let edges = aggregator.call_edges().expect("contexts on");
        prop_assert_eq!(totals(&edges.edges), reference(&batches));
    }
}
