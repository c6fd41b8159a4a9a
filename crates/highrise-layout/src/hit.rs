//! Ray hit-testing: which building (or block, or district) is under the cursor.
//!
//! A bounding-volume hierarchy holds one leaf per district rectangle and per block rectangle.
//! A block's box reaches up to its tallest building (an upper bound kept by
//! [`CityLayout::set_heights`] / [`CityLayout::set_height`]), so a query descends only into
//! blocks the ray can touch, then walks the block's plot grid cell by cell along the ray (a 2D
//! DDA), testing at most one building per cell. A query touches O(log n) nodes plus the cells
//! the ray crosses, never all buildings.
//!
//! Leaves added by incremental insertion are inserted into the tree directly (cheapest sibling
//! by added perimeter), and growing blocks and districts refit their ancestors.

use glam::Vec3;

use crate::geom::Ray;
use crate::plan::{CityLayout, NONE};
use crate::spec::LayoutError;

/// What a ray hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitTarget {
    /// A building: `building` indexes [`CityLayout::buildings`].
    Building {
        /// Building index.
        building: u32,
        /// The caller's method id of that building.
        method_id: u32,
    },
    /// The top or side of a block's slab where no building stands.
    Block {
        /// Index into [`CityLayout::blocks`].
        block: u32,
    },
    /// A district's slab (ground or street).
    District {
        /// Index into [`CityLayout::districts`].
        district: u32,
    },
}

/// The first thing a ray hits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// What was hit.
    pub target: HitTarget,
    /// Ray parameter of the hit: the point is `origin + distance * dir` (so this is in world
    /// units when `dir` is a unit vector).
    pub distance: f32,
    /// The hit point, world coordinates.
    pub point: Vec3,
}

const BLOCK_LEAF: u32 = 1 << 31;

#[derive(Debug, Clone, Copy)]
struct Node {
    min: Vec3,
    max: Vec3,
    parent: u32,
    left: u32,
    right: u32,
    /// [`NONE`] for inner nodes; otherwise a district index, or a block index | BLOCK_LEAF.
    leaf: u32,
}

/// The bounding-volume hierarchy over district and block rectangles.
#[derive(Debug, Clone, Default)]
pub(crate) struct HitIndex {
    nodes: Vec<Node>,
    root: u32,
    district_node: Vec<u32>,
    block_node: Vec<u32>,
}

fn leaf_bounds(city: &CityLayout, leaf: u32) -> (Vec3, Vec3) {
    if leaf & BLOCK_LEAF != 0 {
        let i = (leaf & !BLOCK_LEAF) as usize;
        let b = &city.blocks[i];
        let top = b.top_height_wu + city.block_state[i].max_height_wu.max(0.0);
        (
            Vec3::new(b.rect.min_x, b.base_height_wu, b.rect.min_z),
            Vec3::new(b.rect.max_x, top, b.rect.max_z),
        )
    } else {
        let d = &city.districts[leaf as usize];
        (
            Vec3::new(d.rect.min_x, d.base_height_wu, d.rect.min_z),
            Vec3::new(d.rect.max_x, d.top_height_wu, d.rect.max_z),
        )
    }
}

fn half_perimeter(min: Vec3, max: Vec3) -> f32 {
    (max.x - min.x) + (max.z - min.z)
}

