//! Per-relation multiplicities (Murphy & Saenko 1998, section 5.2): parts made with each owner,
//! per call, against hand-counted streams.

mod support;

use highrise_aggregate::Multiplicities;
use highrise_protocol::{Event, EventKind, MemoryAmount};
use support::{enter, exit};

const MAIN: u32 = 0;
const UI: u32 = 1;
const PANEL_FN: u32 = 2;
const ADD: u32 = 3;
const EXPR_FN: u32 = 4;
const STATEMENT: u32 = 5;
const WINDOW: u32 = 20;
const PANEL: u32 = 21;
const ITEM: u32 = 22;
const EXPR: u32 = 23;
const PRINT: u32 = 24;
const ASSIGN: u32 = 25;
const NAME: u32 = 26;

fn memory(timestamp_ns: u64, class_id: u32) -> Event {
    Event {
        timestamp_ns,
        method_id: class_id,
        kind: EventKind::Memory,
    }
}

/// Counts `relations` over one thread's `events`, one object per memory record.
fn count(relations: &[(u32, &[u32])], events: &[Event]) -> Vec<(u64, u64, u64, f64)> {
    let amounts: Vec<MemoryAmount> = events
        .iter()
        .filter(|event| event.kind == EventKind::Memory)
        .map(|_| MemoryAmount {
            count: 1,
            bytes: 24,
            free: false,
        })
        .collect();
    let mut counter = Multiplicities::new(
        relations
            .iter()
            .map(|(owner, parts)| (*owner, parts.to_vec()))
            .collect(),
    );
    // In two batches, cut mid-stream, as agents send them.
    let cut = events.len() / 2;
    let cut_amounts = events[..cut]
        .iter()
        .filter(|event| event.kind == EventKind::Memory)
        .count();
    counter.apply(1, &events[..cut], &amounts[..cut_amounts]);
    counter.apply(1, &events[cut..], &amounts[cut_amounts..]);
    counter
        .finish()
        .into_iter()
        .map(|found| {
            (
                found.owners,
                found.parts,
                found.parts_total,
                found.max_per_owner,
            )
        })
        .collect()
}

fn clock() -> impl FnMut() -> u64 {
    let mut t = 0;
    move || {
        t += 10;
        t
    }
}

#[test]
fn a_panel_claims_the_items_made_in_its_call() {
    let mut next = clock();
    // main makes one stray item; buildUi makes a Window and three panels of 4, 2 and 0 items.
    let mut events = vec![enter(next(), MAIN), memory(next(), ITEM), enter(next(), UI)];
    events.push(memory(next(), WINDOW));
    for items in [4, 2, 0] {
        events.extend([enter(next(), PANEL_FN), memory(next(), PANEL)]);
        for _ in 0..items {
            events.extend([enter(next(), ADD), memory(next(), ITEM), exit(next(), ADD)]);
        }
        events.push(exit(next(), PANEL_FN));
    }
    events.extend([exit(next(), UI), exit(next(), MAIN)]);
    // Two fields of the same classes (Window.items and Window.extras, parts listed twice) are
    // counted once and reported for each.
    let found = count(
        &[
            (PANEL, &[ITEM]),
            (WINDOW, &[PANEL]),
            (WINDOW, &[ITEM]),
            (WINDOW, &[ITEM, ITEM]),
        ],
        &events,
    );
    assert_eq!(found[0], (3, 6, 7, 4.0), "items per panel");
    assert_eq!(found[1], (1, 3, 3, 3.0), "panels per window");
    // A relation stops only at its own owners: the items made under the window's call count.
    assert_eq!(found[2], (1, 6, 7, 6.0), "items per window");
    assert_eq!(found[3], found[2], "the same classes, counted once");
}

#[test]
fn a_tree_of_nodes_counts_each_nodes_children() {
    let mut next = clock();
    // One node with two leaf children, then one with one child that has one child.
    let node = |events: &mut Vec<Event>, next: &mut dyn FnMut() -> u64, children: &[usize]| {
        events.extend([enter(next(), EXPR_FN), memory(next(), EXPR)]);
        for &grandchildren in children {
            events.extend([enter(next(), EXPR_FN), memory(next(), EXPR)]);
            for _ in 0..grandchildren {
                events.extend([
                    enter(next(), EXPR_FN),
                    memory(next(), EXPR),
                    exit(next(), EXPR_FN),
                ]);
            }
            events.push(exit(next(), EXPR_FN));
        }
        events.push(exit(next(), EXPR_FN));
    };
    let mut events = vec![enter(next(), MAIN)];
    node(&mut events, &mut next, &[0, 0]);
    node(&mut events, &mut next, &[1]);
    events.push(exit(next(), MAIN));
    // 6 nodes, 4 of them someone's child; the roots are nobody's.
    assert_eq!(count(&[(EXPR, &[EXPR])], &events), vec![(6, 4, 6, 2.0)]);
}

#[test]
fn one_method_making_different_owners_keeps_them_apart() {
    let mut next = clock();
    // statement() makes either a Print of 3 names or an Assign of 1 name, in the same method:
    // per call, the names go to the owner that call made.
    let mut events = vec![enter(next(), MAIN)];
    for print in [true, false, false, true] {
        events.push(enter(next(), STATEMENT));
        let names = if print { 3 } else { 1 };
        for _ in 0..names {
            events.extend([
                enter(next(), EXPR_FN),
                memory(next(), NAME),
                exit(next(), EXPR_FN),
            ]);
        }
        events.push(memory(next(), if print { PRINT } else { ASSIGN }));
        events.push(exit(next(), STATEMENT));
    }
    events.push(exit(next(), MAIN));
    let found = count(&[(PRINT, &[NAME]), (ASSIGN, &[NAME])], &events);
    assert_eq!(found, vec![(2, 6, 8, 3.0), (2, 2, 8, 1.0)]);
}

#[test]
fn unmatched_exits_resyncs_and_open_calls_at_the_end() {
    let mut counter = Multiplicities::new(vec![(PANEL, vec![ITEM])]);
    let made = |count| MemoryAmount {
        count,
        bytes: count * 24,
        free: false,
    };
    // An exit of a method not on the stack is ignored; a resync closes the panel's call
    // (it claims its 2 items) and opens a new one, which stays open to the end.
    counter.apply(
        7,
        &[
            enter(10, PANEL_FN),
            memory(20, PANEL),
            memory(30, ITEM),
            exit(40, ADD),
        ],
        &[made(1), made(2)],
    );
    counter.resync(7, &[MAIN, PANEL_FN]);
    counter.apply(
        7,
        &[memory(50, PANEL), memory(60, ITEM)],
        &[made(1), made(5)],
    );
    let found = counter.finish();
    assert_eq!((found[0].owners, found[0].parts), (2, 7));
    assert_eq!(found[0].max_per_owner, 5.0);
    assert_eq!(found[0].per_owner(), Some(3.5));
}
