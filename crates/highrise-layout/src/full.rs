//! The full layout: group methods into classes and packages, order everything by the paper's
//! rules, pack bottom-up, place top-down, and emit the city in a canonical order (so the
//! output depends only on the set of methods).

use crate::city::{
    Block, BlockState, Building, CityLayout, Class, District, DistrictState, NameArena, Package,
    NONE,
};
use crate::fxhash::{map_with_capacity, FxHashMap};
use crate::geom::GridRect;
use crate::hit::HitIndex;
use crate::idmap::IdMap;
use crate::pack::{pack, Packed};
use crate::spec::{LayoutConfig, LayoutError, MethodLike, MethodRef};

struct TmpPackage<'a> {
    path: &'a str,
    name: &'a str,
    parent: u32,
    subs: Vec<u32>,
    classes: Vec<u32>,
    count: u32,
}

struct TmpClass<'a> {
    package: u32,
    name: &'a str,
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

/// Lays out `methods` from scratch.
pub(crate) fn build<M: MethodLike>(
    methods: &[M],
    config: &LayoutConfig,
) -> Result<CityLayout, LayoutError> {
    let street = config.street();
    let pad = config.pad();

    // 1. Group methods into classes and packages (ids here follow input order; they are
    //    renumbered canonically below).
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
    let mut classes: Vec<TmpClass<'_>> = Vec::new();
    let mut class_map: FxHashMap<(u32, &str), u32> = map_with_capacity(methods.len() / 8 + 16);
    let mut method_class: Vec<u32> = Vec::with_capacity(methods.len());
    // Input usually arrives class by class, so the previous method's class is checked first.
    let mut previous: Option<(&str, &str, u32)> = None;
    // Names are read once, here (they are scattered in memory): copied into the arena and
    // reduced to a sort prefix.
    let mut names = NameArena {
        text: String::with_capacity(methods.len() * 12),
        spans: Vec::with_capacity(methods.len()),
    };
    let mut input_spans: Vec<(u32, u32, u32)> = Vec::with_capacity(methods.len());
    let mut prefix: Vec<u64> = Vec::with_capacity(methods.len());
    // Ids copied out so that the emit loop below does not touch the (large, scattered) specs.
    let mut ids: Vec<u32> = Vec::with_capacity(methods.len());
    for m in methods {
        let m = m.view();
        ids.push(m.id);
        input_spans.push(names.append(m.method, m.signature));
        prefix.push(name_prefix(m.method));
        if let Some((package, class, c)) = previous {
            if package == m.package && class == m.class {
                classes[c as usize].count += 1;
                method_class.push(c);
                continue;
            }
        }
        let package = match package_map.get(m.package) {
            Some(&p) => p,
            None => intern_package(m.package, &mut packages, &mut package_map),
        };
        let class = *class_map.entry((package, m.class)).or_insert_with(|| {
            let id = classes.len() as u32;
            classes.push(TmpClass {
                package,
                name: m.class,
                count: 0,
            });
            packages[package as usize].classes.push(id);
            id
        });
        classes[class as usize].count += 1;
        method_class.push(class);
        previous = Some((m.package, m.class, class));
    }

    // 2. Methods per class (CSR), each class's methods sorted by name, signature, id.
    let mut class_start = vec![0_u32; classes.len() + 1];
    for (c, class) in classes.iter().enumerate() {
        class_start[c + 1] = class_start[c] + class.count;
    }
    let mut fill = class_start.clone();
    let mut by_class = vec![0_u32; methods.len()];
    for (i, &c) in method_class.iter().enumerate() {
        by_class[fill[c as usize] as usize] = i as u32;
        fill[c as usize] += 1;
    }
    // The first 8 bytes of a name, big-endian, order names like the names themselves do
    // (up to ties), which spares most string comparisons.
    for c in 0..classes.len() {
        let slice = &mut by_class[class_start[c] as usize..class_start[c + 1] as usize];
        slice.sort_unstable_by(|&a, &b| {
            prefix[a as usize].cmp(&prefix[b as usize]).then_with(|| {
                let (a, b) = (methods[a as usize].view(), methods[b as usize].view());
                a.method
                    .cmp(b.method)
                    .then_with(|| a.signature.cmp(&b.signature))
                    .then_with(|| a.id.cmp(&b.id))
            })
        });
    }

    // 3. Method counts per package (parents were created before their children).
    for class in &classes {
        packages[class.package as usize].count += class.count;
    }
    for p in (1..packages.len()).rev() {
        let (count, parent) = (packages[p].count, packages[p].parent);
        packages[parent as usize].count += count;
    }

    // 4. Each package's children in the paper's order: most methods first, ties by name.
    let key = |item: &Item| -> (u32, &str, u8) {
        match *item {
            Item::Package(p) => (packages[p as usize].count, packages[p as usize].name, 1),
            Item::Class(c) => (classes[c as usize].count, classes[c as usize].name, 0),
        }
    };
    let items: Vec<Vec<Item>> = packages
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
        .collect();

    // 5. Canonical pre-order of packages.
    let mut order: Vec<u32> = Vec::with_capacity(packages.len());
    let mut stack = vec![0_u32];
    while let Some(p) = stack.pop() {
        order.push(p);
        for item in items[p as usize].iter().rev() {
            if let Item::Package(s) = *item {
                stack.push(s);
            }
        }
    }

    // 6. Sizes bottom-up: pack every package's children.
    let block_sizes: Vec<(i32, i32)> = classes
        .iter()
        .map(|c| block_dims(c.count, config.block_reserve_fraction))
        .collect();
    let mut district_sizes = vec![(0_i32, 0_i32); packages.len()];
    let mut packed: Vec<Packed> = vec![Packed::default(); packages.len()];
    let mut footprints: Vec<(i32, i32)> = Vec::new();
    for &p in order.iter().rev() {
        footprints.clear();
        footprints.extend(items[p as usize].iter().map(|item| {
            let (w, h) = match *item {
                Item::Package(s) => district_sizes[s as usize],
                Item::Class(c) => block_sizes[c as usize],
            };
            (w + street, h + street)
        }));
        let result = pack(&footprints);
        district_sizes[p as usize] = (
            result.width + 2 * pad - street,
            result.height + 2 * pad - street,
        );
        packed[p as usize] = result;
    }

    // 7. Positions top-down.
    let mut district_origin = vec![(0_i32, 0_i32); packages.len()];
    let mut block_origin = vec![(0_i32, 0_i32); classes.len()];
    for &p in &order {
        let (x0, z0) = district_origin[p as usize];
        let (cx, cz) = (x0 + pad, z0 + pad);
        for (item, &(x, z)) in items[p as usize].iter().zip(&packed[p as usize].positions) {
            match *item {
                Item::Package(s) => district_origin[s as usize] = (cx + x, cz + z),
                Item::Class(c) => block_origin[c as usize] = (cx + x, cz + z),
            }
        }
    }

    // 8. Emit in canonical order.
    let mut canon_package = vec![NONE; packages.len()];
    for (k, &p) in order.iter().enumerate() {
        canon_package[p as usize] = k as u32;
    }
    let mut city = bare(config, methods.len(), order.len(), classes.len());
    city.building_by_method = IdMap::for_ids(ids.iter().copied().max(), methods.len());
    for &p in &order {
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
        city.class_by_name
            .push(map_with_capacity(tmp.classes.len()));
        city.push_district(k, parent.unwrap_or(NONE), rect, free, false);
    }
    for &p in &order {
        let k = canon_package[p as usize];
        for item in &items[p as usize] {
            let Item::Class(c) = *item else { continue };
            let class = &classes[c as usize];
            let class_index = city.classes.len() as u32;
            city.class_by_name[k as usize].insert(class.name.to_owned(), class_index);
            let (x0, z0) = block_origin[c as usize];
            let (w, h) = block_sizes[c as usize];
            let rect = GridRect::at(x0, z0, w, h);
            city.classes.push(Class {
                name: class.name.to_owned(),
                package: k,
                blocks: Vec::new(),
                method_count: class.count,
            });
            let block = city.push_block(class_index, k, rect, false);
            let state = &mut city.block_state[block as usize];
            let n = class.count as usize;
            let cap = (w * h) as usize;
            state.free_plots = (n..cap)
                .rev()
                .map(|i| (x0 + (i as i32 % w), z0 + (i as i32 / w)))
                .collect();
            let range = class_start[c as usize] as usize..class_start[c as usize + 1] as usize;
            let base_height_wu = city.blocks[block as usize].top_height_wu;
            for (i, &m_index) in by_class[range].iter().enumerate() {
                // Inlined `push_building`: this loop runs once per method.
                let id = ids[m_index as usize];
                let index = city.buildings.len() as u32;
                if !city.building_by_method.insert(id, index) {
                    return Err(LayoutError::DuplicateMethodId(id));
                }
                let plot = (x0 + (i as i32 % w), z0 + (i as i32 / w));
                city.block_state[block as usize].plot_map[i] = index;
                let plot_rect = GridRect::at(plot.0, plot.1, 1, 1).to_world();
                city.buildings.push(Building {
                    method_id: id,
                    block,
                    plot: plot_rect,
                    footprint: plot_rect.shrunk(config.building_inset_wu),
                    base_height_wu,
                });
                names.spans.push(input_spans[m_index as usize]);
            }
            city.heights_wu.resize(city.buildings.len(), 0.0);
        }
    }
    city.names = names;
    city.hit = HitIndex::build(&city);
    Ok(city)
}

fn name_prefix(name: &str) -> u64 {
    let mut word = [0_u8; 8];
    let n = name.len().min(8);
    word[..n].copy_from_slice(&name.as_bytes()[..n]);
    u64::from_be_bytes(word)
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
        names: NameArena {
            text: String::with_capacity(methods * 16),
            spans: Vec::with_capacity(methods),
        },
        package_by_path: map_with_capacity(packages),
        class_by_name: Vec::with_capacity(packages),
        building_by_method: IdMap::default(),
        heights_wu: Vec::with_capacity(methods),
        hit: HitIndex::default(),
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
    city.class_by_name.push(map_with_capacity(0));
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
        self.block_state.push(BlockState {
            rect,
            free_plots: Vec::new(),
            plot_map: vec![NONE; rect.area().max(0) as usize],
            max_height_wu: 0.0,
        });
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
        let state = &mut self.block_state[block as usize];
        let w = state.rect.width();
        let cell = (plot.1 - state.rect.min_z) * w + (plot.0 - state.rect.min_x);
        if let Some(slot) = state.plot_map.get_mut(cell as usize) {
            *slot = index;
        }
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
