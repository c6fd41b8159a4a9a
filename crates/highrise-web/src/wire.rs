//! The page's binary messages (little-endian), written once here and read by `web/src/wire.js`.
//!
//! Every message starts with an 8-byte header: kind (u8), flags (u8), 2 bytes zero, session
//! (u32). Then, by kind:
//!
//! - [`PLAN`]: a city's plan. generation u32, districts u32, blocks u32, buildings u32,
//!   full height (f32, world units); districts × (min x, min z, max x, max z, base, top: f32;
//!   depth u32); blocks × (min x, min z, max x, max z, base, top: f32); buildings × (min x,
//!   min z, max x, max z, base: f32; method id u32); then three texts, each a u32 byte length
//!   and UTF-8 lines joined by `\n`: the buildings' names, the districts' package paths, the
//!   blocks' class names.
//! - [`HEIGHTS`]: what changed since the session's last heights (flag [`ALL`]: every
//!   building). The relative scale's full value (f32), the program time (f64, seconds), a count
//!   (u32), then count × (building u32, elevation u16 in 1/65535 of the window, heat step u8
//!   or [`IDLE`] for a method that did not run in the window, threads u8 capped at 255).
//! - [`DIFF`]: the diff city of two sessions (session [`DIFF_SESSION`], its plan a [`PLAN`]
//!   of that session): the plan's generation u32, the full scale (f32, a share of the window),
//!   a count (u32), then count × (colour u8: 0 none, 1 added, 2 removed, 3 moved, 4 faster,
//!   5 slower; ramp step u8; height u16: 0 flat, 1 a marker, else 2 + the share of full height
//!   in 1.5/65533 steps; A's and B's elevation u16 in 1/65534, 65535 where absent).

use highrise_layout::look::heat_step;
use highrise_layout::CityLayout;

pub const PLAN: u8 = 1;
pub const HEIGHTS: u8 = 2;
pub const DIFF: u8 = 3;
/// The session number of the diff city.
pub const DIFF_SESSION: u32 = u32::MAX;
/// [`HEIGHTS`] flag: the message holds every building, not only the changed ones.
pub const ALL: u8 = 1;
/// Heat step of a building whose method did not run in the window.
pub const IDLE: u8 = 255;

/// One building's state as the page draws it, packed (elevation, heat step, threads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tower {
    pub elevation_q: u16,
    pub heat: u8,
    pub threads: u8,
}

impl Tower {
    /// A method that did not run in the window.
    pub const IDLE: Tower = Tower {
        elevation_q: 0,
        heat: IDLE,
        threads: 0,
    };

    /// A building from its method's elevation (share of the window), thread count and whether
    /// it ran at all in the window.
    pub fn new(elevation: f32, threads: u32, ran: bool) -> Self {
        if !ran {
            return Self::IDLE;
        }
        Self {
            elevation_q: (elevation.clamp(0.0, 1.0) * 65535.0).round() as u16,
            heat: heat_step(elevation),
            threads: threads.min(255) as u8,
        }
    }

    /// A method's tower from its statistics over the window.
    pub fn of(stats: &highrise_aggregate::MethodStats) -> Self {
        let ran = stats.elevation > 0.0 || stats.calls > 0 || stats.thread_count > 0;
        Self::new(stats.elevation, stats.thread_count, ran)
    }

    /// The elevation it stands for (a share of the window).
    pub fn elevation(self) -> f32 {
        f32::from(self.elevation_q) / 65535.0
    }
}

/// The highest elevation of a snapshot (what the relative height scale follows).
pub fn hottest(snapshot: &highrise_aggregate::Snapshot) -> f32 {
    snapshot
        .methods
        .iter()
        .map(|m| m.elevation)
        .fold(0.0, f32::max)
}

fn header(out: &mut Vec<u8>, kind: u8, flags: u8, session: u32) {
    out.extend_from_slice(&[kind, flags, 0, 0]);
    out.extend_from_slice(&session.to_le_bytes());
}

