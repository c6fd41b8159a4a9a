//! The full layout: group methods into classes and packages, order everything by the paper's
//! rules, pack bottom-up, place top-down, and emit the city in a canonical order (so the
//! output depends only on the set of methods).
//!
//! Speed (200k methods in ~15 ms on one core): the input specs and their scattered strings are
//! read exactly once, in one pass that copies the names into the city's name arena and makes
//! a 16-byte sort entry per method; class names are copied and hashed while in cache. Classes
//! arrive grouped in the usual input, so the entries need no regrouping. Each class is sorted
//! on `u64` name-prefix keys (the full comparison only breaks prefix ties), the packing works
//! on ~11k rectangles, and the emit loop reads the sorted entries only. Per block nothing is
//! allocated for plots ([`BlockState`] keeps a fresh block's plot map implicit).

use crate::bytes;
use crate::fxhash::{map_with_capacity, FxHashMap};
use crate::geom::GridRect;
use crate::hit::HitIndex;
use crate::idmap::IdMap;
use crate::pack::{self, Footprint, Packed, Shape};
use crate::plan::{
    Block, BlockState, Building, CityLayout, Class, ClassIndex, District, DistrictState, NameArena,
    Package, NONE,
};
use crate::relayout::{Item as TrackedItem, Tracker};
use crate::spec::{LayoutConfig, LayoutError, MethodLike, MethodRef};

struct TmpPackage<'a> {
    path: &'a str,
    name: &'a str,
    parent: u32,
    subs: Vec<u32>,
    classes: Vec<u32>,
    count: u32,
}

struct TmpClass {
    package: u32,
    /// Copied while the input's string is in cache; moved into the city at the end.
    name: String,
    name_hash: u64,
    count: u32,
}

#[derive(Clone, Copy)]
enum Item {
    Package(u32),
    Class(u32),
}

/// Width and height (plots) of a block holding `methods` methods plus the configured reserve:
/// the smallest near-square grid, never taller than wide.
pub(crate) fn block_dims(methods: u32, reserve_fraction: f32) -> (i32, i32) {
    let reserve = (f64::from(methods) * f64::from(reserve_fraction.max(0.0))).ceil();
    let capacity = (f64::from(methods.max(1)) + reserve).min(f64::from(i32::MAX / 4)) as i64;
    let mut w = (capacity as f64).sqrt() as i64;
    while w * w < capacity {
        w += 1;
    }
    let h = (capacity + w - 1) / w;
    (w as i32, h as i32)
}

/// One method on its way to a building: its sort key and everything the emit loop needs, so
/// that sorting and emitting never go back to the (large, scattered) input specs.
const EMPTY_ENTRY: Entry = Entry {
    prefix: 0,
    id: 0,
    start: 0,
};

#[derive(Clone, Copy)]
struct Entry {
    /// The first 8 bytes of the method name, big-endian, zero-padded: ordered like the names
    /// themselves up to ties, which spares most string comparisons.
    prefix: u64,
    id: u32,
    /// Offset of the names' record in the arena.
    start: u32,
}

/// The order of methods within a block: name, then signature (none first), then id.
#[inline]
fn entry_order(names: &NameArena, a: &Entry, b: &Entry) -> std::cmp::Ordering {
    a.prefix.cmp(&b.prefix).then_with(|| {
        let ((na, sa), (nb, sb)) = (names.record(a.start), names.record(b.start));
        bytes::cmp(na, nb)
            .then_with(|| match (sa, sb) {
                (Some(sa), Some(sb)) => bytes::cmp(sa, sb),
                _ => sa.is_some().cmp(&sb.is_some()),
            })
            .then_with(|| a.id.cmp(&b.id))
    })
}

/// Sorts one class's entries by [`entry_order`]. Most of the work is sorting plain `u64`s
/// (the standard library sorts those with branch-free sorting networks): the high bits hold
/// the start of the name, the low bits the entry's position. Runs of equal name starts are
/// then put in order by the full comparison, and the entries moved into place.
#[derive(Default)]
struct Sorter {
    keys: Vec<u64>,
    copy: Vec<Entry>,
}

