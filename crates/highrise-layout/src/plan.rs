//! The city plan: its public parts (districts, blocks, buildings) and the grid-side state that
//! incremental insertion and hit-testing keep beside them.

use std::hash::Hasher;

use crate::fxhash::{FxHashMap, FxHasher};
use crate::geom::{GridRect, Rect};
use crate::hit::HitIndex;
use crate::idmap::IdMap;
use crate::relayout::Tracker;
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
    /// A re-layout renumbers districts and drops annexes.
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
///
/// A block fresh from the full layout holds its buildings on its first cells in row-major
/// order with consecutive building indices, and its free plots are the cells after them; both
/// are kept implicit ([`PlotMap::Run`], `free_from`) so that a full layout allocates nothing
/// per block for them. They are written out on the first change that breaks the pattern.
#[derive(Debug, Clone)]
pub(crate) struct BlockState {
    pub rect: GridRect,
    /// Free plots beyond the implicit ones (`free_from..` cells), last one is taken next.
    free_plots: Vec<(i32, i32)>,
    /// Implicitly free cells: `free_from..area`, row-major over `rect`, taken in that order.
    free_from: u32,
    plot_map: PlotMap,
    /// Highest building top above the block's top, world units (an upper bound).
    pub max_height_wu: f32,
}

/// Building index per plot, row-major over the block's rectangle.
#[derive(Debug, Clone)]
enum PlotMap {
    /// Cells `0..len` hold buildings `first..first + len`; the rest are empty.
    Run { first: u32, len: u32 },
    /// One entry per cell; [`NONE`] where empty.
    Cells(Vec<u32>),
}

impl BlockState {
    /// An empty block on `rect` (no buildings, no free plots).
    pub fn new(rect: GridRect) -> Self {
        let area = u32::try_from(rect.area().max(0)).unwrap_or(u32::MAX);
        Self {
            rect,
            free_plots: Vec::new(),
            free_from: area,
            plot_map: PlotMap::Run { first: 0, len: 0 },
            max_height_wu: 0.0,
        }
    }

    /// A block whose first `len` cells hold buildings `first..first + len` and whose other
    /// cells are free (taken in row-major order).
    pub fn filled(rect: GridRect, first: u32, len: u32) -> Self {
        Self {
            free_from: len,
            plot_map: PlotMap::Run { first, len },
            ..Self::new(rect)
        }
    }

    fn area(&self) -> u32 {
        u32::try_from(self.rect.area().max(0)).unwrap_or(u32::MAX)
    }

    fn cell_plot(&self, cell: u32) -> (i32, i32) {
        let w = self.rect.width().max(1);
        let cell = cell as i32;
        (self.rect.min_x + cell % w, self.rect.min_z + cell / w)
    }

    /// The building on cell `cell` (row-major), or [`NONE`].
    #[inline]
    pub fn building_at(&self, cell: u32) -> u32 {
        match &self.plot_map {
            PlotMap::Run { first, len } => {
                if cell < *len {
                    first + cell
                } else {
                    NONE
                }
            }
            PlotMap::Cells(cells) => cells.get(cell as usize).copied().unwrap_or(NONE),
        }
    }

    /// Takes the next free plot, if any.
    pub fn pop_free_plot(&mut self) -> Option<(i32, i32)> {
        if self.free_from < self.area() {
            let plot = self.cell_plot(self.free_from);
            self.free_from += 1;
            return Some(plot);
        }
        self.free_plots.pop()
    }

    /// A block whose first `list.len()` cells (row-major) hold `list`'s buildings and whose
    /// other cells are free.
    pub fn holding(rect: GridRect, list: &[u32]) -> Self {
        let len = list.len() as u32;
        let consecutive = list.windows(2).all(|w| w[1] == w[0].wrapping_add(1));
        let mut state = Self::filled(rect, list.first().copied().unwrap_or(0), len);
        if !consecutive {
            let mut cells = vec![NONE; state.area() as usize];
            cells[..list.len()].copy_from_slice(list);
            state.plot_map = PlotMap::Cells(cells);
        }
        state
    }

