//! The compare view: two sessions (live, replayed, or one of each) under one camera.
//!
//! Three ways to look, [`CompareMode`]:
//! - **independent**: each version's own city (its incremental layout), A left of B, so
//!   structural changes show as districts that differ (the paper's case 2);
//! - **aligned**: both versions on one shared plan from `highrise_layout::aligned_pair`, so the
//!   same method stands on the same plot in both cities; a method missing from a version is a
//!   dark flat plot there;
//! - **diff**: one city on the shared plan whose building height is |B − A| of the height
//!   mode's value, blue where B spends less (faster) and red where it spends more (slower),
//!   green for methods only in B, purple for methods only in A, amber for methods whose package
//!   changed. Hovering shows both values.
//!
//! The shared plan is rebuilt when either session defines new methods (at most once a second),
//! with the structural summary (packages, classes, methods added, removed, moved: the same
//! diff as `highrise report --vs`). The compare cities live in [`Cities`] with the sessions'
//! own, and the rest of the city machinery (slabs, instances, easing, hover) treats them like
//! any other, through [`CityKey`].

use bevy::prelude::*;
use highrise_aggregate::{MethodStats, Snapshot};
use highrise_ingest::SessionId;
use highrise_layout::{aligned_pair, AlignedBuilding, AlignedPair, MethodSpec};
use highrise_report::{structure, Structure};

use super::city::{
    place_methods, set_targets, stats_target, AllocSample, AllocScale, Cities, CityKey, CitySet,
    ColourKey, ColourMode, HeightMode, STUB_HEIGHT_WU,
};
use super::sessions::Sessions;

/// Rebuild the shared plan at most this often while definitions keep arriving, seconds.
pub const PLAN_REBUILD_INTERVAL_S: f64 = 1.0;
pub use highrise_layout::look::{DIFF_EPSILON, DIFF_MIN_FULL_SCALE};

/// The compare view: the [`Compare`] resource; the shared plan rebuilt in [`CitySet::Layout`]
/// after the sessions' plans are placed, and the compare cities' targets set in
/// [`CitySet::Targets`] after the sessions' own.
#[derive(Debug)]
pub struct ComparePlugin;

impl Plugin for ComparePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Compare>().add_systems(
            Update,
            (
                update_compare_plan
                    .in_set(CitySet::Layout)
                    .after(place_methods),
                compare_targets.in_set(CitySet::Targets).after(set_targets),
            ),
        );
    }
}

/// How the compare view shows its two sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum CompareMode {
    /// No comparison: every session's own city, side by side.
    #[default]
    Off,
    /// A and B each on its own layout.
    Independent,
    /// A and B on one shared plan.
    Aligned,
    /// One city of the differences, B − A.
    Diff,
}

impl CompareMode {
    pub const ALL: [CompareMode; 4] = [
        CompareMode::Off,
        CompareMode::Independent,
        CompareMode::Aligned,
        CompareMode::Diff,
    ];

    pub fn label(self) -> &'static str {
        match self {
            CompareMode::Off => "off",
            CompareMode::Independent => "independent",
            CompareMode::Aligned => "aligned",
            CompareMode::Diff => "diff (B − A)",
        }
    }
}

/// What the compare view shows: its mode, sessions A and B, the shared plan and the summary.
/// Its cities ([`CityKey::AlignedA`], [`CityKey::AlignedB`], [`CityKey::Diff`]) live in
/// [`Cities`] with every other.
#[derive(Resource, Default, Debug)]
pub struct Compare {
    pub mode: CompareMode,
    pub a: Option<SessionId>,
    pub b: Option<SessionId>,
    /// The shared plan of A and B (aligned and diff modes, and the summary).
    pub pair: Option<AlignedPair>,
    /// What changed in structure (the same diff `highrise report --vs` prints).
    pub summary: Option<Structure>,
    /// Per building of the plan: for a method that moved into this package in B, its id in A
    /// (under its old package), so the diff can still compare its cost.
    pub moved_from_a: Vec<Option<u32>>,
    /// (A, A's definitions, B, B's definitions) the plan was built from.
    plan_from: Option<(SessionId, usize, SessionId, usize)>,
    plan_built_at_s: f64,
    /// Bumped on every new plan: targets must be recomputed.
    plan_generation: u64,
    targets_from: Option<(u64, u64, HeightMode, ColourMode, CompareMode, u64)>,
}

impl Compare {
    /// A compare view in `mode`, comparing the first two sessions that connect.
    pub fn with_mode(mode: CompareMode) -> Self {
        Self {
            mode,
            ..Self::default()
        }
    }