impl Sorter {
    fn sort(&mut self, names: &NameArena, entries: &mut [Entry]) {
        let n = entries.len();
        let bits = match n {
            0 | 1 => return,
            2..=0x100 => 8,
            0x101..=0x1_0000 => 16,
            _ => {
                entries.sort_unstable_by(|a, b| entry_order(names, a, b));
                return;
            }
        };
        let low = (1_u64 << bits) - 1;
        self.keys.clear();
        self.keys.extend(
            entries
                .iter()
                .enumerate()
                .map(|(i, e)| (e.prefix & !low) | i as u64),
        );
        self.keys.sort_unstable();
        let mut k = 0;
        while k < n {
            let high = self.keys[k] & !low;
            let mut end = k + 1;
            while end < n && self.keys[end] & !low == high {
                end += 1;
            }
            if end - k > 1 {
                self.keys[k..end].sort_unstable_by(|&a, &b| {
                    entry_order(
                        names,
                        &entries[(a & low) as usize],
                        &entries[(b & low) as usize],
                    )
                });
            }
            k = end;
        }
        self.copy.clear();
        self.copy.extend_from_slice(entries);
        for (slot, &key) in entries.iter_mut().zip(&self.keys) {
            *slot = self.copy[(key & low) as usize];
        }
    }
}

/// String equality that skips reading the bytes when both are the same allocation (callers
/// often share one package or class string among many methods).
#[inline]
fn same_str(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && (std::ptr::eq(a.as_ptr(), b.as_ptr()) || bytes::eq(a.as_bytes(), b.as_bytes()))
}

/// Lays out `methods` from scratch.
pub(crate) fn build<M: MethodLike>(
    methods: &[M],
    config: &LayoutConfig,
) -> Result<CityLayout, LayoutError> {
    let mut input = Grouped::read(methods);
    let class_start = input.gather_classes();
    input.sort_classes(&class_start);
    input.count_package_methods();
    let items = order_children(&input.packages, &input.classes);
    let order = package_preorder(&items);
    let sizes = measure(&input.classes, &items, &order, config);
    let origins = place(&items, &order, &sizes, config.pad());
    emit(
        input,
        &class_start,
        &items,
        &order,
        &sizes,
        &origins,
        config,
    )
}

/// The input grouped into classes and packages (ids follow input order; [`emit`] renumbers
/// them canonically), the names in the arena and one sort entry per method.
struct Grouped<'a> {
    packages: Vec<TmpPackage<'a>>,
    classes: Vec<TmpClass>,
    /// Runs of consecutive methods of one class: (class, first entry). Input usually arrives
    /// class by class, so there is one run per class and the entries are already grouped.
    runs: Vec<(u32, u32)>,
    /// Every class is one run: the entries are already grouped by class.
    grouped: bool,
    names: NameArena,
    entries: Vec<Entry>,
    max_id: Option<u32>,
}

