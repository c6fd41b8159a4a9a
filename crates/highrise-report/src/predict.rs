//! Predicting a component's memory from sample runs (Murphy & Saenko 1998, section 3.3):
//! `highrise predict`.
//!
//! The inputs are *data sets*: one per phase run of each sample recording ([`crate::phases`]),
//! with per class the objects created (the paper's "maximum potentially active"), objects live
//! at the phase's exit where known, and object sizes. The user names a *basis class* whose
//! count they can estimate for their own input (calls per procedure, tokens per file, …) and
//! that count `N`. Two methods:
//!
//! - **The paper's ratio method.** Per data set `d` and class `c`, the ratio
//!   `r(c, d) = created(c, d) / created(basis, d)`; across data sets the mean and the maximum
//!   ratio per class. Predicted average memory = `N · Σ_c mean_d r(c, d) · mean size(c)`;
//!   predicted maximum = `N · Σ_c max_d r(c, d) · max size(c)`. The same on objects live at
//!   exit gives the memory the phase leaves behind ("retained").
//! - **A fit** (what the paper's section 5 wished for: fixed costs are not per basis object).
//!   Per class a least-squares line `created(c) = a + b · created(basis)` across the data sets
//!   (at least two distinct basis counts), predicted count `max(0, a + b · N)` at the mean size.
//!
//! Data sets without basis objects cannot be scaled and are left out (and listed).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::phases::{class_matches, ClassTable, PhaseRun};

/// One class in one data set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DataSetClass {
    pub class: String,
    pub created: u64,
    pub created_bytes: u64,
    pub live_at_exit: Option<u64>,
    /// Bytes live at exit as a snapshot measured them (else live × mean size is used).
    pub live_bytes_at_exit: Option<u64>,
    pub mean_size_bytes: f64,
    pub max_size_bytes: f64,
}

impl DataSetClass {
    /// Bytes live at exit: measured, or live objects at the mean size; `None` when unknown.
    pub fn live_bytes(&self) -> Option<f64> {
        self.live_bytes_at_exit
            .map(|bytes| bytes as f64)
            .or_else(|| {
                self.live_at_exit
                    .map(|live| live as f64 * self.mean_size_bytes)
            })
    }
}

/// One data set: one phase run of one sample recording.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DataSet {
    /// Where it comes from (`recording: phase #index`).
    pub label: String,
    pub classes: Vec<DataSetClass>,
    /// Objects of each class the run had created by the phase's exit (the basis count comes
    /// from here: the input's size as the component saw it).
    pub created_by_exit: BTreeMap<String, u64>,
    /// The recording's agent lost events or allocations: its counts are lower bounds.
    pub lossy: bool,
    /// The heap's live bytes at the phase's exit, as the runtime measured them.
    pub heap_live_bytes: Option<u64>,
}

/// The class name agents give blocks of unknown type (CPython 3.11/3.12's built-in objects).
pub const UNTYPED: &str = "(untyped)";

impl DataSetClass {
    /// The object size the ratio method's maximum scales: the largest object (the paper's
    /// maximum size), except for [`UNTYPED`] blocks: built-in objects of every type together,
    /// whose largest (a big dict's table) would stand for all of them (docutils' parse of 800
    /// sections on 3.12: 25 976 B against a mean of 85 B, a maximum of 117 GB); their mean
    /// size is used there.
    pub fn size_for_maximum(&self) -> f64 {
        if self.class == UNTYPED {
            self.mean_size_bytes
        } else {
            self.max_size_bytes
        }
    }
}

impl DataSet {
    /// A phase run of `table` as a data set.
    pub fn from_run(table: &ClassTable, run: &PhaseRun) -> Self {
        let recording = &table.recording;
        Self {
            label: format!("{recording}: {} #{}", run.phase, run.index),
            classes: run
                .classes
                .iter()
                .map(|class| DataSetClass {
                    class: class.class.clone(),
                    created: class.created,
                    created_bytes: class.created_bytes,
                    live_at_exit: class.live_at_exit,
                    live_bytes_at_exit: class.live_bytes_at_exit,
                    mean_size_bytes: class.mean_size_bytes,
                    max_size_bytes: class.max_size_bytes,
                })
                .collect(),
            created_by_exit: run.created_by_exit.clone(),
            lossy: table.events_dropped > 0 || table.allocations_dropped > 0,
            heap_live_bytes: run.heap_live_bytes,
        }
    }