impl HitIndex {
    /// Builds the hierarchy over all district and block rectangles of `city` (top-down,
    /// median split along the longer ground axis).
    pub(crate) fn build(city: &CityLayout) -> HitIndex {
        // Per leaf: min + max along X and Z (twice the centre, exactly), and the leaf.
        let mut items: Vec<(f32, f32, u32)> =
            Vec::with_capacity(city.districts.len() + city.blocks.len());
        items.extend(city.districts.iter().enumerate().map(|(i, d)| {
            (
                d.rect.min_x + d.rect.max_x,
                d.rect.min_z + d.rect.max_z,
                i as u32,
            )
        }));
        items.extend(city.blocks.iter().enumerate().map(|(i, b)| {
            (
                b.rect.min_x + b.rect.max_x,
                b.rect.min_z + b.rect.max_z,
                i as u32 | BLOCK_LEAF,
            )
        }));
        let mut index = HitIndex {
            nodes: Vec::with_capacity(items.len() * 2),
            root: NONE,
            district_node: vec![NONE; city.districts.len()],
            block_node: vec![NONE; city.blocks.len()],
        };
        if items.is_empty() {
            return index;
        }
        let empty = Node {
            min: Vec3::splat(f32::INFINITY),
            max: Vec3::splat(f32::NEG_INFINITY),
            parent: NONE,
            left: NONE,
            right: NONE,
            leaf: NONE,
        };
        index.nodes.push(empty);
        index.root = 0;
        let mut tasks: Vec<(u32, usize, usize)> = vec![(0, 0, items.len())];
        while let Some((node, start, end)) = tasks.pop() {
            if end - start == 1 {
                let leaf = items[start].2;
                let (min, max) = leaf_bounds(city, leaf);
                let n = &mut index.nodes[node as usize];
                n.leaf = leaf;
                n.min = min;
                n.max = max;
                index.set_leaf_node(leaf, node);
                continue;
            }
            let slice = &mut items[start..end];
            let (mut lo_x, mut hi_x) = (f32::INFINITY, f32::NEG_INFINITY);
            let (mut lo_z, mut hi_z) = (f32::INFINITY, f32::NEG_INFINITY);
            for &(x, z, _) in slice.iter() {
                lo_x = lo_x.min(x);
                hi_x = hi_x.max(x);
                lo_z = lo_z.min(z);
                hi_z = hi_z.max(z);
            }
            // Median split along the longer extent of the centres.
            let mid = slice.len() / 2;
            if hi_x - lo_x >= hi_z - lo_z {
                slice.select_nth_unstable_by(mid, |a, b| a.0.total_cmp(&b.0));
            } else {
                slice.select_nth_unstable_by(mid, |a, b| a.1.total_cmp(&b.1));
            }
            let left = index.nodes.len() as u32;
            let right = left + 1;
            index.nodes.push(Node {
                parent: node,
                ..empty
            });
            index.nodes.push(Node {
                parent: node,
                ..empty
            });
            let n = &mut index.nodes[node as usize];
            n.left = left;
            n.right = right;
            tasks.push((left, start, start + mid));
            tasks.push((right, start + mid, end));
        }
        // Children always come after their parent here, so one backward pass sets bounds.
        for i in (0..index.nodes.len()).rev() {
            let n = index.nodes[i];
            if n.leaf == NONE {
                let (l, r) = (index.nodes[n.left as usize], index.nodes[n.right as usize]);
                index.nodes[i].min = l.min.min(r.min);
                index.nodes[i].max = l.max.max(r.max);
            }
        }
        index
    }

    fn set_leaf_node(&mut self, leaf: u32, node: u32) {
        let (table, i) = if leaf & BLOCK_LEAF != 0 {
            (&mut self.block_node, (leaf & !BLOCK_LEAF) as usize)
        } else {
            (&mut self.district_node, leaf as usize)
        };
        if table.len() <= i {
            table.resize(i + 1, NONE);
        }
        table[i] = node;
    }

    fn leaf_node(&self, leaf: u32) -> u32 {
        let (table, i) = if leaf & BLOCK_LEAF != 0 {
            (&self.block_node, (leaf & !BLOCK_LEAF) as usize)
        } else {
            (&self.district_node, leaf as usize)
        };
        table.get(i).copied().unwrap_or(NONE)
    }

    /// Adds a new leaf (a district or block rectangle just appended to `city`).
    fn insert_leaf(&mut self, city: &CityLayout, leaf: u32) {
        let (min, max) = leaf_bounds(city, leaf);
        let new = self.nodes.len() as u32;
        self.nodes.push(Node {
            min,
            max,
            parent: NONE,
            left: NONE,
            right: NONE,
            leaf,
        });
        self.set_leaf_node(leaf, new);
        if self.root == NONE {
            self.root = new;
            return;
        }
        let mut sibling = self.root;
        while self.nodes[sibling as usize].leaf == NONE {
            let n = self.nodes[sibling as usize];
            let cost = |child: u32| {
                let c = self.nodes[child as usize];
                half_perimeter(c.min.min(min), c.max.max(max)) - half_perimeter(c.min, c.max)
            };
            sibling = if cost(n.left) <= cost(n.right) {
                n.left
            } else {
                n.right
            };
        }
        let old_parent = self.nodes[sibling as usize].parent;
        let s = self.nodes[sibling as usize];
        let joint = self.nodes.len() as u32;
        self.nodes.push(Node {
            min: s.min.min(min),
            max: s.max.max(max),
            parent: old_parent,
            left: sibling,
            right: new,
            leaf: NONE,
        });
        self.nodes[sibling as usize].parent = joint;
        self.nodes[new as usize].parent = joint;
        if old_parent == NONE {
            self.root = joint;
        } else {
            let p = &mut self.nodes[old_parent as usize];
            if p.left == sibling {
                p.left = joint;
            } else {
                p.right = joint;
            }
        }
        self.refit_from(old_parent);
    }

