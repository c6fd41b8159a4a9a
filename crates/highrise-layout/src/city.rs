//! The city plan: its public parts (districts, blocks, buildings) and the grid-side state that
//! incremental insertion and hit-testing keep beside them.

use crate::fxhash::FxHashMap;
use crate::geom::{GridRect, Rect};
use crate::hit::HitIndex;
use crate::idmap::IdMap;
use crate::spec::{LayoutConfig, LayoutError, MethodRef, MethodSpec};

/// Marker for "no such index" in the crate's u32 links.
pub(crate) const NONE: u32 = u32::MAX;

/// A package: one logical district, drawn as one or more [`District`] rectangles.
#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    /// Full dotted path (`"main.game"`); `""` for the root (default package).
    pub path: String,
    /// Index of the parent package in [`CityLayout::packages`]; `None` for the root.
    pub parent: Option<u32>,
    /// Nesting depth: 0 for the root, 1 for top-level packages, and so on.
    pub depth: u16,
    /// Indices into [`CityLayout::districts`]: the first is the package's main district, any
    /// later ones are annexes added by incremental insertion when the main one was hemmed in.
    pub districts: Vec<u32>,
    /// Methods in this package and all its sub-packages.
    pub method_count: u32,
}

impl Package {
    /// The last segment of the path (the package's own name); `""` for the root.
    pub fn name(&self) -> &str {
        self.path.rsplit('.').next().unwrap_or("")
    }
}

/// A class: one logical block, drawn as one or more [`Block`] rectangles.
#[derive(Debug, Clone, PartialEq)]
pub struct Class {
    /// Simple class name.
    pub name: String,
    /// Index of its package in [`CityLayout::packages`].
    pub package: u32,
    /// Indices into [`CityLayout::blocks`]: the main block first, then any annexes.
    pub blocks: Vec<u32>,
    /// Methods of this class.
    pub method_count: u32,
}

/// One district rectangle: a raised slab on which its blocks and sub-districts stand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct District {
    /// Index of the package in [`CityLayout::packages`].
    pub package: u32,
    /// The district rectangle this one stands in; `None` for the root.
    pub parent: Option<u32>,
    /// Nesting depth (0 = root); the viewer shades by it.
    pub depth: u16,
    /// Ground rectangle, world units.
    pub rect: Rect,
    /// Bottom of the slab, world units.
    pub base_height_wu: f32,
    /// Top of the slab (where children stand), world units.
    pub top_height_wu: f32,
    /// Whether this rectangle is an annex added by incremental insertion (a `tidy` removes
    /// annexes).
    pub is_annex: bool,
}

/// One block rectangle: the lot on which a class's buildings stand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Block {
    /// Index of the class in [`CityLayout::classes`].
    pub class: u32,
    /// Index of the district rectangle it stands in ([`CityLayout::districts`]).
    pub district: u32,
    /// Ground rectangle, world units (whole plots; buildings are inset within them).
    pub rect: Rect,
    /// Bottom of the block slab (the district's top), world units.
    pub base_height_wu: f32,
    /// Top of the block slab, where buildings stand, world units.
    pub top_height_wu: f32,
    /// Whether this is an annex block (the class outgrew its main block and could not grow it
    /// in place).
    pub is_annex: bool,
}

/// One building: a method on its plot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Building {
    /// The caller's method id.
    pub method_id: u32,
    /// Index of the block rectangle it stands on ([`CityLayout::blocks`]).
    pub block: u32,
    /// The whole plot (1 x 1 world unit).
    pub plot: Rect,
    /// The building's footprint: the plot inset by [`LayoutConfig::building_inset_wu`].
    pub footprint: Rect,
    /// Where the building starts (its block's top), world units; its top is this plus its
    /// height.
    pub base_height_wu: f32,
}

