//! Property test: the bucketed aggregator agrees with the exact reference (tests/support) within
//! the documented bound, on random nested call trees over several threads with arbitrary
//! batch interleaving, random windows, open frames, unwinding, orphans, backwards timestamps,
//! resyncs, thread ends, heartbeats and exclusions (set before and changed during the
//! stream).

mod support;

use highrise_aggregate::{
    bucket_ns_for_window, elevation_error_bound, Aggregator, AggregatorConfig, Snapshot,
};
use highrise_protocol::{Event, EventKind};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use support::{Reference, MS, S};

const METHODS: u32 = 8;

/// One delivery step, as the ingest side would make them.
#[derive(Debug, Clone)]
enum Step {
    Events(u64, Vec<Event>),
    Resync(u64, u64, Vec<u32>),
    ThreadEnded(u64, u64),
    Heartbeat(u64),
    Exclude(Vec<u32>),
    Snapshot,
}

/// A thread's own steps, in its time order.
fn thread_steps(rng: &mut SmallRng, thread_id: u64, window_ns: u64, events: usize) -> Vec<Step> {
    let bucket_ns = bucket_ns_for_window(window_ns);
    let mut steps = Vec::new();
    let mut t = rng.gen_range(0..2 * window_ns);
    let mut stack: Vec<u32> = Vec::new();
    let mut batch = Vec::new();
    for _ in 0..events {
        t += match rng.gen_range(0..100) {
            0..=39 => rng.gen_range(0..2_000),
            40..=79 => rng.gen_range(0..bucket_ns),
            80..=97 => rng.gen_range(0..window_ns / 3),
            _ => rng.gen_range(window_ns..3 * window_ns),
        };
        let event_t = if rng.gen_ratio(1, 40) {
            t.saturating_sub(rng.gen_range(0..bucket_ns)) // goes backwards: clamped
        } else {
            t
        };
        let choice = rng.gen_range(0..100);
        if choice < 3 {
            // Resync with a stack sharing a random prefix.
            if !batch.is_empty() {
                steps.push(Step::Events(thread_id, std::mem::take(&mut batch)));
            }
            let keep = rng.gen_range(0..=stack.len());
            stack.truncate(keep);
            for _ in 0..rng.gen_range(0..3) {
                stack.push(rng.gen_range(0..METHODS));
            }
            steps.push(Step::Resync(thread_id, event_t, stack.clone()));
            continue;
        }
        let (kind, method_id) = if stack.is_empty() || (choice < 55 && stack.len() < 12) {
            let method = rng.gen_range(0..METHODS);
            stack.push(method);
            (EventKind::Enter, method)
        } else if choice < 93 {
            (EventKind::Exit, stack.pop().unwrap_or(0))
        } else if choice < 97 {
            // An exit further down the stack (unwinding) or of a method not on it (orphan).
            let method = rng.gen_range(0..METHODS);
            if let Some(position) = stack.iter().rposition(|m| *m == method) {
                stack.truncate(position);
            }
            (EventKind::Exit, method)
        } else {
            continue;
        };
        batch.push(Event {
            timestamp_ns: event_t,
            method_id,
            kind,
        });
        if rng.gen_ratio(1, 6) {
            steps.push(Step::Events(thread_id, std::mem::take(&mut batch)));
        }
    }
    if !batch.is_empty() {
        steps.push(Step::Events(thread_id, batch));
    }
    if rng.gen_ratio(1, 4) {
        steps.push(Step::ThreadEnded(
            thread_id,
            t + rng.gen_range(0..window_ns),
        ));
    }
    steps
}

