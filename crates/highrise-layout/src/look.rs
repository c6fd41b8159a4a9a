//! How a city looks, defined once for every place that draws one (the desktop viewer and the
//! web page): how a share maps to a height, the heat ramp, the stub height, how many hot spots
//! carry their names. The web page gets these numbers from highrise; it defines none itself.

use crate::{Change, Rect};

/// Height of a building whose method did not run in the window, world units.
pub const STUB_HEIGHT_WU: f32 = 0.06;

/// Number of steps of the heat ramp.
pub const HEAT_STEPS: usize = 32;

/// From this many buildings, the automatic height scale takes the square root of the share.
pub const SQRT_FROM_BUILDINGS: usize = 1_000;

/// The smallest full scale the relative height scale goes down to (2 % of the window), so an
/// idle program's crumbs do not stand as towers.
pub const MIN_RELATIVE_FULL_SCALE: f32 = 0.02;

/// At most this many of each city's tallest buildings carry their names.
pub const HOT_SPOT_NAMES: usize = 5;

/// A building is named as a hot spot only when its target height is at least this share of its
/// city's tallest (the others do not stand out as towers).
pub const HOT_SPOT_MIN_SHARE: f32 = 0.25;

/// How a value (a share of the window, or of the memory modes' own scale) maps to a height:
/// `full_value` stands `full_height_wu` tall, in proportion or by the square root.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeightFit {
    pub full_height_wu: f32,
    pub full_value: f32,
    pub sqrt: bool,
}

impl HeightFit {
    /// Value 1 stands `full_height_wu` tall, in proportion.
    pub fn linear(full_height_wu: f32) -> Self {
        Self {
            full_height_wu,
            full_value: 1.0,
            sqrt: false,
        }
    }

    /// The height of `value` (at most 1.5 × full height; the square root of that when `sqrt`).
    pub fn height_wu(self, value: f32) -> f32 {
        let ratio = (value / self.full_value.max(f32::MIN_POSITIVE)).clamp(0.0, 1.5);
        let ratio = if self.sqrt { ratio.sqrt() } else { ratio };
        ratio * self.full_height_wu
    }
}

/// Height of a 100 % building in a city of these bounds: grows with the city so tall towers
/// read at any size.
pub fn full_height_wu(bounds: Rect) -> f32 {
    (0.6 * bounds.width_wu().max(bounds.depth_wu())).clamp(8.0, 200.0)
}

/// The full scale the relative height scale keeps, from the one it had (`current`) and the
/// hottest value now (`hottest`): up at once to the quarter-octave step at or above `hottest`;
/// down only once that step is two below `current` (a hot spot that cools a little leaves the
/// city as it is). Between [`MIN_RELATIVE_FULL_SCALE`] and 1.
pub fn relative_full_scale(current: f32, hottest: f32) -> f32 {
    let step = |value: f32| {
        let value = value.clamp(MIN_RELATIVE_FULL_SCALE, 1.0);
        2f32.powf((value.log2() * 4.0 - 1e-4).ceil() / 4.0).min(1.0)
    };
    let wanted = step(hottest);
    if wanted > current || wanted <= current * 2f32.powf(-0.5) + 1e-6 || !current.is_finite() {
        wanted
    } else {
        current
    }
}

/// The heat ramp's step (0..[`HEAT_STEPS`]) of a share `t` in 0..=1.
pub fn heat_step(t: f32) -> u8 {
    (t.clamp(0.0, 1.0) * (HEAT_STEPS - 1) as f32).round() as u8
}

/// The heat ramp: cold blue-grey → yellow → orange → red, `t` in 0..=1, as sRGB in 0..=1.
pub fn heat_srgb(t: f32) -> [f32; 3] {
    const STOPS: [(f32, [f32; 3]); 4] = [
        (0.0, [0.30, 0.42, 0.62]),
        (0.35, [0.95, 0.85, 0.25]),
        (0.7, [0.98, 0.50, 0.12]),
        (1.0, [0.90, 0.12, 0.10]),
    ];
    let t = t.clamp(0.0, 1.0);
    let mut colour = STOPS[0].1;
    for pair in STOPS.windows(2) {
        let ((t0, c0), (t1, c1)) = (pair[0], pair[1]);
        if t >= t0 && t <= t1 {
            let f = (t - t0) / (t1 - t0);
            colour = [0, 1, 2].map(|i| c0[i] + (c1[i] - c0[i]) * f);
        }
    }
    colour
}

