//! Keeping a lazily grown city tidy: the ideal footprint, tracked per insert, and the
//! anchored re-layout that runs when the city outgrows it.
//!
//! [`Tracker`] keeps, per package, its children in [`CityLayout::full`]'s order (most methods
//! first, ties by name, classes before packages) and the shapes `full` would find for its
//! district ([`crate::pack::shapes`]), so the area of a fresh full layout of the city's
//! methods is known exactly after every insert. Only the packages on the inserted method's
//! path are re-sorted (a stable sort of an almost sorted list) and re-packed (only when their
//! sequence of child footprints changed).
//!
//! When an insert leaves the city larger than [`MAX_AREA_RATIO`] times that ideal area, the
//! whole city is re-laid out with anchors: every district packs its children in the order of
//! the previous layout with later arrivals appended, and every block holds its buildings in
//! their previous reading order with new ones after them. A district falls back to `full`'s
//! order where the anchored order packs more than [`ANCHOR_SLACK`] worse, and the whole city
//! falls back to `full`'s geometry exactly when the anchored result is still more than
//! [`ANCHORED_MAX_RATIO`] times the ideal area. Building, class and package indices never
//! change; district and block rectangles are rebuilt (one per package and class: annexes go).

use crate::full_layout::block_dims;
use crate::geom::GridRect;
use crate::hit::HitIndex;
use crate::pack::{self, ChildFootprints, Packed, Shape};
use crate::plan::{BlockState, CityLayout, District, DistrictState, NONE};

/// An insert that leaves the city's area above this multiple of a fresh full layout's area
/// triggers a re-layout (as a fraction num / den, compared exactly on integer areas).
pub(crate) const MAX_AREA_RATIO: (i64, i64) = (13, 10);
/// An anchored re-layout is kept only while its area is at most this multiple of the ideal.
const ANCHORED_MAX_RATIO: (i64, i64) = (11, 10);
/// A district packs its children in anchored order only while that is at most this much
/// larger (area) than packing them in full's order.
const ANCHOR_SLACK: (i64, i64) = (21, 20);

/// A child of a package: a sub-package or a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Item {
    Package(u32),
    Class(u32),
}

/// Per-package bookkeeping for the ideal footprint and the anchored order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tracker {
    /// Per package: children in full's order.
    sorted: Vec<Vec<Item>>,
    /// Per package: the footprints of `sorted` when its shapes were last packed.
    packed_seq: Vec<ChildFootprints>,
    /// Per package: the shapes a full layout would find for it ([`pack::shapes`]).
    ideal: Vec<Vec<Shape>>,
    /// Per package: children in the order of the last layout, later arrivals appended.
    anchor: Vec<Vec<Item>>,
}

impl Tracker {
    /// A tracker for a city whose packages' children stand in full's order `sorted` with
    /// shapes `ideal` (what the full layout computed, so nothing is sorted or packed here).
    /// Their footprints are not known yet, so each package is re-packed on its first change.
    pub(crate) fn new(sorted: Vec<Vec<Item>>, ideal: Vec<Vec<Shape>>) -> Self {
        Tracker {
            anchor: sorted.clone(),
            packed_seq: vec![ChildFootprints::default(); sorted.len()],
            sorted,
            ideal,
        }
    }
}

impl CityLayout {
    /// The child order key of full: most methods first, then name, classes before packages.
    fn item_key(&self, item: Item) -> (std::cmp::Reverse<u32>, &str, u8) {
        match item {
            Item::Package(p) => {
                let pkg = &self.packages[p as usize];
                (std::cmp::Reverse(pkg.method_count), pkg.name(), 1)
            }
            Item::Class(c) => {
                let class = &self.classes[c as usize];
                (std::cmp::Reverse(class.method_count), &class.name, 0)
            }
        }
    }

    /// Builds the tracker from the city as it stands (a full layout or an empty city, whose
    /// children already stand in full's order).
    fn new_tracker(&self) -> Tracker {
        let n = self.packages.len();
        let mut sorted: Vec<Vec<Item>> = vec![Vec::new(); n];
        for (c, class) in self.classes.iter().enumerate() {
            sorted[class.package as usize].push(Item::Class(c as u32));
        }
        for (p, pkg) in self.packages.iter().enumerate().skip(1) {
            if let Some(parent) = pkg.parent {
                sorted[parent as usize].push(Item::Package(p as u32));
            }
        }
        for items in &mut sorted {
            items.sort_by(|a, b| self.item_key(*a).cmp(&self.item_key(*b)));
        }
        let mut tracker = Tracker {
            anchor: sorted.clone(),
            sorted,
            packed_seq: vec![ChildFootprints::default(); n],
            ideal: vec![Vec::new(); n],
        };
        // Parents are created before their children, so children have larger indices.
        for p in (0..n).rev() {
            self.repack_ideal(&mut tracker, p as u32, true);
        }
        tracker
    }

