//! `highrise classes`: objects per class in each phase of a recording, and the class diagram
//! they form, after Murphy & Saenko (1998). The arithmetic lives in
//! `highrise_report::{phases, diagram}`; `highrise predict` (`predict.rs`) builds on it.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use highrise_report::diagram::{ClassDiagram, DiagramRelation};
use highrise_report::phases::{class_table, ClassTable};

/// Arguments of `highrise classes`.
#[derive(Debug, Args)]
pub struct ClassesArgs {
    /// The recording.
    pub file: PathBuf,
    /// A phase method (`package.Class.method`, or its tail: `Parser.parse`; a mark
    /// `phase("parse")` of an agent is `phase.parse`): each outermost call of it on a thread
    /// is one phase run. A name matching several methods that ran means the one it names in
    /// full, else the phase mark among them, else is an error. Repeat for several; without it
    /// the whole run is one.
    #[arg(long = "phase", value_name = "METHOD")]
    pub phases: Vec<String>,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

/// Runs `highrise classes`.
pub fn run_classes(args: ClassesArgs) -> anyhow::Result<()> {
    let table = class_table(&args.file, &args.phases)?;
    warn_unknown(&table);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&table)?);
    } else {
        print!("{}", render_classes(&table));
    }
    Ok(())
}

/// Says what a class table could not tell: phases that matched nothing, an interrupted
/// recording, drops.
pub fn warn_unknown(table: &ClassTable) {
    for phase in &table.unknown_phases {
        eprintln!("{}: no method matches the phase {phase:?}", table.recording);
    }
    if let Some(reason) = &table.interrupted {
        eprintln!("{}: interrupted recording, {reason}", table.recording);
    }
    if table.events_dropped > 0 || table.allocations_dropped > 0 {
        eprintln!(
            "{}: the agent dropped {} events and {} allocations (its buffers were full): \
             counts are lower bounds; record with the agent's lossless option",
            table.recording, table.events_dropped, table.allocations_dropped
        );
    }
}

/// Bytes as kB, one decimal.
pub fn kib(bytes: f64) -> String {
    format!("{:.1} kB", bytes / 1000.0)
}

fn render_classes(table: &ClassTable) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", table.recording);
    for note in table
        .phase_choices
        .iter()
        .filter_map(|choice| choice.note())
    {
        let _ = writeln!(out, "(note: {note})");
    }
    if table.events_dropped > 0 || table.allocations_dropped > 0 {
        let _ = writeln!(
            out,
            "(the agent dropped {} events and {} allocations: counts are lower bounds)",
            table.events_dropped, table.allocations_dropped
        );
    }
    let snapshots = table.phases.iter().any(|run| run.live_snapshot);
    if !table.frees_known && !snapshots {
        let _ = writeln!(
            out,
            "(the agent reported no frees and no live-object snapshots: objects live at a \
             phase's exit are not known; the Java and Python agents' live=on measures them)"
        );
    }
    for run in &table.phases {
        let _ = writeln!(
            out,
            "\n{} #{} (thread {}, {:.3} ms{}):",
            run.phase,
            run.index,
            run.thread_id,
            run.end_ns.saturating_sub(run.start_ns) as f64 / 1e6,
            if run.unfinished { ", unfinished" } else { "" }
        );
        if run.live_snapshot {
            let _ = writeln!(
                out,
                "  live objects measured at exit (whole heap{})",
                run.heap_live_bytes
                    .map_or_else(String::new, |bytes| format!(": {} live", kib(bytes as f64)))
            );
        }
        let _ = writeln!(
            out,
            "  {:>10} {:>12} {:>10} {:>10} {:>12} {:>9} {:>9}  class",
            "created", "bytes", "freed", "live@exit", "live bytes", "mean B", "max B"
        );
        for class in &run.classes {
            let live = class
                .live_at_exit
                .map_or_else(|| "-".to_string(), |live| live.to_string());
            let live_bytes = class
                .live_bytes_at_exit
                .map_or_else(|| "-".to_string(), |bytes| bytes.to_string());
            let _ = writeln!(
                out,
                "  {:>10} {:>12} {:>10} {:>10} {:>12} {:>9.1} {:>9.1}  {}",
                class.created,
                class.created_bytes,
                class.freed,
                live,
                live_bytes,
                class.mean_size_bytes,
                class.max_size_bytes,
                class.class
            );
        }
    }
    if table.phases.is_empty() {
        let _ = writeln!(out, "\nno phase runs");
    }
    render_diagram(&mut out, &table.diagram);
    out
}

/// The class diagram: classes with their objects, then each relation, associations with the
/// objects made per owner.
fn render_diagram(out: &mut String, diagram: &ClassDiagram) {
    if diagram.relations.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nClass diagram ({} classes, {} relations; \"per owner\": objects of the field's class \
         and its subclasses created in the calls that create each owner, over the whole run; max: in one call):",
        diagram.classes.len(),
        diagram.relations.len()
    );
    let _ = writeln!(
        out,
        "  {:>10} {:>12} {:>9}  class",
        "created", "bytes", "mean B"
    );
    // Most bytes first; a real program's classes with no object made are only counted.
    let classes = diagram.classes_by_bytes();
    for class in &classes {
        let _ = writeln!(
            out,
            "  {:>10} {:>12} {:>9.1}  {}",
            class.created, class.created_bytes, class.mean_size_bytes, class.class
        );
    }
    if classes.len() < diagram.classes.len() {
        let _ = writeln!(
            out,
            "  ({} more classes with no object made; --json lists them)",
            diagram.classes.len() - classes.len()
        );
    }
    let _ = writeln!(
        out,
        "  {:>10} {:>8} {:>7}  relation",
        "per owner", "max", "of all"
    );
    // Fields with no owner or part made, supertypes of classes with no object made.
    let made: std::collections::HashSet<&str> = classes.iter().map(|c| c.class.as_str()).collect();
    let idle = |relation: &&DiagramRelation| match relation.kind {
        "field" => relation.owners == 0 && relation.parts_total == 0,
        _ => !made.contains(relation.from.as_str()),
    };
    for relation in diagram.relations.iter().filter(|r| !idle(r)) {
        let per_owner = relation
            .per_owner
            .map_or_else(|| "-".to_string(), |per| format!("{per:.2}"));
        let max = relation
            .max_per_owner
            .map_or_else(|| "-".to_string(), |max| format!("{max:.0}"));
        let share = if relation.parts_total > 0 {
            format!(
                "{:.0} %",
                100.0 * relation.parts as f64 / relation.parts_total as f64
            )
        } else {
            "-".to_string()
        };
        let arrow = match relation.kind {
            "field" if relation.many => format!(".{} → *", relation.field),
            "field" => format!(".{} →", relation.field),
            kind => format!(" {kind}"),
        };
        let _ = writeln!(
            out,
            "  {per_owner:>10} {max:>8} {share:>7}  {}{arrow} {}",
            relation.from, relation.to
        );
    }
    let idle = diagram.relations.iter().filter(idle).count();
    if idle > 0 {
        let _ = writeln!(
            out,
            "  ({idle} more relations of classes with no object made; --json lists them)"
        );
    }
}
