//! Invariant checks and fixtures shared by the integration tests.
#![allow(dead_code)]

pub mod tetris;

use std::collections::HashSet;

use glam::Vec3;
use highrise_layout::synthetic::SyntheticShape;
use highrise_layout::{CityLayout, HitTarget, MethodSpec, Rect};

fn inside(outer: &Rect, inner: &Rect) -> bool {
    outer.contains(inner)
}

/// Geometry invariants every layout (full or grown) must satisfy.
pub fn check_geometry(city: &CityLayout) {
    let pad = city.config().district_padding_plots as f32;
    let street = city.config().street_plots as f32;
    let districts = city.districts();
    let blocks = city.blocks();
    let buildings = city.buildings();

    // Buildings: on their block, inside their plot, one per plot, ids unique and findable.
    let mut plots = HashSet::new();
    for (i, b) in buildings.iter().enumerate() {
        let block = &blocks[b.block as usize];
        assert!(inside(&block.rect, &b.plot), "building {i} off its block");
        assert!(inside(&b.plot, &b.footprint), "footprint {i} off its plot");
        assert!(b.footprint.area_wu2() > 0.0 && b.footprint.area_wu2() < 1.0);
        assert!((b.plot.width_wu() - 1.0).abs() < 1e-6 && (b.plot.depth_wu() - 1.0).abs() < 1e-6);
        assert!(
            plots.insert((b.plot.min_x as i64, b.plot.min_z as i64)),
            "two buildings on one plot"
        );
        assert_eq!(city.building_of(b.method_id), Some(i as u32));
        assert_eq!(b.base_height_wu, block.top_height_wu);
    }

    // Districts: root first; every other one inside its parent's content area; its package's
    // parent is the parent district's package.
    assert!(districts[0].parent.is_none());
    for (i, d) in districts.iter().enumerate().skip(1) {
        let parent = d.parent.expect("non-root district has a parent") as usize;
        let p = &districts[parent];
        assert!(
            inside(&content(&p.rect, pad), &d.rect),
            "district {i} not inside parent {parent}"
        );
        let pkg = &city.packages()[d.package as usize];
        assert_eq!(
            pkg.parent,
            Some(p.package),
            "district {i} in the wrong parent package"
        );
        assert_eq!(d.depth, p.depth + 1);
        assert!(d.base_height_wu >= p.top_height_wu - 1e-6);
    }
    // Blocks: inside their district's content area, in their class's package.
    for (i, b) in blocks.iter().enumerate() {
        let d = &districts[b.district as usize];
        assert!(
            inside(&content(&d.rect, pad), &b.rect),
            "block {i} not inside its district"
        );
        assert_eq!(city.classes()[b.class as usize].package, d.package);
        assert!(city.classes()[b.class as usize]
            .blocks
            .contains(&(i as u32)));
        assert_eq!(b.base_height_wu, d.top_height_wu);
    }
    // Siblings (children of one district rectangle) keep a street between them.
    let mut children: Vec<Vec<Rect>> = vec![Vec::new(); districts.len()];
    for d in districts.iter().skip(1) {
        children[d.parent.expect("parent") as usize].push(d.rect);
    }
    for b in blocks {
        children[b.district as usize].push(b.rect);
    }
    for (parent, kids) in children.iter().enumerate() {
        let mut kids: Vec<Rect> = kids.iter().map(|r| trailing(r, street)).collect();
        kids.sort_by(|a, b| a.min_x.total_cmp(&b.min_x));
        for (i, a) in kids.iter().enumerate() {
            for b in &kids[i + 1..] {
                if b.min_x >= a.max_x {
                    break;
                }
                assert!(
                    !a.overlaps(b),
                    "children of district {parent} overlap: {a:?} {b:?}"
                );
            }
        }
    }
    let total: u32 = city.classes().iter().map(|c| c.method_count).sum();
    assert_eq!(total as usize, buildings.len());
    assert_eq!(city.packages()[0].method_count as usize, buildings.len());
}

fn content(r: &Rect, pad: f32) -> Rect {
    r.shrunk(pad)
}

fn trailing(r: &Rect, street: f32) -> Rect {
    Rect {
        max_x: r.max_x + street,
        max_z: r.max_z + street,
        ..*r
    }
}

