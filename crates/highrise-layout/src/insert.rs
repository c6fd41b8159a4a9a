//! Incremental insertion: place a newly defined method, in place while the city stays compact.
//!
//! Every district rectangle keeps the free space inside its content area as a list of
//! disjoint rectangles (in footprint space: a child's rectangle plus its trailing street).
//! A new method goes, in order of preference:
//!
//! 1. onto a free plot of its class's block;
//! 2. onto a new row or column grown into free space next to the block (a district at the
//!    edge of its parent grows its parent, up to the root, which can always grow);
//! 3. for a new class, onto a new block placed in the package's free space (best fit), or in
//!    space gained by growing the package's district;
//! 4. only when all that fails, onto an *annex*: a new block (or district) rectangle of the
//!    same class (or package) placed elsewhere in the parent. Annexes are flagged so the viewer
//!    can draw them as part of their class and offer a "tidy".
//!
//! None of that moves an existing building (blocks and districts only grow on their far
//! sides), but on its own it lets a city loaded lazily from empty sprawl to many times the
//! area of a full layout. So after every insert the city's area is compared with the exact
//! area of a fresh full layout of its methods (tracked incrementally, `relayout.rs`); above
//! 1.3x the whole city is re-laid out with anchors (see `relayout.rs`). Re-layouts get rarer
//! as the city grows (about 150 while loading 200k methods class by class). Any change to an
//! existing rectangle — growth in place or a re-layout — sets [`InsertOutcome::relaid_out`]
//! and bumps [`CityLayout::generation`].

use crate::geom::GridRect;
use crate::plan::{CityLayout, Package, NONE};
use crate::spec::{LayoutError, MethodSpec};

/// When a district must grow, it grows by at least this fraction of its extent.
const DISTRICT_GROWTH_FRACTION: f64 = 0.25;
/// A district grown into the space beside it ([`CityLayout::fill_districts`]) stays within
/// this aspect ratio (long side / short side).
const FILL_MAX_ASPECT: i32 = 2;

/// How an inserted method was placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// On a free plot of its class's block.
    FreePlot,
    /// Its class's block grew by a row or column into free space.
    GrewBlock,
    /// First method of its class: a new block.
    NewBlock,
    /// Its class's blocks were full and hemmed in: a new annex block of the class.
    AnnexBlock,
}

/// What [`CityLayout::insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InsertOutcome {
    /// Index of the new building in [`CityLayout::buildings`] (always the last one).
    pub building: u32,
    /// How it was placed.
    pub placement: Placement,
    /// District rectangles created (new packages, annexes).
    pub new_districts: u32,
    /// Whether the city's outer bounds changed (grew, or changed in a re-layout).
    pub city_grew: bool,
    /// Whether any district, block or building that existed before this insert changed
    /// rectangle: a block or district grown in place, or a re-layout (then anything may have
    /// moved, and district and block vectors were rebuilt). [`CityLayout::generation`] went
    /// up by one exactly when this is true.
    pub relaid_out: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dir {
    /// +Z
    Up,
    /// +X
    Right,
}

/// Whether `r` is entirely covered by the disjoint rectangles of `free`.
fn is_free(free: &[GridRect], r: &GridRect) -> bool {
    let covered: i64 = free.iter().map(|f| f.intersection(r).area()).sum();
    covered == r.area()
}

/// Removes `r` from the disjoint rectangles of `free`, splitting them as needed.
fn carve(free: &mut Vec<GridRect>, r: &GridRect) {
    let mut i = 0;
    while i < free.len() {
        let f = free[i];
        if !f.overlaps(r) {
            i += 1;
            continue;
        }
        free.swap_remove(i);
        let mid_lo = f.min_z.max(r.min_z);
        let mid_hi = f.max_z.min(r.max_z);
        let pieces = [
            GridRect::new(f.min_x, f.min_z, f.max_x, r.min_z),
            GridRect::new(f.min_x, r.max_z, f.max_x, f.max_z),
            GridRect::new(f.min_x, mid_lo, r.min_x, mid_hi),
            GridRect::new(r.max_x, mid_lo, f.max_x, mid_hi),
        ];
        for piece in pieces {
            let piece = piece.intersection(&f);
            if !piece.is_empty() {
                free.push(piece);
            }
        }
        // Pieces pushed at the end never overlap `r`; the swapped-in element at `i` is
        // examined next.
    }
}