impl<'a> Grouped<'a> {
    /// Step 1. One pass over the input: group methods into classes and packages (ids here
    /// follow input order; they are renumbered canonically by [`emit`]), copy the names into
    /// the arena and make each method's sort entry. The specs are read only here.
    fn read<M: MethodLike>(methods: &'a [M]) -> Self {
        let mut packages = vec![TmpPackage {
            path: "",
            name: "",
            parent: NONE,
            subs: Vec::new(),
            classes: Vec::new(),
            count: 0,
        }];
        let mut package_map: FxHashMap<&str, u32> = map_with_capacity(1024);
        package_map.insert("", 0);
        let mut classes: Vec<TmpClass> = Vec::new();
        let mut class_map: FxHashMap<(u32, &str), u32> = map_with_capacity(methods.len() / 8 + 16);
        let mut runs: Vec<(u32, u32)> = Vec::with_capacity(methods.len() / 8 + 16);
        let mut grouped = true;
        let mut names = NameArena {
            bytes: Vec::with_capacity(methods.len() * 14),
            starts: Vec::new(),
        };
        let mut entries: Vec<Entry> = Vec::with_capacity(methods.len());
        let mut max_id: Option<u32> = None;
        let mut previous: Option<(&str, &str)> = None;
        let mut class = NONE;
        for m in methods {
            let m = m.view();
            max_id = max_id.max(Some(m.id));
            let start = names.append(m.method, m.signature);
            entries.push(Entry {
                prefix: bytes::prefix(m.method.as_bytes()),
                id: m.id,
                start,
            });
            if let Some((package, class_name)) = previous {
                if same_str(class_name, m.class) && same_str(package, m.package) {
                    continue;
                }
            }
            // A new run: close the previous one.
            if class != NONE {
                classes[class as usize].count += entries.len() as u32 - 1 - runs[runs.len() - 1].1;
            }
            let package = match package_map.get(m.package) {
                Some(&p) => p,
                None => intern_package(m.package, &mut packages, &mut package_map),
            };
            class = *class_map.entry((package, m.class)).or_insert_with(|| {
                let id = classes.len() as u32;
                classes.push(TmpClass {
                    package,
                    name: m.class.to_owned(),
                    name_hash: ClassIndex::name_hash(m.class),
                    count: 0,
                });
                packages[package as usize].classes.push(id);
                id
            });
            grouped &= classes[class as usize].count == 0;
            runs.push((class, entries.len() as u32 - 1));
            previous = Some((m.package, m.class));
        }
        if class != NONE {
            classes[class as usize].count += entries.len() as u32 - runs[runs.len() - 1].1;
        }
        Self {
            packages,
            classes,
            runs,
            grouped,
            names,
            entries,
            max_id,
        }
    }

    /// Step 2a. The methods of each class together: returns `class_start`, class `c`'s
    /// entries being `class_start[c]..class_start[c + 1]`. The runs are used up.
    fn gather_classes(&mut self) -> Vec<u32> {
        let runs = std::mem::take(&mut self.runs);
        let classes = &self.classes;
        let mut class_start = vec![0_u32; classes.len() + 1];
        if self.grouped {
            for &(c, first) in &runs {
                class_start[c as usize] = first;
            }
            class_start[classes.len()] = self.entries.len() as u32;
        } else {
            // Counting sort of the runs by class (stable; the order within a class does not
            // matter since the sort below is total).
            for (c, class) in classes.iter().enumerate() {
                class_start[c + 1] = class_start[c] + class.count;
            }
            let entries = &self.entries;
            let mut fill = class_start.clone();
            let mut by_class = Vec::with_capacity(entries.len());
            by_class.resize(
                entries.len(),
                entries.first().copied().unwrap_or(EMPTY_ENTRY),
            );
            for (k, &(c, first)) in runs.iter().enumerate() {
                let end = runs.get(k + 1).map_or(entries.len() as u32, |r| r.1);
                let run = &entries[first as usize..end as usize];
                let at = fill[c as usize] as usize;
                by_class[at..at + run.len()].copy_from_slice(run);
                fill[c as usize] += run.len() as u32;
            }
            self.entries = by_class;
        }
        drop(runs);
        class_start
    }

    /// Step 2b. Each class's methods sorted by name, signature, id.
    fn sort_classes(&mut self, class_start: &[u32]) {
        let mut sorter = Sorter::default();
        for (c, class) in self.classes.iter().enumerate() {
            let from = class_start[c] as usize;
            sorter.sort(
                &self.names,
                &mut self.entries[from..from + class.count as usize],
            );
        }
    }

    /// Step 3. Method counts per package (parents were created before their children).
    fn count_package_methods(&mut self) {
        let packages = &mut self.packages;
        for class in &self.classes {
            packages[class.package as usize].count += class.count;
        }
        for p in (1..packages.len()).rev() {
            let (count, parent) = (packages[p].count, packages[p].parent);
            packages[parent as usize].count += count;
        }
    }
}

