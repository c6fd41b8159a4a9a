//! Readable tables.

use std::fmt::Write;

use crate::compare::Comparison;
use crate::summary::{AllocNode, MemorySummary, RunSummary};

/// Rows of a method table (the rest is summarized in one line).
const MAX_ROWS: usize = 40;

/// The report of one run as a table.
pub fn render_summary(run: &RunSummary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} ({}) — {}",
        run.program,
        label(&run.version_label),
        run.path.display()
    );
    // A run of over an hour is sampled more sparsely (`sample_interval_ns`): say how.
    let every = if run.sample_interval_ns == crate::SAMPLE_INTERVAL_NS {
        String::new()
    } else {
        format!(" (every {} ms)", run.sample_interval_ns / 1_000_000)
    };
    let _ = writeln!(
        out,
        "{:.1} s of program time, {} samples{every}, {} events, {} frames, max {} threads, ended: {}",
        run.duration_ns as f64 / 1e9,
        run.samples,
        run.events,
        run.frames,
        run.max_threads,
        run.end
    );
    if let Some(interrupted) = &run.interrupted {
        let _ = writeln!(out, "warning: interrupted recording ({interrupted})");
    }
    for error in &run.errors {
        let _ = writeln!(out, "session error: {error}");
    }
    for alert in &run.alerts {
        let _ = writeln!(out, "ALERT ({}): {}", alert.kind, alert.text);
    }
    if run.measure.mode != "exact" {
        let _ = writeln!(out, "measured: {}", run.measure.text);
    }
    for notice in &run.notices {
        let _ = writeln!(out, "agent: {}", notice.text);
    }
    if run.events_dropped > 0 {
        let _ = writeln!(
            out,
            "the agent dropped {} events ({:.2} % of the program's); ≈ marks methods whose \
             numbers are estimates because of it",
            run.events_dropped, run.dropped_pct
        );
    }
    let _ = writeln!(out);
    // Sampled: the max's error at the window, and no calls (samples do not count them).
    let sampled = run
        .methods
        .iter()
        .any(|m| m.max_elevation_error_pct.is_some());
    let _ = writeln!(
        out,
        "{:>7} {:>8} {:>8}{} {:>7} {:>10}  method",
        "run %",
        "mean %",
        "max %",
        if sampled { "    ±95%" } else { "" },
        "threads",
        "calls"
    );
    for method in run.methods.iter().take(MAX_ROWS) {
        let error = method
            .max_elevation_error_pct
            .map_or_else(String::new, |points| {
                format!(" {:>7}", format!("±{points:.1}"))
            });
        let calls = if run.measure.calls_counted {
            method.calls.to_string()
        } else {
            "—".to_string()
        };
        let _ = writeln!(
            out,
            "{:>7.2} {:>8.2} {:>8.2}{error} {:>7} {:>10}  {}{}",
            method.run_share_pct,
            method.mean_elevation_pct,
            method.max_elevation_pct,
            method.max_thread_count,
            calls,
            if method.approximate { "≈ " } else { "" },
            method.display_name
        );
    }
    more_rows(&mut out, run.methods.len(), "methods");
    if !run.call_edges.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "{:>10}  caller → callee", "calls");
        for edge in run.call_edges.iter().take(MAX_ROWS) {
            let _ = writeln!(out, "{:>10}  {} → {}", edge.calls, edge.caller, edge.callee);
        }
        more_rows(&mut out, run.call_edges.len(), "call edges");
    }
    if let Some(memory) = &run.memory {
        render_allocations(&mut out, run, memory);
    }
    out
}

/// The allocation tables: methods by objects created (with their top classes), then classes.
fn render_allocations(out: &mut String, run: &RunSummary, memory: &MemorySummary) {
    let _ = writeln!(
        out,
        "\nAllocations (objects the method itself created; kB = 1000 bytes)"
    );
    if memory.allocations_dropped > 0 {
        let _ = writeln!(
            out,
            "the agent could not send {} allocations ({:.1} kB): the counts are lower bounds",
            memory.allocations_dropped,
            memory.bytes_dropped as f64 / 1e3
        );
    }
    let _ = writeln!(
        out,
        "{:>10} {:>10} {:>10}  method  (top classes)",
        "objects", "kB", "frees"
    );
    let mut allocating: Vec<_> = run
        .methods
        .iter()
        .filter_map(|method| method.allocations_total.map(|total| (method, total)))
        .collect();
    allocating.sort_by(|a, b| {
        b.1.count
            .cmp(&a.1.count)
            .then_with(|| a.0.display_name.cmp(&b.0.display_name))
    });
    for (method, total) in allocating.iter().take(MAX_ROWS) {
        let top: Vec<String> = method
            .allocations
            .iter()
            .filter(|class| class.count > 0)
            .take(3)
            .map(|class| format!("{} {}", class.class, class.count))
            .collect();
        let _ = writeln!(
            out,
            "{:>10} {:>10.1} {:>10}  {}  ({})",
            total.count,
            total.bytes as f64 / 1e3,
            total.frees,
            method.display_name,
            top.join(", ")
        );
    }
    more_rows(out, allocating.len(), "methods");
    if memory.outside.count + memory.outside.frees > 0 {
        let _ = writeln!(
            out,
            "{:>10} {:>10.1} {:>10}  (outside profiled methods)",
            memory.outside.count,
            memory.outside.bytes as f64 / 1e3,
            memory.outside.frees
        );
    }
    let _ = writeln!(
        out,
        "\n{:>10} {:>10} {:>10}  class",
        "objects", "kB", "frees"
    );
    for class in memory.classes.iter().take(MAX_ROWS) {
        let _ = writeln!(
            out,
            "{:>10} {:>10.1} {:>10}  {}",
            class.count,
            class.bytes as f64 / 1e3,
            class.frees,
            class.class
        );
    }
    more_rows(out, memory.classes.len(), "classes");
    if !memory.allocation_tree.is_empty() {
        let _ = writeln!(
            out,
            "\nAllocation sites (calling contexts that create objects, with their calls; ● made \
             in that context itself)"
        );
        let total: u64 = memory.allocation_tree.iter().map(|node| node.count).sum();
        let mut rows = 0usize;
        for node in &memory.allocation_tree {
            render_alloc_node(out, node, 0, total, &mut rows);
        }
        if memory.capped_calls > 0 {
            let _ = writeln!(
                out,
                "({} calls went to \"(other contexts)\": the tree reached its node cap)",
                memory.capped_calls
            );
        }
    }
}