impl CityLayout {
    /// Adds one newly defined method (see the module docs of `insert.rs` for the order of
    /// preference), creating its package districts and class block if they are new. If the
    /// city would then exceed 1.3x the area of a fresh full layout, re-lays it out (indices of
    /// buildings, classes and packages unchanged; district and block vectors rebuilt without
    /// annexes) and reports `relaid_out`. Fails only if the id is already in the city.
    pub fn insert(&mut self, method: &MethodSpec) -> Result<InsertOutcome, LayoutError> {
        if self.building_by_method.contains(method.id) {
            return Err(LayoutError::DuplicateMethodId(method.id));
        }
        let districts_before = self.districts.len();
        let (packages_before, classes_before) = (self.packages.len(), self.classes.len());
        let bounds_before = self.district_state[0].rect;
        self.existing_districts = districts_before as u32;
        self.grew_existing = false;
        let package = self.ensure_package(&method.package);
        let (block, plot, placement) =
            match self
                .class_by_name
                .get(&self.classes, package, &method.class)
            {
                Some(class) => self.take_plot(class),
                None => {
                    let class = self.new_class(package, &method.class);
                    let (block, plot) = self.new_block(class, false);
                    (block, plot, Placement::NewBlock)
                }
            };
        let building = self.push_building(&method.as_ref(), block, plot)?;
        let class = self.blocks[block as usize].class;
        self.classes[class as usize].method_count += 1;
        let mut p = Some(package);
        while let Some(q) = p {
            let pkg = &mut self.packages[q as usize];
            pkg.method_count += 1;
            p = pkg.parent;
        }
        self.refresh_block_bounds(block);
        let new_districts = (self.districts.len() - districts_before) as u32;
        self.track_insert(class, package, packages_before, classes_before);
        let root_changed = self.district_state[0].rect != bounds_before;
        if root_changed {
            // The root grew (rarely: a quarter at a time): no bare ground ahead of its contents,
            // and its districts fill what it has.
            self.trim_root();
        }
        if root_changed || self.districts.len() > districts_before {
            // Space changed hands (the root's, or a new district's): every district takes
            // what is free beside it. Districts are few (1,001 at 200k methods): 0.2 ms for
            // such an insert at 200k (examples/plate_report.rs), 1 % of inserts or fewer.
            self.fill_districts();
        }
        let relaid_out = if self.needs_relayout() {
            self.relayout();
            true
        } else {
            if self.grew_existing {
                self.generation += 1;
            }
            self.grew_existing
        };
        Ok(InsertOutcome {
            building,
            placement,
            new_districts,
            city_grew: self.district_state[0].rect != bounds_before,
            relaid_out,
        })
    }

    /// The package for `path`, creating it (and missing ancestors) if needed. New districts
    /// are sized for their first block so that the chain nests exactly.
    fn ensure_package(&mut self, path: &str) -> u32 {
        if let Some(&p) = self.package_by_path.get(path) {
            return p;
        }
        let mut ends: Vec<usize> = path.match_indices('.').map(|(i, _)| i).collect();
        ends.push(path.len());
        let mut parent = 0_u32;
        let mut first_missing = ends.len();
        for (k, &end) in ends.iter().enumerate() {
            match self.package_by_path.get(&path[..end]) {
                Some(&p) => parent = p,
                None => {
                    first_missing = k;
                    break;
                }
            }
        }
        let pad = self.config.pad();
        let street = self.config.street();
        let missing = &ends[first_missing..];
        let innermost_side = 1 + 2 * pad;
        for (i, &end) in missing.iter().enumerate() {
            let side = innermost_side + 2 * pad * (missing.len() - 1 - i) as i32;
            let (parent_part, (x, z)) = self.allocate(parent, side + street, side + street);
            let id = self.packages.len() as u32;
            let depth = self.packages[parent as usize].depth + 1;
            self.packages.push(Package {
                path: path[..end].to_owned(),
                parent: Some(parent),
                depth,
                districts: Vec::new(),
                method_count: 0,
            });
            self.package_by_path.insert(path[..end].to_owned(), id);
            let rect = GridRect::at(x, z, side, side);
            let part = self.push_district(id, parent_part, rect, Vec::new(), false);
            let content = self.content_area(part);
            self.district_state[part as usize].free.push(content);
            self.packages[id as usize].districts.push(part);
            self.refresh_district_bounds(part);
            parent = id;
        }
        parent
    }