/// The paper's ordering rules, which a full layout (not a grown one) satisfies.
pub fn check_ordering(city: &CityLayout) {
    let pad = city.config().district_padding_plots as f32;
    // Within a block: buildings in row-major order are sorted by method name, then signature.
    for (bi, block) in city.blocks().iter().enumerate() {
        let mut on_block: Vec<(i64, i64, u32)> = city
            .buildings()
            .iter()
            .enumerate()
            .filter(|(_, b)| b.block == bi as u32)
            .map(|(i, b)| (b.plot.min_z as i64, b.plot.min_x as i64, i as u32))
            .collect();
        on_block.sort();
        let names: Vec<(&str, Option<&str>)> = on_block
            .iter()
            .map(|&(_, _, i)| city.method_name(i).expect("name"))
            .collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted, "block {bi} not alphabetical");
        // Filled row by row from the origin corner.
        let w = block.rect.width_wu() as i64;
        for (k, &(z, x, _)) in on_block.iter().enumerate() {
            assert_eq!(
                (x - block.rect.min_x as i64, z - block.rect.min_z as i64),
                (k as i64 % w, k as i64 / w)
            );
        }
    }
    // Within a district: children by method count (desc), then name; the first at the origin
    // corner and every later one to the right of or above every earlier one.
    for (di, d) in city.districts().iter().enumerate() {
        let mut kids: Vec<(u32, String, u8, Rect)> = Vec::new();
        for (j, c) in city.districts().iter().enumerate() {
            if c.parent == Some(di as u32) {
                let pkg = &city.packages()[c.package as usize];
                kids.push((
                    pkg.method_count,
                    pkg.name().to_owned(),
                    1,
                    city.districts()[j].rect,
                ));
            }
        }
        for b in city.blocks() {
            if b.district == di as u32 {
                let class = &city.classes()[b.class as usize];
                kids.push((class.method_count, class.name.clone(), 0, b.rect));
            }
        }
        kids.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then_with(|| a.1.cmp(&b.1))
                .then_with(|| a.2.cmp(&b.2))
        });
        if let Some(first) = kids.first() {
            assert_eq!(
                (first.3.min_x, first.3.min_z),
                (d.rect.min_x + pad, d.rect.min_z + pad),
                "largest child of district {di} not at the origin corner"
            );
        }
        for (i, a) in kids.iter().enumerate() {
            for b in &kids[i + 1..] {
                assert!(
                    b.3.min_x >= a.3.max_x || b.3.min_z >= a.3.max_z,
                    "district {di}: {} placed before {}",
                    b.1,
                    a.1
                );
            }
        }
    }
}

/// Same plot for every method in both layouts.
pub fn assert_same_city(a: &CityLayout, b: &CityLayout) {
    assert_eq!(a.packages(), b.packages());
    assert_eq!(a.classes(), b.classes());
    assert_eq!(a.districts(), b.districts());
    assert_eq!(a.blocks(), b.blocks());
    assert_eq!(a.buildings(), b.buildings());
}

/// The brute-force answer to a hit test: every building, block and district box.
pub fn brute_force_hit(city: &CityLayout, origin: Vec3, dir: Vec3) -> Option<(f32, HitTarget)> {
    let mut best: Option<(f32, u8, HitTarget)> = None;
    let mut offer = |t: f32, rank: u8, target: HitTarget| {
        let better = match best {
            None => true,
            Some((bt, br, _)) => {
                t < bt - 1e-4 * (1.0 + bt) || (t <= bt + 1e-4 * (1.0 + bt) && rank > br)
            }
        };
        if better {
            best = Some((t, rank, target));
        }
    };
    for (i, d) in city.districts().iter().enumerate() {
        if let Some(t) = ray_box(
            origin,
            dir,
            Vec3::new(d.rect.min_x, d.base_height_wu, d.rect.min_z),
            Vec3::new(d.rect.max_x, d.top_height_wu, d.rect.max_z),
        ) {
            offer(t, 0, HitTarget::District { district: i as u32 });
        }
    }
    for (i, b) in city.blocks().iter().enumerate() {
        if let Some(t) = ray_box(
            origin,
            dir,
            Vec3::new(b.rect.min_x, b.base_height_wu, b.rect.min_z),
            Vec3::new(b.rect.max_x, b.top_height_wu, b.rect.max_z),
        ) {
            offer(t, 1, HitTarget::Block { block: i as u32 });
        }
    }
    for (i, b) in city.buildings().iter().enumerate() {
        let h = city.heights_wu()[i].max(0.0);
        if let Some(t) = ray_box(
            origin,
            dir,
            Vec3::new(b.footprint.min_x, b.base_height_wu, b.footprint.min_z),
            Vec3::new(b.footprint.max_x, b.base_height_wu + h, b.footprint.max_z),
        ) {
            offer(
                t,
                2,
                HitTarget::Building {
                    building: i as u32,
                    method_id: b.method_id,
                },
            );
        }
    }
    best.map(|(t, _, target)| (t, target))
}

fn ray_box(o: Vec3, d: Vec3, min: Vec3, max: Vec3) -> Option<f32> {
    let mut t0 = 0.0_f32;
    let mut t1 = f32::INFINITY;
    for a in 0..3 {
        if d[a] == 0.0 {
            if o[a] < min[a] || o[a] > max[a] {
                return None;
            }
        } else {
            let mut ta = (min[a] - o[a]) / d[a];
            let mut tb = (max[a] - o[a]) / d[a];
            if ta > tb {
                std::mem::swap(&mut ta, &mut tb);
            }
            t0 = t0.max(ta);
            t1 = t1.min(tb);
            if t0 > t1 {
                return None;
            }
        }
    }
    Some(t0)
}

/// A small program with a nested package tree, for property tests.
pub fn spec(id: u32, package: &str, class: &str, method: &str) -> MethodSpec {
    MethodSpec::new(id, package, class, method)
}

/// The synthetic program shape of the scale tests: 20 methods a class, 200 a package.
pub fn shape(methods: u32) -> SyntheticShape {
    SyntheticShape {
        methods,
        classes: methods / 20,
        packages: methods / 200,
        max_depth: 6,
        seed: 42,
    }
}
