//! The city model: one city's plan, the animated state of its buildings and the instances the
//! GPU draws, as plain data with its methods (no systems; see `systems`).
//!
//! This file holds [`City`] and the types of its parts, the plan (placing methods, tidying,
//! installing a new plan, dimming) and a building's instance; the rest of `City`'s methods are
//! in `model/`: `targets` (target heights and colours from a snapshot, and easing toward them),
//! `instances` (writing the instances and the blocks' grouped boxes) and `glide` (where moved
//! items glide from). They import this file and it names none of them, which keeps them out of
//! the city's module cycle (`scripts/check-module-cycles.py`).

mod glide;
mod instances;
mod targets;

use bevy::prelude::*;
use highrise_aggregate::{MethodStats, Snapshot};
use highrise_layout::{CityLayout, LayoutConfig, MethodSpec, Rect};

use super::palette::{ColourKey, ColourMode, HeightFit, HeightMode, HeightScale};
use crate::viewer::instancing::{building_instance, BuildingInstance};

pub use highrise_layout::look::STUB_HEIGHT_WU;
/// Easing rate: the fraction of the remaining distance covered per second is 1 − e^(−rate).
pub const EASING_RATE_PER_S: f32 = 9.0;
/// How long districts, blocks and buildings take to glide to new places, seconds.
pub const GLIDE_S: f32 = 0.5;

/// The grouped boxes follow moving heights at most this often, seconds: they stand for blocks
/// too far off to tell their buildings apart, and placing them is a pass over every building.
pub const GROUPED_REFRESH_S: f64 = 1.0 / 30.0;

/// Which city of the scene: a session's own, or one of the compare view's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CityKey {
    /// A session's own city (incremental layout).
    Session(u64),
    /// Version A on the compare view's shared (aligned) plan.
    AlignedA,
    /// Version B on the compare view's shared (aligned) plan.
    AlignedB,
    /// The difference city: height |B − A|, blue where B is faster, red where slower.
    Diff,
}

/// Whether building `index` is drawn in grey: the whole city is (`greyed`), or the building
/// lies outside a focused package.
pub fn is_grey(greyed: bool, dimmed: &[bool], index: usize) -> bool {
    greyed || dimmed.get(index).copied().unwrap_or(false)
}