/// The sRGB of heat step `step` (see [`heat_step`]).
pub fn heat_step_srgb(step: u8) -> [f32; 3] {
    heat_srgb(f32::from(step) / (HEAT_STEPS - 1) as f32)
}

/// A building that did not run in the window, sRGB.
pub const STUB_SRGB: [f32; 3] = [0.22, 0.24, 0.28];
/// A hovered or found building, sRGB.
pub const HIGHLIGHT_SRGB: [f32; 3] = [0.35, 1.0, 0.95];
/// A block slab, sRGB.
pub const BLOCK_SRGB: [f32; 3] = [0.38, 0.40, 0.44];

/// A district slab at nesting depth `depth` (deeper is lighter), sRGB.
pub fn district_srgb(depth: u16) -> [f32; 3] {
    let level = 0.13 + 0.045 * f32::from(depth.min(7));
    [level, level + 0.015, level + 0.035]
}

/// Steps of each side (faster, slower) of the diff city's blue/red ramp.
pub const DIFF_STEPS: usize = 16;
/// A difference (share of the window) below this is no difference: the building stays a stub.
pub const DIFF_EPSILON: f32 = 0.005;
/// The smallest difference that stands at full height in the diff city.
pub const DIFF_MIN_FULL_SCALE: f32 = 0.02;

/// A diff-city building's colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffColour {
    /// No difference.
    Stub,
    /// Only in B.
    Added,
    /// Only in A.
    Removed,
    /// In both, under different packages (the old plot, or the new one without a change).
    Moved,
    /// B spends less (step 1..DIFF_STEPS, larger is more).
    Faster(u8),
    /// B spends more.
    Slower(u8),
}

/// A diff-city building's height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DiffHeight {
    /// Flat: no difference.
    Stub,
    /// A low marker (a moved method's old plot): twice the stub.
    Marker,
    /// This share of full height (at most 1.5), at least a marker.
    Standing(f32),
}

/// A diff-city building: height |B − A| with `full_scale` (a window fraction, e.g. the largest
/// difference in the city) standing at full height, as differential flame graphs scale to
/// their largest change; blue where B is faster, red where slower. A method that moved is
/// compared at its new plot (`value_a` is then its value under the old package) and its old
/// plot is a flat amber marker; added and removed methods stand at their own value in green
/// and purple.
pub fn diff_look(
    change: Change,
    value_a: Option<f32>,
    value_b: Option<f32>,
    full_scale: f32,
) -> (DiffHeight, DiffColour) {
    let full_scale = full_scale.max(DIFF_MIN_FULL_SCALE);
    let standing = |value: f32| DiffHeight::Standing((value / full_scale).min(1.5));
    let (a, b) = (value_a.unwrap_or(0.0), value_b.unwrap_or(0.0));
    match change {
        Change::Added => (standing(b), DiffColour::Added),
        Change::Removed => (standing(a), DiffColour::Removed),
        Change::MovedOut => (DiffHeight::Marker, DiffColour::Moved),
        Change::MovedIn if value_a.is_none() => (standing(b), DiffColour::Moved),
        Change::Unchanged | Change::MovedIn => {
            let delta = b - a;
            if delta.abs() < DIFF_EPSILON {
                return if change == Change::MovedIn {
                    (DiffHeight::Marker, DiffColour::Moved)
                } else {
                    (DiffHeight::Stub, DiffColour::Stub)
                };
            }
            let relative = (delta.abs() / full_scale).min(1.0);
            let step = 1 + (relative * (DIFF_STEPS - 2) as f32).round() as u8;
            let colour = if delta > 0.0 {
                DiffColour::Slower(step)
            } else {
                DiffColour::Faster(step)
            };
            (standing(delta.abs()), colour)
        }
    }
}