/// Step 4. Each package's children in the paper's order: most methods first, ties by name.
fn order_children(packages: &[TmpPackage<'_>], classes: &[TmpClass]) -> Vec<Vec<Item>> {
    let key = |item: &Item| -> (u32, &str, u8) {
        match *item {
            Item::Package(p) => (packages[p as usize].count, packages[p as usize].name, 1),
            Item::Class(c) => (classes[c as usize].count, &classes[c as usize].name, 0),
        }
    };
    packages
        .iter()
        .map(|p| {
            let mut items: Vec<Item> = p
                .classes
                .iter()
                .map(|&c| Item::Class(c))
                .chain(p.subs.iter().map(|&s| Item::Package(s)))
                .collect();
            items.sort_unstable_by(|a, b| {
                let (ca, na, ka) = key(a);
                let (cb, nb, kb) = key(b);
                cb.cmp(&ca)
                    .then_with(|| na.cmp(nb))
                    .then_with(|| ka.cmp(&kb))
            });
            items
        })
        .collect()
}

/// Step 5. Canonical pre-order of packages (`items`: each package's ordered children).
fn package_preorder(items: &[Vec<Item>]) -> Vec<u32> {
    let mut order: Vec<u32> = Vec::with_capacity(items.len());
    let mut stack = vec![0_u32];
    while let Some(p) = stack.pop() {
        order.push(p);
        for item in items[p as usize].iter().rev() {
            if let Item::Package(s) = *item {
                stack.push(s);
            }
        }
    }
    order
}

/// Sizes (plots) of every block and district, and each package's packing of its children.
struct Sizes {
    blocks: Vec<(i32, i32)>,
    /// Per package, the ways its children can be packed ([`pack::shapes`]).
    shapes: Vec<Vec<Shape>>,
    districts: Vec<(i32, i32)>,
    packed: Vec<Packed>,
}

/// Step 6. Sizes: every package's shapes bottom-up, then each district's shape and packing
/// top-down (the root takes its best shape; a district takes the one its parent chose).
fn measure(
    classes: &[TmpClass],
    items: &[Vec<Item>],
    order: &[u32],
    config: &LayoutConfig,
) -> Sizes {
    let street = config.street();
    let edge = 2 * config.pad() - street;
    let block_sizes: Vec<(i32, i32)> = classes
        .iter()
        .map(|c| block_dims(c.count, config.block_reserve_fraction))
        .collect();
    let block_footprints: Vec<Footprint> = block_sizes
        .iter()
        .map(|&(w, h)| (w + street, h + street))
        .collect();
    let mut shapes: Vec<Vec<Shape>> = vec![Vec::new(); items.len()];
    // Per package, its district's footprints, one per shape.
    let mut footprints: Vec<Vec<Footprint>> = vec![Vec::new(); items.len()];
    for &p in order.iter().rev() {
        let found = {
            let options = child_options(&items[p as usize], &block_footprints, &footprints);
            pack::shapes(&options)
        };
        footprints[p as usize] = pack::district_footprints(&found, config.pad()).collect();
        shapes[p as usize] = found;
    }
    let mut district_sizes = vec![(0_i32, 0_i32); items.len()];
    let mut chosen: Vec<Shape> = vec![Shape::default(); items.len()];
    let mut packed: Vec<Packed> = vec![Packed::default(); items.len()];
    if let Some(&root) = order.first() {
        chosen[root as usize] = pack::best(&shapes[root as usize]);
    }
    for &p in order {
        let options = child_options(&items[p as usize], &block_footprints, &footprints);
        let result = pack::place(&options, chosen[p as usize].trial);
        for (item, &option) in items[p as usize].iter().zip(&result.chosen) {
            if let Item::Package(s) = *item {
                chosen[s as usize] = shapes[s as usize]
                    .get(usize::from(option))
                    .copied()
                    .unwrap_or_default();
            }
        }
        district_sizes[p as usize] = (result.width + edge, result.height + edge);
        packed[p as usize] = result;
    }
    Sizes {
        blocks: block_sizes,
        shapes,
        districts: district_sizes,
        packed,
    }
}

/// A package's children as the packer sees them: a block's one footprint, a sub-district's
/// footprint per shape.
fn child_options<'a>(
    items: &[Item],
    block_footprints: &'a [Footprint],
    district_footprints: &'a [Vec<Footprint>],
) -> Vec<&'a [Footprint]> {
    items
        .iter()
        .map(|item| match *item {
            Item::Package(s) => district_footprints[s as usize].as_slice(),
            Item::Class(c) => std::slice::from_ref(&block_footprints[c as usize]),
        })
        .collect()
}

