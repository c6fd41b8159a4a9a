//! The paper's Figure 4 (section III.B.2): main() calls A(), A() calls C(), then main() calls
//! B(); Elevation(A) = ((t2 - t1) + (t4 - t3)) / (t6 - t0).

mod support;

use highrise_aggregate::{Aggregator, AggregatorConfig};
use support::{enter, exit, MS};

const MAIN: u32 = 0;
const A: u32 = 1;
const C: u32 = 2;
const B: u32 = 3;

fn assert_close(actual: f32, expected: f64) {
    assert!(
        (f64::from(actual) - expected).abs() < 1e-6,
        "{actual} != {expected}"
    );
}

#[test]
fn figure_4_elevations_match_the_paper() {
    // t0..t6 over exactly one 3 s window, so L = t6 - t0.
    let [t0, t1, t2, t3, t4, t5, t6] = [0, 400, 900, 1500, 2100, 2400, 3000].map(|t| t * MS);
    let window_ns = t6 - t0;
    let mut aggregator = Aggregator::new(AggregatorConfig {
        window_ns,
        ..AggregatorConfig::default()
    });
    for (id, package) in [(MAIN, "app"), (A, "app"), (C, "app.util"), (B, "app")] {
        aggregator.define_method(id, package);
    }
    aggregator.apply_events(
        1,
        &[
            enter(t0, MAIN),
            enter(t1, A),
            enter(t2, C),
            exit(t3, C),
            exit(t4, A),
            enter(t5, B),
            exit(t6, B),
        ],
    );
    let snapshot = aggregator.snapshot();
    assert_eq!(snapshot.now_ns, t6);
    let l = window_ns as f64;
    let elevation_a = ((t2 - t1) + (t4 - t3)) as f64 / l;
    assert_close(snapshot.method(A).elevation, elevation_a);
    assert_close(snapshot.method(C).elevation, (t3 - t2) as f64 / l);
    assert_close(snapshot.method(B).elevation, (t6 - t5) as f64 / l);
    assert_close(
        snapshot.method(MAIN).elevation,
        ((t1 - t0) + (t5 - t4)) as f64 / l,
    );
    // Exclusive times partition the window.
    let total: f32 = [MAIN, A, C, B]
        .iter()
        .map(|&m| snapshot.method(m).elevation)
        .sum();
    assert_close(total, 1.0);
    // Inclusive: A spans t1..t4, main the whole window (still open).
    assert_close(snapshot.method(A).inclusive_elevation, (t4 - t1) as f64 / l);
    assert_close(snapshot.method(MAIN).inclusive_elevation, 1.0);
    for m in [MAIN, A, C, B] {
        assert_eq!(snapshot.method(m).thread_count, 1);
        assert_eq!(snapshot.method(m).calls, 1);
    }
    let top = snapshot.top_by_elevation(2);
    assert_eq!(
        top.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        vec![A, MAIN]
    );
}

#[test]
fn figure_4_with_c_excluded_gives_cs_time_to_a() {
    let [t0, t1, t2, t3, t4, t5, t6] = [0, 400, 900, 1500, 2100, 2400, 3000].map(|t| t * MS);
    let mut aggregator = Aggregator::new(AggregatorConfig {
        window_ns: t6 - t0,
        ..AggregatorConfig::default()
    });
    aggregator.define_method(C, "app.util");
    aggregator.set_excluded_packages(&["app.util".to_owned()]);
    aggregator.apply_events(
        1,
        &[
            enter(t0, MAIN),
            enter(t1, A),
            enter(t2, C),
            exit(t3, C),
            exit(t4, A),
            enter(t5, B),
            exit(t6, B),
        ],
    );
    let snapshot = aggregator.snapshot();
    let l = (t6 - t0) as f64;
    assert_close(snapshot.method(A).elevation, (t4 - t1) as f64 / l);
    assert_close(snapshot.method(C).elevation, 0.0);
    // Excluded methods still report calls, threads and inclusive time.
    assert_eq!(snapshot.method(C).calls, 1);
    assert_close(snapshot.method(C).inclusive_elevation, (t3 - t2) as f64 / l);
}
