//! Measuring stability: how many buildings moved between two layouts of (mostly) the same
//! methods, and how much area an incrementally grown city costs over a fresh layout.

use crate::plan::CityLayout;

/// How far buildings drifted between two layouts, matched by method id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Drift {
    /// Methods present in both layouts.
    pub common_buildings: usize,
    /// Of those, how many stand on a different plot.
    pub moved_buildings: usize,
}

impl Drift {
    /// `moved_buildings / common_buildings` (0 when nothing is shared).
    pub fn moved_fraction(&self) -> f64 {
        if self.common_buildings == 0 {
            0.0
        } else {
            self.moved_buildings as f64 / self.common_buildings as f64
        }
    }
}

/// Compares the plots of the methods that `before` and `after` share.
pub fn measure_drift(before: &CityLayout, after: &CityLayout) -> Drift {
    let mut drift = Drift::default();
    for (i, b) in before.buildings.iter().enumerate() {
        if let Some(j) = after.building_of(b.method_id) {
            drift.common_buildings += 1;
            if after.plot_of(j as usize) != before.plot_of(i) {
                drift.moved_buildings += 1;
            }
        }
    }
    drift
}

/// `grown.area / fresh.area - 1`: the extra ground an incrementally grown city uses compared
/// with a fresh full layout of the same methods (0.25 = 25 % more).
pub fn area_overhead(grown: &CityLayout, fresh: &CityLayout) -> f64 {
    let fresh_area = f64::from(fresh.area_wu2());
    if fresh_area <= 0.0 {
        return 0.0;
    }
    f64::from(grown.area_wu2()) / fresh_area - 1.0
}
