//! What hovering a building says about its method, defined once for the desktop tooltip and
//! the web page's.

use highrise_aggregate::{CallEdge, CallEdges, MethodStats};
use highrise_protocol::Measure;

/// The line a method's facts end with when its figures are estimates because the agent dropped
/// events.
pub const APPROXIMATE_LINE: &str =
    "≈ estimate: the agent dropped events of its threads in the window";

/// Who a method is: its display name, class, package, and the program's title.
#[derive(Debug, Clone, Copy)]
pub struct MethodPlace<'a> {
    pub name: &'a str,
    pub class: &'a str,
    pub package: &'a str,
    pub program: &'a str,
}

/// A share of the window as people read it (`"12.5 %"`).
pub fn percent(fraction: f32) -> String {
    format!("{:.1} %", fraction * 100.0)
}

/// A method's facts over the window: its name, elevation (with the error of a sampled
/// estimate), threads (and those parked in it), calls, inclusive and summed time, class,
/// package and program.
pub fn method_lines(
    place: MethodPlace<'_>,
    stats: &MethodStats,
    measure: &Measure,
    window_s: f32,
) -> Vec<String> {
    // Sampled: the estimate's error, and no calls (samples do not count them).
    let error = measure.error_points(stats.elevation, window_s);
    let mut lines = vec![
        place.name.to_string(),
        format!(
            "elevation {}{}{}",
            if stats.approximate { "≈ " } else { "" },
            percent(stats.elevation),
            error.map_or_else(String::new, |points| format!(
                " ±{points:.1} points (95 %, sampled every {} ms)",
                measure.sample_period_us as f32 / 1000.0
            ))
        ),
        if stats.parked_threads > 0 {
            // Threads that sat in it the whole window: a thread leak piles these up.
            format!(
                "threads {} · {} parked in it",
                stats.thread_count, stats.parked_threads
            )
        } else {
            format!("threads {}", stats.thread_count)
        },
        if !measure.counts_calls() {
            "calls not counted (sampled)".to_string()
        } else {
            format!("calls in window {}", stats.calls)
        },
        format!("inclusive {}", percent(stats.inclusive_elevation)),
        format!("summed over threads {}", percent(stats.summed_elevation)),
        format!(
            "class {} · package {}",
            place.class,
            if place.package.is_empty() {
                "(root)"
            } else {
                place.package
            }
        ),
        format!("program {}", place.program),
    ];
    if stats.approximate && error.is_none() {
        lines.push(APPROXIMATE_LINE.to_string());
    }
    lines
}

/// Callers and callees listed (busiest first, by calls over the window).
pub const CALL_EDGES_LISTED: usize = 3;

/// A method's busiest callers and callees with calls per second (`called by …`, `calls …`),
/// `short_name` naming the others.
pub fn call_lines(
    edges: &CallEdges,
    method_id: u32,
    short_name: impl Fn(u32) -> String,
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut list = |label: &str, mut pairs: Vec<(u32, &CallEdge)>| {
        pairs.retain(|(_, edge)| edge.recent_calls > 0);
        if pairs.is_empty() {
            return;
        }
        pairs.sort_by(|a, b| b.1.recent_calls.cmp(&a.1.recent_calls).then(a.0.cmp(&b.0)));
        let shown: Vec<String> = pairs
            .iter()
            .take(CALL_EDGES_LISTED)
            .map(|(other, edge)| format!("{} {:.0}/s", short_name(*other), edges.calls_per_s(edge)))
            .collect();
        let more = pairs.len().saturating_sub(CALL_EDGES_LISTED);
        lines.push(format!(
            "{label} {}{}",
            shown.join(", "),
            if more > 0 {
                format!(" (+{more} more)")
            } else {
                String::new()
            }
        ));
    };
    list(
        "called by",
        edges
            .callers_of(method_id)
            .filter(|edge| edge.caller != method_id)
            .map(|edge| (edge.caller, edge))
            .collect(),
    );
    list(
        "calls",
        edges
            .callees_of(method_id)
            .iter()
            .filter(|edge| edge.callee != method_id)
            .map(|edge| (edge.callee, edge))
            .collect(),
    );
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_method_says_its_share_threads_and_calls() {
        let stats = MethodStats {
            elevation: 0.25,
            inclusive_elevation: 0.5,
            summed_elevation: 0.3,
            thread_count: 2,
            parked_threads: 1,
            calls: 7,
            approximate: false,
        };
        let place = MethodPlace {
            name: "Game.run()",
            class: "Game",
            package: "",
            program: "tetris",
        };
        let lines = method_lines(place, &stats, &Measure::EXACT, 3.0);
        assert_eq!(
            lines,
            [
                "Game.run()",
                "elevation 25.0 %",
                "threads 2 · 1 parked in it",
                "calls in window 7",
                "inclusive 50.0 %",
                "summed over threads 30.0 %",
                "class Game · package (root)",
                "program tetris",
            ]
        );
    }
}