    /// Adds to `out` the footprints (plots, street included) a child can take: a
    /// sub-package's district in one of `package_shapes`, or a class's block as `full` sizes
    /// it.
    fn push_footprints<'a>(
        &self,
        out: &mut ChildFootprints,
        item: Item,
        package_shapes: impl Fn(u32) -> &'a [Shape],
    ) {
        let street = self.config.street();
        match item {
            Item::Package(p) => {
                out.push(pack::district_footprints(
                    package_shapes(p),
                    self.config.pad(),
                ));
            }
            Item::Class(c) => {
                let (w, h) = block_dims(
                    self.classes[c as usize].method_count,
                    self.config.block_reserve_fraction,
                );
                out.push([(w + street, h + street)]);
            }
        }
    }

    /// The footprints of `items`, sub-packages in `shapes`.
    fn footprints_of(&self, items: &[Item], shapes: &[Vec<Shape>]) -> ChildFootprints {
        let mut out = ChildFootprints::default();
        for &item in items {
            self.push_footprints(&mut out, item, |p| &shapes[p as usize]);
        }
        out
    }

    /// Recomputes package `p`'s ideal shapes if its children's footprints changed (or `force`).
    fn repack_ideal(&self, tracker: &mut Tracker, p: u32, force: bool) {
        let seq = self.footprints_of(&tracker.sorted[p as usize], &tracker.ideal);
        if !force && seq == tracker.packed_seq[p as usize] {
            return;
        }
        tracker.ideal[p as usize] = pack::shapes(&seq.children());
        tracker.packed_seq[p as usize] = seq;
    }

    fn district_size(&self, content_w: i32, content_h: i32) -> (i32, i32) {
        let edge = 2 * self.config.pad() - self.config.street();
        (content_w + edge, content_h + edge)
    }

    /// The area (plots) of a district in the best of `shapes` (the root's).
    fn best_area(&self, shapes: &[Shape]) -> i64 {
        let shape = pack::best(shapes);
        let (w, h) = self.district_size(shape.width, shape.height);
        i64::from(w) * i64::from(h)
    }

    /// Brings the tracker up to date after an insert into `class` of `package` that created
    /// packages `new_packages_from..` and classes `new_classes_from..`.
    pub(crate) fn track_insert(
        &mut self,
        class: u32,
        package: u32,
        new_packages_from: usize,
        new_classes_from: usize,
    ) {
        let Some(mut tracker) = self.tracker.take() else {
            self.tracker = Some(Box::new(self.new_tracker()));
            return;
        };
        for p in new_packages_from..self.packages.len() {
            tracker.sorted.push(Vec::new());
            tracker.anchor.push(Vec::new());
            tracker.packed_seq.push(ChildFootprints::default());
            tracker.ideal.push(Vec::new());
            if let Some(parent) = self.packages[p].parent {
                tracker.sorted[parent as usize].push(Item::Package(p as u32));
                tracker.anchor[parent as usize].push(Item::Package(p as u32));
            }
        }
        for c in new_classes_from..self.classes.len() {
            let owner = self.classes[c].package as usize;
            tracker.sorted[owner].push(Item::Class(c as u32));
            tracker.anchor[owner].push(Item::Class(c as u32));
        }
        // Only the child on the inserted method's path changed at each level: its count went
        // up (it can only move forward in full's order) and its footprint may have grown.
        let mut child = Item::Class(class);
        let mut p = Some(package);
        while let Some(q) = p {
            let items = &mut tracker.sorted[q as usize];
            let Some(mut at) = items.iter().position(|&i| i == child) else {
                // Not expected; fall back to a full re-sort.
                items.sort_by(|a, b| self.item_key(*a).cmp(&self.item_key(*b)));
                self.repack_ideal(&mut tracker, q, true);
                child = Item::Package(q);
                p = self.packages[q as usize].parent;
                continue;
            };
            let moved = at > 0 && self.item_key(items[at - 1]) > self.item_key(child);
            while at > 0 && self.item_key(items[at - 1]) > self.item_key(child) {
                items.swap(at - 1, at);
                at -= 1;
            }
            let mut footprint = ChildFootprints::default();
            self.push_footprints(&mut footprint, child, |p| &tracker.ideal[p as usize]);
            let same = !moved && tracker.packed_seq[q as usize].get(at) == footprint.get(0);
            if !same {
                self.repack_ideal(&mut tracker, q, false);
            }
            child = Item::Package(q);
            p = self.packages[q as usize].parent;
        }
        self.tracker = Some(tracker);
    }

    /// Area (plots) of a fresh full layout of the city's methods, as tracked.
    pub(crate) fn ideal_area(&self) -> i64 {
        match &self.tracker {
            Some(t) => self.best_area(&t.ideal[0]),
            None => self.district_state[0].rect.area(),
        }
    }

    /// Whether the city is larger than [`MAX_AREA_RATIO`] times the ideal.
    pub(crate) fn needs_relayout(&self) -> bool {
        let (num, den) = MAX_AREA_RATIO;
        self.district_state[0].rect.area() * den > self.ideal_area() * num
    }

    /// Re-lays the city out (see the module docs); bumps the generation.
    pub(crate) fn relayout(&mut self) {
        if self.tracker.is_none() {
            self.tracker = Some(Box::new(self.new_tracker()));
        }
        let Some(mut tracker) = self.tracker.take() else {
            return;
        };
        let mut plan = self.plan(&tracker, true);
        let (num, den) = ANCHORED_MAX_RATIO;
        let (w, h) = plan.size[0];
        if i64::from(w) * i64::from(h) * den > self.best_area(&tracker.ideal[0]) * num {
            plan = self.plan(&tracker, false);
        }
        self.apply(&plan);
        self.fill_districts();
        tracker.anchor = plan.order;
        self.tracker = Some(tracker);
    }

    /// Sizes and packings of every package, children in anchored order (falling back per
    /// district) or in full's order: every package's shapes bottom-up, then each district's
    /// shape and packing top-down, as in a full layout.
    fn plan(&self, tracker: &Tracker, anchored: bool) -> Plan {
        let n = self.packages.len();
        let mut order: Vec<Vec<Item>> = vec![Vec::new(); n];
        let mut shapes: Vec<Vec<Shape>> = vec![Vec::new(); n];
        // Per package, its children's footprints in `order` (the top-down pass packs them).
        let mut seqs: Vec<ChildFootprints> = vec![ChildFootprints::default(); n];
        for p in (0..n).rev() {
            let sorted = &tracker.sorted[p];
            let mut items = if anchored {
                tracker.anchor[p].clone()
            } else {
                sorted.clone()
            };
            let mut seq = self.footprints_of(&items, &shapes);
            let mut found = pack::shapes(&seq.children());
            if anchored && items != *sorted {
                let sorted_seq = self.footprints_of(sorted, &shapes);
                let sorted_found = pack::shapes(&sorted_seq.children());
                let (num, den) = ANCHOR_SLACK;
                if self.best_area(&found) * den > self.best_area(&sorted_found) * num {
                    items = sorted.clone();
                    seq = sorted_seq;
                    found = sorted_found;
                }
            }
            shapes[p] = found;
            seqs[p] = seq;
            order[p] = items;
        }
        let mut plan = Plan {
            size: vec![(0, 0); n],
            packed: vec![Packed::default(); n],
            order,
        };
        let mut chosen = vec![Shape::default(); n];
        chosen[0] = pack::best(&shapes[0]);
        // Parents are created before their children, so children have larger indices.
        for p in 0..n {
            let packed = pack::place(&seqs[p].children(), chosen[p].trial);
            for (&item, &option) in plan.order[p].iter().zip(&packed.chosen) {
                if let Item::Package(s) = item {
                    chosen[s as usize] = shapes[s as usize]
                        .get(usize::from(option))
                        .copied()
                        .unwrap_or_default();
                }
            }
            plan.size[p] = self.district_size(packed.width, packed.height);
            plan.packed[p] = packed;
        }
        plan
    }

    /// Moves every district, block and building to its place in `plan`.
    fn apply(&mut self, plan: &Plan) {
        let pad = self.config.pad();
        // Buildings of each class in their current reading order: main block first, then
        // annexes, row-major within each.
        let mut class_start = Vec::with_capacity(self.classes.len() + 1);
        let mut members: Vec<u32> = Vec::with_capacity(self.buildings.len());
        for class in &self.classes {
            class_start.push(members.len());
            for &b in &class.blocks {
                let state = &self.block_state[b as usize];
                let area = state.rect.area().max(0) as u32;
                members.extend(
                    (0..area)
                        .map(|cell| state.building_at(cell))
                        .filter(|&i| i != NONE),
                );
            }
        }
        class_start.push(members.len());

        let mut districts = Vec::with_capacity(self.packages.len());
        let mut district_state = Vec::with_capacity(self.packages.len());
        let mut blocks = Vec::with_capacity(self.classes.len());
        let mut block_state = Vec::with_capacity(self.classes.len());
        // Pre-order walk: (package, origin corner, parent district).
        let mut stack: Vec<(u32, (i32, i32), u32)> = vec![(0, (0, 0), NONE)];
        while let Some((p, (x0, z0), parent_part)) = stack.pop() {
            let (w, h) = plan.size[p as usize];
            let rect = GridRect::at(x0, z0, w, h);
            let part = districts.len() as u32;
            let depth = self.packages[p as usize].depth;
            districts.push(District {
                package: p,
                parent: (parent_part != NONE).then_some(parent_part),
                depth,
                rect: rect.to_world(),
                base_height_wu: self.config.district_base_wu(depth),
                top_height_wu: self.config.district_base_wu(depth) + self.config.district_slab_wu,
                is_annex: false,
            });
            let (cx, cz) = (x0 + pad, z0 + pad);
            let packed = &plan.packed[p as usize];
            district_state.push(DistrictState {
                rect,
                parent_part,
                free: packed.free.iter().map(|f| f.translated(cx, cz)).collect(),
            });
            self.packages[p as usize].districts = vec![part];
            let order = &plan.order[p as usize];
            for (&item, &(x, z)) in order.iter().zip(&packed.positions) {
                let Item::Class(c) = item else { continue };
                let class = &mut self.classes[c as usize];
                let (bw, bh) = block_dims(class.method_count, self.config.block_reserve_fraction);
                let block_rect = GridRect::at(cx + x, cz + z, bw, bh);
                let block = blocks.len() as u32;
                class.blocks = vec![block];
                let list = &members[class_start[c as usize]..class_start[c as usize + 1]];
                blocks.push(crate::plan::Block {
                    class: c,
                    district: part,
                    rect: block_rect.to_world(),
                    base_height_wu: self.config.block_base_wu(depth),
                    top_height_wu: self.config.building_base_wu(depth),
                    is_annex: false,
                });
                let mut state = BlockState::holding(block_rect, list);
                let top = self.config.building_base_wu(depth);
                for (k, &i) in list.iter().enumerate() {
                    let (px, pz) = (
                        block_rect.min_x + k as i32 % bw,
                        block_rect.min_z + k as i32 / bw,
                    );
                    let plot = GridRect::at(px, pz, 1, 1).to_world();
                    let building = &mut self.buildings[i as usize];
                    building.block = block;
                    building.plot = plot;
                    building.footprint = plot.shrunk(self.config.building_inset_wu);
                    building.base_height_wu = top;
                    state.max_height_wu = state.max_height_wu.max(self.heights_wu[i as usize]);
                }
                block_state.push(state);
            }
            // Sub-districts, pushed in reverse so they are visited in order.
            for (&item, &(x, z)) in order.iter().zip(&packed.positions).rev() {
                if let Item::Package(s) = item {
                    stack.push((s, (cx + x, cz + z), part));
                }
            }
        }
        self.districts = districts;
        self.district_state = district_state;
        self.blocks = blocks;
        self.block_state = block_state;
        self.hit = HitIndex::build(self);
        self.generation += 1;
        self.relayouts += 1;
    }
}

