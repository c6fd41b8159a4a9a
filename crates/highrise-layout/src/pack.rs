//! Packing a district's children (already sorted, largest first) into a near-square region.
//!
//! The packer works on *footprints*: a child's rectangle plus the street on its +X and +Z
//! sides, so footprints that touch leave exactly one street between the children.
//!
//! Children go into shelves (rows along +X, stacked along +Z). The first child of a shelf sets
//! its height; every later child starts a new column to its right, and smaller children are
//! stacked on top of each other inside a column while they fit under the shelf's height. So the
//! first (largest) child sits at the origin corner, and every later child lies to the right of
//! or above every earlier one.
//!
//! A block has one footprint. A district has several [`Shape`]s (its own children packed with
//! several shelf widths), and the packer gives each sub-district the shape that fits where it
//! lands, so districts of very different sizes tile their parent instead of leaving bare
//! ground beside the short ones:
//! - a column's top child takes the narrowest footprint that fits under the shelf's height;
//! - a child stacked in a column takes the widest that fits the column and the height left;
//! - a later shelf's first child takes, of three footprints that fit the shelf width (the
//!   smallest, the shallowest and one between), the one whose shelf is filled best;
//! - the first shelf's first child takes the footprint its [`Trial`] names.
//!
//! [`shapes`] tries every footprint of the first child with several shelf widths and keeps
//! the Pareto-best extents (none both narrower and shallower than another) within
//! [`MAX_SHAPE_ASPECT`]: those are the district's shapes, its parent's choice. The root takes
//! [`best`]: the densest packing whose aspect ratio stays within [`MAX_ASPECT`] (wider ones are
//! penalised). With blocks only, this is the fixed-footprint shelf packing it always was.
//!
//! Trying many packings is cheap because no rule above depends on the room left on a shelf: a
//! shelf is the same at every width up to the column that no longer fits, so each shelf start
//! is walked once, at the widest width tried ([`Walks`]), and the shelves after the first are
//! shared by every trial of one width ([`Tails`]).
//!
//! The unused space inside the packed region (above short columns, right of short shelves) is
//! returned as free rectangles; incremental insertion grows blocks into it.

use crate::geom::GridRect;

/// Aspect ratio (long side / short side) up to which [`best`] only minimises area.
const MAX_ASPECT: f64 = 1.6;
/// A district's shapes stay within this aspect ratio, as a fraction num / den (near square,
/// as the paper asks).
const MAX_SHAPE_ASPECT: (i64, i64) = (5, 2);
/// At most this many shapes are kept per district.
const MAX_SHAPES: usize = 8;
/// Shelf widths tried, as multiples of the side of a square of the children's area, for
/// children that are all blocks (each has one footprint) ...
const SHELF_FACTORS: [f64; 10] = [0.8, 0.9, 1.0, 1.05, 1.1, 1.2, 1.3, 1.45, 1.6, 1.8];
/// ... and, for each footprint of the first child, for children that include districts.
const FLEXIBLE_FACTORS: [f64; 7] = [0.7, 0.85, 1.0, 1.15, 1.3, 1.5, 1.8];

/// A footprint: width and height in plots, trailing street included.
pub(crate) type Footprint = (i32, i32);

/// How a district's children are packed: the shelf width, and which footprint its first
/// child takes (the others follow from the rules in the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Trial {
    shelf_width: i32,
    first: u16,
}

/// One way a district's children can be packed: the content extent and how to get it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Shape {
    pub width: i32,
    pub height: i32,
    pub trial: Trial,
}

/// The result of packing: positions of the footprints' origin corners (relative to the
/// content origin), the footprint each child took, the content extent, and the free space
/// inside it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Packed {
    pub positions: Vec<(i32, i32)>,
    pub chosen: Vec<u16>,
    pub width: i32,
    pub height: i32,
    pub free: Vec<GridRect>,
}

/// The footprints of a district's children, in one buffer: child `k` can take
/// `footprints[starts[k]..starts[k + 1]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChildFootprints {
    footprints: Vec<Footprint>,
    starts: Vec<u32>,
}

impl Default for ChildFootprints {
    fn default() -> Self {
        ChildFootprints {
            footprints: Vec::new(),
            starts: vec![0],
        }
    }
}

impl ChildFootprints {
    /// Adds the next child, which can take `options`.
    pub fn push(&mut self, options: impl IntoIterator<Item = Footprint>) {
        self.footprints.extend(options);
        self.starts.push(self.footprints.len() as u32);
    }