fn f32s(out: &mut Vec<u8>, values: &[f32]) {
    for value in values {
        out.extend_from_slice(&value.to_le_bytes());
    }
}

/// A slab: its rectangle, base and top.
fn slab(out: &mut Vec<u8>, r: highrise_layout::Rect, base_wu: f32, top_wu: f32) {
    f32s(out, &[r.min_x, r.min_z, r.max_x, r.max_z, base_wu, top_wu]);
}

fn text<'a>(out: &mut Vec<u8>, lines: impl Iterator<Item = &'a str>) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    for (index, line) in lines.enumerate() {
        if index > 0 {
            out.push(b'\n');
        }
        // A name cannot hold the separator.
        out.extend(
            line.bytes()
                .map(|byte| if byte == b'\n' { b' ' } else { byte }),
        );
    }
    let length = (out.len() - start - 4) as u32;
    out[start..start + 4].copy_from_slice(&length.to_le_bytes());
}

/// A [`PLAN`] message: `layout`'s rectangles, `names` by building (display names).
pub fn plan(session: u32, generation: u32, layout: &CityLayout, names: &[String]) -> Vec<u8> {
    let (districts, blocks, buildings) = (layout.districts(), layout.blocks(), layout.buildings());
    let mut out =
        Vec::with_capacity(32 + districts.len() * 28 + (blocks.len() + buildings.len()) * 64);
    header(&mut out, PLAN, 0, session);
    for count in [
        generation,
        districts.len() as u32,
        blocks.len() as u32,
        buildings.len() as u32,
    ] {
        out.extend_from_slice(&count.to_le_bytes());
    }
    f32s(
        &mut out,
        &[highrise_layout::look::full_height_wu(layout.bounds())],
    );
    for district in districts {
        slab(
            &mut out,
            district.rect,
            district.base_height_wu,
            district.top_height_wu,
        );
        out.extend_from_slice(&u32::from(district.depth).to_le_bytes());
    }
    for block in blocks {
        slab(
            &mut out,
            block.rect,
            block.base_height_wu,
            block.top_height_wu,
        );
    }
    for building in buildings {
        let r = building.footprint;
        f32s(
            &mut out,
            &[r.min_x, r.min_z, r.max_x, r.max_z, building.base_height_wu],
        );
        out.extend_from_slice(&building.method_id.to_le_bytes());
    }
    text(
        &mut out,
        (0..buildings.len()).map(|index| names.get(index).map_or("", String::as_str)),
    );
    let packages = layout.packages();
    text(
        &mut out,
        districts
            .iter()
            .map(|d| packages[d.package as usize].path.as_str()),
    );
    let classes = layout.classes();
    text(
        &mut out,
        blocks
            .iter()
            .map(|b| classes[b.class as usize].name.as_str()),
    );
    out
}

/// A [`HEIGHTS`] message: `changed` as (building, tower); `all` when it holds every building.
pub fn heights(
    session: u32,
    all: bool,
    relative_full: f32,
    program_time_s: f64,
    changed: impl ExactSizeIterator<Item = (u32, Tower)>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(24 + changed.len() * 8);
    header(&mut out, HEIGHTS, if all { ALL } else { 0 }, session);
    out.extend_from_slice(&relative_full.to_le_bytes());
    out.extend_from_slice(&program_time_s.to_le_bytes());
    out.extend_from_slice(&(changed.len() as u32).to_le_bytes());
    for (building, tower) in changed {
        out.extend_from_slice(&building.to_le_bytes());
        out.extend_from_slice(&tower.elevation_q.to_le_bytes());
        out.extend_from_slice(&[tower.heat, tower.threads]);
    }
    out
}

/// One building of the diff city.
#[derive(Debug, Clone, Copy)]
pub struct DiffTower {
    pub height: highrise_layout::look::DiffHeight,
    pub colour: highrise_layout::look::DiffColour,
    pub elevation_a: Option<f32>,
    pub elevation_b: Option<f32>,
}

