//! The city model: one city's plan, the animated state of its buildings and the instances the
//! GPU draws, as plain data with its methods (no systems; see `systems`).

use bevy::prelude::*;
use highrise_aggregate::{MethodStats, Snapshot};
use highrise_layout::{CityLayout, LayoutConfig, MethodSpec, Rect};

use super::palette::{
    relative_full_scale, stats_target, AllocSample, AllocScale, ColourKey, ColourMode, HeightFit,
    HeightMode, HeightScale, Palette, SQRT_FROM_BUILDINGS,
};
use crate::viewer::instancing::{
    building_instance, lod_key, BuildingInstance, ALWAYS_DETAILED, GROUPED_ALPHA,
};

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

/// Whether two statistics are bit for bit the same (so they give the same targets).
#[inline]
fn same_stats(a: &MethodStats, b: &MethodStats) -> bool {
    (a.elevation.to_bits() ^ b.elevation.to_bits())
        | (a.inclusive_elevation.to_bits() ^ b.inclusive_elevation.to_bits())
        | (a.summed_elevation.to_bits() ^ b.summed_elevation.to_bits())
        | (a.thread_count ^ b.thread_count)
        | (a.calls ^ b.calls)
        == 0
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

/// Where each rectangle of a new plan glides from: given the rectangles as drawn (owner
/// package or class, rectangle) and, per new rectangle, its owner and whether it is the owner's
/// first, the rectangle the owner's first one was drawn at — for first rectangles only (annexes
/// and newcomers appear in place).
fn glide_sources(
    shown: &[(u32, Rect)],
    plan: impl Iterator<Item = (u32, bool)>,
) -> Vec<Option<Rect>> {
    let mut first_shown = std::collections::HashMap::new();
    for &(owner, rect) in shown {
        first_shown.entry(owner).or_insert(rect);
    }
    plan.map(|(owner, first)| first.then(|| first_shown.get(&owner).copied()).flatten())
        .collect()
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
    /// How values map to heights in this pass: [`City::max_height_wu`] for the full scale,
    /// which the relative scales take from the snapshot's hottest method in the time modes (one
    /// pass over the snapshot; the memory modes have their own scale), by the square root where
    /// the scale says so ([`City::sqrt_heights`]).
    fn height_fit(&mut self, snapshot: &Snapshot, height_mode: HeightMode) -> HeightFit {
        self.full_scale =
            if self.height_scale == HeightScale::Absolute || height_mode.reads_memory() {
                1.0
            } else {
                let hottest = snapshot
                    .methods
                    .iter()
                    .map(|stats| height_mode.value(stats, AllocSample::default()))
                    .fold(0.0f32, f32::max);
                relative_full_scale(self.full_scale, hottest)
            };
        self.sqrt_heights = !height_mode.reads_memory()
            && match self.height_scale {
                HeightScale::Sqrt => true,
                HeightScale::Auto => self.method_ids.len() >= SQRT_FROM_BUILDINGS,
                HeightScale::Relative | HeightScale::Absolute => false,
            };
        HeightFit {
            full_height_wu: self.max_height_wu(),
            full_value: self.full_scale,
            sqrt: self.sqrt_heights,
        }
    }

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

    /// The plan moved existing items: each starts gliding from where it is drawn now.
    fn begin_glide(&mut self) {
        let Some(layout) = self.layout.as_ref() else {
            return;
        };
        let origin = self.instances_origin;
        let from_buildings = self
            .instances
            .iter()
            .map(|i| Vec2::new(i.centre_x - origin.x, i.centre_z - origin.z))
            .collect();
        // Districts and blocks are matched by package and class (the plan may renumber them).
        let from_districts = glide_sources(
            &self.shown_districts,
            layout.districts().iter().enumerate().map(|(index, d)| {
                let first = layout.packages()[d.package as usize].districts.first();
                (d.package, first == Some(&(index as u32)))
            }),
        );
        let from_blocks = glide_sources(
            &self.shown_blocks,
            layout.blocks().iter().enumerate().map(|(index, b)| {
                let first = layout.classes()[b.class as usize].blocks.first();
                (b.class, first == Some(&(index as u32)))
            }),
        );
        // Where the plan had each building (buildings placed since keep their plots).
        let centres: Vec<Vec2> = layout
            .buildings()
            .iter()
            .map(|b| {
                let c = b.footprint.center();
                Vec2::new(c.x, c.z)
            })
            .collect();
        let from_plan = std::mem::replace(&mut self.plan_centres, centres);
        self.glide = Some(Glide {
            started_s: None,
            just_started: true,
            from_buildings,
            from_plan,
            from_origin: origin,
            from_districts,
            from_blocks,
        });
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

    /// (Re)places the instances of buildings `from..` for the city's current origin, heights
    /// and colours.
    pub(super) fn place_instances(&mut self, from: usize, palette: &Palette) {
        let Some(layout) = self.layout.as_ref() else {
            return;
        };
        let instances = std::sync::Arc::make_mut(&mut self.instances);
        instances.truncate(from);
        for (index, building) in layout.buildings().iter().enumerate().skip(from) {
            instances.push(place_instance(
                building,
                self.origin,
                self.heights_wu[index],
                palette.building_rgba(
                    self.colours[index],
                    is_grey(self.greyed, &self.dimmed, index),
                ),
            ));
        }
        self.instances_origin = self.origin;
        self.instances_dirty = true;
    }

    /// Writes where each building's level of detail is decided: its block's centre in the
    /// plan (or nowhere, when the city is all detailed). After the plan changed: a block that
    /// grew moved its centre.
    pub(super) fn refresh_lod_keys(&mut self) {
        let Some(layout) = self.layout.as_ref() else {
            return;
        };
        let blocks = layout.blocks();
        let instances = std::sync::Arc::make_mut(&mut self.instances);
        for (instance, building) in instances.iter_mut().zip(layout.buildings()) {
            instance.lod = match blocks.get(building.block as usize) {
                Some(block) if !self.all_detailed => {
                    let (to, from) = (block.rect.center(), building.footprint.center());
                    lod_key(to.x - from.x, to.z - from.z)
                }
                _ => ALWAYS_DETAILED,
            };
        }
        self.instances_dirty = true;
    }

    /// Rebuilds the blocks' grouped boxes from the buildings as drawn now: each block's box
    /// covers its buildings' footprints (the block inset like a plot), as tall as its tallest
    /// building and in that building's colour. None when the city is all detailed.
    pub(super) fn place_grouped_boxes(&mut self, palette: &Palette) {
        let boxes = std::sync::Arc::make_mut(&mut self.grouped_boxes);
        boxes.clear();
        let Some(layout) = self.layout.as_ref() else {
            return;
        };
        if self.all_detailed || self.instances.len() != self.blocks.len() {
            return;
        }
        let tallest = &mut self.block_tallest;
        tallest.clear();
        tallest.resize(layout.blocks().len(), (f32::NEG_INFINITY, u32::MAX));
        // A block's buildings mostly follow each other in plan order: the tallest of each run
        // is found in registers and written once per run.
        // A block's buildings mostly follow each other in plan order: the tallest of each run
        // is found in registers and written once per run.
        let (blocks, heights) = (&self.blocks, &self.heights_wu);
        let count = blocks.len().min(heights.len());
        let mut start = 0;
        while start < count {
            let block = blocks[start];
            let mut end = start + 1;
            let (mut best_wu, mut best) = (heights[start], start);
            while end < count && blocks[end] == block {
                if heights[end] > best_wu {
                    (best_wu, best) = (heights[end], end);
                }
                end += 1;
            }
            if let Some(slot) = tallest.get_mut(block as usize) {
                if best_wu > slot.0 {
                    *slot = (best_wu, best as u32);
                }
            }
            start = end;
        }
        let inset_wu = layout.config().building_inset_wu;
        let gliding = self.glide.is_some() && self.shown_blocks.len() == tallest.len();
        let origin = self.instances_origin;
        for (index, (block, &(height_wu, building))) in
            layout.blocks().iter().zip(tallest.iter()).enumerate()
        {
            let Some(&colour) = self.colours.get(building as usize) else {
                continue; // no building on this block
            };
            let rect = if gliding {
                self.shown_blocks[index].1
            } else {
                block.rect
            };
            let centre = rect.center();
            // The building's colour as drawn, from the palette (cheaper than reading its
            // instance back: one small entry a block instead of a cache miss).
            let [r, g, b, _] = palette.building_rgba(
                colour,
                is_grey(self.greyed, &self.dimmed, building as usize),
            );
            let mut group = building_instance(
                centre.x + origin.x,
                block.top_height_wu,
                centre.z + origin.z,
                height_wu,
                (rect.width_wu() - 2.0 * inset_wu).max(inset_wu),
                (rect.depth_wu() - 2.0 * inset_wu).max(inset_wu),
                [r, g, b, GROUPED_ALPHA],
            );
            group.lod = lod_key(0.0, 0.0);
            boxes.push(group);
        }
    }

    /// Rewrites every instance's colour when the city turned grey (once) or its dimming
    /// changed.
    pub(super) fn recolour_greyed(&mut self, palette: &Palette) {
        if self.greyed == self.greyed_drawn && !self.dimmed_dirty {
            return;
        }
        self.greyed_drawn = self.greyed;
        self.dimmed_dirty = false;
        let instances = std::sync::Arc::make_mut(&mut self.instances);
        for (index, (instance, &colour)) in instances.iter_mut().zip(&self.colours).enumerate() {
            instance.rgba =
                palette.building_rgba(colour, is_grey(self.greyed, &self.dimmed, index));
        }
        self.instances_dirty = true;
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

    /// A failed city's only upkeep: its instances follow it when the scene moves it, and turn
    /// grey (no indexing: its arrays may be out of step after the panic); a glide stops where
    /// it stood.
    pub(super) fn follow_failed(&mut self, palette: &Palette) {
        self.greyed = true;
        self.glide = None;
        if !self.all_detailed {
            // No grouping in a failed city (its arrays may be out of step): every building
            // drawn, at any distance.
            self.all_detailed = true;
            for instance in std::sync::Arc::make_mut(&mut self.instances).iter_mut() {
                instance.lod = ALWAYS_DETAILED;
            }
            std::sync::Arc::make_mut(&mut self.grouped_boxes).clear();
            self.instances_dirty = true;
            self.grouped_stale = true;
        }
        let shift = self.origin - self.instances_origin;
        if shift != Vec3::ZERO {
            for instance in std::sync::Arc::make_mut(&mut self.instances).iter_mut() {
                instance.centre_x += shift.x;
                instance.centre_z += shift.z;
            }
            self.instances_origin = self.origin;
            self.instances_dirty = true;
        }
        if let Some(index) = self.highlighted.take() {
            // Hover no longer reaches it: the highlighted building takes its colour back.
            let colour = self.target_colours.get(index).copied();
            if let Some(slot) = self.colours.get_mut(index) {
                *slot = colour.unwrap_or(ColourKey::Stub);
            }
            self.greyed_drawn = false;
        }
        self.recolour_greyed(palette);
    }

    /// Lists a building as moving, once, if its height differs from its target.
    fn start_animating(&mut self, index: usize) {
        if !self.animating_flags[index] && self.heights_wu[index] != self.target_heights_wu[index] {
            self.animating_flags[index] = true;
            self.animating.push(index);
        }
    }

    /// Recomputes target heights and colours from a snapshot.
    pub fn set_targets(
        &mut self,
        snapshot: &Snapshot,
        height_mode: HeightMode,
        colour_mode: ColourMode,
    ) {
        let fit = self.height_fit(snapshot, height_mode);
        let methods = snapshot.methods.as_slice();
        let count = self.method_ids.len().min(self.target_heights_wu.len());
        // First only the gather, in a tight loop the CPU can run many loads of at once (the
        // snapshot is indexed by method id, not in plot order); then the targets.
        let mut gathered = std::mem::take(&mut self.gathered);
        gathered.clear();
        gathered.extend(self.method_ids[..count].iter().map(|&id| {
            // Direct indexing (ids never seen read as zero), cheaper than a call per building.
            methods.get(id as usize).copied().unwrap_or_default()
        }));
        let memory = height_mode.reads_memory() || colour_mode.reads_memory();
        let scale = if memory {
            AllocScale::of(snapshot)
        } else {
            AllocScale::default()
        };
        let mut tallest_wu = 0.0f32;
        for (index, stats) in gathered.iter().enumerate() {
            let alloc = if memory {
                AllocSample::of(snapshot, self.method_ids[index])
            } else {
                AllocSample::default()
            };
            let (height_wu, colour) = stats_target(
                stats,
                alloc,
                self.blocks[index],
                (height_mode, colour_mode),
                scale,
                fit,
            );
            tallest_wu = tallest_wu.max(height_wu);
            self.apply_target(index, height_wu, colour);
        }
        self.tallest_target_wu = tallest_wu;
        self.gathered = gathered;
        self.targets_from = Some((snapshot.now_ns, height_mode, colour_mode));
        self.targets_base = None;
    }

    /// Like [`City::set_targets`], with the same result, but when the targets still stand as
    /// the previous snapshot's pass left them (same modes, scale and buildings), only the
    /// methods whose statistics changed since that snapshot are revisited (most are idle).
    /// The memory modes always take the full pass (their scale moves with every snapshot).
    pub fn set_targets_from(
        &mut self,
        snapshot: &std::sync::Arc<Snapshot>,
        height_mode: HeightMode,
        colour_mode: ColourMode,
    ) {
        let fit = self.height_fit(snapshot, height_mode);
        let count = self.method_ids.len().min(self.target_heights_wu.len());
        let base = self.targets_base.take();
        let memory = height_mode.reads_memory() || colour_mode.reads_memory();
        let incremental = base.as_ref().is_some_and(|base| {
            !memory
                && base.height_mode == height_mode
                && base.colour_mode == colour_mode
                && base.fit == fit
                && base.count == count
                && count == self.method_ids.len()
                && base.snapshot.methods.len() == snapshot.methods.len()
        });
        match (incremental, base, self.building_of_id.take()) {
            (true, Some(base), Some(building_of_id)) => {
                // First a pass in method-id order, sequential in both snapshots and the id
                // map, listing the changed buildings' targets; then the targets are written
                // (scattered over the buildings, in a tight loop).
                let new = snapshot.methods.as_slice();
                let old = base.snapshot.methods.as_slice();
                let ids = new.len().min(building_of_id.len());
                let mut changed = std::mem::take(&mut self.changed_targets);
                changed.clear();
                for ((stats, before), &(index, block)) in new[..ids]
                    .iter()
                    .zip(&old[..ids])
                    .zip(&building_of_id[..ids])
                {
                    if same_stats(stats, before) || index == u32::MAX {
                        continue;
                    }
                    let (height_wu, colour) = stats_target(
                        stats,
                        AllocSample::default(),
                        block,
                        (height_mode, colour_mode),
                        AllocScale::default(),
                        fit,
                    );
                    changed.push((index, height_wu, colour));
                }
                let mut lowered = false;
                let mut raised_wu = 0.0f32;
                for &(index, height_wu, colour) in &changed {
                    let index = index as usize;
                    lowered |= height_wu < self.target_heights_wu[index];
                    raised_wu = raised_wu.max(height_wu);
                    self.apply_target(index, height_wu, colour);
                }
                self.changed_targets = changed;
                self.building_of_id = Some(building_of_id);
                self.tallest_target_wu = if lowered {
                    tallest(&self.target_heights_wu[..count])
                } else {
                    self.tallest_target_wu.max(raised_wu)
                };
                self.targets_from = Some((snapshot.now_ns, height_mode, colour_mode));
            }
            (_, _, building_of_id) => {
                self.building_of_id = building_of_id;
                self.set_targets(snapshot, height_mode, colour_mode);
            }
        }
        if self.building_of_id.is_some() {
            self.targets_base = Some(TargetsBase {
                snapshot: std::sync::Arc::clone(snapshot),
                height_mode,
                colour_mode,
                fit,
                count,
            });
        }
    }

    /// Sets every building's target height and colour from `target(index, building)`, listing
    /// the ones that must move or change colour.
    pub fn set_targets_with(
        &mut self,
        mut target: impl FnMut(usize, &highrise_layout::Building) -> (f32, ColourKey),
    ) {
        // The plan is only read; lend it out so the targets can be written as we go.
        let Some(layout) = self.layout.take() else {
            return;
        };
        self.targets_base = None;
        let mut tallest_wu = 0.0f32;
        for (index, building) in layout.buildings().iter().enumerate() {
            let (height_wu, colour) = target(index, building);
            tallest_wu = tallest_wu.max(height_wu);
            self.apply_target(index, height_wu, colour);
        }
        self.tallest_target_wu = tallest_wu;
        self.layout = Some(layout);
    }

    /// Sets one building's target height and colour, listing it to move or recolour.
    #[inline]
    fn apply_target(&mut self, index: usize, target_height_wu: f32, target_colour: ColourKey) {
        if self.target_heights_wu[index] != target_height_wu {
            self.target_heights_wu[index] = target_height_wu;
            if !self.animating_flags[index] {
                self.animating_flags[index] = true;
                self.animating.push(index);
            }
        }
        if self.target_colours[index] != target_colour {
            self.target_colours[index] = target_colour;
            self.recolour.push(index);
        }
    }

    /// Moves every height a step toward its target and writes it into the building's instance
    /// in the same pass. True if any building moved.
    pub fn ease(&mut self, dt_s: f32) -> bool {
        if self.animating.is_empty() {
            return false;
        }
        let blend = 1.0 - (-EASING_RATE_PER_S * dt_s).exp();
        let count = self.heights_wu.len();
        let step = |height: &mut f32, target: f32| {
            let gap = target - *height;
            *height = if gap.abs() < 0.005 {
                target
            } else {
                *height + gap * blend
            };
        };
        let (heights, targets, flags, animating) = (
            &mut self.heights_wu,
            &self.target_heights_wu,
            &mut self.animating_flags,
            &mut self.animating,
        );
        let instances = std::sync::Arc::make_mut(&mut self.instances);
        if animating.len() > count / 8 {
            // Most of the city is moving: one pass in index order over the flags walks the
            // heights and the instances in memory order.
            animating.clear();
            for index in 0..count {
                if !flags[index] {
                    continue;
                }
                let height = &mut heights[index];
                step(height, targets[index]);
                if let Some(instance) = instances.get_mut(index) {
                    instance.height = *height;
                }
                if *height == targets[index] {
                    flags[index] = false;
                } else {
                    animating.push(index);
                }
            }
        } else {
            animating.retain(|&index| {
                let height = &mut heights[index];
                step(height, targets[index]);
                if let Some(instance) = instances.get_mut(index) {
                    instance.height = *height;
                }
                let still_moving = *height != targets[index];
                flags[index] = still_moving;
                still_moving
            });
        }
        self.heights_dirty = true;
        true
    }
}

/// The largest of `heights_wu` (and 0), as `fold(0.0, f32::max)` gives it, in eight lanes.
fn tallest(heights_wu: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let chunks = heights_wu.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (lane, &height) in lanes.iter_mut().zip(chunk) {
            *lane = lane.max(height);
        }
    }
    rest.iter()
        .chain(&lanes)
        .fold(0.0f32, |tallest, &height| tallest.max(height))
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

#[cfg(test)]
mod tests {
    use super::*;
    use highrise_layout::synthetic::{synthetic_methods, SplitMix64, SyntheticShape};

    fn city(methods: &[MethodSpec]) -> City {
        let mut city = City::default();
        city.place(&mut methods.to_vec());
        city
    }

    fn sorted(list: &[usize]) -> Vec<usize> {
        let mut list = list.to_vec();
        list.sort_unstable();
        list.dedup();
        list
    }

    /// Revisiting only the changed methods leaves exactly what a full pass leaves: targets,
    /// colours, the tallest target, and the buildings listed to move or recolour.
    #[test]
    fn incremental_targets_match_a_full_pass() {
        let shape = SyntheticShape {
            methods: 3_000,
            classes: 300,
            packages: 30,
            max_depth: 3,
            seed: 7,
        };
        let methods = synthetic_methods(&shape);
        let (mut full, mut incremental) = (city(&methods), city(&methods));
        let mut random = SplitMix64::new(11);
        let mut stats = vec![MethodStats::default(); methods.len() + 5];
        let modes = [
            (HeightMode::Exclusive, ColourMode::Heat),
            (HeightMode::Summed, ColourMode::Threads),
            (HeightMode::Inclusive, ColourMode::Class),
        ];
        let mut busy_steps = 0;
        for step in 0..60u64 {
            for entry in stats.iter_mut() {
                match random.next_u64() % 10 {
                    0 => *entry = MethodStats::default(),
                    1 => {
                        let value = (random.next_u64() % 1000) as f32 / 700.0;
                        *entry = MethodStats {
                            elevation: value,
                            inclusive_elevation: value * 0.5,
                            summed_elevation: value * 1.5,
                            thread_count: (random.next_u64() % 9) as u32,
                            parked_threads: 0,
                            calls: (random.next_u64() % 3) as u32,
                            approximate: false,
                        };
                    }
                    _ => {}
                }
            }
            let snapshot = std::sync::Arc::new(Snapshot {
                now_ns: step,
                methods: stats.clone(),
                ..Snapshot::default()
            });
            let (height_mode, colour_mode) = modes[(step / 20) as usize];
            full.set_targets(&snapshot, height_mode, colour_mode);
            incremental.set_targets_from(&snapshot, height_mode, colour_mode);
            assert!(incremental.targets_base.is_some());
            let bits = |city: &City| -> Vec<u32> {
                city.target_heights_wu.iter().map(|h| h.to_bits()).collect()
            };
            assert_eq!(bits(&full), bits(&incremental), "step {step}");
            assert_eq!(full.target_colours, incremental.target_colours);
            assert_eq!(
                full.tallest_target_wu.to_bits(),
                incremental.tallest_target_wu.to_bits()
            );
            assert_eq!(sorted(&full.animating), sorted(&incremental.animating));
            assert_eq!(sorted(&full.recolour), sorted(&incremental.recolour));
            assert_eq!(full.animating_flags, incremental.animating_flags);
            assert_eq!(full.targets_from, incremental.targets_from);
            let mut heights = full.heights_wu.clone();
            let mut flags = full.animating_flags.clone();
            let busy = full.animating.len() > heights.len() / 8;
            let expected = reference_ease(&mut heights, &full.target_heights_wu, &mut flags);
            let moved_full = full.ease(0.016);
            let bits = |h: &[f32]| -> Vec<u32> { h.iter().map(|h| h.to_bits()).collect() };
            if busy {
                assert_eq!(bits(&heights), bits(&full.heights_wu));
                assert_eq!(flags, full.animating_flags);
                assert_eq!(!expected.is_empty(), moved_full);
                assert_eq!(sorted(&full.animating), full.animating);
                busy_steps += 1;
            }
            let moved_incremental = incremental.ease(0.016);
            assert_eq!(moved_full, moved_incremental);
            assert_eq!(bits(&full.heights_wu), bits(&incremental.heights_wu));
            full.recolour.clear();
            incremental.recolour.clear();
        }
        assert!(busy_steps > 10);
    }

    /// The city-wide easing pass as it was written with branches: the moved list.
    fn reference_ease(heights: &mut [f32], targets: &[f32], flags: &mut [bool]) -> Vec<usize> {
        let blend = 1.0 - (-EASING_RATE_PER_S * 0.016f32).exp();
        let mut moved = Vec::new();
        for index in 0..heights.len() {
            if !flags[index] {
                continue;
            }
            let (height, target) = (&mut heights[index], targets[index]);
            let gap = target - *height;
            *height = if gap.abs() < 0.005 {
                target
            } else {
                *height + gap * blend
            };
            moved.push(index);
            if *height == target {
                flags[index] = false;
            }
        }
        moved
    }
}