    /// The footprints child `k` can take (none past the end).
    pub fn get(&self, k: usize) -> &[Footprint] {
        match (self.starts.get(k), self.starts.get(k + 1)) {
            (Some(&a), Some(&b)) => &self.footprints[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Every child's footprints, as [`shapes`] and [`place`] take them.
    pub fn children(&self) -> Vec<&[Footprint]> {
        self.starts
            .windows(2)
            .map(|w| &self.footprints[w[0] as usize..w[1] as usize])
            .collect()
    }
}

/// A district's footprints, one per shape of its content (`pad` around the content, which
/// holds its children's trailing streets, and one street after it); an empty district's one.
pub(crate) fn district_footprints(
    shapes: &[Shape],
    pad: i32,
) -> impl Iterator<Item = Footprint> + '_ {
    let empty = shapes.is_empty().then_some((2 * pad, 2 * pad));
    shapes
        .iter()
        .map(move |s| (s.width + 2 * pad, s.height + 2 * pad))
        .chain(empty)
}

/// Packs fixed footprints `sizes`, keeping their order as reading order.
#[cfg(test)]
pub(crate) fn pack(sizes: &[(i32, i32)]) -> Packed {
    let options: Vec<&[Footprint]> = sizes.iter().map(std::slice::from_ref).collect();
    place(&options, best(&shapes(&options)).trial)
}

/// The ways `children` (each child's footprints, widths ascending and heights descending)
/// can be packed, widths ascending; empty when there are no children.
pub(crate) fn shapes(children: &[&[Footprint]]) -> Vec<Shape> {
    let Some(first_child) = children.first() else {
        return Vec::new();
    };
    let mut total_area = 0.0;
    let mut widest = 1;
    for options in children {
        let smallest = options
            .iter()
            .map(|&(w, h)| f64::from(w) * f64::from(h))
            .fold(f64::INFINITY, f64::min);
        total_area += smallest;
        widest = widest.max(options.first().map_or(1, |o| o.0));
    }
    let side = total_area.sqrt();
    let shelf_width = |first: usize, factor: f64| {
        ((side * factor).ceil() as i32)
            .max(widest)
            .max(first_child[first].0)
    };
    // Every child a block: one packing per width. Otherwise every footprint of the first child
    // with each width; a shelf's columns are the same at every width up to where they stop
    // fitting, so each shelf start and first footprint is walked once, at the widest width
    // tried, and every width reads its shelf off that walk; the shelves after the first depend
    // only on the width and where they start, so every trial with one width shares them.
    let fixed = children.iter().all(|o| o.len() == 1);
    let factors: &[f64] = if fixed {
        &SHELF_FACTORS
    } else {
        &FLEXIBLE_FACTORS
    };
    let firsts = if fixed { 1 } else { first_child.len() };
    let mut search = (!fixed).then(|| {
        let widest_trial = (0..firsts)
            .map(|first| shelf_width(first, factors[factors.len() - 1]))
            .max()
            .unwrap_or(widest);
        (Walks::new(children, widest_trial), Tails::default())
    });
    let mut found: Vec<Shape> = Vec::with_capacity(factors.len() * firsts);
    for first in 0..firsts {
        let mut tried = [0_i32; SHELF_FACTORS.len()];
        for (k, &factor) in factors.iter().enumerate() {
            let trial = Trial {
                shelf_width: shelf_width(first, factor),
                first: first as u16,
            };
            if tried[..k].contains(&trial.shelf_width) {
                continue;
            }
            tried[k] = trial.shelf_width;
            let (width, height) = match &mut search {
                None => run_shelves(children, trial, None),
                Some((walks, tails)) => {
                    let shelf = walks.shelf(0, first, trial.shelf_width);
                    let (rest_width, rest_height) =
                        tails.extent_from(walks, trial.shelf_width, shelf.end);
                    (shelf.width.max(rest_width), shelf.height + rest_height)
                }
            };
            found.push(Shape {
                width,
                height,
                trial,
            });
        }
    }
    keep_best_shapes(found)
}

/// The Pareto-best of `found` (none both narrower-or-equal and shallower-or-equal than
/// another) within [`MAX_SHAPE_ASPECT`], with [`best`]'s choice, at most [`MAX_SHAPES`] spread
/// over the widths; widths ascending.
fn keep_best_shapes(mut found: Vec<Shape>) -> Vec<Shape> {
    let overall = best(&found);
    found.sort_by_key(|s| (s.width, s.height));
    let mut kept: Vec<Shape> = Vec::with_capacity(found.len());
    for shape in found {
        let (long, short) = (shape.width.max(shape.height), shape.width.min(shape.height));
        let (num, den) = MAX_SHAPE_ASPECT;
        if i64::from(long) * den > num * i64::from(short.max(1)) {
            continue;
        }
        if kept.last().is_some_and(|last| last.width == shape.width) {
            continue; // same width, no shallower (sorted by height within a width)
        }
        if kept.last().is_none_or(|last| shape.height < last.height) {
            kept.push(shape);
        }
    }
    if kept.len() > MAX_SHAPES {
        let n = kept.len();
        kept = (0..MAX_SHAPES)
            .map(|i| kept[i * (n - 1) / (MAX_SHAPES - 1)])
            .collect();
    }
    if !kept
        .iter()
        .any(|s| (s.width, s.height) == (overall.width, overall.height))
    {
        let at = kept.partition_point(|s| (s.width, s.height) < (overall.width, overall.height));
        kept.insert(at, overall);
    }
    kept
}

/// The shape a district that nothing constrains takes: dense first, square enough second
/// (area, penalised once the aspect ratio passes [`MAX_ASPECT`]); the first on ties.
pub(crate) fn best(shapes: &[Shape]) -> Shape {
    let score = |s: &Shape| {
        let area = f64::from(s.width) * f64::from(s.height);
        let aspect = f64::from(s.width.max(s.height)) / f64::from(s.width.min(s.height).max(1));
        area * (aspect / MAX_ASPECT).max(1.0).powi(2)
    };
    let mut chosen: Option<(f64, Shape)> = None;
    for s in shapes {
        let sc = score(s);
        if chosen.is_none_or(|(best, _)| sc < best) {
            chosen = Some((sc, *s));
        }
    }
    chosen.map(|(_, s)| s).unwrap_or_default()
}

/// Shelves walked once per shelf start and first footprint, at the widest width a packing
/// tries ([`walk_shelf`]); a narrower shelf is a prefix of their columns.
struct Walks<'a> {
    children: &'a [&'a [Footprint]],
    widest: i32,
    /// Most footprints of any child.
    options: usize,
    /// Per (shelf start, first footprint): its columns' range in `columns`, once walked.
    walked: Vec<Option<(u32, u32)>>,
    /// Each column: its shelf up to and including it.
    columns: Vec<Shelf>,
}