    fn class(&self, class: &str) -> Option<&DataSetClass> {
        self.classes.iter().find(|entry| entry.class == class)
    }

    /// Objects of the basis class (its full name) the run had created by the phase's exit.
    pub fn basis_count(&self, basis: &str) -> u64 {
        self.created_by_exit.get(basis).copied().unwrap_or(0)
    }

    /// Bytes of every object created.
    pub fn created_bytes(&self) -> u64 {
        self.classes.iter().map(|entry| entry.created_bytes).sum()
    }

    /// Bytes of the objects live at exit, over the classes whose live objects are known
    /// (frees, or a snapshot); `None` when no class's are.
    pub fn live_bytes(&self) -> Option<f64> {
        let known: Vec<f64> = self
            .classes
            .iter()
            .filter_map(DataSetClass::live_bytes)
            .collect();
        (!known.is_empty()).then(|| known.iter().sum())
    }

    /// Whether any class's live objects at exit are known.
    fn live_known(&self) -> bool {
        self.classes
            .iter()
            .any(|entry| entry.live_at_exit.is_some())
    }
}

/// `intercept + slope · basis count`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Line {
    pub intercept: f64,
    pub slope: f64,
}

/// One class's prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassPrediction {
    pub class: String,
    /// Mean and maximum over the data sets of objects created per basis object.
    pub mean_ratio: f64,
    pub max_ratio: f64,
    /// Mean over the data sets of objects live at exit per basis object, where every data set
    /// knows the class's live objects (frees, or a snapshot; a class a set does not list
    /// counts 0 there).
    pub mean_live_ratio: Option<f64>,
    /// Bytes per object: mean over every object created in the data sets, and the largest.
    pub mean_size_bytes: f64,
    pub max_size_bytes: f64,
    /// The ratio method at `N`: objects and bytes, average and maximum (the maximum ratio
    /// times the largest size, see [`DataSetClass::size_for_maximum`]).
    pub average_count: f64,
    pub maximum_count: f64,
    pub average_bytes: f64,
    pub maximum_bytes: f64,
    /// Bytes live at the phase's exit (average over the data sets of live bytes per basis
    /// object, times `N`), where known as for `mean_live_ratio`.
    pub retained_bytes: Option<f64>,
    /// The least-squares line of live bytes at exit against basis objects (a fixed part, such
    /// as what the program holds whatever its input, kept apart), and its prediction at `N`.
    pub retained_fit: Option<Line>,
    pub retained_fit_bytes: Option<f64>,
    /// The least-squares line of objects created against basis objects, when the data sets
    /// have at least two distinct basis counts; its prediction at `N`.
    pub fit: Option<Line>,
    pub fit_count: Option<f64>,
    pub fit_bytes: Option<f64>,
}

/// One data set's own prediction at `N` (the paper's Table 1 has one per sample run).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DataSetPrediction {
    pub label: String,
    pub basis_count: u64,
    /// `N · Σ_c r(c, d) · mean size(c, d)` and the same at the largest sizes.
    pub average_bytes: f64,
    pub maximum_bytes: f64,
}

/// The prediction for `basis_count` basis objects.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    /// The basis class as found in the data sets (its display name).
    pub basis: String,
    pub basis_count: u64,
    /// Data sets used, with their own predictions.
    pub data_sets: Vec<DataSetPrediction>,
    /// Data sets left out: no basis objects in them.
    pub without_basis: Vec<String>,
    /// Data sets used whose agent lost events or allocations (their counts are lower bounds).
    pub lossy: Vec<String>,
    /// The ratio method: average and maximum bytes, and retained bytes over the classes whose
    /// live objects are known (`None` when none's are).
    pub average_bytes: f64,
    pub maximum_bytes: f64,
    pub retained_bytes: Option<f64>,
    /// The live-bytes fit over the same classes, when every one of them could be fitted.
    pub retained_fit_bytes: Option<f64>,
    /// Classes whose live objects some data set does not know (left out of `retained_bytes`).
    pub live_unknown: Vec<String>,
    /// The fit, when every class could be fitted.
    pub fit_bytes: Option<f64>,
    /// By predicted average or retained bytes (the larger), most first.
    pub classes: Vec<ClassPrediction>,
}

