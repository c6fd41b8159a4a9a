//! `highrise classes` (objects per class in each phase of a recording) and `highrise predict`
//! (a component's memory for N objects of a basis class, from sample recordings), after
//! Murphy & Saenko (1998). The arithmetic lives in `highrise_report::{phases, predict}`.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use highrise_report::diagram::{ClassDiagram, DiagramRelation};
use highrise_report::phases::{class_table, ClassTable, WHOLE_RUN};
use highrise_report::predict::{
    merge_runs, predict, versus_measured, DataSet, Measured, Prediction,
};
use serde::Serialize;

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

/// Arguments of `highrise predict`.
#[derive(Debug, Args)]
pub struct PredictArgs {
    /// The basis class and how many of its objects to predict for: `Node=5000` (the class's
    /// full name or its tail).
    #[arg(long, value_name = "CLASS=COUNT")]
    pub basis: String,
    /// Sample recordings: each phase run in each is one data set.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The phase method (as for `highrise classes`); without it each whole run is one data set.
    #[arg(long = "phase", value_name = "METHOD")]
    pub phase: Option<String>,
    /// A recording of a run at the size to predict: the prediction is redone at its basis
    /// count and each method's error against what it measured is printed.
    #[arg(long, value_name = "RUN.hrec")]
    pub vs_measured: Option<PathBuf>,
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

/// `highrise predict --json`.
#[derive(Debug, Serialize)]
struct PredictOutput {
    phase: String,
    /// The method the phase name stands for in the recordings (its full name).
    #[serde(skip_serializing_if = "Option::is_none")]
    phase_method: Option<String>,
    /// What else the phase name matched (see `PhaseChoice::note`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
    prediction: Prediction,
    #[serde(skip_serializing_if = "Option::is_none")]
    measured: Option<Measured>,
}

/// Runs `highrise predict`.
pub fn run_predict(args: PredictArgs) -> anyhow::Result<()> {
    let (basis, count) = args
        .basis
        .rsplit_once('=')
        .context("--basis takes CLASS=COUNT, e.g. --basis Node=5000")?;
    let count: u64 = count
        .trim()
        .parse()
        .with_context(|| format!("--basis {}: {count:?} is not a count", args.basis))?;
    let basis = basis.trim();
    let phases: Vec<String> = args.phase.iter().cloned().collect();
    let mut data_sets = Vec::new();
    let mut choices = PhaseChoices::default();
    for file in &args.files {
        let table = class_table(file, &phases)?;
        warn_unknown(&table);
        choices.add(&table)?;
        data_sets.extend(data_sets_of(&table));
    }
    let measured_table = match &args.vs_measured {
        Some(file) => {
            let table = class_table(file, &phases)?;
            warn_unknown(&table);
            choices.add(&table)?;
            Some(table)
        }
        None => None,
    };
    let prediction = predict(&data_sets, basis, count)?;
    let measured = match (&args.vs_measured, &measured_table) {
        (Some(file), Some(table)) => {
            let runs = data_sets_of(table);
            let measured = merge_runs(&runs, &file.display().to_string())
                .with_context(|| format!("{}: no phase run to measure against", file.display()))?;
            Some(versus_measured(&data_sets, basis, &measured)?)
        }
        _ => None,
    };
    let output = PredictOutput {
        phase: args.phase.unwrap_or_else(|| WHOLE_RUN.to_string()),
        phase_method: choices.method,
        notes: choices.notes,
        prediction,
        measured,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&output)?);
    } else {
        print!("{}", render_prediction(&output));
    }
    Ok(())
}

/// The method `--phase` stands for, the same in every recording, and the notes on what else
/// it matched.
#[derive(Debug, Default)]
struct PhaseChoices {
    /// The method chosen (its full name).
    method: Option<String>,
    /// The recording it was first chosen in.
    first: Option<String>,
    notes: Vec<String>,
}

impl PhaseChoices {
    /// Takes `table`'s choice; an error where it chose another method than an earlier
    /// recording (their data sets would be different phases).
    fn add(&mut self, table: &ClassTable) -> anyhow::Result<()> {
        for choice in &table.phase_choices {
            match self.method.clone() {
                Some(method) if method != choice.method => {
                    let first = self.first.clone().unwrap_or_default();
                    anyhow::bail!(
                        "the phase {:?} is {method} in {first} but {} in {}; name the one you \
                         mean in full (e.g. --phase {method})",
                        choice.asked,
                        choice.method,
                        table.recording
                    );
                }
                Some(_) => {}
                None => {
                    self.method = Some(choice.method.clone());
                    self.first = Some(table.recording.clone());
                }
            }
            if let Some(note) = choice.note() {
                if !self.notes.contains(&note) {
                    self.notes.push(note);
                }
            }
        }
        Ok(())
    }
}