/// Grid origin of every district (by package) and block (by class).
struct Origins {
    districts: Vec<(i32, i32)>,
    blocks: Vec<(i32, i32)>,
}

/// Step 7. Positions top-down.
fn place(items: &[Vec<Item>], order: &[u32], sizes: &Sizes, pad: i32) -> Origins {
    let mut district_origin = vec![(0_i32, 0_i32); items.len()];
    let mut block_origin = vec![(0_i32, 0_i32); sizes.blocks.len()];
    for &p in order {
        let (x0, z0) = district_origin[p as usize];
        let (cx, cz) = (x0 + pad, z0 + pad);
        for (item, &(x, z)) in items[p as usize]
            .iter()
            .zip(&sizes.packed[p as usize].positions)
        {
            match *item {
                Item::Package(s) => district_origin[s as usize] = (cx + x, cz + z),
                Item::Class(c) => block_origin[c as usize] = (cx + x, cz + z),
            }
        }
    }
    Origins {
        districts: district_origin,
        blocks: block_origin,
    }
}

/// Step 8. Emit in canonical order: packages and districts, classes, blocks and buildings,
/// the method index, and what insertion needs to track the ideal footprint.
fn emit(
    input: Grouped<'_>,
    class_start: &[u32],
    items: &[Vec<Item>],
    order: &[u32],
    sizes: &Sizes,
    origins: &Origins,
    config: &LayoutConfig,
) -> Result<CityLayout, LayoutError> {
    let Grouped {
        packages,
        mut classes,
        mut names,
        entries,
        max_id,
        ..
    } = input;
    let pad = config.pad();
    let methods = entries.len();
    let (block_sizes, district_sizes, packed) = (&sizes.blocks, &sizes.districts, &sizes.packed);
    let (district_origin, block_origin) = (&origins.districts, &origins.blocks);
    let mut canon_package = vec![NONE; packages.len()];
    for (k, &p) in order.iter().enumerate() {
        canon_package[p as usize] = k as u32;
    }
    let mut city = bare(config, methods, order.len(), classes.len());
    names.starts = Vec::with_capacity(methods);
    // Building index of each class's first method.
    let mut class_base = vec![0_u32; classes.len()];
    let mut canon_class = vec![NONE; classes.len()];
    for &p in order {
        let tmp = &packages[p as usize];
        let k = canon_package[p as usize];
        let parent = (tmp.parent != NONE).then(|| canon_package[tmp.parent as usize]);
        let depth = parent.map_or(0, |q| city.packages[q as usize].depth + 1);
        let (x0, z0) = district_origin[p as usize];
        let (w, h) = district_sizes[p as usize];
        let rect = GridRect::at(x0, z0, w, h);
        let (cx, cz) = (x0 + pad, z0 + pad);
        let free = packed[p as usize]
            .free
            .iter()
            .map(|f| f.translated(cx, cz))
            .collect();
        city.package_by_path.insert(tmp.path.to_owned(), k);
        city.packages.push(Package {
            path: tmp.path.to_owned(),
            parent,
            depth,
            districts: vec![k],
            method_count: tmp.count,
        });
        city.push_district(k, parent.unwrap_or(NONE), rect, free, false);
    }
    for &p in order {
        let k = canon_package[p as usize];
        for item in &items[p as usize] {
            let Item::Class(c) = *item else { continue };
            let class = &mut classes[c as usize];
            let class_index = city.classes.len() as u32;
            city.class_by_name
                .push_hashed(k, class.name_hash, class_index);
            let (x0, z0) = block_origin[c as usize];
            let (w, h) = block_sizes[c as usize];
            let rect = GridRect::at(x0, z0, w, h);
            city.classes.push(Class {
                name: std::mem::take(&mut class.name),
                package: k,
                blocks: Vec::new(),
                method_count: class.count,
            });
            let block = city.push_block(class_index, k, rect, false);
            let n = class.count as usize;
            city.block_state[block as usize] =
                BlockState::filled(rect, city.buildings.len() as u32, class.count);
            class_base[c as usize] = city.buildings.len() as u32;
            canon_class[c as usize] = class_index;
            // The class's entries, sorted by `Grouped::sort_classes`.
            let from = class_start[c as usize] as usize;
            let slice = &entries[from..from + n];
            let base_height_wu = city.blocks[block as usize].top_height_wu;
            let (mut x, mut z) = (x0, z0);
            for e in slice {
                // Inlined `push_building`: this loop runs once per method.
                let plot_rect = GridRect::at(x, z, 1, 1).to_world();
                city.buildings.push(Building {
                    method_id: e.id,
                    block,
                    plot: plot_rect,
                    footprint: plot_rect.shrunk(config.building_inset_wu),
                    base_height_wu,
                });
                names.starts.push(e.start);
                x += 1;
                if x == x0 + w {
                    x = x0;
                    z += 1;
                }
            }
        }
    }
    // Method id -> building index, filled in input order (ids usually follow it, so the
    // table is written front to back).
    let mut id_map = IdMap::for_ids(max_id, methods);
    let mut duplicate = false;
    for (c, class) in classes.iter().enumerate() {
        let from = class_start[c] as usize;
        let base = class_base[c];
        for (k, e) in entries[from..from + class.count as usize]
            .iter()
            .enumerate()
        {
            duplicate |= !id_map.insert(e.id, base + k as u32);
        }
    }
    if duplicate {
        return Err(first_duplicate(&city.buildings, max_id));
    }
    city.building_by_method = id_map;
    city.heights_wu = vec![0.0; city.buildings.len()];
    city.names = names;
    city.hit = HitIndex::build(&city);
    // What insertion needs to track the ideal footprint: children in this order, sizes.
    let mut sorted = vec![Vec::new(); order.len()];
    let mut ideal = vec![Vec::new(); order.len()];
    for (p, list) in items.iter().enumerate() {
        let k = canon_package[p] as usize;
        ideal[k] = sizes.shapes[p].clone();
        sorted[k] = list
            .iter()
            .map(|item| match *item {
                Item::Package(s) => TrackedItem::Package(canon_package[s as usize]),
                Item::Class(c) => TrackedItem::Class(canon_class[c as usize]),
            })
            .collect();
    }
    city.tracker = Some(Box::new(Tracker::new(sorted, ideal)));
    city.fill_districts();
    city.grew_existing = false;
    Ok(city)
}