/// Why there is no prediction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PredictError {
    #[error("no data sets (no phase runs in the recordings; is the phase method's name right?)")]
    NoDataSets,
    #[error("no sample run created any object of the basis class {basis:?}; classes seen: {seen}")]
    NoBasis { basis: String, seen: String },
    #[error("the basis class {basis:?} matches several classes: {matches}; name it in full")]
    AmbiguousBasis { basis: String, matches: String },
}

/// The basis class's full name as the data sets spell it.
pub fn resolve_basis(data_sets: &[DataSet], basis: &str) -> Result<String, PredictError> {
    let mut matches: Vec<&str> = data_sets
        .iter()
        .flat_map(|set| &set.created_by_exit)
        .filter(|(class, &count)| count > 0 && class_matches(class, basis))
        .map(|(class, _)| class.as_str())
        .collect();
    matches.sort_unstable();
    matches.dedup();
    match matches.as_slice() {
        [one] => Ok((*one).to_string()),
        [] => {
            let mut seen: Vec<&str> = data_sets
                .iter()
                .flat_map(|set| set.created_by_exit.keys())
                .map(String::as_str)
                .collect();
            seen.sort_unstable();
            seen.dedup();
            Err(PredictError::NoBasis {
                basis: basis.to_string(),
                seen: seen.join(", "),
            })
        }
        many => Err(PredictError::AmbiguousBasis {
            basis: basis.to_string(),
            matches: many.join(", "),
        }),
    }
}