/// Interleaves the threads' steps at random (keeping each thread's order) and sprinkles
/// heartbeats, exclusion changes and snapshots.
fn scenario(seed: u64, threads: u64, window_ns: u64, events: usize) -> Vec<Step> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut queues: Vec<std::collections::VecDeque<Step>> = (0..threads)
        .map(|thread_id| thread_steps(&mut rng, thread_id + 1, window_ns, events).into())
        .collect();
    let mut steps = Vec::new();
    if rng.gen_bool(0.5) {
        steps.push(Step::Exclude(random_subset(&mut rng)));
    }
    let mut horizon = 0u64;
    while queues.iter().any(|queue| !queue.is_empty()) {
        let index = rng.gen_range(0..queues.len());
        if let Some(step) = queues[index].pop_front() {
            if let Step::Events(_, events) = &step {
                horizon = horizon.max(events.last().map_or(0, |e| e.timestamp_ns));
            }
            steps.push(step);
        }
        match rng.gen_range(0..40) {
            0..=5 => steps.push(Step::Snapshot),
            6 => steps.push(Step::Heartbeat(horizon + rng.gen_range(0..window_ns))),
            7 => steps.push(Step::Exclude(random_subset(&mut rng))),
            _ => {}
        }
    }
    steps.push(Step::Snapshot);
    steps.push(Step::Heartbeat(horizon + rng.gen_range(0..2 * window_ns)));
    steps.push(Step::Snapshot);
    steps
}

fn random_subset(rng: &mut SmallRng) -> Vec<u32> {
    (0..METHODS).filter(|_| rng.gen_ratio(1, 4)).collect()
}

fn check(snapshot: &Snapshot, reference: &Reference, window_ns: u64) -> Result<(), TestCaseError> {
    let bucket_ns = bucket_ns_for_window(window_ns);
    let now_ns = reference.now_ns;
    prop_assert_eq!(snapshot.now_ns, now_ns);
    let window_start_ns = now_ns.saturating_sub(window_ns);
    let oldest_bucket_start_ns = window_start_ns / bucket_ns * bucket_ns;
    let aligned = window_start_ns == oldest_bucket_start_ns;
    let bound = elevation_error_bound(window_ns) + 1e-5;
    let l = window_ns as f64;
    for method in 0..METHODS {
        let fast = snapshot.method(method);
        let exact = reference.exact(method, window_start_ns);
        // Calls and threads: exact over the window extended to its oldest bucket's start.
        let extended = reference.exact(method, oldest_bucket_start_ns);
        prop_assert_eq!(u64::from(fast.calls), extended.calls, "calls of {}", method);
        prop_assert_eq!(
            fast.thread_count,
            extended.thread_count,
            "threads of {}",
            method
        );
        prop_assert!(u64::from(fast.calls) >= exact.calls);

        let elevation = exact.max_exclusive_ns as f64 / l;
        let inclusive = exact.max_inclusive_ns as f64 / l;
        let summed = exact.sum_exclusive_ns as f64 / l;
        let tolerance = if aligned { 1e-5 } else { bound };
        prop_assert!(
            (f64::from(fast.elevation) - elevation).abs() <= tolerance,
            "elevation of {}: fast {} exact {} (bound {})",
            method,
            fast.elevation,
            elevation,
            tolerance
        );
        prop_assert!(
            (f64::from(fast.inclusive_elevation) - inclusive).abs() <= tolerance,
            "inclusive elevation of {}: fast {} exact {}",
            method,
            fast.inclusive_elevation,
            inclusive
        );
        let summed_tolerance = tolerance * f64::from(extended.thread_count.max(1));
        prop_assert!(
            (f64::from(fast.summed_elevation) - summed).abs() <= summed_tolerance,
            "summed elevation of {}: fast {} exact {}",
            method,
            fast.summed_elevation,
            summed
        );
        // Parked threads: those whose exclusive time is at least 95 % of L; a thread within
        // the accuracy bound of that line may count either way.
        let parked_line = f64::from(highrise_aggregate::DEFAULT_PARKED_SHARE);
        let shares: Vec<f64> = reference
            .pair_values(method, window_start_ns)
            .iter()
            .map(|values| values.exclusive_ns as f64 / l)
            .collect();
        let surely = shares
            .iter()
            .filter(|&&share| share >= parked_line + tolerance)
            .count() as u32;
        let maybe = shares
            .iter()
            .filter(|&&share| share >= parked_line - tolerance)
            .count() as u32;
        prop_assert!(
            (surely..=maybe).contains(&fast.parked_threads),
            "parked threads of {}: fast {} exact {}..={} ({:?})",
            method,
            fast.parked_threads,
            surely,
            maybe,
            shares
        );
        prop_assert!(fast.parked_threads <= fast.thread_count);
        prop_assert!(fast.elevation <= 1.0 && fast.inclusive_elevation <= 1.0);
        prop_assert!(
            f64::from(fast.elevation) <= f64::from(fast.inclusive_elevation) + 2.0 * tolerance
        );
    }
    Ok(())
}