/// Grid-side state of one district rectangle.
#[derive(Debug, Clone)]
pub(crate) struct DistrictState {
    pub rect: GridRect,
    /// District rectangle this one stands in; [`NONE`] for the root.
    pub parent_part: u32,
    /// Disjoint free rectangles inside the content area, in footprint space.
    pub free: Vec<GridRect>,
}

/// Grid-side state of one block rectangle.
#[derive(Debug, Clone)]
pub(crate) struct BlockState {
    pub rect: GridRect,
    /// Free plots, last one is taken next.
    pub free_plots: Vec<(i32, i32)>,
    /// Building index per plot, row-major over `rect`; [`NONE`] where empty.
    pub plot_map: Vec<u32>,
    /// Highest building top above the block's top, world units (an upper bound).
    pub max_height_wu: f32,
}

/// Method and signature names, kept so that [`CityLayout::tidy`] can lay the city out afresh.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameArena {
    pub text: String,
    /// Per building: start of the method name, its length, and the signature's length + 1
    /// (0 = no signature); the signature follows the name.
    pub spans: Vec<(u32, u32, u32)>,
}

impl NameArena {
    /// Appends the names and records their span for the next building.
    pub fn push(&mut self, method: &str, signature: Option<&str>) {
        let span = self.append(method, signature);
        self.spans.push(span);
    }

    /// Appends the names without assigning them to a building; returns their span.
    pub fn append(&mut self, method: &str, signature: Option<&str>) -> (u32, u32, u32) {
        let start = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        self.text.push_str(method);
        let sig_len = match signature {
            Some(sig) => {
                self.text.push_str(sig);
                u32::try_from(sig.len()).unwrap_or(u32::MAX - 1) + 1
            }
            None => 0,
        };
        let name_len = u32::try_from(method.len()).unwrap_or(u32::MAX);
        (start, name_len, sig_len)
    }

    pub fn get(&self, building: usize) -> (&str, Option<&str>) {
        let Some(&(start, name_len, sig_len)) = self.spans.get(building) else {
            return ("", None);
        };
        let start = start as usize;
        let name_end = start + name_len as usize;
        let name = self.text.get(start..name_end).unwrap_or("");
        let sig = match sig_len {
            0 => None,
            len => self.text.get(name_end..name_end + (len as usize - 1)),
        };
        (name, sig)
    }
}

/// A laid-out city: packages as districts, classes as blocks, methods as buildings.
///
/// Build one with [`CityLayout::full`] (the paper's ordering, from scratch) or start from
/// [`CityLayout::empty`], then add methods with [`CityLayout::insert`] as they are defined;
/// insertion never moves an existing building. [`CityLayout::tidy`] lays the same methods out
/// afresh. Building indices are stable across insertions (new buildings are appended), so a
/// per-building height slice stays valid; after `full` or `tidy`, look indices up again with
/// [`CityLayout::building_of`].
#[derive(Debug, Clone)]
pub struct CityLayout {
    pub(crate) config: LayoutConfig,
    pub(crate) packages: Vec<Package>,
    pub(crate) classes: Vec<Class>,
    pub(crate) districts: Vec<District>,
    pub(crate) blocks: Vec<Block>,
    pub(crate) buildings: Vec<Building>,
    pub(crate) district_state: Vec<DistrictState>,
    pub(crate) block_state: Vec<BlockState>,
    pub(crate) names: NameArena,
    pub(crate) package_by_path: FxHashMap<String, u32>,
    /// Per package: class name -> class index.
    pub(crate) class_by_name: Vec<FxHashMap<String, u32>>,
    pub(crate) building_by_method: IdMap,
    pub(crate) heights_wu: Vec<f32>,
    pub(crate) hit: HitIndex,
}

impl CityLayout {
    /// Lays out `methods` from scratch following the paper: methods alphabetical within their
    /// class's block, classes and sub-packages ordered by method count (largest at the origin
    /// corner, ties by name) inside their package's district. The result depends only on the
    /// set of methods, not on their order in the slice.
    pub fn full(methods: &[MethodSpec]) -> Result<CityLayout, LayoutError> {
        Self::full_with_config(methods, &LayoutConfig::default())
    }