impl<'a> Walks<'a> {
    fn new(children: &'a [&'a [Footprint]], widest: i32) -> Self {
        let options = children.iter().map(|o| o.len()).max().unwrap_or(1);
        Walks {
            children,
            widest,
            options,
            walked: vec![None; children.len() * options],
            columns: Vec::new(),
        }
    }

    /// The shelf starting at child `from` with footprint `first`, `shelf_width` wide.
    fn shelf(&mut self, from: usize, first: usize, shelf_width: i32) -> Shelf {
        let slot = from * self.options + first;
        let (start, end) = match self.walked[slot] {
            Some(range) => range,
            None => {
                let start = self.columns.len() as u32;
                let columns = &mut self.columns;
                walk_shelf(self.children, from, first, self.widest, &mut |event| {
                    if let ShelfEvent::Column { done, .. } = event {
                        columns.push(done);
                    }
                });
                let range = (start, self.columns.len() as u32);
                self.walked[slot] = Some(range);
                range
            }
        };
        let columns = &self.columns[start as usize..end as usize];
        // The first column always stands; a later one while it fits.
        let last = columns
            .partition_point(|c| c.width <= shelf_width)
            .saturating_sub(1);
        columns[last]
    }
}

/// The extents of packing children `from..` in shelves of one width, each shelf's first
/// child chosen by [`shelf_first`], remembered per width and `from`.
#[derive(Default)]
struct Tails {
    widths: Vec<i32>,
    /// Per width (in `widths`' order), per `from` (0 to the number of children): the extent,
    /// once known.
    extents: Vec<Option<(i32, i32)>>,
    /// Scratch: the shelves walked by one call.
    chain: Vec<(usize, Shelf)>,
}