/// One city (a session's own or one of the compare view's): the plan, its slab entities, the
/// instances of its buildings and their animated state.
#[derive(Default, Debug)]
pub struct City {
    pub layout: Option<CityLayout>,
    pub root: Option<Entity>,
    /// The entity that draws the buildings (one instanced draw), a child of the root.
    pub instances_entity: Option<Entity>,
    /// The buildings as drawn, indexed like `layout.buildings()`, in world coordinates. The
    /// one copy: the draw gets a weak handle and the render world a clone of the `Arc` until it
    /// has uploaded it, so writes (through `Arc::make_mut`, at each write site so other fields
    /// stay borrowable) copy only while an upload is pending.
    pub instances: std::sync::Arc<Vec<BuildingInstance>>,
    /// The origin the instances were placed for.
    pub(super) instances_origin: Vec3,
    /// Level of detail is off for this city: every building is drawn at any distance and
    /// no block is grouped (see `instancing`).
    pub all_detailed: bool,
    /// The draw of the blocks' grouped boxes, a child of the root.
    pub grouped_entity: Option<Entity>,
    /// One box per block that has buildings: their footprints, as tall as the tallest of them
    /// now and in its colour; drawn where the block is too small on screen for its buildings.
    pub grouped_boxes: std::sync::Arc<Vec<BuildingInstance>>,
    /// Scratch: per block, its tallest building's height and index.
    block_tallest: Vec<(f32, u32)>,
    /// The grouped boxes lag the buildings (see [`GROUPED_REFRESH_S`]); when they were last
    /// placed, app time, seconds.
    pub(super) grouped_stale: bool,
    pub(super) grouped_at_s: f64,
    /// Each building's footprint centre (city XZ) in the plan as of the last glide's start.
    pub(super) plan_centres: Vec<Vec2>,
    /// Instances changed since they were last handed to the draw.
    pub(super) instances_dirty: bool,
    pub district_entities: Vec<Entity>,
    pub block_entities: Vec<Entity>,
    pub heights_wu: Vec<f32>,
    pub target_heights_wu: Vec<f32>,
    pub colours: Vec<ColourKey>,
    pub target_colours: Vec<ColourKey>,
    /// Buildings whose height is still moving toward its target (each listed once).
    pub animating: Vec<usize>,
    animating_flags: Vec<bool>,
    /// Buildings whose colour may need changing (target colour or highlight changed).
    pub recolour: Vec<usize>,
    /// The building currently highlighted (hovered) in this city.
    pub highlighted: Option<usize>,
    /// Where the city's origin corner stands in the world.
    pub origin: Vec3,
    /// The snapshot time the targets were computed from, and the modes used.
    pub targets_from: Option<(u64, HeightMode, ColourMode)>,
    /// Districts/blocks changed shape (new ones, growth, tidy): refresh their entities.
    pub structure_dirty: bool,
    /// Heights moved this frame: refresh the hit-test bounds.
    pub heights_dirty: bool,
    /// When the hit-test bounds last followed the heights (app time, seconds).
    pub hit_test_refreshed_s: f64,
    /// Per building (layout order): its method id and block, for the per-snapshot pass.
    method_ids: Vec<u32>,
    blocks: Vec<u32>,
    /// Scratch: this snapshot's statistics in plot order.
    gathered: Vec<MethodStats>,
    /// Per method id: its building and block (`u32::MAX`: no building); `None` when ids are
    /// too sparse or shared, so every pass is a full one.
    building_of_id: Option<Vec<(u32, u32)>>,
    /// Scratch: the targets of the buildings whose statistics changed (incremental pass).
    changed_targets: Vec<(u32, f32, ColourKey)>,
    /// Scratch: a bit per building, to put a long recolour list in order.
    pub(super) recolour_bits: Vec<u64>,
    /// What the current targets were computed from, when every target and colour is still
    /// exactly as that pass left it: the next snapshot only revisits methods whose statistics
    /// differ from this one's.
    targets_base: Option<TargetsBase>,
    /// Not in the scene now (the compare view shows other cities): not animated, not picked.
    pub hidden: bool,
    /// Drawn in grey: highrise failed on the city's session (what it shows stays readable).
    pub greyed: bool,
    /// Whether the instances wear the grey (`greyed` as last drawn).
    greyed_drawn: bool,
    /// Buildings drawn dimmed (in grey) because a package of the city is focused and they lie
    /// outside it, by building index; empty when nothing is focused.
    pub(super) dimmed: Vec<bool>,
    /// Packages whose blocks are drawn dark (outside a focused package), by package index.
    pub(super) dimmed_packages: Vec<bool>,
    /// The dimming changed since the instances were last coloured.
    dimmed_dirty: bool,
    /// Bumped whenever the dimming changes (hot spots are chosen among the rest).
    pub dim_generation: u64,
    /// The viewer's own processing of this city panicked (the message): the city no longer
    /// changes, only follows the scene's arrangement, in grey.
    pub failed: Option<String>,
    /// Bumped whenever the instances are handed to the draw (the floors follow them).
    pub instances_generation: u64,
    /// The class floors drawn over the buildings.
    pub floors: super::floors::CityFloors,
    /// The tallest target height of any building, world units (framing keeps it in view).
    pub tallest_target_wu: f32,
    /// What full height stands for in the time modes ([`HeightScale`]; set before each target
    /// pass) and the value that stands at full height now (a fraction of the window: 1 on
    /// the absolute scale).
    pub height_scale: HeightScale,
    pub full_scale: f32,
    /// Heights go by the square root of the share of full height in the current targets.
    pub sqrt_heights: bool,
    /// Counts changes of the plan (new methods, moves): labels gather their places again.
    plan_generation: u64,
    /// Items gliding from where they were drawn to the places the plan moved them to.
    pub glide: Option<Glide>,
    /// District and block rectangles as drawn now (city coordinates), indexed like the plan's.
    pub(super) shown_districts: Vec<(u32, Rect)>,
    pub(super) shown_blocks: Vec<(u32, Rect)>,
}