    /// Records `building` on `plot` (ignored when the plot is outside the block).
    pub fn set_building(&mut self, plot: (i32, i32), building: u32) {
        let r = self.rect;
        if plot.0 < r.min_x || plot.0 >= r.max_x || plot.1 < r.min_z || plot.1 >= r.max_z {
            return;
        }
        let cell = ((plot.1 - r.min_z) * r.width() + (plot.0 - r.min_x)) as u32;
        if let PlotMap::Run { first, len } = &mut self.plot_map {
            if cell == *len && (*len == 0 || *first + *len == building) {
                if *len == 0 {
                    *first = building;
                }
                *len += 1;
                return;
            }
        }
        let cells = self.cells_mut();
        cells[cell as usize] = building;
    }

    /// The per-cell map, written out if it was implicit.
    fn cells_mut(&mut self) -> &mut Vec<u32> {
        if let PlotMap::Run { first, len } = self.plot_map {
            let mut cells = vec![NONE; self.area() as usize];
            for (i, slot) in cells.iter_mut().take(len as usize).enumerate() {
                *slot = first + i as u32;
            }
            self.plot_map = PlotMap::Cells(cells);
        }
        match &mut self.plot_map {
            PlotMap::Cells(cells) => cells,
            PlotMap::Run { .. } => unreachable!("written out above"),
        }
    }

    /// Grows the block to `grown` (same origin corner, at least as large), keeping every
    /// building on its plot; `new_plots` become free, taken after the plots free before.
    pub fn grow(
        &mut self,
        grown: GridRect,
        new_plots: impl DoubleEndedIterator<Item = (i32, i32)>,
    ) {
        // Write the implicit state out while cell indices still refer to the old width.
        let mut free: Vec<(i32, i32)> = new_plots.rev().collect();
        let implicit: Vec<(i32, i32)> = (self.free_from..self.area())
            .rev()
            .map(|cell| self.cell_plot(cell))
            .collect();
        self.free_from = self.area();
        free.append(&mut self.free_plots);
        free.extend(implicit);
        let old_w = self.rect.width();
        let new_w = grown.width();
        let mut plot_map = vec![NONE; grown.area().max(0) as usize];
        for (cell, slot) in self.cells_mut().iter().enumerate() {
            let (cx, cz) = (cell as i32 % old_w, cell as i32 / old_w);
            plot_map[(cz * new_w + cx) as usize] = *slot;
        }
        self.plot_map = PlotMap::Cells(plot_map);
        self.free_plots = free;
        self.rect = grown;
        self.free_from = self.area();
    }
}

/// (package, class name) -> class index without owning the names: a hash of the pair leads
/// to the first class with that hash, further ones (hash collisions) are chained, and the
/// names are compared against [`CityLayout::classes`].
#[derive(Debug, Clone, Default)]
pub(crate) struct ClassIndex {
    heads: FxHashMap<u64, u32>,
    /// Per class index: the next class with the same hash, or [`NONE`].
    next: Vec<u32>,
}

impl ClassIndex {
    pub fn with_capacity(classes: usize) -> Self {
        Self {
            heads: crate::fxhash::map_with_capacity(classes),
            next: Vec::with_capacity(classes),
        }
    }

    /// The part of the key that depends on the name only (the full layout computes it while
    /// the name is in cache).
    pub fn name_hash(name: &str) -> u64 {
        let mut h = FxHasher::default();
        h.write(name.as_bytes());
        h.finish()
    }

    fn key(package: u32, name_hash: u64) -> u64 {
        let mut h = FxHasher::default();
        h.write_u64(name_hash);
        h.write_u32(package);
        h.finish()
    }