    /// False while the shared plan lags the compared sessions' definitions (a rebuild is
    /// pending); true when there is nothing to compare.
    pub fn plan_is_current(&self, sessions: &Sessions) -> bool {
        match (self.is_active(), self.a, self.b) {
            (true, Some(a), Some(b)) => self.plan_from == Some(plan_inputs(sessions, a, b)),
            _ => true,
        }
    }

    /// True when two different sessions are being compared.
    pub fn is_active(&self) -> bool {
        self.mode != CompareMode::Off && self.a.is_some() && self.b.is_some() && self.a != self.b
    }

    /// The cities in the scene now, left to right.
    pub fn scene_order(&self, sessions: &Sessions) -> Vec<CityKey> {
        let (Some(a), Some(b)) = (self.a, self.b) else {
            return session_keys(sessions);
        };
        if !self.is_active() {
            return session_keys(sessions);
        }
        match self.mode {
            CompareMode::Off => session_keys(sessions),
            CompareMode::Independent => vec![CityKey::Session(a), CityKey::Session(b)],
            CompareMode::Aligned => vec![CityKey::AlignedA, CityKey::AlignedB],
            CompareMode::Diff => vec![CityKey::Diff],
        }
    }

    /// The label shown under a city.
    pub fn label(&self, sessions: &Sessions, key: CityKey) -> String {
        let title = |id: Option<SessionId>| {
            id.and_then(|id| sessions.by_id.get(&id))
                .map_or_else(|| "?".to_string(), |view| view.title())
        };
        let side = |id: SessionId| {
            if !self.is_active() {
                ""
            } else if Some(id) == self.a {
                "A · "
            } else if Some(id) == self.b {
                "B · "
            } else {
                ""
            }
        };
        match key {
            CityKey::Session(id) => format!("{}{}", side(id), title(Some(id))),
            CityKey::AlignedA => format!("A · {} (aligned)", title(self.a)),
            CityKey::AlignedB => format!("B · {} (aligned)", title(self.b)),
            CityKey::Diff => format!("B − A · {} vs {}", title(self.b), title(self.a)),
        }
    }

    /// Chooses the first two sessions when the view is on and A or B is not chosen yet.
    fn choose_defaults(&mut self, sessions: &Sessions) {
        if self.mode == CompareMode::Off {
            return;
        }
        let shown: Vec<SessionId> = sessions.shown().map(|(&id, _)| id).collect();
        if self.a.is_none() {
            self.a = shown.iter().copied().find(|&id| Some(id) != self.b);
        }
        if self.b.is_none() {
            self.b = shown.iter().copied().find(|&id| Some(id) != self.a);
        }
    }
}

/// What a shared plan is built from: A, A's definitions, B, B's definitions.
fn plan_inputs(
    sessions: &Sessions,
    a: SessionId,
    b: SessionId,
) -> (SessionId, usize, SessionId, usize) {
    let seen = |id: SessionId| sessions.by_id.get(&id).map_or(0, |v| v.definitions_seen);
    (a, seen(a), b, seen(b))
}

fn session_keys(sessions: &Sessions) -> Vec<CityKey> {
    sessions
        .shown()
        .map(|(&id, _)| CityKey::Session(id))
        .collect()
}

/// A session's methods as layout input.
fn specs_of(sessions: &Sessions, session_id: SessionId) -> Vec<MethodSpec> {
    sessions
        .by_id
        .get(&session_id)
        .map(|view| {
            view.report
                .definitions()
                .map(super::sessions::method_spec)
                .collect()
        })
        .unwrap_or_default()
}

pub use highrise_web::compare::{method_keys, moved_counterparts, spell_in_b_terms};