    /// Recomputes the bounds of `node` and its ancestors from their children.
    fn refit_from(&mut self, mut node: u32) {
        while node != NONE {
            let n = self.nodes[node as usize];
            let (l, r) = (self.nodes[n.left as usize], self.nodes[n.right as usize]);
            self.nodes[node as usize].min = l.min.min(r.min);
            self.nodes[node as usize].max = l.max.max(r.max);
            node = n.parent;
        }
    }

    /// Re-reads one leaf's bounds from `city` (or inserts it if new) and refits its ancestors.
    fn update_leaf(&mut self, city: &CityLayout, leaf: u32) {
        let node = self.leaf_node(leaf);
        if node == NONE {
            self.insert_leaf(city, leaf);
            return;
        }
        let (min, max) = leaf_bounds(city, leaf);
        let n = &mut self.nodes[node as usize];
        n.min = min;
        n.max = max;
        let parent = n.parent;
        self.refit_from(parent);
    }

    /// Re-reads every leaf and recomputes every inner node: O(nodes).
    fn refit_all(&mut self, city: &CityLayout) {
        if self.root == NONE {
            return;
        }
        let mut preorder = Vec::with_capacity(self.nodes.len());
        let mut stack = vec![self.root];
        while let Some(node) = stack.pop() {
            preorder.push(node);
            let n = self.nodes[node as usize];
            if n.leaf == NONE {
                stack.push(n.left);
                stack.push(n.right);
            }
        }
        for &node in preorder.iter().rev() {
            let n = self.nodes[node as usize];
            let (min, max) = if n.leaf == NONE {
                let (l, r) = (self.nodes[n.left as usize], self.nodes[n.right as usize]);
                (l.min.min(r.min), l.max.max(r.max))
            } else {
                leaf_bounds(city, n.leaf)
            };
            self.nodes[node as usize].min = min;
            self.nodes[node as usize].max = max;
        }
    }

    fn query(&self, city: &CityLayout, ray: &Ray, grouped: &dyn Fn(u32) -> bool) -> Option<Hit> {
        if self.root == NONE {
            return None;
        }
        let mut best = Best {
            t: f32::INFINITY,
            rank: 0,
            target: None,
            grouped: false,
        };
        let mut stack: Vec<u32> = Vec::with_capacity(64);
        stack.push(self.root);
        while let Some(node) = stack.pop() {
            let n = &self.nodes[node as usize];
            let Some((t0, t1)) = ray.box_interval(n.min, n.max, best.t + 1e-3) else {
                continue;
            };
            if n.leaf != NONE {
                test_leaf(city, ray, n.leaf, (t0, t1), grouped, &mut best);
                continue;
            }
            let l = &self.nodes[n.left as usize];
            let r = &self.nodes[n.right as usize];
            let tl = ray
                .box_interval(l.min, l.max, best.t + 1e-3)
                .map(|(t, _)| t);
            let tr = ray
                .box_interval(r.min, r.max, best.t + 1e-3)
                .map(|(t, _)| t);
            match (tl, tr) {
                (Some(a), Some(b)) => {
                    // Nearer child on top of the stack.
                    if a <= b {
                        stack.push(n.right);
                        stack.push(n.left);
                    } else {
                        stack.push(n.left);
                        stack.push(n.right);
                    }
                }
                (Some(_), None) => stack.push(n.left),
                (None, Some(_)) => stack.push(n.right),
                (None, None) => {}
            }
        }
        let target = match best.target? {
            // A grouped block stands for its tallest building.
            HitTarget::Block { block } if best.grouped => {
                let building = city.tallest_building(block)?;
                HitTarget::Building {
                    building,
                    method_id: city.buildings[building as usize].method_id,
                }
            }
            target => target,
        };
        Some(Hit {
            target,
            distance: best.t,
            point: ray.origin + ray.dir * best.t,
        })
    }
}

struct Best {
    t: f32,
    /// Buildings (2) beat blocks (1) beat districts (0) at the same distance.
    rank: u8,
    target: Option<HitTarget>,
    /// Whether `target` is a grouped block's box (it stands for the block's tallest building).
    grouped: bool,
}