/// The inputs of the last full or incremental target pass (see `City::set_targets_from`).
#[derive(Debug)]
struct TargetsBase {
    snapshot: std::sync::Arc<Snapshot>,
    height_mode: HeightMode,
    colour_mode: ColourMode,
    fit: HeightFit,
    count: usize,
}

/// Where moved items come from: each is drawn at `lerp(from, to, eased t)` until
/// [`GLIDE_S`] has passed, then exactly at its plan's place.
#[derive(Debug, Default)]
pub struct Glide {
    /// App time the glide started, seconds (set on its first frame).
    pub started_s: Option<f64>,
    /// Set on the frame the glide began (the camera keeps what it looked at in view).
    pub just_started: bool,
    /// Per building index: its footprint centre as drawn when the glide began (city XZ).
    pub from_buildings: Vec<Vec2>,
    /// The city's origin (world) those centres were drawn at.
    pub from_origin: Vec3,
    /// Per building index: its centre in the plan before this change (city XZ), where known.
    /// A building drawn mid-glide is not where the plan had it; the camera follows plans.
    pub from_plan: Vec<Vec2>,
    /// Per district / block index of the new plan: its rectangle as drawn before, if it had one.
    pub(super) from_districts: Vec<Option<Rect>>,
    pub(super) from_blocks: Vec<Option<Rect>>,
}

impl Glide {
    /// How far along the glide is at `now_s`, eased (0 → 1).
    pub(super) fn eased(&self, now_s: f64) -> f32 {
        let t = self.started_s.map_or(0.0, |start| {
            ((now_s - start) as f32 / GLIDE_S).clamp(0.0, 1.0)
        });
        t * t * (3.0 - 2.0 * t)
    }
}

pub(super) fn lerp_rect(from: &Rect, to: &Rect, t: f32) -> Rect {
    let l = |a: f32, b: f32| a + (b - a) * t;
    Rect {
        min_x: l(from.min_x, to.min_x),
        min_z: l(from.min_z, to.min_z),
        max_x: l(from.max_x, to.max_x),
        max_z: l(from.max_z, to.max_z),
    }
}

impl City {
    /// Height of a 100 % building: grows with the city so tall towers read at any size.
    pub fn max_height_wu(&self) -> f32 {
        self.layout.as_ref().map_or(8.0, |layout| {
            highrise_layout::look::full_height_wu(layout.bounds())
        })
    }

    /// Changes whenever the plan changes (methods placed, buildings moved).
    pub fn plan_generation(&self) -> u64 {
        self.plan_generation
    }