/// Rebuilds the shared plan when the compared sessions or their definitions changed.
pub fn update_compare_plan(
    time: Res<Time>,
    sessions: Res<Sessions>,
    mut compare: ResMut<Compare>,
    mut cities: ResMut<Cities>,
) {
    compare.choose_defaults(&sessions);
    if !compare.is_active() {
        return;
    }
    let (Some(a), Some(b)) = (compare.a, compare.b) else {
        return;
    };
    let wanted = plan_inputs(&sessions, a, b);
    if compare.plan_from == Some(wanted) {
        return;
    }
    let now_s = time.elapsed_secs_f64();
    let same_sessions = compare
        .plan_from
        .is_some_and(|(old_a, _, old_b, _)| (old_a, old_b) == (a, b));
    if same_sessions && now_s - compare.plan_built_at_s < PLAN_REBUILD_INTERVAL_S {
        return;
    }
    let (mut specs_a, specs_b) = (specs_of(&sessions, a), specs_of(&sessions, b));
    let (keys_a, keys_b) = (method_keys(&specs_a), method_keys(&specs_b));
    spell_in_b_terms(&mut specs_a, &keys_a, &keys_b);
    let pair = match aligned_pair(&specs_a, &specs_b) {
        Ok(pair) => pair,
        Err(error) => {
            warn!("cannot lay out the comparison: {error}");
            compare.plan_from = Some(wanted);
            return;
        }
    };
    compare.summary = Some(structure(&keys_a, &keys_b));
    compare.moved_from_a = moved_counterparts(&specs_a, &specs_b, &pair);
    for key in [CityKey::AlignedA, CityKey::AlignedB, CityKey::Diff] {
        cities
            .entry(key)
            .install_layout(pair.city.clone(), Vec::new(), Vec::new());
    }
    compare.pair = Some(pair);
    compare.plan_from = Some(wanted);
    compare.plan_built_at_s = now_s;
    compare.plan_generation += 1;
}

/// A diff-city building's target: height |B − A|, blue/red by sign, with `full_scale` (a
/// window fraction, e.g. the largest difference in the city) standing at the full height, as
/// differential flame graphs scale to their largest change. A method that moved is compared at
/// its new plot (`value_a` is then its value under the old package) and its old plot is a flat
/// amber marker; added and removed methods stand at their own value in green and purple.
pub fn diff_target(
    building: &AlignedBuilding,
    value_a: Option<f32>,
    value_b: Option<f32>,
    full_scale: f32,
    max_height_wu: f32,
) -> (f32, ColourKey) {
    use highrise_layout::look::{diff_look, DiffColour, DiffHeight};
    let (height, colour) = diff_look(building.change, value_a, value_b, full_scale);
    let height_wu = match height {
        DiffHeight::Stub => STUB_HEIGHT_WU,
        DiffHeight::Marker => STUB_HEIGHT_WU * 2.0,
        DiffHeight::Standing(ratio) => (ratio * max_height_wu).max(STUB_HEIGHT_WU * 2.0),
    };
    let colour = match colour {
        DiffColour::Stub => ColourKey::Stub,
        DiffColour::Added => ColourKey::Added,
        DiffColour::Removed => ColourKey::Removed,
        DiffColour::Moved => ColourKey::Moved,
        DiffColour::Faster(step) => ColourKey::Faster(step),
        DiffColour::Slower(step) => ColourKey::Slower(step),
    };
    (height_wu, colour)
}