/// The error for a method set with a repeated id: the first building, in building order, whose
/// id an earlier building already has.
#[cold]
fn first_duplicate(buildings: &[Building], max_id: Option<u32>) -> LayoutError {
    let mut seen = IdMap::for_ids(max_id, buildings.len());
    for b in buildings {
        if !seen.insert(b.method_id, 0) {
            return LayoutError::DuplicateMethodId(b.method_id);
        }
    }
    // Unreachable when called as intended; the first building's id is a harmless answer.
    LayoutError::DuplicateMethodId(buildings.first().map_or(0, |b| b.method_id))
}

fn intern_package<'a>(
    path: &'a str,
    packages: &mut Vec<TmpPackage<'a>>,
    map: &mut FxHashMap<&'a str, u32>,
) -> u32 {
    let mut parent = 0_u32;
    let mut start = 0_usize;
    loop {
        let end = path[start..].find('.').map_or(path.len(), |i| start + i);
        let prefix = &path[..end];
        parent = match map.get(prefix) {
            Some(&p) => p,
            None => {
                let id = packages.len() as u32;
                packages.push(TmpPackage {
                    path: prefix,
                    name: &path[start..end],
                    parent,
                    subs: Vec::new(),
                    classes: Vec::new(),
                    count: 0,
                });
                packages[parent as usize].subs.push(id);
                map.insert(prefix, id);
                id
            }
        };
        if end >= path.len() {
            return parent;
        }
        start = end + 1;
    }
}