    fn new_class(&mut self, package: u32, name: &str) -> u32 {
        let id = self.classes.len() as u32;
        self.classes.push(crate::plan::Class {
            name: name.to_owned(),
            package,
            blocks: Vec::new(),
            method_count: 0,
        });
        self.class_by_name.push(package, name, id);
        id
    }

    /// A new 1 x 1 block for `class`, placed in its package; returns the block and its plot.
    fn new_block(&mut self, class: u32, is_annex: bool) -> (u32, (i32, i32)) {
        let package = self.classes[class as usize].package;
        let street = self.config.street();
        let (part, (x, z)) = self.allocate(package, 1 + street, 1 + street);
        let block = self.push_block(class, part, GridRect::at(x, z, 1, 1), is_annex);
        self.refresh_block_bounds(block);
        (block, (x, z))
    }

    /// A plot for one more method of an existing class.
    fn take_plot(&mut self, class: u32) -> (u32, (i32, i32), Placement) {
        let parts = self.classes[class as usize].blocks.clone();
        for &b in parts.iter().rev() {
            if let Some(plot) = self.block_state[b as usize].pop_free_plot() {
                return (b, plot, Placement::FreePlot);
            }
        }
        // Grow the shorter side (blocks stay near square), into free space if possible, else
        // into space gained by growing the district; the longer side only while the block
        // stays within 2:1.
        for &b in parts.iter().rev() {
            let rect = self.block_state[b as usize].rect;
            let (short, long, long_ok) = if rect.width() <= rect.height() {
                (Dir::Right, Dir::Up, rect.height() < 2 * rect.width())
            } else {
                (Dir::Up, Dir::Right, rect.width() < 2 * rect.height())
            };
            let attempts = [
                (short, false, true),
                (long, false, long_ok),
                (short, true, true),
                (long, true, true),
            ];
            for (dir, allow_grow, wanted) in attempts {
                if wanted && self.grow_block(b, dir, allow_grow) {
                    if let Some(plot) = self.block_state[b as usize].pop_free_plot() {
                        return (b, plot, Placement::GrewBlock);
                    }
                }
            }
        }
        let (block, plot) = self.new_block(class, true);
        (block, plot, Placement::AnnexBlock)
    }

    /// Grows a block by one row (Up) or column (Right) if the strip beside it is free (or, with
    /// `allow_grow`, can be made free by growing the district).
    fn grow_block(&mut self, block: u32, dir: Dir, allow_grow: bool) -> bool {
        let street = self.config.street();
        let rect = self.block_state[block as usize].rect;
        let footprint = rect.with_trailing(street);
        let strip = match dir {
            Dir::Up => GridRect::new(
                footprint.min_x,
                footprint.max_z,
                footprint.max_x,
                footprint.max_z + 1,
            ),
            Dir::Right => GridRect::new(
                footprint.max_x,
                footprint.min_z,
                footprint.max_x + 1,
                footprint.max_z,
            ),
        };
        let district = self.blocks[block as usize].district;
        if !self.claim(district, strip, allow_grow) {
            return false;
        }
        self.grew_existing = true;
        let state = &mut self.block_state[block as usize];
        match dir {
            Dir::Up => state.grow(
                GridRect::new(rect.min_x, rect.min_z, rect.max_x, rect.max_z + 1),
                (rect.min_x..rect.max_x).map(|x| (x, rect.max_z)),
            ),
            Dir::Right => state.grow(
                GridRect::new(rect.min_x, rect.min_z, rect.max_x + 1, rect.max_z),
                (rect.min_z..rect.max_z).map(|z| (rect.max_x, z)),
            ),
        }
        let grown = state.rect;
        self.blocks[block as usize].rect = grown.to_world();
        self.refresh_block_bounds(block);
        true
    }

    /// Takes `strip` (footprint space) out of district rectangle `part`'s free space, growing
    /// the district (and its ancestors) first where the strip reaches past its content area
    /// along one axis. Returns false, changing nothing, when the space is not free.
    fn claim(&mut self, part: u32, strip: GridRect, allow_grow: bool) -> bool {
        let content = self.content_area(part);
        if strip.is_empty() || strip.min_x < content.min_x || strip.min_z < content.min_z {
            return false;
        }
        let over_x = (strip.max_x - content.max_x).max(0);
        let over_z = (strip.max_z - content.max_z).max(0);
        if (over_x > 0 && over_z > 0) || (!allow_grow && (over_x > 0 || over_z > 0)) {
            return false;
        }
        let inside = strip.intersection(&content);
        if !inside.is_empty() && !is_free(&self.district_state[part as usize].free, &inside) {
            return false;
        }
        if over_x > 0 && !self.grow_district_amortised(part, Dir::Right, over_x) {
            return false;
        }
        if over_z > 0 && !self.grow_district_amortised(part, Dir::Up, over_z) {
            return false;
        }
        carve(&mut self.district_state[part as usize].free, &strip);
        true
    }