impl Best {
    /// Takes `target` if it is nearer (or as near and of a higher rank); true if taken.
    fn offer(&mut self, t: f32, rank: u8, target: HitTarget) -> bool {
        let tolerance = 1e-5 * (1.0 + t.abs());
        let better = if self.target.is_none() || t < self.t - tolerance {
            true
        } else {
            t <= self.t + tolerance && rank > self.rank
        };
        if better {
            self.t = t;
            self.rank = rank;
            self.target = Some(target);
            self.grouped = false;
        }
        better
    }
}

fn test_leaf(
    city: &CityLayout,
    ray: &Ray,
    leaf: u32,
    interval: (f32, f32),
    grouped: &dyn Fn(u32) -> bool,
    best: &mut Best,
) {
    if leaf & BLOCK_LEAF == 0 {
        let d = &city.districts[leaf as usize];
        let min = Vec3::new(d.rect.min_x, d.base_height_wu, d.rect.min_z);
        let max = Vec3::new(d.rect.max_x, d.top_height_wu, d.rect.max_z);
        if let Some((t, _)) = ray.box_interval(min, max, best.t + 1e-3) {
            best.offer(t, 0, HitTarget::District { district: leaf });
        }
        return;
    }
    let block = leaf & !BLOCK_LEAF;
    let b = &city.blocks[block as usize];
    let slab_min = Vec3::new(b.rect.min_x, b.base_height_wu, b.rect.min_z);
    let slab_max = Vec3::new(b.rect.max_x, b.top_height_wu, b.rect.max_z);
    if let Some((t, _)) = ray.box_interval(slab_min, slab_max, best.t + 1e-3) {
        best.offer(t, 1, HitTarget::Block { block });
    }
    if grouped(block) {
        // Drawn as one box over its buildings' footprints, as tall as the tallest.
        let inset = city.config.building_inset_wu;
        let top = b.top_height_wu + city.block_state[block as usize].max_height_wu.max(0.0);
        let min = Vec3::new(b.rect.min_x + inset, b.top_height_wu, b.rect.min_z + inset);
        let max = Vec3::new(b.rect.max_x - inset, top, b.rect.max_z - inset);
        if let Some((t, _)) = ray.box_interval(min, max, best.t + 1e-3) {
            if best.offer(t, 2, HitTarget::Block { block }) {
                best.grouped = true;
            }
        }
        return;
    }
    walk_plots(city, ray, block, interval, best);
}

/// Steps through the block's plot grid along the ray (2D DDA), testing the building on each
/// plot; the first hit is the nearest one in this block.
fn walk_plots(city: &CityLayout, ray: &Ray, block: u32, interval: (f32, f32), best: &mut Best) {
    let state = &city.block_state[block as usize];
    let g = state.rect;
    let (w, h) = (g.width(), g.height());
    if w <= 0 || h <= 0 {
        return;
    }
    let (t_enter, t_exit) = interval;
    let base = city.blocks[block as usize].top_height_wu;
    let p = ray.origin + ray.dir * t_enter;
    let mut ix = ((p.x - g.min_x as f32).floor() as i32).clamp(0, w - 1);
    let mut iz = ((p.z - g.min_z as f32).floor() as i32).clamp(0, h - 1);
    let axis_setup = |o: f32, d: f32, cell_min: i32| -> (i32, f32, f32) {
        if d > 0.0 {
            (1, ((cell_min + 1) as f32 - o) / d, 1.0 / d)
        } else if d < 0.0 {
            (-1, (cell_min as f32 - o) / d, -1.0 / d)
        } else {
            (0, f32::INFINITY, f32::INFINITY)
        }
    };
    let (step_x, mut next_x, delta_x) = axis_setup(ray.origin.x, ray.dir.x, g.min_x + ix);
    let (step_z, mut next_z, delta_z) = axis_setup(ray.origin.z, ray.dir.z, g.min_z + iz);
    let mut t_cell = t_enter;
    for _ in 0..(w + h + 2) {
        if t_cell > best.t + 1e-3 {
            return;
        }
        let building = state.building_at((iz * w + ix) as u32);
        if building != NONE {
            let b = &city.buildings[building as usize];
            let height = city.heights_wu[building as usize].max(0.0);
            let min = Vec3::new(b.footprint.min_x, base, b.footprint.min_z);
            let max = Vec3::new(b.footprint.max_x, base + height, b.footprint.max_z);
            if let Some((t, _)) = ray.box_interval(min, max, best.t + 1e-3) {
                best.offer(
                    t,
                    2,
                    HitTarget::Building {
                        building,
                        method_id: b.method_id,
                    },
                );
                return;
            }
        }
        if next_x <= next_z {
            if next_x > t_exit {
                return;
            }
            t_cell = next_x;
            ix += step_x;
            next_x += delta_x;
            if ix < 0 || ix >= w {
                return;
            }
        } else {
            if next_z > t_exit {
                return;
            }
            t_cell = next_z;
            iz += step_z;
            next_z += delta_z;
            if iz < 0 || iz >= h {
                return;
            }
        }
    }
}

