//! Rectangles on the ground plane and the ray/box test used by hit-testing.
//!
//! Two kinds of rectangle live here: [`Rect`], the public world-space rectangle (f32, world
//! units), and [`GridRect`], the crate-internal integer rectangle on the plot grid in which
//! every layout decision is taken. One plot is one world unit, so converting is a cast.

use glam::Vec3;

/// An axis-aligned rectangle on the ground plane (X and Z; Y is up), in world units.
///
/// `min_*` is inclusive and `max_*` exclusive in spirit; two rectangles that only share an edge
/// do not overlap.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rect {
    /// Smallest X, world units.
    pub min_x: f32,
    /// Smallest Z, world units.
    pub min_z: f32,
    /// Largest X, world units.
    pub max_x: f32,
    /// Largest Z, world units.
    pub max_z: f32,
}

impl Rect {
    /// Extent along X, world units.
    pub fn width_wu(&self) -> f32 {
        self.max_x - self.min_x
    }

    /// Extent along Z, world units.
    pub fn depth_wu(&self) -> f32 {
        self.max_z - self.min_z
    }

    /// Area, square world units.
    pub fn area_wu2(&self) -> f32 {
        self.width_wu() * self.depth_wu()
    }

    /// The centre point on the ground (y = 0).
    pub fn center(&self) -> Vec3 {
        Vec3::new(
            0.5 * (self.min_x + self.max_x),
            0.0,
            0.5 * (self.min_z + self.max_z),
        )
    }

    /// Whether `other` lies entirely inside `self` (edges may touch).
    pub fn contains(&self, other: &Rect) -> bool {
        other.min_x >= self.min_x
            && other.min_z >= self.min_z
            && other.max_x <= self.max_x
            && other.max_z <= self.max_z
    }

    /// Whether the two rectangles share a region of positive area.
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.min_x < other.max_x
            && other.min_x < self.max_x
            && self.min_z < other.max_z
            && other.min_z < self.max_z
    }

    /// Whether the ground point (x, z) lies inside (edges included).
    pub fn contains_point(&self, x: f32, z: f32) -> bool {
        x >= self.min_x && x <= self.max_x && z >= self.min_z && z <= self.max_z
    }

    /// The rectangle shrunk by `inset_wu` on every side.
    pub fn shrunk(&self, inset_wu: f32) -> Rect {
        Rect {
            min_x: self.min_x + inset_wu,
            min_z: self.min_z + inset_wu,
            max_x: self.max_x - inset_wu,
            max_z: self.max_z - inset_wu,
        }
    }
}

/// A half-open rectangle `[min, max)` on the integer plot grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct GridRect {
    pub min_x: i32,
    pub min_z: i32,
    pub max_x: i32,
    pub max_z: i32,
}

impl GridRect {
    pub fn new(min_x: i32, min_z: i32, max_x: i32, max_z: i32) -> Self {
        Self {
            min_x,
            min_z,
            max_x,
            max_z,
        }
    }

    pub fn at(x: i32, z: i32, width: i32, height: i32) -> Self {
        Self::new(x, z, x + width, z + height)
    }

    pub fn width(&self) -> i32 {
        self.max_x - self.min_x
    }

    pub fn height(&self) -> i32 {
        self.max_z - self.min_z
    }

    pub fn area(&self) -> i64 {
        if self.is_empty() {
            0
        } else {
            i64::from(self.width()) * i64::from(self.height())
        }
    }

    pub fn is_empty(&self) -> bool {
        self.max_x <= self.min_x || self.max_z <= self.min_z
    }

    pub fn intersection(&self, other: &GridRect) -> GridRect {
        GridRect::new(
            self.min_x.max(other.min_x),
            self.min_z.max(other.min_z),
            self.max_x.min(other.max_x),
            self.max_z.min(other.max_z),
        )
    }

    pub fn overlaps(&self, other: &GridRect) -> bool {
        !self.intersection(other).is_empty()
    }

    #[cfg(test)]
    pub fn contains(&self, other: &GridRect) -> bool {
        other.min_x >= self.min_x
            && other.min_z >= self.min_z
            && other.max_x <= self.max_x
            && other.max_z <= self.max_z
    }

    /// The rectangle grown by `by` on its +X and +Z sides: an item plus its trailing street.
    pub fn with_trailing(&self, by: i32) -> GridRect {
        GridRect::new(self.min_x, self.min_z, self.max_x + by, self.max_z + by)
    }

    pub fn translated(&self, dx: i32, dz: i32) -> GridRect {
        GridRect::new(
            self.min_x + dx,
            self.min_z + dz,
            self.max_x + dx,
            self.max_z + dz,
        )
    }

    pub fn to_world(self) -> Rect {
        Rect {
            min_x: self.min_x as f32,
            min_z: self.min_z as f32,
            max_x: self.max_x as f32,
            max_z: self.max_z as f32,
        }
    }
}

/// A ray with its direction's reciprocal cached.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ray {
    pub origin: Vec3,
    pub dir: Vec3,
}

impl Ray {
    /// The parameter interval `[t_enter, t_exit]` (clipped to `[0, t_max]`) in which the ray is
    /// inside the box, or `None` when it misses. Faces count as inside, so boxes of zero
    /// height (buildings with no load) can still be hit from above.
    pub fn box_interval(&self, min: Vec3, max: Vec3, t_max: f32) -> Option<(f32, f32)> {
        let mut t0 = 0.0_f32;
        let mut t1 = t_max;
        for axis in 0..3 {
            let o = self.origin[axis];
            let d = self.dir[axis];
            if d == 0.0 {
                if o < min[axis] || o > max[axis] {
                    return None;
                }
            } else {
                let inv = 1.0 / d;
                let mut ta = (min[axis] - o) * inv;
                let mut tb = (max[axis] - o) * inv;
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
        Some((t0, t1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_rect_intersection_and_area() {
        let a = GridRect::new(0, 0, 4, 3);
        let b = GridRect::new(2, 1, 6, 6);
        assert_eq!(a.intersection(&b), GridRect::new(2, 1, 4, 3));
        assert_eq!(a.area(), 12);
        assert!(a.overlaps(&b));
        assert!(
            !a.overlaps(&GridRect::new(4, 0, 5, 3)),
            "shared edge is no overlap"
        );
    }

    #[test]
    fn ray_hits_box_from_above_and_misses_beside() {
        let ray = Ray {
            origin: Vec3::new(0.5, 10.0, 0.5),
            dir: Vec3::new(0.0, -1.0, 0.0),
        };
        let (t0, _) = ray
            .box_interval(Vec3::ZERO, Vec3::new(1.0, 2.0, 1.0), f32::INFINITY)
            .expect("hit");
        assert!((t0 - 8.0).abs() < 1e-6);
        assert!(ray
            .box_interval(
                Vec3::new(2.0, 0.0, 0.0),
                Vec3::new(3.0, 2.0, 1.0),
                f32::INFINITY
            )
            .is_none());
        // A flat box (zero height) is hit on its top face.
        assert!(ray
            .box_interval(Vec3::ZERO, Vec3::new(1.0, 0.0, 1.0), f32::INFINITY)
            .is_some());
    }
}