impl Tails {
    /// Width and height of children `from..` packed from a new shelf on, `shelf_width` wide.
    fn extent_from(&mut self, walks: &mut Walks<'_>, shelf_width: i32, from: usize) -> (i32, i32) {
        let n = walks.children.len();
        let at = match self.widths.iter().position(|&w| w == shelf_width) {
            Some(at) => at,
            None => {
                self.widths.push(shelf_width);
                self.extents.resize(self.widths.len() * (n + 1), None);
                self.widths.len() - 1
            }
        };
        let extents = &mut self.extents[at * (n + 1)..(at + 1) * (n + 1)];
        let mut chain = std::mem::take(&mut self.chain);
        let mut i = from;
        while i < n && extents[i].is_none() {
            let options = walks.children[i];
            let (_, shelf) = shelf_first(options, shelf_width, |k| walks.shelf(i, k, shelf_width));
            let end = shelf.end;
            chain.push((i, shelf));
            i = end;
        }
        let mut rest = if i < n {
            extents[i].unwrap_or_default()
        } else {
            (0, 0)
        };
        for (start, shelf) in chain.drain(..).rev() {
            rest = (rest.0.max(shelf.width), rest.1 + shelf.height);
            extents[start] = Some(rest);
        }
        self.chain = chain;
        rest
    }
}