/// A [`DIFF`] message.
pub fn diff(
    generation: u32,
    full_scale: f32,
    towers: impl ExactSizeIterator<Item = DiffTower>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(20 + towers.len() * 8);
    header(&mut out, DIFF, 0, DIFF_SESSION);
    out.extend_from_slice(&generation.to_le_bytes());
    out.extend_from_slice(&full_scale.to_le_bytes());
    out.extend_from_slice(&(towers.len() as u32).to_le_bytes());
    let share = |value: Option<f32>| {
        value.map_or(u16::MAX, |v| (v.clamp(0.0, 1.0) * 65534.0).round() as u16)
    };
    for tower in towers {
        let (colour, step) = colour_code(tower.colour);
        out.extend_from_slice(&[colour, step]);
        out.extend_from_slice(&height_code(tower.height).to_le_bytes());
        out.extend_from_slice(&share(tower.elevation_a).to_le_bytes());
        out.extend_from_slice(&share(tower.elevation_b).to_le_bytes());
    }
    out
}

/// What a diff colour is called on the wire (`wire::DIFF`).
pub fn colour_code(colour: highrise_layout::look::DiffColour) -> (u8, u8) {
    match colour {
        highrise_layout::look::DiffColour::Stub => (0, 0),
        highrise_layout::look::DiffColour::Added => (1, 0),
        highrise_layout::look::DiffColour::Removed => (2, 0),
        highrise_layout::look::DiffColour::Moved => (3, 0),
        highrise_layout::look::DiffColour::Faster(step) => (4, step),
        highrise_layout::look::DiffColour::Slower(step) => (5, step),
    }
}

/// A diff height on the wire: 0 flat, 1 a marker, else 2 + the share of full height in
/// 1.5/65533 steps.
pub fn height_code(height: highrise_layout::look::DiffHeight) -> u16 {
    match height {
        highrise_layout::look::DiffHeight::Stub => 0,
        highrise_layout::look::DiffHeight::Marker => 1,
        highrise_layout::look::DiffHeight::Standing(ratio) => {
            2 + ((ratio.clamp(0.0, 1.5) / 1.5) * 65533.0).round() as u16
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use highrise_layout::MethodSpec;

    #[test]
    fn a_plan_holds_every_rectangle_and_name() {
        let methods = [
            MethodSpec::new(0, "game", "Board", "drop"),
            MethodSpec::new(1, "game", "Board", "clear"),
            MethodSpec::new(2, "", "Main", "main"),
        ];
        let layout = CityLayout::full(&methods).unwrap();
        let names: Vec<String> = layout
            .buildings()
            .iter()
            .map(|b| format!("m{}", b.method_id))
            .collect();
        let bytes = plan(7, 3, &layout, &names);
        assert_eq!(&bytes[..8], &[PLAN, 0, 0, 0, 7, 0, 0, 0]);
        let (d, b, n) = (layout.districts().len(), layout.blocks().len(), 3);
        let texts_at = 8 + 20 + d * 28 + b * 24 + n * 24;
        let length = u32::from_le_bytes(bytes[texts_at..texts_at + 4].try_into().unwrap()) as usize;
        let names_text = std::str::from_utf8(&bytes[texts_at + 4..texts_at + 4 + length]).unwrap();
        assert_eq!(names_text.split('\n').count(), 3);
        assert!(names_text.contains("m2"));
    }

    #[test]
    fn heights_are_eight_bytes_a_building_and_idle_ones_say_so() {
        let towers = [
            (0, Tower::new(0.5, 2, true)),
            (1, Tower::new(0.0, 0, false)),
        ];
        let bytes = heights(1, true, 0.5, 2.0, towers.into_iter());
        assert_eq!(bytes.len(), 8 + 16 + 2 * 8);
        assert_eq!(bytes[1], ALL);
        assert_eq!(bytes[24 + 8 + 6], IDLE);
        assert!((Tower::new(0.5, 2, true).elevation() - 0.5).abs() < 1e-4);
    }
}