/// Only in B, sRGB.
pub const ADDED_SRGB: [f32; 3] = [0.20, 0.85, 0.35];
/// Only in A, sRGB.
pub const REMOVED_SRGB: [f32; 3] = [0.62, 0.30, 0.80];
/// Moved between packages, sRGB.
pub const MOVED_SRGB: [f32; 3] = [0.95, 0.75, 0.20];

/// Step `step` (0..DIFF_STEPS) of the diff ramp from a neutral grey to blue (`faster`) or red.
pub fn diff_ramp_srgb(faster: bool, step: u8) -> [f32; 3] {
    const NEUTRAL: [f32; 3] = [0.45, 0.46, 0.50];
    let end = if faster {
        [0.12, 0.38, 0.95]
    } else {
        [0.95, 0.12, 0.10]
    };
    let t = f32::from(step).min((DIFF_STEPS - 1) as f32) / (DIFF_STEPS - 1) as f32;
    [0, 1, 2].map(|i| NEUTRAL[i] + (end[i] - NEUTRAL[i]) * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_square_root_fit_stands_a_quarter_of_full_at_half_height() {
        let fit = HeightFit {
            full_height_wu: 100.0,
            full_value: 0.4,
            sqrt: true,
        };
        assert!((fit.height_wu(0.1) - 50.0).abs() < 1e-4);
        assert!((fit.height_wu(0.4) - 100.0).abs() < 1e-4);
        assert_eq!(fit.height_wu(0.0), 0.0);
        // Above full scale it grows up to 1.5x the value's ratio, as the linear fit does.
        assert!((fit.height_wu(1.0) - 100.0 * 1.5f32.sqrt()).abs() < 1e-3);
        let linear = HeightFit { sqrt: false, ..fit };
        assert!((linear.height_wu(0.1) - 25.0).abs() < 1e-4);
        assert_eq!(HeightFit::linear(10.0).height_wu(0.5), 5.0);
    }

    #[test]
    fn the_relative_scale_steps_up_at_once_and_down_only_two_steps_below() {
        // A big program's hottest method at 10 %: full height is the quarter-octave step at or
        // above it (2^-3.25 = 10.5 %), so the hot spot stands nearly full height.
        let full = relative_full_scale(1.0, 0.10);
        assert!((full - 2f32.powf(-3.25)).abs() < 1e-6, "{full}");
        // It cools a little: the scale stays; it heats past the step: the scale goes up.
        assert_eq!(relative_full_scale(full, 0.09), full);
        assert_eq!(relative_full_scale(full, 0.08), full);
        let up = relative_full_scale(full, 0.12);
        assert!((up - 2f32.powf(-3.0)).abs() < 1e-6, "{up}");
        // Two steps lower: the scale follows it down.
        let down = relative_full_scale(up, 0.07);
        assert!((down - 2f32.powf(-3.75)).abs() < 1e-6, "{down}");
        // Busy programs read as on the paper's scale; idle ones keep their crumbs small.
        assert_eq!(relative_full_scale(0.5, 0.9), 1.0);
        assert_eq!(relative_full_scale(1.0, 1.0), 1.0);
        let idle = relative_full_scale(1.0, 0.0);
        assert!((MIN_RELATIVE_FULL_SCALE..0.025).contains(&idle), "{idle}");
        assert_eq!(relative_full_scale(0.0, 0.3), 2f32.powf(-1.5));
    }

    #[test]
    fn the_heat_ramp_runs_from_blue_grey_to_red_through_its_stops() {
        let near = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
        assert!(near(heat_srgb(0.0), [0.30, 0.42, 0.62]));
        assert!(near(heat_srgb(1.0), [0.90, 0.12, 0.10]));
        assert!(near(heat_srgb(0.35), [0.95, 0.85, 0.25]));
        assert_eq!(heat_step(0.0), 0);
        assert_eq!(heat_step(1.0) as usize, HEAT_STEPS - 1);
        assert_eq!(heat_step_srgb(heat_step(1.0)), heat_srgb(1.0));
    }
}