/// Predicts the memory for `basis_count` objects of `basis` from `data_sets`.
pub fn predict(
    data_sets: &[DataSet],
    basis: &str,
    basis_count: u64,
) -> Result<Prediction, PredictError> {
    if data_sets.is_empty() {
        return Err(PredictError::NoDataSets);
    }
    let basis = resolve_basis(data_sets, basis)?;
    let (used, without): (Vec<&DataSet>, Vec<&DataSet>) = data_sets
        .iter()
        .partition(|set| set.basis_count(&basis) > 0);
    let n = basis_count as f64;
    let basis_of = |set: &DataSet| set.basis_count(&basis) as f64;
    let mut names: Vec<&str> = used
        .iter()
        .flat_map(|set| &set.classes)
        .map(|entry| entry.class.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    let live_known: Vec<bool> = used.iter().map(|set| set.live_known()).collect();
    let sets = used.len() as f64;
    let basis_counts: Vec<f64> = used.iter().map(|set| basis_of(set)).collect();
    let mut classes: Vec<ClassPrediction> = names
        .iter()
        .map(|&name| {
            let entries: Vec<Option<&DataSetClass>> =
                used.iter().map(|set| set.class(name)).collect();
            let ratios: Vec<f64> = entries
                .iter()
                .zip(&basis_counts)
                .map(|(entry, &b)| entry.map_or(0.0, |entry| entry.created as f64 / b))
                .collect();
            let mean_ratio = ratios.iter().sum::<f64>() / sets;
            let max_ratio = ratios.iter().copied().fold(0.0, f64::max);
            let created: u64 = entries.iter().flatten().map(|entry| entry.created).sum();
            let created_bytes: u64 = entries
                .iter()
                .flatten()
                .map(|entry| entry.created_bytes)
                .sum();
            let mean_size_bytes = if created == 0 {
                0.0
            } else {
                created_bytes as f64 / created as f64
            };
            let max_size_bytes = entries
                .iter()
                .flatten()
                .map(|entry| entry.max_size_bytes)
                .fold(0.0, f64::max);
            let maximum_size_bytes = entries
                .iter()
                .flatten()
                .map(|entry| entry.size_for_maximum())
                .fold(0.0, f64::max);
            // Per data set: (live objects, live bytes) per basis object, if known.
            let live: Option<Vec<(f64, f64)>> = entries
                .iter()
                .zip(&basis_counts)
                .zip(&live_known)
                .map(|((entry, &b), &known)| match entry {
                    Some(entry) => entry
                        .live_at_exit
                        .zip(entry.live_bytes())
                        .map(|(count, bytes)| (count as f64 / b, bytes / b)),
                    None => known.then_some((0.0, 0.0)),
                })
                .collect();
            let mean_live_ratio = live
                .as_ref()
                .map(|live| live.iter().map(|(ratio, _)| ratio).sum::<f64>() / sets);
            let retained_bytes = live
                .as_ref()
                .map(|live| n * live.iter().map(|(_, bytes)| bytes).sum::<f64>() / sets);
            let retained_fit = live.as_ref().and_then(|live| {
                let bytes: Vec<f64> = live
                    .iter()
                    .zip(&basis_counts)
                    .map(|((_, per_basis), &b)| per_basis * b)
                    .collect();
                least_squares(&basis_counts, &bytes)
            });
            let retained_fit_bytes =
                retained_fit.map(|line| (line.intercept + line.slope * n).max(0.0));
            let counts: Vec<f64> = entries
                .iter()
                .map(|entry| entry.map_or(0.0, |entry| entry.created as f64))
                .collect();
            let fit = least_squares(&basis_counts, &counts);
            let fit_count = fit.map(|line| (line.intercept + line.slope * n).max(0.0));
            ClassPrediction {
                class: name.to_string(),
                mean_ratio,
                max_ratio,
                mean_live_ratio,
                mean_size_bytes,
                max_size_bytes,
                average_count: n * mean_ratio,
                maximum_count: n * max_ratio,
                average_bytes: n * mean_ratio * mean_size_bytes,
                maximum_bytes: n * max_ratio * maximum_size_bytes,
                retained_bytes,
                retained_fit,
                retained_fit_bytes,
                fit,
                fit_count,
                fit_bytes: fit_count.map(|count| count * mean_size_bytes),
            }
        })
        .collect();
    // Most memory first, created or retained (a class an earlier phase made may only be live).
    let weight =
        |class: &ClassPrediction| class.average_bytes.max(class.retained_bytes.unwrap_or(0.0));
    classes.sort_by(|a, b| weight(b).total_cmp(&weight(a)).then(a.class.cmp(&b.class)));
    let data_set_predictions = used
        .iter()
        .map(|set| {
            let b = basis_of(set);
            let (average, maximum) = set.classes.iter().fold((0.0, 0.0), |(avg, max), entry| {
                let ratio = entry.created as f64 / b;
                (
                    avg + n * ratio * entry.mean_size_bytes,
                    max + n * ratio * entry.size_for_maximum(),
                )
            });
            DataSetPrediction {
                label: set.label.clone(),
                basis_count: b as u64,
                average_bytes: average,
                maximum_bytes: maximum,
            }
        })
        .collect();
    let fit_bytes = classes
        .iter()
        .map(|class| class.fit_bytes)
        .sum::<Option<f64>>();
    // Over the classes whose live objects are known; `None` when no class's are.
    let known: Vec<&ClassPrediction> = classes
        .iter()
        .filter(|class| class.retained_bytes.is_some())
        .collect();
    let retained_bytes =
        (!known.is_empty()).then(|| known.iter().filter_map(|class| class.retained_bytes).sum());
    let retained_fit_bytes = retained_bytes.and(
        known
            .iter()
            .map(|class| class.retained_fit_bytes)
            .sum::<Option<f64>>(),
    );
    Ok(Prediction {
        basis,
        basis_count,
        data_sets: data_set_predictions,
        without_basis: without.iter().map(|set| set.label.clone()).collect(),
        lossy: used
            .iter()
            .filter(|set| set.lossy)
            .map(|set| set.label.clone())
            .collect(),
        average_bytes: classes.iter().map(|class| class.average_bytes).sum(),
        maximum_bytes: classes.iter().map(|class| class.maximum_bytes).sum(),
        retained_bytes,
        retained_fit_bytes,
        live_unknown: classes
            .iter()
            .filter(|class| class.retained_bytes.is_none())
            .map(|class| class.class.clone())
            .collect(),
        fit_bytes,
        classes,
    })
}

/// The least-squares line through `(x, y)`, or `None` with fewer than two distinct `x`.
pub fn least_squares(x: &[f64], y: &[f64]) -> Option<Line> {
    let n = x.len() as f64;
    if x.len() < 2 || x.len() != y.len() {
        return None;
    }
    let mean_x = x.iter().sum::<f64>() / n;
    let mean_y = y.iter().sum::<f64>() / n;
    let sxx: f64 = x.iter().map(|x| (x - mean_x).powi(2)).sum();
    if sxx <= f64::EPSILON * mean_x.abs().max(1.0) {
        return None;
    }
    let sxy: f64 = x
        .iter()
        .zip(y)
        .map(|(x, y)| (x - mean_x) * (y - mean_y))
        .sum();
    let slope = sxy / sxx;
    Some(Line {
        intercept: mean_y - slope * mean_x,
        slope,
    })
}

/// Several phase runs of one measured recording as one data set: their sums (sizes weighted by
/// objects, the largest kept), the basis pool at the last one's exit, lossy if any was.
pub fn merge_runs(runs: &[DataSet], label: &str) -> Option<DataSet> {
    let (first, rest) = runs.split_first()?;
    let mut merged = first.clone();
    merged.label = label.to_string();
    for run in rest {
        merged.lossy |= run.lossy;
        merged.heap_live_bytes = run.heap_live_bytes.or(merged.heap_live_bytes);
        for (class, &count) in &run.created_by_exit {
            let pool = merged.created_by_exit.entry(class.clone()).or_default();
            *pool = (*pool).max(count);
        }
        for class in &run.classes {
            match merged
                .classes
                .iter_mut()
                .find(|entry| entry.class == class.class)
            {
                Some(entry) => {
                    entry.created += class.created;
                    entry.created_bytes += class.created_bytes;
                    if class.live_bytes_at_exit.is_some() {
                        // A snapshot counts the whole heap: the last run's is the state at the end.
                        entry.live_at_exit = class.live_at_exit;
                        entry.live_bytes_at_exit = class.live_bytes_at_exit;
                    } else {
                        entry.live_at_exit = entry
                            .live_at_exit
                            .zip(class.live_at_exit)
                            .map(|(a, b)| a + b);
                    }
                    entry.max_size_bytes = entry.max_size_bytes.max(class.max_size_bytes);
                    if entry.created > 0 {
                        entry.mean_size_bytes = entry.created_bytes as f64 / entry.created as f64;
                    }
                }
                None => merged.classes.push(class.clone()),
            }
        }
    }
    Some(merged)
}

/// A prediction against a measured run at the same basis count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measured {
    pub label: String,
    /// Basis objects the measured run created (the prediction is redone at this count).
    pub basis_count: u64,
    /// Bytes of every object the phase created (what the ratio method's average and the fit
    /// predict) and of those live at its exit (frees known).
    pub created_bytes: u64,
    pub live_bytes: Option<f64>,
    /// The heap's live bytes at the phase's exit, as the runtime measured them (the JVM's
    /// class histogram total): the whole program's, not only the component's classes.
    pub heap_live_bytes: Option<u64>,
    /// The prediction at `basis_count`.
    pub prediction: Prediction,
    /// (predicted − measured) / measured, in percent, against `created_bytes`.
    pub average_error_pct: f64,
    pub maximum_error_pct: f64,
    pub fit_error_pct: Option<f64>,
    /// Retained (ratio method, and the live-bytes fit) against live bytes.
    pub retained_error_pct: Option<f64>,
    pub retained_fit_error_pct: Option<f64>,
}