    /// Grows a district by at least `amount`, preferably by a fraction of its size so that a
    /// district filling up method by method grows O(log n) times rather than n times (each
    /// growth leaves thin, hard-to-use strips); falls back to exactly `amount`.
    fn grow_district_amortised(&mut self, part: u32, dir: Dir, amount: i32) -> bool {
        let rect = self.district_state[part as usize].rect;
        let extent = match dir {
            Dir::Up => rect.height(),
            Dir::Right => rect.width(),
        };
        let generous = ((f64::from(extent) * DISTRICT_GROWTH_FRACTION).ceil() as i32).max(amount);
        (generous > amount && self.grow_district(part, dir, generous))
            || self.grow_district(part, dir, amount)
    }

    /// Grows a district rectangle by `amount` plots along `dir`, claiming the space from its
    /// parent (the root grows freely). The new strip of content becomes free space.
    fn grow_district(&mut self, part: u32, dir: Dir, amount: i32) -> bool {
        if amount <= 0 {
            return true;
        }
        let street = self.config.street();
        let state = &self.district_state[part as usize];
        let (rect, parent) = (state.rect, state.parent_part);
        if parent != NONE {
            let fp = rect.with_trailing(street);
            let strip = match dir {
                Dir::Up => GridRect::new(fp.min_x, fp.max_z, fp.max_x, fp.max_z + amount),
                Dir::Right => GridRect::new(fp.max_x, fp.min_z, fp.max_x + amount, fp.max_z),
            };
            if !self.claim(parent, strip, true) {
                return false;
            }
        }
        self.grew_existing |= part < self.existing_districts;
        let old = self.content_area(part);
        let state = &mut self.district_state[part as usize];
        let added = match dir {
            Dir::Up => {
                state.rect.max_z += amount;
                GridRect::new(old.min_x, old.max_z, old.max_x, old.max_z + amount)
            }
            Dir::Right => {
                state.rect.max_x += amount;
                GridRect::new(old.max_x, old.min_z, old.max_x + amount, old.max_z)
            }
        };
        if !added.is_empty() {
            state.free.push(added);
        }
        self.districts[part as usize].rect = state.rect.to_world();
        self.refresh_district_bounds(part);
        true
    }

    /// Grows every district into the free space of its parent beside it, to the right and then
    /// toward +Z, as far as that space is free, parents before children: the districts fill
    /// the gaps a shelf packing leaves (short columns, short shelves), so the city's plate is
    /// covered by districts rather than bare ground, and each grown district holds the space
    /// as free room for its later methods. Nothing moves; no parent grows.
    ///
    /// A district grows no further than where a sibling beside it starts, so every child still
    /// lies to the right of or beyond every child before it (the reading order).
    pub(crate) fn fill_districts(&mut self) {
        // Where each district's children start (growth moves no start).
        let mut starts: Vec<Vec<(i32, i32)>> = vec![Vec::new(); self.district_state.len()];
        for d in &self.district_state[1..] {
            starts[d.parent_part as usize].push((d.rect.min_x, d.rect.min_z));
        }
        for (block, state) in self.blocks.iter().zip(&self.block_state) {
            starts[block.district as usize].push((state.rect.min_x, state.rect.min_z));
        }
        let street = self.config.street();
        // Districts come after their parents (full layouts and re-layouts emit them so; a
        // district added later is placed inside an existing one).
        for part in 1..self.district_state.len() as u32 {
            let state = &self.district_state[part as usize];
            let (rect, siblings) = (state.rect, &starts[state.parent_part as usize]);
            // Not past a sibling that starts further along X beside it.
            let limit_x = siblings
                .iter()
                .filter(|&&(x, z)| z < rect.max_z && x >= rect.max_x + street)
                .map(|&(x, _)| x)
                .min()
                .unwrap_or(i32::MAX);
            // Nor so far that it stops being near square.
            let square_x = rect.min_x + FILL_MAX_ASPECT * rect.height() + street;
            let right = self.free_run(part, Dir::Right, limit_x.min(square_x));
            if right > 0 {
                self.grow_district(part, Dir::Right, right);
            }
            let state = &self.district_state[part as usize];
            let (rect, siblings) = (state.rect, &starts[state.parent_part as usize]);
            // Not past a sibling that starts further along Z under it.
            let limit_z = siblings
                .iter()
                .filter(|&&(x, z)| x < rect.max_x && z >= rect.max_z + street)
                .map(|&(_, z)| z)
                .min()
                .unwrap_or(i32::MAX);
            let square_z = rect.min_z + FILL_MAX_ASPECT * rect.width() + street;
            let up = self.free_run(part, Dir::Up, limit_z.min(square_z));
            if up > 0 {
                self.grow_district(part, Dir::Up, up);
            }
        }
    }