    /// The class `name` of `package`, if any.
    pub fn get(&self, classes: &[Class], package: u32, name: &str) -> Option<u32> {
        let mut c = *self.heads.get(&Self::key(package, Self::name_hash(name)))?;
        while c != NONE {
            let class = &classes[c as usize];
            if class.package == package && class.name == name {
                return Some(c);
            }
            c = self.next[c as usize];
        }
        None
    }

    /// Records class `class` (the next class index: classes are added in order).
    pub fn push(&mut self, package: u32, name: &str, class: u32) {
        self.push_hashed(package, Self::name_hash(name), class);
    }

    /// [`ClassIndex::push`] with the name's [`ClassIndex::name_hash`].
    pub fn push_hashed(&mut self, package: u32, name_hash: u64, class: u32) {
        debug_assert_eq!(class as usize, self.next.len());
        let previous = self.heads.insert(Self::key(package, name_hash), class);
        self.next.push(previous.unwrap_or(NONE));
    }
}

/// Method and signature names, kept so that [`CityLayout::tidy`] can lay the city out afresh.
///
/// One record per method: the name's length and the signature's length + 1 (0 = no
/// signature) as LEB128 varints, then the name's and the signature's bytes. The full layout
/// writes the records in input order and points each building at its record, so a building
/// costs 4 bytes here beyond its names.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameArena {
    pub bytes: Vec<u8>,
    /// Per building: offset of its record in `bytes`.
    pub starts: Vec<u32>,
}

fn put_varint(out: &mut Vec<u8>, mut value: usize) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn get_varint(bytes: &[u8], at: &mut usize) -> usize {
    let mut value = 0_usize;
    let mut shift = 0;
    while let Some(&b) = bytes.get(*at) {
        *at += 1;
        value |= usize::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
        if b < 0x80 {
            break;
        }
        shift += 7;
    }
    value
}

impl NameArena {
    /// Appends the names and records them for the next building.
    pub fn push(&mut self, method: &str, signature: Option<&str>) {
        let start = self.append(method, signature);
        self.starts.push(start);
    }

    /// Appends a record without assigning it to a building; returns its offset.
    #[inline]
    pub fn append(&mut self, method: &str, signature: Option<&str>) -> u32 {
        let start = u32::try_from(self.bytes.len()).unwrap_or(u32::MAX);
        match (method.len(), signature) {
            (n, None) if n < 0x80 => self.bytes.extend_from_slice(&[n as u8, 0]),
            (n, signature) => {
                put_varint(&mut self.bytes, n);
                put_varint(&mut self.bytes, signature.map_or(0, |s| s.len() + 1));
            }
        }
        self.bytes.extend_from_slice(method.as_bytes());
        if let Some(signature) = signature {
            self.bytes.extend_from_slice(signature.as_bytes());
        }
        start
    }

    /// The name and signature bytes of the record at `start`.
    #[inline]
    pub fn record(&self, start: u32) -> (&[u8], Option<&[u8]>) {
        let mut at = start as usize;
        let name_len = get_varint(&self.bytes, &mut at);
        let sig_len = get_varint(&self.bytes, &mut at);
        let name = self.bytes.get(at..at + name_len).unwrap_or_default();
        let signature = match sig_len {
            0 => None,
            len => Some(
                self.bytes
                    .get(at + name_len..at + name_len + len - 1)
                    .unwrap_or_default(),
            ),
        };
        (name, signature)
    }

    pub fn get(&self, building: usize) -> (&str, Option<&str>) {
        let Some(&start) = self.starts.get(building) else {
            return ("", None);
        };
        // The records were copied from `str`s, so they are valid UTF-8.
        let (name, signature) = self.record(start);
        (
            std::str::from_utf8(name).unwrap_or(""),
            signature.map(|s| std::str::from_utf8(s).unwrap_or("")),
        )
    }
}