/// Packs `children` with `trial` (one of [`shapes`]' results for them).
pub(crate) fn place(children: &[&[Footprint]], trial: Trial) -> Packed {
    let mut positions = vec![(0, 0); children.len()];
    let mut chosen = vec![0_u16; children.len()];
    let mut free = Vec::new();
    // Shelves as (z, height, used width) to add right-end free space once the width is known,
    // columns of the current shelf as (x, width, used height) for the space above them.
    let mut shelves: Vec<(i32, i32, i32)> = Vec::new();
    let mut columns: Vec<(i32, i32, i32)> = Vec::new();
    let mut z = 0;
    run_shelves(
        children,
        trial,
        Some(&mut |event| match event {
            ShelfEvent::Place {
                index,
                option,
                x,
                dz,
                column_width,
            } => {
                positions[index] = (x, z + dz);
                chosen[index] = option;
                let (w, h) = children[index][usize::from(option)];
                if w < column_width {
                    free.push(GridRect::new(x + w, z + dz, x + column_width, z + dz + h));
                }
            }
            ShelfEvent::Column {
                x,
                width,
                used_height,
                ..
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
        }),
    );
    let width = shelves.iter().map(|&(_, _, w)| w).max().unwrap_or(0);
    for &(sz, h, w) in &shelves {
        if w < width {
            free.push(GridRect::new(w, sz, width, sz + h));
        }
    }
    Packed {
        positions,
        chosen,
        width,
        height: z,
        free,
    }
}

enum ShelfEvent {
    /// Item `index` takes footprint `option` at (x, shelf z + dz) in a column `column_width`
    /// wide.
    Place {
        index: usize,
        option: u16,
        x: i32,
        dz: i32,
        column_width: i32,
    },
    /// A column of the current shelf is complete; `done` is the shelf so far.
    Column {
        x: i32,
        width: i32,
        used_height: i32,
        done: Shelf,
    },
    /// The current shelf is complete.
    ShelfDone { width: i32, height: i32 },
}

/// The footprint a column's top child takes on a shelf `shelf_height` high: the narrowest
/// that fits under it, else the shallowest. It does not depend on the room left on the shelf,
/// so a shelf's columns are the same at every width up to where they stop fitting.
fn column_top(options: &[Footprint], shelf_height: i32) -> usize {
    options
        .iter()
        .position(|o| o.1 <= shelf_height)
        .unwrap_or_else(|| {
            (0..options.len())
                .min_by_key(|&k| (options[k].1, k))
                .unwrap_or(0)
        })
}

/// The footprint a child stacked in a column takes: the widest that fits the column's width
/// and the height left under the shelf.
fn stacked(options: &[Footprint], column_width: i32, height_left: i32) -> Option<usize> {
    options
        .iter()
        .rposition(|&(w, h)| w <= column_width && h <= height_left)
}

/// What a shelf (or its first columns) holds: children `from..end`, its width and height, and
/// the area of the footprints on it.
#[derive(Debug, Clone, Copy)]
struct Shelf {
    end: usize,
    width: i32,
    height: i32,
    filled: i64,
}

/// A shelf being walked column by column: a later, wider walk continues where a narrower one
/// stopped, since no column depends on the shelf's width (only whether it fits).
#[derive(Debug, Clone, Copy)]
struct ShelfWalk {
    /// The footprint the shelf's first child takes.
    first: usize,
    /// The shelf up to its last column so far.
    done: Shelf,
}

impl ShelfWalk {
    fn start(children: &[&[Footprint]], from: usize, first: usize) -> Self {
        ShelfWalk {
            first,
            done: Shelf {
                end: from,
                width: 0,
                height: children[from][first].1,
                filled: 0,
            },
        }
    }

    /// Places the next column if there is a child left and it fits `shelf_width` (the first
    /// column always does), reporting placements to `emit`; whether it did.
    fn next_column(
        &mut self,
        children: &[&[Footprint]],
        shelf_width: i32,
        emit: &mut impl FnMut(ShelfEvent),
    ) -> bool {
        let Shelf {
            end: mut i,
            width: x,
            height: mut shelf_height,
            mut filled,
        } = self.done;
        if i >= children.len() {
            return false;
        }
        let option = if x == 0 {
            self.first
        } else {
            column_top(children[i], shelf_height)
        };
        let (w, h) = children[i][option];
        if x > 0 && x + w > shelf_width {
            return false;
        }
        shelf_height = shelf_height.max(h);
        emit(ShelfEvent::Place {
            index: i,
            option: option as u16,
            x,
            dz: 0,
            column_width: w,
        });
        filled += i64::from(w) * i64::from(h);
        let mut used = h;
        i += 1;
        while i < children.len() {
            let Some(k) = stacked(children[i], w, shelf_height - used) else {
                break;
            };
            emit(ShelfEvent::Place {
                index: i,
                option: k as u16,
                x,
                dz: used,
                column_width: w,
            });
            let (wk, hk) = children[i][k];
            filled += i64::from(wk) * i64::from(hk);
            used += hk;
            i += 1;
        }
        self.done = Shelf {
            end: i,
            width: x + w,
            height: shelf_height,
            filled,
        };
        emit(ShelfEvent::Column {
            x,
            width: w,
            used_height: used,
            done: self.done,
        });
        true
    }
}

/// Walks one shelf `shelf_width` wide from child `from`, which takes footprint `first`,
/// reporting placements (relative to the shelf) to `emit`.
fn walk_shelf(
    children: &[&[Footprint]],
    from: usize,
    first: usize,
    shelf_width: i32,
    emit: &mut impl FnMut(ShelfEvent),
) -> Shelf {
    let mut walk = ShelfWalk::start(children, from, first);
    while walk.next_column(children, shelf_width, emit) {}
    emit(ShelfEvent::ShelfDone {
        width: walk.done.width,
        height: walk.done.height,
    });
    walk.done
}

/// The footprint a shelf's first child (shelves after the first) takes, with its shelf
/// (`shelf_of` walks the shelf for a footprint): of the smallest footprint that fits the
/// shelf width, the shallowest that fits and the one between (widths ascend, so those that
/// fit come first), the one whose shelf is filled best (footprint area over shelf width times
/// height), the smaller on ties; the narrowest when none fits.
fn shelf_first(
    options: &[Footprint],
    shelf_width: i32,
    mut shelf_of: impl FnMut(usize) -> Shelf,
) -> (usize, Shelf) {
    let fitting = options.partition_point(|&(w, _)| w <= shelf_width);
    if options.len() == 1 || fitting == 0 {
        return (0, shelf_of(0));
    }
    let area = |k: usize| i64::from(options[k].0) * i64::from(options[k].1);
    let smallest = (0..fitting).min_by_key(|&k| (area(k), k)).unwrap_or(0);
    let mut pick: Option<(usize, Shelf)> = None;
    let mut pick_key = (i64::MIN, i64::MIN);
    for k in [smallest, fitting / 2, fitting - 1] {
        let shelf = shelf_of(k);
        // Fill as a fraction in millionths, compared exactly on integers.
        let fill =
            shelf.filled * 1_000_000 / (i64::from(shelf_width) * i64::from(shelf.height)).max(1);
        let key = (fill, -area(k));
        if key > pick_key {
            (pick, pick_key) = (Some((k, shelf)), key);
        }
    }
    pick.unwrap_or_else(|| (0, shelf_of(0)))
}

/// Packs `children` with `trial` shelf by shelf, reporting placements to `on` when given;
/// returns the content extent.
fn run_shelves(
    children: &[&[Footprint]],
    trial: Trial,
    mut on: Option<&mut dyn FnMut(ShelfEvent)>,
) -> (i32, i32) {
    let shelf_width = trial.shelf_width;
    let (mut width, mut height) = (0, 0);
    let mut i = 0;
    while i < children.len() {
        let (first, walked) = if i == 0 {
            (usize::from(trial.first).min(children[0].len() - 1), None)
        } else {
            let (k, shelf) = shelf_first(children[i], shelf_width, |k| {
                walk_shelf(children, i, k, shelf_width, &mut |_| {})
            });
            (k, Some(shelf))
        };
        let shelf = match (&mut on, walked) {
            (None, Some(shelf)) => shelf,
            (None, None) => walk_shelf(children, i, first, shelf_width, &mut |_| {}),
            (Some(on), _) => walk_shelf(children, i, first, shelf_width, on),
        };
        width = width.max(shelf.width);
        height += shelf.height;
        i = shelf.end;
    }
    (width, height)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Checks a packing of `children` (footprints per child): everything inside, nothing
    /// overlapping, the reading order, free space tiling the rest.
    fn check_placed(children: &[&[Footprint]], packed: &Packed) {
        let rects: Vec<GridRect> = children
            .iter()
            .zip(&packed.positions)
            .zip(&packed.chosen)
            .map(|((options, &(x, z)), &k)| {
                let (w, h) = options[usize::from(k)];
                GridRect::at(x, z, w, h)
            })
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
    }

    fn check(sizes: &[(i32, i32)]) -> Packed {
        let packed = pack(sizes);
        let options: Vec<&[Footprint]> = sizes.iter().map(std::slice::from_ref).collect();
        check_placed(&options, &packed);
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

    /// The shapes of fixed children `sizes` packed as one district: its footprints.
    fn district(sizes: &[(i32, i32)]) -> Vec<Footprint> {
        let options: Vec<&[Footprint]> = sizes.iter().map(std::slice::from_ref).collect();
        district_footprints(&shapes(&options), 1).collect()
    }

    #[test]
    fn districts_of_different_sizes_take_shapes_that_tile() {
        // A large district and a smaller one beside it: in their square shapes the smaller
        // leaves bare ground under it; in shapes chosen to fit, it is as tall as the large one.
        let big = district(&[(4, 4); 64]);
        let small = district(&[(4, 4); 16]);
        let children: Vec<&[Footprint]> = vec![&big, &small];
        assert!(big.len() > 1 && small.len() > 1, "{big:?} {small:?}");
        let flexible = best(&shapes(&children));
        let packed = place(&children, flexible.trial);
        check_placed(&children, &packed);
        let square = |options: &[Footprint]| {
            let shapes = shapes(&[options]);
            options[shapes.iter().position(|s| *s == best(&shapes)).unwrap_or(0)]
        };
        let fixed = pack(&[square(&big), square(&small)]);
        let area = |p: &Packed| i64::from(p.width) * i64::from(p.height);
        assert!(
            area(&packed) < area(&fixed),
            "flexible {}x{} vs fixed {}x{}",
            packed.width,
            packed.height,
            fixed.width,
            fixed.height
        );
        let free: i64 = packed.free.iter().map(GridRect::area).sum();
        assert!(free * 10 < area(&packed), "{free} of {}", area(&packed));
    }

    /// A child: one footprint (a block) or several (a district's shapes: widths ascending,
    /// heights descending).
    fn child() -> impl Strategy<Value = Vec<Footprint>> {
        prop_oneof![
            (1..12_i32, 1..12_i32).prop_map(|s| vec![s]),
            (2..30_i32, 1..5_usize).prop_map(|(side, n)| {
                (0..n as i32)
                    .map(|k| (side + 3 * k, (side * side) / (side + 3 * k) + 1))
                    .collect()
            }),
        ]
    }

    proptest! {
        #[test]
        fn every_shape_is_what_placing_its_trial_gives(
            kids in proptest::collection::vec(child(), 1..40)
        ) {
            let children: Vec<&[Footprint]> = kids.iter().map(Vec::as_slice).collect();
            let found = shapes(&children);
            prop_assert!(!found.is_empty());
            prop_assert!(found.windows(2).all(|w| w[0].width <= w[1].width));
            for shape in &found {
                let packed = place(&children, shape.trial);
                prop_assert_eq!((packed.width, packed.height), (shape.width, shape.height));
                check_placed(&children, &packed);
                prop_assert_eq!(packed.positions[0], (0, 0));
            }
        }
    }
}