fn warn_unknown(table: &ClassTable) {
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

fn data_sets_of(table: &ClassTable) -> Vec<DataSet> {
    table
        .phases
        .iter()
        .map(|run| DataSet::from_run(table, run))
        .collect()
}

fn kib(bytes: f64) -> String {
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

fn render_prediction(output: &PredictOutput) -> String {
    let prediction = &output.prediction;
    let mut out = String::new();
    let phase = match &output.phase_method {
        Some(method) if *method != output.phase => format!("{} ({method})", output.phase),
        _ => output.phase.clone(),
    };
    let _ = writeln!(
        out,
        "Predicted memory of phase {phase} for {} × {} ({} data sets):",
        prediction.basis_count,
        prediction.basis,
        prediction.data_sets.len()
    );
    for note in &output.notes {
        let _ = writeln!(out, "  note: {note}");
    }
    let _ = writeln!(
        out,
        "  ratio method: average {}, maximum {}{}",
        kib(prediction.average_bytes),
        kib(prediction.maximum_bytes),
        prediction
            .retained_bytes
            .map_or_else(String::new, |bytes| format!(
                ", retained at exit {}",
                kib(bytes)
            ))
    );
    if let Some(bytes) = prediction.retained_fit_bytes {
        let _ = writeln!(out, "  retained at exit, linear fit: {}", kib(bytes));
    }
    match prediction.fit_bytes {
        Some(bytes) => {
            let _ = writeln!(out, "  linear fit:   {}", kib(bytes));
        }
        None => {
            let _ = writeln!(
                out,
                "  linear fit:   - (needs data sets with at least two different basis counts)"
            );
        }
    }
    let _ = writeln!(out, "\n  per data set (ratio method on it alone):");
    for set in &prediction.data_sets {
        let _ = writeln!(
            out,
            "  {:>12} ({:>12})  basis {:>8}  {}",
            kib(set.average_bytes),
            kib(set.maximum_bytes),
            set.basis_count,
            set.label
        );
    }
    for label in &prediction.without_basis {
        let _ = writeln!(out, "  left out (no basis objects): {label}");
    }
    for label in &prediction.lossy {
        let _ = writeln!(out, "  lossy (the agent dropped counts): {label}");
    }
    if prediction.retained_bytes.is_some() && !prediction.live_unknown.is_empty() {
        let _ = writeln!(
            out,
            "  retained leaves out classes whose live objects are not known: {}",
            prediction.live_unknown.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "\n  {:>9} {:>9} {:>11} {:>12} {:>12} {:>12} {:>12}  class",
        "per basis", "max", "objects", "average", "maximum", "fit", "retained"
    );
    let mut negligible = 0;
    for class in &prediction.classes {
        // Under 0.05 kB everywhere (e.g. a class live at exit with a handful of objects that
        // the component did not make): counted in the totals, not listed.
        let shown = [
            Some(class.average_bytes),
            Some(class.maximum_bytes),
            class.fit_bytes,
            class.retained_bytes,
        ];
        if shown.iter().flatten().all(|bytes| bytes.abs() < 50.0) {
            negligible += 1;
            continue;
        }
        let _ = writeln!(
            out,
            "  {:>9.3} {:>9.3} {:>11.0} {:>12} {:>12} {:>12} {:>12}  {}",
            class.mean_ratio,
            class.max_ratio,
            class.average_count,
            kib(class.average_bytes),
            kib(class.maximum_bytes),
            class.fit_bytes.map_or_else(|| "-".to_string(), kib),
            class.retained_bytes.map_or_else(|| "-".to_string(), kib),
            class.class
        );
    }
    if negligible > 0 {
        let _ = writeln!(
            out,
            "  ({negligible} more classes under 0.05 kB each, in the totals; --json lists them)"
        );
    }
    if let Some(measured) = &output.measured {
        let _ = writeln!(
            out,
            "\nAgainst {} ({} basis objects; predicted again at that count):",
            measured.label, measured.basis_count
        );
        let _ = writeln!(
            out,
            "  measured: created {}{}",
            kib(measured.created_bytes as f64),
            measured
                .live_bytes
                .map_or_else(String::new, |bytes| format!(
                    ", live at exit {}",
                    kib(bytes)
                )),
        );
        if let Some(heap) = measured.heap_live_bytes {
            let _ = writeln!(
                out,
                "  heap live at exit (whole program, as the runtime measured it): {}",
                kib(heap as f64)
            );
        }
        let _ = writeln!(
            out,
            "  ratio average {} ({:+.1} %), ratio maximum {} ({:+.1} %)",
            kib(measured.prediction.average_bytes),
            measured.average_error_pct,
            kib(measured.prediction.maximum_bytes),
            measured.maximum_error_pct
        );
        if let (Some(fit), Some(error)) = (measured.prediction.fit_bytes, measured.fit_error_pct) {
            let _ = writeln!(out, "  linear fit {} ({error:+.1} %)", kib(fit));
        }
        if let (Some(retained), Some(error)) = (
            measured.prediction.retained_bytes,
            measured.retained_error_pct,
        ) {
            let _ = writeln!(
                out,
                "  retained {} against live at exit ({error:+.1} %)",
                kib(retained)
            );
        }
        if let (Some(retained), Some(error)) = (
            measured.prediction.retained_fit_bytes,
            measured.retained_fit_error_pct,
        ) {
            let _ = writeln!(
                out,
                "  retained, linear fit {} against live at exit ({error:+.1} %)",
                kib(retained)
            );
        }
    }
    out
}