    /// Shrinks the root to what stands on it (its districts and blocks, with its padding): the
    /// root grows ahead of its contents (by a quarter at a time), and that room is not left as
    /// bare ground around the city. It grows again when a later method needs it.
    fn trim_root(&mut self) {
        let pad = self.config.pad();
        let root = self.district_state[0].rect;
        let side = 2 * pad - self.config.street();
        let (mut max_x, mut max_z) = (root.min_x + side, root.min_z + side);
        let children = self.district_state[1..]
            .iter()
            .filter(|d| d.parent_part == 0)
            .map(|d| d.rect)
            .chain(
                self.blocks
                    .iter()
                    .zip(&self.block_state)
                    .filter(|(b, _)| b.district == 0)
                    .map(|(_, state)| state.rect),
            );
        for r in children {
            max_x = max_x.max(r.max_x + pad);
            max_z = max_z.max(r.max_z + pad);
        }
        if (max_x, max_z) == (root.max_x, root.max_z) {
            return;
        }
        let state = &mut self.district_state[0];
        state.rect.max_x = max_x.min(root.max_x);
        state.rect.max_z = max_z.min(root.max_z);
        let content = self.content_area(0);
        let state = &mut self.district_state[0];
        state.free = state
            .free
            .iter()
            .map(|f| f.intersection(&content))
            .filter(|f| !f.is_empty())
            .collect();
        self.districts[0].rect = self.district_state[0].rect.to_world();
        self.refresh_district_bounds(0);
    }