fn run(seed: u64, threads: u64, window_ns: u64, events: usize) -> Result<(), TestCaseError> {
    let mut aggregator = Aggregator::new(AggregatorConfig {
        window_ns,
        ..AggregatorConfig::default()
    });
    let mut reference = Reference::default();
    for step in scenario(seed, threads, window_ns, events) {
        match step {
            Step::Events(thread_id, events) => {
                aggregator.apply_events(thread_id, &events);
                reference.apply_events(thread_id, &events);
            }
            Step::Resync(thread_id, t, stack) => {
                aggregator.resync(thread_id, t, &stack);
                reference.resync(thread_id, t, &stack);
            }
            Step::ThreadEnded(thread_id, t) => {
                aggregator.thread_ended(thread_id, t);
                reference.thread_ended(thread_id, t);
            }
            Step::Heartbeat(t) => {
                aggregator.advance_to(t);
                reference.advance_to(t);
            }
            Step::Exclude(methods) => {
                aggregator.set_excluded_methods(&methods);
                reference.set_excluded(&methods);
            }
            Step::Snapshot => {
                let snapshot = aggregator.snapshot();
                check(&snapshot, &reference, window_ns)?;
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn bucketed_aggregator_agrees_with_the_exact_reference(
        seed in any::<u64>(),
        threads in 1u64..=4,
        window_ns in prop_oneof![Just(S / 2), Just(700 * MS), Just(3 * S), Just(10 * S)],
        events in 0usize..300,
    ) {
        run(seed, threads, window_ns, events)?;
    }
}

#[test]
fn aligned_window_start_is_exact() {
    // A heartbeat that puts now - L on a bucket boundary removes the proration entirely.
    for seed in 0..64 {
        let window_ns = 3 * S;
        let bucket_ns = bucket_ns_for_window(window_ns);
        let mut aggregator = Aggregator::new(AggregatorConfig::default());
        let mut reference = Reference::default();
        for step in scenario(seed, 3, window_ns, 200) {
            match step {
                Step::Events(thread_id, events) => {
                    aggregator.apply_events(thread_id, &events);
                    reference.apply_events(thread_id, &events);
                }
                Step::Resync(thread_id, t, stack) => {
                    aggregator.resync(thread_id, t, &stack);
                    reference.resync(thread_id, t, &stack);
                }
                Step::ThreadEnded(thread_id, t) => {
                    aggregator.thread_ended(thread_id, t);
                    reference.thread_ended(thread_id, t);
                }
                Step::Heartbeat(_) | Step::Snapshot => {}
                Step::Exclude(methods) => {
                    aggregator.set_excluded_methods(&methods);
                    reference.set_excluded(&methods);
                }
            }
        }
        let aligned_now =
            (reference.now_ns.saturating_sub(window_ns) / bucket_ns + 1) * bucket_ns + window_ns;
        aggregator.advance_to(aligned_now);
        reference.advance_to(aligned_now);
        let snapshot = aggregator.snapshot();
        let l = window_ns as f64;
        for method in 0..METHODS {
            let exact = reference.exact(method, aligned_now - window_ns);
            let fast = snapshot.method(method);
            assert!(
                (f64::from(fast.elevation) - exact.max_exclusive_ns as f64 / l).abs() < 1e-5,
                "seed {seed} method {method}: {} vs {}",
                fast.elevation,
                exact.max_exclusive_ns as f64 / l
            );
            assert!(
                (f64::from(fast.inclusive_elevation) - exact.max_inclusive_ns as f64 / l).abs()
                    < 1e-5
            );
        }
    }
}