/// A city with nothing in it, capacity reserved.
fn bare(config: &LayoutConfig, methods: usize, packages: usize, classes: usize) -> CityLayout {
    CityLayout {
        config: config.clone(),
        packages: Vec::with_capacity(packages),
        classes: Vec::with_capacity(classes),
        districts: Vec::with_capacity(packages),
        blocks: Vec::with_capacity(classes),
        buildings: Vec::with_capacity(methods),
        district_state: Vec::with_capacity(packages),
        block_state: Vec::with_capacity(classes),
        // `build` brings its own arena.
        names: NameArena::default(),
        package_by_path: map_with_capacity(packages),
        class_by_name: ClassIndex::with_capacity(classes),
        building_by_method: IdMap::default(),
        heights_wu: Vec::new(),
        hit: HitIndex::default(),
        generation: 0,
        relayouts: 0,
        tracker: None,
        existing_districts: 0,
        grew_existing: false,
    }
}

/// The empty city: a root district with an empty content area.
pub(crate) fn bare_root(config: &LayoutConfig) -> CityLayout {
    let mut city = bare(config, 0, 1, 0);
    let side = 2 * config.pad() - config.street();
    city.package_by_path.insert(String::new(), 0);
    city.packages.push(Package {
        path: String::new(),
        parent: None,
        depth: 0,
        districts: vec![0],
        method_count: 0,
    });
    city.push_district(0, NONE, GridRect::at(0, 0, side, side), Vec::new(), false);
    city.hit = HitIndex::build(&city);
    city
}

impl CityLayout {
    /// Appends a district rectangle for `package` (public and grid state); returns its index.
    /// Does not touch the hit index.
    pub(crate) fn push_district(
        &mut self,
        package: u32,
        parent_part: u32,
        rect: GridRect,
        free: Vec<GridRect>,
        is_annex: bool,
    ) -> u32 {
        let depth = self.packages[package as usize].depth;
        let index = self.districts.len() as u32;
        self.districts.push(District {
            package,
            parent: (parent_part != NONE).then_some(parent_part),
            depth,
            rect: rect.to_world(),
            base_height_wu: self.config.district_base_wu(depth),
            top_height_wu: self.config.district_base_wu(depth) + self.config.district_slab_wu,
            is_annex,
        });
        self.district_state.push(DistrictState {
            rect,
            parent_part,
            free,
        });
        index
    }

    /// Appends an empty block rectangle for `class` standing in district rectangle `district`;
    /// returns its index. Free plots are left empty for the caller to fill.
    pub(crate) fn push_block(
        &mut self,
        class: u32,
        district: u32,
        rect: GridRect,
        is_annex: bool,
    ) -> u32 {
        let depth = self.districts[district as usize].depth;
        let index = self.blocks.len() as u32;
        self.blocks.push(Block {
            class,
            district,
            rect: rect.to_world(),
            base_height_wu: self.config.block_base_wu(depth),
            top_height_wu: self.config.building_base_wu(depth),
            is_annex,
        });
        self.block_state.push(BlockState::new(rect));
        self.classes[class as usize].blocks.push(index);
        index
    }

