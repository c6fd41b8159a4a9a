//! Packing a district's children (already sorted, largest first) into a near-square region.
//!
//! The packer works on *footprints*: a child's rectangle plus the street on its +X and +Z
//! sides, so footprints that touch leave exactly one street between the children.
//!
//! Children go into shelves (rows along +X, stacked along +Z). The first child of a shelf sets
//! its height; every later child starts a new column to its right, and smaller children are
//! stacked on top of each other inside a column while they fit under the shelf's height. So the
//! first (largest) child sits at the origin corner, and every later child lies to the right of
//! or above every earlier one. Several shelf widths are tried and the densest packing whose
//! aspect ratio stays within [`MAX_ASPECT`] wins (wider ones are penalised), so districts stay
//! near square.
//!
//! The unused space inside the packed region (above short columns, right of short shelves) is
//! returned as free rectangles; incremental insertion grows blocks into it.

use crate::geom::GridRect;

/// Aspect ratio (long side / short side) up to which the packer only minimises area.
const MAX_ASPECT: f64 = 1.6;

/// The result of packing: positions of the footprints' origin corners (relative to the
/// content origin), the content extent, and the free space inside it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Packed {
    pub positions: Vec<(i32, i32)>,
    pub width: i32,
    pub height: i32,
    pub free: Vec<GridRect>,
}

/// Packs `sizes` (footprint width, height), keeping their order as reading order.
pub(crate) fn pack(sizes: &[(i32, i32)]) -> Packed {
    if sizes.is_empty() {
        return Packed::default();
    }
    place(sizes, choose_shelf(sizes).0)
}

/// The content extent [`pack`] would produce, without recording positions.
pub(crate) fn pack_extent(sizes: &[(i32, i32)]) -> (i32, i32) {
    if sizes.is_empty() {
        return (0, 0);
    }
    let (_, w, h) = choose_shelf(sizes);
    (w, h)
}

/// The shelf width [`pack`] uses, with the extent it gives.
fn choose_shelf(sizes: &[(i32, i32)]) -> (i32, i32, i32) {
    let total_area: f64 = sizes
        .iter()
        .map(|&(w, h)| f64::from(w) * f64::from(h))
        .sum();
    let widest = sizes.iter().map(|&(w, _)| w).max().unwrap_or(1);
    let side = total_area.sqrt();
    // Score = area, penalised once the aspect ratio passes MAX_ASPECT: dense first, square
    // enough second.
    let mut best: Option<(f64, i32, i32, i32)> = None;
    let mut tried = [0_i32; 10];
    for (k, factor) in [0.8, 0.9, 1.0, 1.05, 1.1, 1.2, 1.3, 1.45, 1.6, 1.8]
        .into_iter()
        .enumerate()
    {
        let shelf_width = ((side * factor).ceil() as i32).max(widest);
        if tried[..k].contains(&shelf_width) {
            continue;
        }
        tried[k] = shelf_width;
        let (w, h) = extent(sizes, shelf_width);
        let area = f64::from(w) * f64::from(h);
        let aspect = f64::from(w.max(h)) / f64::from(w.min(h).max(1));
        let score = area * (aspect / MAX_ASPECT).max(1.0).powi(2);
        if best.is_none_or(|(s, ..)| score < s) {
            best = Some((score, shelf_width, w, h));
        }
    }
    best.map_or((widest, 0, 0), |(_, s, w, h)| (s, w, h))
}

/// Content extent of packing with the given shelf width, without recording positions.
fn extent(sizes: &[(i32, i32)], shelf_width: i32) -> (i32, i32) {
    let mut used_width = 0;
    let mut z = 0;
    run_shelves(sizes, shelf_width, |event| match event {
        ShelfEvent::Place { .. } | ShelfEvent::Column { .. } => {}
        ShelfEvent::ShelfDone { width, height } => {
            used_width = used_width.max(width);
            z += height;
        }
    });
    (used_width, z)
}