/// A re-layout's geometry: per package its children's order, district size and packing.
struct Plan {
    order: Vec<Vec<Item>>,
    size: Vec<(i32, i32)>,
    packed: Vec<Packed>,
}

#[cfg(test)]
mod tests {
    use crate::spec::LayoutConfig;
    use crate::synthetic::{synthetic_methods, SplitMix64, SyntheticShape};
    use crate::CityLayout;

    #[test]
    fn tracked_ideal_area_is_the_area_of_a_fresh_full_layout() {
        let mut methods = synthetic_methods(&SyntheticShape {
            methods: 1_500,
            classes: 90,
            packages: 12,
            max_depth: 4,
            seed: 9,
        });
        let mut rng = SplitMix64::new(4);
        for i in (1..methods.len()).rev() {
            methods.swap(i, rng.below(i as u32 + 1) as usize);
        }
        // From empty and from a full layout of a prefix.
        for cut in [0, 700] {
            let mut city = if cut == 0 {
                CityLayout::empty(&LayoutConfig::default())
            } else {
                CityLayout::full(&methods[..cut]).expect("layout")
            };
            for k in cut..methods.len() {
                city.insert(&methods[k]).expect("insert");
                if k % 7 == 0 || k + 1 == methods.len() {
                    let fresh = CityLayout::full(&methods[..=k]).expect("layout");
                    assert_eq!(
                        city.ideal_area(),
                        fresh.district_state[0].rect.area(),
                        "after {} methods",
                        k + 1
                    );
                }
            }
        }
    }
}