    /// Appends a building for `method` on `plot` of `block`; returns its index.
    pub(crate) fn push_building(
        &mut self,
        method: &MethodRef<'_>,
        block: u32,
        plot: (i32, i32),
    ) -> Result<u32, LayoutError> {
        let index = self.buildings.len() as u32;
        if !self.building_by_method.insert(method.id, index) {
            return Err(LayoutError::DuplicateMethodId(method.id));
        }
        self.block_state[block as usize].set_building(plot, index);
        let plot_rect = GridRect::at(plot.0, plot.1, 1, 1).to_world();
        self.buildings.push(Building {
            method_id: method.id,
            block,
            plot: plot_rect,
            footprint: plot_rect.shrunk(self.config.building_inset_wu),
            base_height_wu: self.blocks[block as usize].top_height_wu,
        });
        self.names.push(method.method, method.signature);
        self.heights_wu.push(0.0);
        Ok(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::spec::MethodSpec;

    #[test]
    fn interleaved_input_lays_out_like_grouped_input() {
        // Classes split into several runs (and the same class name in two packages) must
        // give the same city as the grouped order.
        let mut grouped = Vec::new();
        for (i, (package, class, method)) in [
            ("a", "C", "zeta"),
            ("a", "C", "alpha"),
            ("a", "C", "alphabetically_long_name"),
            ("a", "C", "alphabetically_long_namf"),
            ("a", "D", "m"),
            ("b", "C", "m"),
            ("b", "C", "n"),
            ("", "Root", "main"),
        ]
        .into_iter()
        .enumerate()
        {
            grouped.push(MethodSpec::new(i as u32, package, class, method));
        }
        grouped.push(MethodSpec::new(8, "a", "C", "alpha").with_signature("(I)V"));
        let order = [5_usize, 0, 4, 1, 6, 8, 2, 7, 3];
        let interleaved: Vec<MethodSpec> = order.iter().map(|&i| grouped[i].clone()).collect();
        let a = build(&grouped, &LayoutConfig::default()).expect("layout");
        let b = build(&interleaved, &LayoutConfig::default()).expect("layout");
        assert_eq!(a.buildings, b.buildings);
        assert_eq!(a.classes, b.classes);
        let names: Vec<_> = (0..a.buildings.len()).map(|i| a.names.get(i)).collect();
        let names_b: Vec<_> = (0..b.buildings.len()).map(|i| b.names.get(i)).collect();
        assert_eq!(names, names_b);
        // Class a.C in order: name, then no signature before a signature.
        let c = a
            .classes
            .iter()
            .position(|c| c.name == "C" && c.package != 0);
        let block = a.classes[c.expect("class C")].blocks[0];
        let in_block: Vec<_> = (0..a.buildings.len())
            .filter(|&i| a.buildings[i].block == block)
            .map(|i| a.names.get(i))
            .collect();
        assert!(in_block.windows(2).all(|w| w[0] <= w[1]), "{in_block:?}");
    }

    #[test]
    fn duplicate_ids_report_the_first_repeat_in_building_order() {
        let methods = vec![
            MethodSpec::new(7, "p", "Small", "x"),
            MethodSpec::new(3, "p", "Big", "b"),
            MethodSpec::new(7, "p", "Big", "a"),
            MethodSpec::new(3, "p", "Big", "c"),
        ];
        // Big comes first (more methods): a (7), b (3), c (3) -> 3 is the first repeat.
        assert_eq!(
            build(&methods, &LayoutConfig::default()).err(),
            Some(LayoutError::DuplicateMethodId(3))
        );
    }

    #[test]
    fn block_dims_are_near_square_and_wide() {
        assert_eq!(block_dims(1, 0.0), (1, 1));
        assert_eq!(block_dims(2, 0.0), (2, 1));
        assert_eq!(block_dims(20, 0.0), (5, 4));
        assert_eq!(block_dims(21, 0.0), (5, 5));
        assert_eq!(block_dims(20, 0.25), (5, 5));
        for n in 1..500 {
            let (w, h) = block_dims(n, 0.0);
            assert!(w * h >= n as i32 && w >= h && w - h <= 1, "{n}: {w}x{h}");
        }
    }
}