/// Recomputes the compare cities' targets when a snapshot, a mode or the plan changed.
pub fn compare_targets(
    sessions: Res<Sessions>,
    mut compare: ResMut<Compare>,
    mut cities: ResMut<Cities>,
    height_mode: Res<HeightMode>,
    colour_mode: Res<ColourMode>,
) {
    if !compare.is_active() || compare.mode == CompareMode::Independent {
        return;
    }
    let snapshot_of = |id: Option<SessionId>| {
        id.and_then(|id| sessions.by_id.get(&id))
            .and_then(|view| view.shown_snapshot().cloned())
    };
    let (snapshot_a, snapshot_b) = (snapshot_of(compare.a), snapshot_of(compare.b));
    let now = |s: &Option<std::sync::Arc<Snapshot>>| s.as_ref().map_or(0, |s| s.now_ns);
    let wanted = Some((
        now(&snapshot_a),
        now(&snapshot_b),
        *height_mode,
        *colour_mode,
        compare.mode,
        compare.plan_generation,
    ));
    if compare.targets_from == wanted {
        return;
    }
    compare.targets_from = wanted;
    let Compare {
        pair,
        mode,
        moved_from_a,
        ..
    } = &*compare;
    let Some(pair) = pair.as_ref() else {
        return;
    };
    let stats = |snapshot: &Option<std::sync::Arc<Snapshot>>, id: Option<u32>| {
        id.map(|id| {
            snapshot.as_ref().map_or_else(
                || (MethodStats::default(), AllocSample::default()),
                |s| (s.method(id), AllocSample::of(s, id)),
            )
        })
    };
    let (height_mode, colour_mode) = (*height_mode, *colour_mode);
    // Both versions on one scale.
    let scale_of = |s: &Option<std::sync::Arc<Snapshot>>| {
        s.as_deref()
            .map_or_else(AllocScale::default, AllocScale::of)
    };
    let scale = scale_of(&snapshot_a).max(scale_of(&snapshot_b));
    match mode {
        CompareMode::Aligned => {
            for (key, side_a) in [(CityKey::AlignedA, true), (CityKey::AlignedB, false)] {
                let Some(city) = cities.get_mut(key) else {
                    continue;
                };
                let max_height_wu = city.max_height_wu();
                let snapshot = if side_a { &snapshot_a } else { &snapshot_b };
                city.set_targets_with(|index, building| {
                    let plot = &pair.buildings[index];
                    let id = if side_a {
                        plot.method_id_a
                    } else {
                        plot.method_id_b
                    };
                    match stats(snapshot, id) {
                        Some((stats, alloc)) => stats_target(
                            &stats,
                            alloc,
                            building.block,
                            (height_mode, colour_mode),
                            scale,
                            crate::viewer::city::HeightFit::linear(max_height_wu),
                        ),
                        None => (STUB_HEIGHT_WU, ColourKey::Absent),
                    }
                });
            }
        }
        CompareMode::Diff => {
            let Some(diff) = cities.get_mut(CityKey::Diff) else {
                return;
            };
            let max_height_wu = diff.max_height_wu();
            let value = |s, id| stats(s, id).map(|(stats, alloc)| height_mode.value(&stats, alloc));
            let values: Vec<(Option<f32>, Option<f32>)> = pair
                .buildings
                .iter()
                .enumerate()
                .map(|(index, plot)| {
                    let id_a = plot
                        .method_id_a
                        .or_else(|| moved_from_a.get(index).copied().flatten());
                    (
                        value(&snapshot_a, id_a),
                        value(&snapshot_b, plot.method_id_b),
                    )
                })
                .collect();
            // Everything that stands in the diff city: differences, and added/removed values.
            let full_scale = values
                .iter()
                .map(|(a, b)| (b.unwrap_or(0.0) - a.unwrap_or(0.0)).abs())
                .fold(0.0f32, f32::max);
            diff.set_targets_with(|index, _| {
                let (value_a, value_b) = values[index];
                diff_target(
                    &pair.buildings[index],
                    value_a,
                    value_b,
                    full_scale,
                    max_height_wu,
                )
            });
        }
        CompareMode::Off | CompareMode::Independent => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use highrise_layout::Change;

    fn java(id: u32, package: &str, class: &str, method: &str, descriptor: &str) -> MethodSpec {
        MethodSpec {
            id,
            package: package.into(),
            class: class.into(),
            method: method.into(),
            signature: Some(descriptor.into()),
        }
    }

    #[test]
    fn every_package_moved_under_a_new_root_is_moved_in_the_plan() {
        let mut a = vec![
            java(0, "game", "Board", "rotate", "(I)V"),
            java(1, "game", "Board", "attach", "(Lgui/GameGUI;)V"),
            java(2, "gui", "GameGUI", "paint", "(Lgame/Board;[Lgame/Piece;)V"),
            java(3, "gui", "GameGUI", "<init>", "(Lgame/Game;)V"),
        ];
        let b = vec![
            java(10, "main.game", "Board", "rotate", "(I)V"),
            java(11, "main.game", "Board", "attach", "(Lmain/gui/GameGUI;)V"),
            java(
                12,
                "main.gui",
                "GameGUI",
                "paint",
                "(Lmain/game/Board;[Lmain/game/Piece;)V",
            ),
            java(13, "main.gui", "GameGUI", "<init>", "(Lmain/game/Game;)V"),
        ];
        let (keys_a, keys_b) = (method_keys(&a), method_keys(&b));
        spell_in_b_terms(&mut a, &keys_a, &keys_b);
        let pair = aligned_pair(&a, &b).expect("lays out");
        let changes: Vec<Change> = pair.buildings.iter().map(|b| b.change).collect();
        assert_eq!(changes.len(), 8, "{changes:?}");
        assert!(
            changes
                .iter()
                .all(|c| matches!(c, Change::MovedIn | Change::MovedOut)),
            "{changes:?}"
        );
        let moved_from = moved_counterparts(&a, &b, &pair);
        let mut counterparts: Vec<(u32, u32)> = pair
            .buildings
            .iter()
            .zip(&moved_from)
            .filter_map(|(building, from)| Some(((*from)?, building.method_id_b?)))
            .collect();
        counterparts.sort_unstable();
        assert_eq!(counterparts, vec![(0, 10), (1, 11), (2, 12), (3, 13)]);
        let summary = structure(&keys_a, &keys_b);
        assert!(summary.methods_added.is_empty() && summary.methods_removed.is_empty());
        assert_eq!(summary.methods_moved.len(), 4);
    }
}