/// Deepest level and most rows the text tree shows; contexts under 0.1 % of the objects are
/// left out (the JSON has them all).
const MAX_TREE_DEPTH: usize = 12;
const MAX_TREE_ROWS: usize = 200;

fn render_alloc_node(
    out: &mut String,
    node: &AllocNode,
    depth: usize,
    total: u64,
    rows: &mut usize,
) {
    if depth > MAX_TREE_DEPTH || *rows >= MAX_TREE_ROWS || node.count * 1000 < total {
        return;
    }
    *rows += 1;
    let classes: Vec<String> = node
        .classes
        .iter()
        .take(4)
        .map(|class| {
            let mark = if class.direct { "●" } else { "" };
            format!("{mark}{} {}", class.class, class.count)
        })
        .collect();
    let _ = writeln!(
        out,
        "{:indent$}{}  ×{}  {} objects, {:.1} kB  [{}]",
        "",
        node.method,
        node.calls,
        node.count,
        node.bytes as f64 / 1e3,
        classes.join(", "),
        indent = 2 * depth
    );
    for child in &node.children {
        render_alloc_node(out, child, depth + 1, total, rows);
    }
}

/// The comparison of two runs as tables.
pub fn render_comparison(comparison: &Comparison) -> String {
    let mut out = String::new();
    for (side, run) in [("A", &comparison.a), ("B", &comparison.b)] {
        let _ = writeln!(
            out,
            "{side}: {} ({}) — {}",
            run.program,
            label(&run.version_label),
            run.path.display()
        );
    }
    let _ = writeln!(
        out,
        "max threads: {} → {}",
        comparison.max_threads_a, comparison.max_threads_b
    );
    let structure = &comparison.structure;
    let _ = writeln!(out, "\nStructure");
    let list = |out: &mut String, title: &str, items: &[String]| {
        if !items.is_empty() {
            let _ = writeln!(out, "  {title} ({}): {}", items.len(), items.join(", "));
        }
    };
    list(&mut out, "packages added", &structure.packages_added);
    list(&mut out, "packages removed", &structure.packages_removed);
    list(&mut out, "classes added", &structure.classes_added);
    list(&mut out, "classes removed", &structure.classes_removed);
    for moved in &structure.classes_moved {
        let _ = writeln!(
            out,
            "  class moved: {}  {} → {}",
            moved.class,
            shown(&moved.from_package),
            shown(&moved.to_package)
        );
    }
    list(&mut out, "methods added", &structure.methods_added);
    list(&mut out, "methods removed", &structure.methods_removed);
    let _ = writeln!(out, "  methods moved: {}", structure.methods_moved.len());
    let _ = writeln!(out, "\nElevation, B − A (percentage points of the window)");
    let _ = writeln!(
        out,
        "{:>8} {:>8} {:>8} {:>8}  method",
        "Δ mean", "A mean", "B mean", "change"
    );
    for delta in comparison.methods.iter().take(MAX_ROWS) {
        let _ = writeln!(
            out,
            "{:>+8.2} {:>8.2} {:>8.2} {:>8}  {}",
            delta.delta_mean_pct,
            delta.mean_a_pct,
            delta.mean_b_pct,
            delta.change,
            delta.display_name
        );
    }
    more_rows(&mut out, comparison.methods.len(), "methods");
    out
}

/// The line that stands for the rows of a `total`-row table beyond [`MAX_ROWS`].
fn more_rows(out: &mut String, total: usize, what: &str) {
    if total > MAX_ROWS {
        let _ = writeln!(out, "… and {} more {what}", total - MAX_ROWS);
    }
}

fn label(version_label: &str) -> &str {
    if version_label.is_empty() {
        "no version label"
    } else {
        version_label
    }
}

fn shown(package: &str) -> &str {
    if package.is_empty() {
        "(root)"
    } else {
        package
    }
}