    /// [`CityLayout::full`] with explicit configuration.
    pub fn full_with_config(
        methods: &[MethodSpec],
        config: &LayoutConfig,
    ) -> Result<CityLayout, LayoutError> {
        crate::full::build(methods, config)
    }

    /// A city with no methods yet: just the root district, ready for [`CityLayout::insert`].
    pub fn empty(config: &LayoutConfig) -> CityLayout {
        crate::full::bare_root(config)
    }

    /// Lays the city's current methods out afresh with [`CityLayout::full`]'s ordering: the
    /// "tidy" action. Buildings move; building indices change.
    pub fn tidy(&self) -> CityLayout {
        let refs = self.method_refs();
        // The ids were unique when inserted, so this cannot fail; an empty city is the
        // harmless answer if it ever did.
        crate::full::build(&refs, &self.config)
            .unwrap_or_else(|_| crate::full::bare_root(&self.config))
    }

    /// The configuration this city was laid out with.
    pub fn config(&self) -> &LayoutConfig {
        &self.config
    }

    /// All packages; index 0 is the root (default package).
    pub fn packages(&self) -> &[Package] {
        &self.packages
    }

    /// All classes.
    pub fn classes(&self) -> &[Class] {
        &self.classes
    }

    /// All district rectangles; index 0 is the root district, which contains all others.
    pub fn districts(&self) -> &[District] {
        &self.districts
    }

    /// All block rectangles.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// All buildings. The index of a building here is its *building index*, used by
    /// [`CityLayout::set_heights`] and returned by hit-testing.
    pub fn buildings(&self) -> &[Building] {
        &self.buildings
    }

    /// The building index of a method id.
    pub fn building_of(&self, method_id: u32) -> Option<u32> {
        self.building_by_method.get(method_id)
    }

    /// The ground rectangle of the whole city (the root district), world units.
    pub fn bounds(&self) -> Rect {
        self.districts.first().map(|d| d.rect).unwrap_or_default()
    }

    /// Area of the whole city, square world units.
    pub fn area_wu2(&self) -> f32 {
        self.bounds().area_wu2()
    }

    /// Number of annex rectangles (districts and blocks) that incremental insertion added; a
    /// viewer may suggest [`CityLayout::tidy`] when this grows.
    pub fn annex_count(&self) -> usize {
        self.districts.iter().filter(|d| d.is_annex).count()
            + self.blocks.iter().filter(|b| b.is_annex).count()
    }

    /// The method name and signature a building was laid out with.
    pub fn method_name(&self, building: u32) -> Option<(&str, Option<&str>)> {
        if (building as usize) < self.buildings.len() {
            Some(self.names.get(building as usize))
        } else {
            None
        }
    }

    /// The methods of the city as borrowed specs, in building order.
    pub(crate) fn method_refs(&self) -> Vec<MethodRef<'_>> {
        self.buildings
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let (method, signature) = self.names.get(i);
                let class = &self.classes[self.blocks[b.block as usize].class as usize];
                MethodRef {
                    id: b.method_id,
                    package: &self.packages[class.package as usize].path,
                    class: &class.name,
                    method,
                    signature,
                }
            })
            .collect()
    }

    /// Grid plot (x, z) of a building.
    pub(crate) fn plot_of(&self, building: usize) -> (i32, i32) {
        let plot = &self.buildings[building].plot;
        (plot.min_x as i32, plot.min_z as i32)
    }

    /// Content area of a district rectangle, in footprint space.
    pub(crate) fn content_area(&self, part: u32) -> GridRect {
        let r = self.district_state[part as usize].rect;
        let pad = self.config.pad();
        let s = self.config.street();
        GridRect::new(
            r.min_x + pad,
            r.min_z + pad,
            r.max_x - pad + s,
            r.max_z - pad + s,
        )
    }
}