impl CityLayout {
    /// The first thing the ray `ray_origin + t * ray_dir` (t ≥ 0) hits: a building if one is in
    /// the way, else the block or district slab below. Uses the heights last given to
    /// [`CityLayout::set_heights`] / [`CityLayout::set_height`] (all 0 until then). `ray_dir`
    /// need not be normalised; `None` if it is zero or the ray misses the city.
    pub fn hit_test(&self, ray_origin: Vec3, ray_dir: Vec3) -> Option<Hit> {
        self.hit_test_grouped(ray_origin, ray_dir, &|_| false)
    }

    /// [`CityLayout::hit_test`] where the blocks `grouped` marks are drawn as one box (their
    /// buildings' footprints, as tall as the tallest): a ray meeting that box hits the block's
    /// tallest building.
    pub fn hit_test_grouped(
        &self,
        ray_origin: Vec3,
        ray_dir: Vec3,
        grouped: &dyn Fn(u32) -> bool,
    ) -> Option<Hit> {
        if ray_dir == Vec3::ZERO || !ray_dir.is_finite() || !ray_origin.is_finite() {
            return None;
        }
        self.hit.query(
            self,
            &Ray {
                origin: ray_origin,
                dir: ray_dir,
            },
            grouped,
        )
    }

    /// The tallest building of block `block` at the heights the hit test knows (the first
    /// of equals in plot order), or `None` if it has none.
    pub fn tallest_building(&self, block: u32) -> Option<u32> {
        let state = self.block_state.get(block as usize)?;
        (0..state.rect.area().max(0) as u32)
            .map(|cell| state.building_at(cell))
            .filter(|&building| building != NONE)
            .fold(None, |tallest: Option<u32>, building| match tallest {
                Some(t) if self.heights_wu[t as usize] >= self.heights_wu[building as usize] => {
                    Some(t)
                }
                _ => Some(building),
            })
    }

    /// Sets every building's height (world units above its block; index = building index)
    /// and refreshes the hit-test bounds exactly. O(buildings); meant once per frame.
    pub fn set_heights(&mut self, heights_wu: &[f32]) -> Result<(), LayoutError> {
        if heights_wu.len() != self.buildings.len() {
            return Err(LayoutError::HeightsLength {
                expected: self.buildings.len(),
                got: heights_wu.len(),
            });
        }
        self.heights_wu.copy_from_slice(heights_wu);
        for state in &mut self.block_state {
            state.max_height_wu = 0.0;
        }
        for (b, &h) in self.buildings.iter().zip(heights_wu) {
            let state = &mut self.block_state[b.block as usize];
            state.max_height_wu = state.max_height_wu.max(h);
        }
        let mut hit = std::mem::take(&mut self.hit);
        hit.refit_all(self);
        self.hit = hit;
        Ok(())
    }

    /// Sets one building's height (world units). O(log n); a lowered height leaves the
    /// hit-test bounds loose (still correct) until the next [`CityLayout::set_heights`].
    pub fn set_height(&mut self, building: u32, height_wu: f32) -> Result<(), LayoutError> {
        let len = self.buildings.len();
        let Some(slot) = self.heights_wu.get_mut(building as usize) else {
            return Err(LayoutError::BuildingIndex {
                index: building,
                len,
            });
        };
        *slot = height_wu;
        let block = self.buildings[building as usize].block;
        let state = &mut self.block_state[block as usize];
        if height_wu > state.max_height_wu {
            state.max_height_wu = height_wu;
            self.refresh_block_bounds(block);
        }
        Ok(())
    }

    /// Current building heights, world units, by building index.
    pub fn heights_wu(&self) -> &[f32] {
        &self.heights_wu
    }

    /// Re-reads a block rectangle's bounds into the hit index (adding it if new).
    pub(crate) fn refresh_block_bounds(&mut self, block: u32) {
        let mut hit = std::mem::take(&mut self.hit);
        hit.update_leaf(self, block | BLOCK_LEAF);
        self.hit = hit;
    }

    /// Re-reads a district rectangle's bounds into the hit index (adding it if new).
    pub(crate) fn refresh_district_bounds(&mut self, district: u32) {
        let mut hit = std::mem::take(&mut self.hit);
        hit.update_leaf(self, district);
        self.hit = hit;
    }
}
