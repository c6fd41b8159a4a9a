//! `highrise predict`: a component's memory for N objects of a basis class, from sample
//! recordings, after Murphy & Saenko (1998). The arithmetic lives in `highrise_report::predict`;
//! the class tables it reads are `highrise classes`' (`classes.rs`).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use highrise_report::phases::{class_table, ClassTable, WHOLE_RUN};
use highrise_report::predict::{
    merge_runs, predict, versus_measured, DataSet, Measured, Prediction,
};
use serde::Serialize;

use crate::classes::{kib, warn_unknown};

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

fn data_sets_of(table: &ClassTable) -> Vec<DataSet> {
    table
        .phases
        .iter()
        .map(|run| DataSet::from_run(table, run))
        .collect()
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