    /// Method id → its building (layout order), or `None` where the method has none.
    pub fn building_of_method(&self) -> impl Fn(u32) -> Option<u32> + '_ {
        let map: Option<std::collections::HashMap<u32, u32>> =
            self.building_of_id.is_none().then(|| {
                self.method_ids
                    .iter()
                    .enumerate()
                    .map(|(index, &id)| (id, index as u32))
                    .collect()
            });
        move |method_id| match (&self.building_of_id, &map) {
            (Some(ids), _) => ids
                .get(method_id as usize)
                .map(|&(index, _)| index)
                .filter(|&index| index != u32::MAX),
            (None, Some(map)) => map.get(&method_id).copied(),
            (None, None) => None,
        }
    }

    /// The highest point of the city once its buildings reach their targets: the tallest
    /// building (at least a 100 % one) standing on the highest slab, world units.
    pub fn top_wu(&self) -> f32 {
        let slabs_wu = self.layout.as_ref().map_or(0.0, |layout| {
            let district_top = layout
                .districts()
                .iter()
                .map(|d| d.top_height_wu)
                .fold(0.0f32, f32::max);
            district_top + layout.config().block_slab_wu
        });
        // Room for a 100 % tower whether or not one stands now: the view does not pump as
        // heights come and go, and a tower that rises is in view already.
        slabs_wu + self.tallest_target_wu.max(self.max_height_wu())
    }

    /// The city's footprint in world coordinates.
    pub fn world_bounds(&self) -> Option<Rect> {
        self.layout.as_ref().map(|layout| {
            let bounds = layout.bounds();
            Rect {
                min_x: bounds.min_x + self.origin.x,
                min_z: bounds.min_z + self.origin.z,
                max_x: bounds.max_x + self.origin.x,
                max_z: bounds.max_z + self.origin.z,
            }
        })
    }

    /// Places methods defined since the last call. The first batch is laid out in full (the
    /// paper's order); later ones are inserted without moving any existing building.
    pub fn place(&mut self, methods: &mut Vec<MethodSpec>) {
        if methods.is_empty() {
            return;
        }
        let generation_before = self.layout.as_ref().map(CityLayout::generation);
        match self.layout.as_mut() {
            None => match CityLayout::full(methods) {
                Ok(layout) => self.layout = Some(layout),
                Err(error) => {
                    warn!("cannot lay out the city: {error}");
                    self.layout = Some(CityLayout::empty(&LayoutConfig::default()));
                    self.insert_each(methods);
                }
            },
            Some(_) => self.insert_each(methods),
        }
        methods.clear();
        self.structure_dirty = true;
        self.plan_generation += 1;
        let generation = self.layout.as_ref().map(CityLayout::generation);
        if generation_before.is_some() && generation != generation_before {
            self.begin_glide();
        }
        let count = self.layout.as_ref().map_or(0, |l| l.buildings().len());
        self.heights_wu.resize(count, STUB_HEIGHT_WU);
        self.target_heights_wu.resize(count, STUB_HEIGHT_WU);
        self.colours.resize(count, ColourKey::Stub);
        self.target_colours.resize(count, ColourKey::Stub);
        self.animating_flags.resize(count, false);
        self.refresh_building_ids();
        self.targets_from = None;
    }

    /// Copies each building's method id and block out of the plan into flat arrays: the
    /// per-snapshot pass reads those (8 bytes a building) instead of whole plan records.
    fn refresh_building_ids(&mut self) {
        let Some(layout) = self.layout.as_ref() else {
            return;
        };
        self.method_ids = layout.buildings().iter().map(|b| b.method_id).collect();
        self.blocks = layout.buildings().iter().map(|b| b.block).collect();
        self.targets_base = None;
        let ids = self.method_ids.len();
        let top = self
            .method_ids
            .iter()
            .copied()
            .max()
            .map_or(0, |id| id as usize + 1);
        self.building_of_id = None;
        if top <= ids.saturating_mul(4).max(1024) {
            let mut building_of_id = vec![(u32::MAX, 0); top];
            for (index, (&id, &block)) in self.method_ids.iter().zip(&self.blocks).enumerate() {
                let slot = &mut building_of_id[id as usize];
                if slot.0 != u32::MAX {
                    return; // a method drawn twice: no incremental passes
                }
                *slot = (index as u32, block);
            }
            self.building_of_id = Some(building_of_id);
        }
    }

    fn insert_each(&mut self, methods: &[MethodSpec]) {
        let Some(layout) = self.layout.as_mut() else {
            return;
        };
        for method in methods {
            if let Err(error) = layout.insert(method) {
                warn!("method {} not placed: {error}", method.id);
            }
        }
    }

    /// Restores the paper's ordering (the "tidy layout" action): buildings move, so every slab
    /// and instance is rebuilt; heights carry over by method id.
    pub fn tidy(&mut self) {
        let Some(layout) = self.layout.as_ref() else {
            return;
        };
        let by_method: std::collections::HashMap<u32, (f32, f32)> = layout
            .buildings()
            .iter()
            .enumerate()
            .map(|(index, b)| {
                (
                    b.method_id,
                    (self.heights_wu[index], self.target_heights_wu[index]),
                )
            })
            .collect();
        let tidy = layout.tidy();
        let heights_wu = tidy
            .buildings()
            .iter()
            .map(|b| by_method.get(&b.method_id).map_or(STUB_HEIGHT_WU, |h| h.0))
            .collect();
        let target_heights_wu = tidy
            .buildings()
            .iter()
            .map(|b| by_method.get(&b.method_id).map_or(STUB_HEIGHT_WU, |h| h.1))
            .collect();
        self.install_layout(tidy, heights_wu, target_heights_wu);
    }

    /// Replaces the whole plan (buildings move): every slab and instance is rebuilt, the
    /// buildings wearing the stub colour, and heights start from `heights_wu` toward
    /// `target_heights_wu`.
    pub fn install_layout(
        &mut self,
        layout: CityLayout,
        heights_wu: Vec<f32>,
        target_heights_wu: Vec<f32>,
    ) {
        let count = layout.buildings().len();
        self.heights_wu = heights_wu;
        self.target_heights_wu = target_heights_wu;
        self.heights_wu.resize(count, STUB_HEIGHT_WU);
        self.target_heights_wu.resize(count, STUB_HEIGHT_WU);
        self.colours.resize(count, ColourKey::Stub);
        self.target_colours.resize(count, ColourKey::Stub);
        self.animating_flags.resize(count, false);
        self.layout = Some(layout);
        self.glide = None;
        self.shown_districts.clear();
        self.shown_blocks.clear();
        // The old draw entities go with the root's other children (see `sync_structure`).
        std::sync::Arc::make_mut(&mut self.instances).clear();
        self.instances_entity = None;
        std::sync::Arc::make_mut(&mut self.grouped_boxes).clear();
        self.grouped_entity = None;
        self.district_entities.clear();
        self.block_entities.clear();
        // Entities are rebuilt wearing the stub colour; every target counts as new.
        self.colours.fill(ColourKey::Stub);
        self.target_colours.fill(ColourKey::Stub);
        self.recolour.clear();
        self.highlighted = None;
        self.animating.clear();
        self.animating_flags.fill(false);
        for index in 0..self.heights_wu.len() {
            self.start_animating(index);
        }
        self.refresh_building_ids();
        self.targets_from = None;
        self.structure_dirty = true;
        self.plan_generation += 1;
    }

    /// Dims the buildings marked `true` and the blocks of the packages marked `true` (a
    /// focused package's outside, by building and by package index); empty: none.
    pub fn set_dimmed(&mut self, dimmed: Vec<bool>, dimmed_packages: Vec<bool>) {
        if self.dimmed != dimmed {
            self.dimmed = dimmed;
            self.dimmed_dirty = true;
            self.dim_generation += 1;
        }
        if self.dimmed_packages != dimmed_packages {
            self.dimmed_packages = dimmed_packages;
            self.structure_dirty = true; // the block slabs change material
        }
    }

    /// Which buildings are dimmed (empty when nothing is focused).
    pub fn dimmed(&self) -> &[bool] {
        &self.dimmed
    }

    /// Lists a building as moving, once, if its height differs from its target.
    fn start_animating(&mut self, index: usize) {
        if !self.animating_flags[index] && self.heights_wu[index] != self.target_heights_wu[index] {
            self.animating_flags[index] = true;
            self.animating.push(index);
        }
    }
}

/// A building's instance: its footprint in the world, standing on its block, `height_wu` tall.
pub fn place_instance(
    building: &highrise_layout::Building,
    origin: Vec3,
    height_wu: f32,
    rgba: [u8; 4],
) -> BuildingInstance {
    let centre = building.footprint.center();
    building_instance(
        centre.x + origin.x,
        building.base_height_wu,
        centre.z + origin.z,
        height_wu,
        building.footprint.width_wu(),
        building.footprint.depth_wu(),
        rgba,
    )
}

/// The same instance in another colour.
pub fn set_instance_colour(mut instance: BuildingInstance, rgba: [u8; 4]) -> BuildingInstance {
    instance.rgba = rgba;
    instance
}