    /// How far district rectangle `part` could grow along `dir` into its parent's free space
    /// without growing the parent, its footprint ending at most at `limit` along `dir`.
    fn free_run(&self, part: u32, dir: Dir, limit: i32) -> i32 {
        let state = &self.district_state[part as usize];
        if state.parent_part == NONE {
            return 0;
        }
        let content = self.content_area(state.parent_part);
        let free = &self.district_state[state.parent_part as usize].free;
        let fp = state.rect.with_trailing(self.config.street());
        let strip = |k: i32| match dir {
            Dir::Up => GridRect::new(fp.min_x, fp.max_z, fp.max_x, fp.max_z + k),
            Dir::Right => GridRect::new(fp.max_x, fp.min_z, fp.max_x + k, fp.max_z),
        };
        let (mut lo, mut hi) = (
            0,
            match dir {
                Dir::Up => content.max_z.min(limit) - fp.max_z,
                Dir::Right => content.max_x.min(limit) - fp.max_x,
            },
        );
        // Freeness shrinks as the strip grows: the largest free strip by bisection.
        while lo < hi {
            let mid = lo + (hi - lo + 1) / 2;
            if is_free(free, &strip(mid)) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }

    /// Finds room for a footprint of `fw` x `fh` plots in `package`: best fit in free space,
    /// else by growing one of its districts, else in a new annex district. Returns the
    /// district rectangle and the footprint's origin corner. Never fails: the root grows.
    fn allocate(&mut self, package: u32, fw: i32, fh: i32) -> (u32, (i32, i32)) {
        let parts = self.packages[package as usize].districts.clone();
        // 1. Best fit (least waste, then lowest, then leftmost).
        let mut best: Option<((i64, i32, i32), u32, GridRect)> = None;
        for &part in &parts {
            for f in &self.district_state[part as usize].free {
                if f.width() >= fw && f.height() >= fh {
                    let key = (f.area() - i64::from(fw) * i64::from(fh), f.min_z, f.min_x);
                    if best.is_none_or(|(k, _, _)| key < k) {
                        best = Some((key, part, *f));
                    }
                }
            }
        }
        if let Some((_, part, f)) = best {
            let rect = GridRect::at(f.min_x, f.min_z, fw, fh);
            carve(&mut self.district_state[part as usize].free, &rect);
            return (part, (f.min_x, f.min_z));
        }
        // 2. Grow a district of the package, trying the placements that need least growth.
        for &part in &parts {
            for candidate in self.growth_candidates(part, fw, fh) {
                if self.claim(part, candidate, true) {
                    return (part, (candidate.min_x, candidate.min_z));
                }
            }
            let content = self.content_area(part);
            if content.width() < fw
                && content.height() < fh
                && self.grow_district(part, Dir::Right, fw - content.width())
            {
                let content = self.content_area(part);
                let candidate = GridRect::at(content.min_x, content.max_z, fw, fh);
                if self.claim(part, candidate, true) {
                    return (part, (candidate.min_x, candidate.min_z));
                }
            }
        }
        // 3. An annex district in the parent package.
        let Some(parent) = self.packages[package as usize].parent else {
            // The root always grows in step 2; keep going rather than panic.
            let content = self.content_area(0);
            let candidate = GridRect::at(content.max_x, content.min_z, fw, fh);
            let _ = self.grow_district(0, Dir::Right, fw);
            let _ = self.grow_district(0, Dir::Up, (fh - content.height()).max(0));
            carve(&mut self.district_state[0].free, &candidate);
            return (0, (candidate.min_x, candidate.min_z));
        };
        let pad = self.config.pad();
        let street = self.config.street();
        let (dw, dh) = (fw + 2 * pad - street, fh + 2 * pad - street);
        let (parent_part, (x, z)) = self.allocate(parent, dw + street, dh + street);
        let part = self.push_district(
            package,
            parent_part,
            GridRect::at(x, z, dw, dh),
            Vec::new(),
            true,
        );
        self.packages[package as usize].districts.push(part);
        let content = self.content_area(part);
        let item = GridRect::at(content.min_x, content.min_z, fw, fh);
        let state = &mut self.district_state[part as usize];
        state.free.push(content);
        carve(&mut state.free, &item);
        self.refresh_district_bounds(part);
        (part, (item.min_x, item.min_z))
    }

    /// Places for an `fw` x `fh` footprint that reach past `part`'s content area by as little
    /// as possible, cheapest (added area) first.
    fn growth_candidates(&self, part: u32, fw: i32, fh: i32) -> Vec<GridRect> {
        let content = self.content_area(part);
        let (cw, ch) = (content.width(), content.height());
        let mut out: Vec<(i64, GridRect)> = Vec::new();
        if cw >= fw {
            out.push((
                i64::from(fh) * i64::from(cw),
                GridRect::at(content.min_x, content.max_z, fw, fh),
            ));
        }
        if ch >= fh {
            out.push((
                i64::from(fw) * i64::from(ch),
                GridRect::at(content.max_x, content.min_z, fw, fh),
            ));
        }
        for f in &self.district_state[part as usize].free {
            if f.max_z == content.max_z && f.width() >= fw && f.height() < fh {
                let grow = fh - f.height();
                out.push((
                    i64::from(grow) * i64::from(cw),
                    GridRect::at(f.min_x, f.min_z, fw, fh),
                ));
            }
            if f.max_x == content.max_x && f.height() >= fh && f.width() < fw {
                let grow = fw - f.width();
                out.push((
                    i64::from(grow) * i64::from(ch),
                    GridRect::at(f.min_x, f.min_z, fw, fh),
                ));
            }
        }
        // Grow the shorter side first (growing the cheaper side would feed back into a strip),
        // then prefer little added area.
        let rect = self.district_state[part as usize].rect;
        let wide = rect.width() > rect.height();
        out.sort_by_key(|(cost, r)| {
            let goes_up = r.max_z > content.max_z;
            (goes_up != wide, *cost, r.min_z, r.min_x)
        });
        out.into_iter().map(|(_, r)| r).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carve_leaves_disjoint_cover_of_the_rest() {
        let mut free = vec![GridRect::new(0, 0, 10, 10), GridRect::new(10, 0, 12, 4)];
        let cut = GridRect::new(3, 2, 11, 5);
        carve(&mut free, &cut);
        let total: i64 = free.iter().map(GridRect::area).sum();
        // 108 free cells, 23 of them under the cut.
        assert_eq!(total, 85);
        for (i, a) in free.iter().enumerate() {
            assert!(!a.overlaps(&cut));
            for b in &free[i + 1..] {
                assert!(!a.overlaps(b));
            }
        }
        assert!(is_free(&free, &GridRect::new(0, 0, 3, 10)));
        assert!(!is_free(&free, &GridRect::new(2, 2, 4, 3)));
    }
}