/// A laid-out city: packages as districts, classes as blocks, methods as buildings.
///
/// Build one with [`CityLayout::full`] (the paper's ordering, from scratch) or start from
/// [`CityLayout::empty`], then add methods with [`CityLayout::insert`] as they are defined;
/// insertion keeps the city within 1.3x the area of a full layout, re-laying it out when
/// needed ([`InsertOutcome::relaid_out`](crate::InsertOutcome::relaid_out),
/// [`CityLayout::generation`]). [`CityLayout::tidy`] lays the same methods out afresh.
/// Building, class and package indices are stable across insertions and re-layouts (new ones
/// are appended), so a per-building height slice stays valid; district and block indices are
/// not (match them by [`District::package`] and [`Block::class`]). After `full` or `tidy`,
/// look indices up again with [`CityLayout::building_of`].
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
    /// (package, class name) -> class index.
    pub(crate) class_by_name: ClassIndex,
    pub(crate) building_by_method: IdMap,
    pub(crate) heights_wu: Vec<f32>,
    pub(crate) hit: HitIndex,
    /// Bumped whenever existing districts, blocks or buildings change rectangle.
    pub(crate) generation: u64,
    /// Re-layouts done by inserts.
    pub(crate) relayouts: u64,
    /// Ideal footprint and anchored order; built on the first insert.
    pub(crate) tracker: Option<Box<Tracker>>,
    /// During an insert: districts that existed before it (growing one of them, or any
    /// block, changes an existing rectangle).
    pub(crate) existing_districts: u32,
    pub(crate) grew_existing: bool,
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
        crate::full_layout::build(methods, config)
    }

    /// A city with no methods yet: just the root district, ready for [`CityLayout::insert`].
    pub fn empty(config: &LayoutConfig) -> CityLayout {
        crate::full_layout::bare_root(config)
    }

    /// Lays the city's current methods out afresh with [`CityLayout::full`]'s ordering: the
    /// "tidy" action. Buildings move; building indices change.
    pub fn tidy(&self) -> CityLayout {
        let refs = self.method_refs();
        // The ids were unique when inserted, so this cannot fail; an empty city is the
        // harmless answer if it ever did.
        crate::full_layout::build(&refs, &self.config)
            .unwrap_or_else(|_| crate::full_layout::bare_root(&self.config))
    }

    /// Counts the changes of existing geometry: it increases every time an existing district,
    /// block or building changes rectangle (a re-layout during [`CityLayout::insert`], or a
    /// block or district grown in place), so a consumer that remembers it knows when to re-read
    /// every rectangle. Starts at 0 for [`CityLayout::full`], [`CityLayout::empty`] and
    /// [`CityLayout::tidy`] (a new city).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// How many times [`CityLayout::insert`] re-laid the whole city out to keep it compact (each
    /// also counts in [`CityLayout::generation`]).
    pub fn relayout_count(&self) -> u64 {
        self.relayouts
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

    /// Share of the plate (the root district) covered by what stands on it directly: its
    /// districts and blocks (the rest is streets, margins and bare ground).
    pub fn plate_covered_share(&self) -> f32 {
        let covered: f32 = self
            .districts
            .iter()
            .filter(|d| d.parent == Some(0))
            .map(|d| d.rect.area_wu2())
            .chain(
                self.blocks
                    .iter()
                    .filter(|b| b.district == 0)
                    .map(|b| b.rect.area_wu2()),
            )
            .sum();
        covered / self.area_wu2()
    }

    /// Share of the plate covered by blocks, at any depth: the ground buildings stand on (the
    /// rest is streets, margins, and room a district grew into but has not built on).
    pub fn plate_built_share(&self) -> f32 {
        let built: f32 = self.blocks.iter().map(|b| b.rect.area_wu2()).sum();
        built / self.area_wu2()
    }

    /// Share of the plate that is bare ground: room inside districts that nothing stands on
    /// (neither blocks nor sub-districts, nor the streets and margins between them), which
    /// packing leaves above short columns and beside short shelves and which grown districts
    /// hold for later methods.
    pub fn plate_unbuilt_share(&self) -> f32 {
        let unbuilt: i64 = self
            .district_state
            .iter()
            .flat_map(|d| &d.free)
            .map(GridRect::area)
            .sum();
        unbuilt as f32 / self.area_wu2()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_records_round_trip() {
        let long = "x".repeat(300);
        let cases: Vec<(&str, Option<&str>)> = vec![
            ("", None),
            ("", Some("")),
            ("run", None),
            ("run", Some("(I)V")),
            (&long, None),
            ("m", Some(&long)),
            (&long, Some(&long)),
            ("ünïcödé", Some("(Ljava/lang/String;)V")),
        ];
        let mut arena = NameArena::default();
        for &(name, sig) in &cases {
            arena.push(name, sig);
        }
        for (i, &(name, sig)) in cases.iter().enumerate() {
            assert_eq!(arena.get(i), (name, sig), "record {i}");
        }
        assert_eq!(arena.get(cases.len()), ("", None));
    }

    #[test]
    fn implicit_block_state_matches_explicit_cells() {
        // 3 x 2 block, buildings 10..14 on the first four cells, two free plots.
        let rect = GridRect::at(5, 7, 3, 2);
        let mut state = BlockState::filled(rect, 10, 4);
        let cells: Vec<u32> = (0..6).map(|c| state.building_at(c)).collect();
        assert_eq!(cells, vec![10, 11, 12, 13, NONE, NONE]);
        // Free plots come in row-major order after the buildings.
        assert_eq!(state.pop_free_plot(), Some((6, 8)));
        state.set_building((6, 8), 20);
        assert_eq!(state.building_at(4), 20);
        assert_eq!(state.building_at(3), 13);
        // Growing keeps every building on its plot; the old free plot comes before new ones.
        state.grow(GridRect::at(5, 7, 3, 3), (5..8).map(|x| (x, 9)));
        assert_eq!(state.building_at(0), 10);
        assert_eq!(state.building_at(3), 13);
        assert_eq!(state.building_at(4), 20);
        assert_eq!(state.building_at(6), NONE);
        assert_eq!(state.pop_free_plot(), Some((7, 8)));
        assert_eq!(state.pop_free_plot(), Some((5, 9)));
        assert_eq!(state.pop_free_plot(), Some((6, 9)));
        assert_eq!(state.pop_free_plot(), Some((7, 9)));
        assert_eq!(state.pop_free_plot(), None);
        // A new block filled one building at a time stays implicit and reads back right.
        let mut fresh = BlockState::new(GridRect::at(0, 0, 1, 1));
        fresh.set_building((0, 0), 99);
        assert_eq!(fresh.building_at(0), 99);
        assert_eq!(fresh.pop_free_plot(), None);
    }

    #[test]
    fn class_index_follows_hash_collision_chains() {
        let class = |name: &str, package: u32| Class {
            name: name.to_owned(),
            package,
            blocks: Vec::new(),
            method_count: 0,
        };
        let classes = vec![class("A", 0), class("B", 0), class("A", 1)];
        let mut index = ClassIndex::default();
        // Force a collision: all three under one hash.
        for c in 0..3 {
            index.push_hashed(0, 42, c);
        }
        // Lookups by name go through the real hash, so register the real keys too.
        let mut real = ClassIndex::default();
        for (c, k) in classes.iter().enumerate() {
            real.push(k.package, &k.name, c as u32);
        }
        assert_eq!(real.get(&classes, 0, "A"), Some(0));
        assert_eq!(real.get(&classes, 0, "B"), Some(1));
        assert_eq!(real.get(&classes, 1, "A"), Some(2));
        assert_eq!(real.get(&classes, 1, "B"), None);
        // The chain under the forced hash holds all three, newest first.
        let head = index.heads[&ClassIndex::key(0, 42)];
        assert_eq!(head, 2);
        assert_eq!(index.next[2], 1);
        assert_eq!(index.next[1], 0);
        assert_eq!(index.next[0], NONE);
    }
}