/// Checks the prediction method against `measured` (a data set of a run at the size to
/// predict): redoes it at that run's basis count and says each method's error.
pub fn versus_measured(
    data_sets: &[DataSet],
    basis: &str,
    measured: &DataSet,
) -> Result<Measured, PredictError> {
    let resolved = resolve_basis(data_sets, basis)?;
    let basis_count = measured.basis_count(&resolved);
    let prediction = predict(data_sets, &resolved, basis_count)?;
    let created_bytes = measured.created_bytes();
    let live_bytes = measured.live_bytes();
    let error = |predicted: f64, actual: f64| {
        if actual == 0.0 {
            0.0
        } else {
            100.0 * (predicted - actual) / actual
        }
    };
    Ok(Measured {
        label: measured.label.clone(),
        basis_count,
        created_bytes,
        live_bytes,
        heap_live_bytes: measured.heap_live_bytes,
        average_error_pct: error(prediction.average_bytes, created_bytes as f64),
        maximum_error_pct: error(prediction.maximum_bytes, created_bytes as f64),
        fit_error_pct: prediction
            .fit_bytes
            .map(|fit| error(fit, created_bytes as f64)),
        retained_error_pct: prediction
            .retained_bytes
            .zip(live_bytes)
            .map(|(predicted, live)| error(predicted, live)),
        retained_fit_error_pct: prediction
            .retained_fit_bytes
            .zip(live_bytes)
            .map(|(predicted, live)| error(predicted, live)),
        prediction,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A data set whose basis pool is what it created.
    fn set(label: &str, classes: Vec<DataSetClass>) -> DataSet {
        DataSet {
            label: label.into(),
            created_by_exit: classes
                .iter()
                .map(|class| (class.class.clone(), class.created))
                .collect(),
            classes,
            lossy: false,
            heap_live_bytes: None,
        }
    }

    fn class(name: &str, created: u64, size: u64, live: Option<u64>) -> DataSetClass {
        DataSetClass {
            class: name.to_string(),
            created,
            created_bytes: created * size,
            live_at_exit: live,
            live_bytes_at_exit: None,
            mean_size_bytes: size as f64,
            max_size_bytes: size as f64,
        }
    }

    /// Two sample runs of a windowing component (the paper's Figure 1: panels of panel items,
    /// buttons and text items), worked by hand:
    ///
    /// run A: 2 Panel (100 B), 10 Button (40 B), 4 TextItem (60 B)
    /// run B: 4 Panel (100 B), 12 Button (40 B), 16 TextItem (60 B, one of 90 B: mean 61.875)
    ///
    /// Basis Panel, N = 10. Ratios: Button 5 and 3 (mean 4, max 5), TextItem 2 and 4 (mean 3,
    /// max 4), Panel 1. Average = 10 · (1·100 + 4·40 + 3·te_mean) with te_mean = (4·60 +
    /// 16·61.875) / 20 = 61.5: 1000 + 1600 + 1845 = 4445 B. Maximum = 10 · (1·100 + 5·40 +
    /// 4·90) = 6600 B.
    /// Untyped blocks (3.11/3.12's built-in objects): one big block does not stand for all.
    /// Runs of 10 and 20 basis objects making 100 blocks each per basis object, means 50 and 60
    /// bytes, one 10 000-byte block in each. At N = 30: average 30·100·(mean over all blocks:
    /// 55 + the two big blocks' share) and maximum 30·100·60 = 180 000, not 30·100·10 000.
    #[test]
    fn the_maximum_of_untyped_blocks_scales_their_mean_size() {
        let blocks = |created: u64, mean: f64| DataSetClass {
            class: UNTYPED.to_string(),
            created,
            created_bytes: (created as f64 * mean) as u64,
            live_at_exit: None,
            live_bytes_at_exit: None,
            mean_size_bytes: mean,
            max_size_bytes: 10_000.0,
        };
        let sets = vec![
            set(
                "A",
                vec![class("p.Basis", 10, 16, None), blocks(1000, 50.0)],
            ),
            set(
                "B",
                vec![class("p.Basis", 20, 16, None), blocks(2000, 60.0)],
            ),
        ];
        let prediction = predict(&sets, "Basis", 30).unwrap();
        let untyped = prediction
            .classes
            .iter()
            .find(|c| c.class == UNTYPED)
            .unwrap();
        assert_eq!(untyped.max_size_bytes, 10_000.0); // still reported
        assert!((untyped.maximum_bytes - 180_000.0).abs() < 1e-9);
        assert!((prediction.data_sets[0].maximum_bytes - (480.0 + 150_000.0)).abs() < 1e-9);
    }

    #[test]
    fn the_ratio_method_by_hand() {
        let mut text_b = class("ui.TextItem", 16, 60, None);
        text_b.created_bytes = 15 * 60 + 90;
        text_b.mean_size_bytes = text_b.created_bytes as f64 / 16.0;
        text_b.max_size_bytes = 90.0;
        let sets = vec![
            set(
                "A",
                vec![
                    class("ui.Panel", 2, 100, None),
                    class("ui.Button", 10, 40, None),
                    class("ui.TextItem", 4, 60, None),
                ],
            ),
            set(
                "B",
                vec![
                    class("ui.Panel", 4, 100, None),
                    class("ui.Button", 12, 40, None),
                    text_b,
                ],
            ),
        ];
        let prediction = predict(&sets, "Panel", 10).unwrap();
        assert_eq!(prediction.basis, "ui.Panel");
        let button = prediction
            .classes
            .iter()
            .find(|c| c.class == "ui.Button")
            .unwrap();
        assert_eq!((button.mean_ratio, button.max_ratio), (4.0, 5.0));
        assert_eq!(button.average_count, 40.0);
        let text = prediction
            .classes
            .iter()
            .find(|c| c.class == "ui.TextItem")
            .unwrap();
        assert_eq!((text.mean_ratio, text.max_ratio), (3.0, 4.0));
        assert!((text.mean_size_bytes - 61.5).abs() < 1e-9);
        assert!((prediction.average_bytes - 4445.0).abs() < 1e-9);
        assert!((prediction.maximum_bytes - 6600.0).abs() < 1e-9);
        assert_eq!(prediction.retained_bytes, None);
        // Per data set: A alone: 10·(100 + 5·40 + 2·60) = 4200.
        assert!((prediction.data_sets[0].average_bytes - 4200.0).abs() < 1e-9);
        // The fit: Button = 8 + 1·Panel (through (2,10) and (4,12)): 18 at N = 10;
        // TextItem = -8 + 6·Panel: 52; Panel = 0 + 1·Panel: 10.
        let fit_button = button.fit.unwrap();
        assert!((fit_button.intercept - 8.0).abs() < 1e-9);
        assert!((fit_button.slope - 1.0).abs() < 1e-9);
        assert!((button.fit_count.unwrap() - 18.0).abs() < 1e-9);
        assert!((text.fit_count.unwrap() - 52.0).abs() < 1e-9);
        let fit = 10.0 * 100.0 + 18.0 * 40.0 + 52.0 * 61.5;
        assert!((prediction.fit_bytes.unwrap() - fit).abs() < 1e-9);
    }

    #[test]
    fn retained_memory_and_data_sets_without_basis() {
        let sets = vec![
            set(
                "A",
                vec![
                    class("Node", 10, 32, Some(10)),
                    class("Token", 50, 16, Some(0)),
                ],
            ),
            set(
                "B",
                vec![
                    class("Node", 20, 32, Some(20)),
                    class("Token", 100, 16, Some(10)),
                ],
            ),
            set("empty", vec![class("Token", 5, 16, Some(0))]),
        ];
        let prediction = predict(&sets, "Node", 100).unwrap();
        assert_eq!(prediction.without_basis, vec!["empty".to_string()]);
        // Live per Node: Node 1, Token (0 + 0.5)/2 = 0.25: 100·(32 + 0.25·16) = 3600.
        assert!((prediction.retained_bytes.unwrap() - 3600.0).abs() < 1e-9);
        // Created: Node 1, Token 5 per Node: 100·(32 + 5·16) = 11200, both ways.
        assert!((prediction.average_bytes - 11200.0).abs() < 1e-9);
        assert!((prediction.fit_bytes.unwrap() - 11200.0).abs() < 1e-9);
        let measured = set(
            "C",
            vec![
                class("Node", 50, 32, Some(50)),
                class("Token", 300, 16, Some(0)),
            ],
        );
        let check = versus_measured(&sets, "Node", &measured).unwrap();
        assert_eq!(check.basis_count, 50);
        // Predicted 50·112 = 5600 against 1600 + 4800 = 6400: −12.5 %.
        assert!((check.average_error_pct + 12.5).abs() < 1e-9);
        // Retained 50·(32 + 0.25·16) = 1800 against 1600: +12.5 %.
        assert!((check.retained_error_pct.unwrap() - 12.5).abs() < 1e-9);
    }

    #[test]
    fn a_basis_nobody_made_is_a_clear_error() {
        let sets = vec![set(
            "A",
            vec![class("a.Node", 1, 8, None), class("b.Node", 1, 8, None)],
        )];
        assert!(matches!(
            predict(&sets, "Panel", 1),
            Err(PredictError::NoBasis { .. })
        ));
        assert!(matches!(
            predict(&sets, "Node", 1),
            Err(PredictError::AmbiguousBasis { .. })
        ));
        assert!(predict(&sets, "a.Node", 1).is_ok());
        assert_eq!(predict(&[], "x", 1), Err(PredictError::NoDataSets));
        // One basis count only: no fit, the ratio method still works.
        assert_eq!(predict(&sets, "a.Node", 3).unwrap().fit_bytes, None);
    }

    /// Live objects measured by a snapshot (the whole heap at the phase's exit): retained bytes
    /// come from the measured bytes, classes an earlier phase made count too, and a class no
    /// snapshot measured is left out of the total and named.
    ///
    /// run A (10 Calls): 10 Call live, 400 B measured; 20 Symbol live from the parse phase
    /// (created 0 here), 480 B; 7 str created, not measured.
    /// run B (20 Calls): 20 Call live, 800 B; 40 Symbol, 960 B; 14 str.
    /// Per basis object: Call 40 B, Symbol 48 B (2 × 24 B) in both runs. At N = 100: Call
    /// 4000 B, Symbol 4800 B; retained 8800 B; str unknown.
    #[test]
    fn measured_live_objects_predict_retained_bytes() {
        let measured = |name: &str, created: u64, live: u64, live_bytes: u64| DataSetClass {
            live_bytes_at_exit: Some(live_bytes),
            ..class(name, created, 40, Some(live))
        };
        let run = |label: &str, calls: u64| {
            let mut set = set(
                label,
                vec![
                    measured("ast.Call", calls, calls, 40 * calls),
                    measured("sym.Symbol", 0, 2 * calls, 48 * calls),
                    class("builtins.str", calls * 7 / 10, 50, None),
                ],
            );
            set.heap_live_bytes = Some(1000 * calls);
            set
        };
        let sets = [run("A", 10), run("B", 20)];
        let prediction = predict(&sets, "Call", 100).unwrap();
        let by_name = |name: &str| {
            prediction
                .classes
                .iter()
                .find(|class| class.class == name)
                .unwrap()
        };
        assert_eq!(by_name("ast.Call").retained_bytes, Some(4000.0));
        assert_eq!(by_name("sym.Symbol").retained_bytes, Some(4800.0));
        assert_eq!(by_name("sym.Symbol").mean_live_ratio, Some(2.0));
        assert_eq!(by_name("builtins.str").retained_bytes, None);
        assert_eq!(prediction.retained_bytes, Some(8800.0));
        assert!((prediction.retained_fit_bytes.unwrap() - 8800.0).abs() < 1e-6);
        assert_eq!(prediction.live_unknown, vec!["builtins.str".to_string()]);
        assert_eq!(sets[0].live_bytes(), Some(880.0));

        // Against a measured run of 50 Calls: 2000 + 2400 B live, heap 50 kB.
        let check = versus_measured(&sets, "Call", &run("C", 50)).unwrap();
        assert_eq!(check.live_bytes, Some(4400.0));
        assert_eq!(check.heap_live_bytes, Some(50_000));
        assert_eq!(check.retained_error_pct, Some(0.0));
        assert!(check.retained_fit_error_pct.unwrap().abs() < 1e-9);

        // Merged runs keep the last snapshot (whole heap), not a sum.
        let merged = merge_runs(&sets, "both").unwrap();
        let call = merged
            .classes
            .iter()
            .find(|c| c.class == "ast.Call")
            .unwrap();
        assert_eq!(
            (call.live_at_exit, call.live_bytes_at_exit),
            (Some(20), Some(800))
        );
        assert_eq!(call.created, 30);
        assert_eq!(merged.heap_live_bytes, Some(20_000));
    }
}