fn place(sizes: &[(i32, i32)], shelf_width: i32) -> Packed {
    let mut positions = vec![(0, 0); sizes.len()];
    let mut free = Vec::new();
    // Shelves as (z, height, used width) to add right-end free space once the width is known,
    // columns of the current shelf as (x, width, used height) for the space above them.
    let mut shelves: Vec<(i32, i32, i32)> = Vec::new();
    let mut columns: Vec<(i32, i32, i32)> = Vec::new();
    let mut z = 0;
    run_shelves(sizes, shelf_width, |event| match event {
        ShelfEvent::Place {
            index,
            x,
            dz,
            column_width,
        } => {
            positions[index] = (x, z + dz);
            let (w, h) = sizes[index];
            if w < column_width {
                free.push(GridRect::new(x + w, z + dz, x + column_width, z + dz + h));
            }
        }
        ShelfEvent::Column {
            x,
            width,
            used_height,
        } => columns.push((x, width, used_height)),
        ShelfEvent::ShelfDone { width, height } => {
            for &(x, w, used) in &columns {
                if used < height {
                    free.push(GridRect::new(x, z + used, x + w, z + height));
                }
            }
            columns.clear();
            shelves.push((z, height, width));
            z += height;
        }
    });
    let width = shelves.iter().map(|&(_, _, w)| w).max().unwrap_or(0);
    for &(sz, h, w) in &shelves {
        if w < width {
            free.push(GridRect::new(w, sz, width, sz + h));
        }
    }
    Packed {
        positions,
        width,
        height: z,
        free,
    }
}

enum ShelfEvent {
    /// Item `index` goes to (x, shelf z + dz) in a column `column_width` wide.
    Place {
        index: usize,
        x: i32,
        dz: i32,
        column_width: i32,
    },
    /// A column of the current shelf is complete.
    Column {
        x: i32,
        width: i32,
        used_height: i32,
    },
    /// The current shelf is complete.
    ShelfDone { width: i32, height: i32 },
}

fn run_shelves(sizes: &[(i32, i32)], shelf_width: i32, mut on: impl FnMut(ShelfEvent)) {
    let mut i = 0;
    while i < sizes.len() {
        let mut shelf_height = sizes[i].1;
        let mut x = 0;
        loop {
            let (w, h) = sizes[i];
            if x > 0 && x + w > shelf_width {
                break;
            }
            shelf_height = shelf_height.max(h);
            on(ShelfEvent::Place {
                index: i,
                x,
                dz: 0,
                column_width: w,
            });
            let mut used = h;
            i += 1;
            while i < sizes.len() {
                let (wk, hk) = sizes[i];
                if wk > w || used + hk > shelf_height {
                    break;
                }
                on(ShelfEvent::Place {
                    index: i,
                    x,
                    dz: used,
                    column_width: w,
                });
                used += hk;
                i += 1;
            }
            on(ShelfEvent::Column {
                x,
                width: w,
                used_height: used,
            });
            x += w;
            if i >= sizes.len() {
                break;
            }
        }
        on(ShelfEvent::ShelfDone {
            width: x,
            height: shelf_height,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(sizes: &[(i32, i32)]) -> Packed {
        let packed = pack(sizes);
        let rects: Vec<GridRect> = sizes
            .iter()
            .zip(&packed.positions)
            .map(|(&(w, h), &(x, z))| GridRect::at(x, z, w, h))
            .collect();
        let bounds = GridRect::new(0, 0, packed.width, packed.height);
        for (i, a) in rects.iter().enumerate() {
            assert!(bounds.contains(a), "item {i} {a:?} outside {bounds:?}");
            for b in &rects[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} overlaps {b:?}");
                assert!(
                    b.min_x >= a.max_x || b.min_z >= a.max_z,
                    "{b:?} before {a:?}"
                );
            }
            for f in &packed.free {
                assert!(!a.overlaps(f), "free {f:?} overlaps item {a:?}");
            }
        }
        for (i, f) in packed.free.iter().enumerate() {
            assert!(bounds.contains(f));
            for g in &packed.free[i + 1..] {
                assert!(!f.overlaps(g));
            }
        }
        let used: i64 = rects.iter().map(GridRect::area).sum::<i64>()
            + packed.free.iter().map(GridRect::area).sum::<i64>();
        assert_eq!(used, bounds.area(), "items and free space tile the content");
        packed
    }

    #[test]
    fn many_equal_squares_pack_into_a_square() {
        let packed = check(&vec![(3, 3); 100]);
        assert_eq!((packed.width, packed.height), (30, 30));
    }

    #[test]
    fn one_big_and_many_small_stack_in_columns() {
        let mut sizes = vec![(10, 10)];
        sizes.extend(std::iter::repeat_n((2, 2), 60));
        let packed = check(&sizes);
        assert!(packed.width <= 2 * packed.height && packed.height <= 2 * packed.width);
        assert_eq!(packed.positions[0], (0, 0));
    }

    #[test]
    fn mixed_sizes_tile_exactly() {
        check(&[(5, 4), (7, 2), (3, 6), (2, 2), (9, 1), (1, 1), (4, 4)]);
        check(&[(1, 1)]);
    }
}
