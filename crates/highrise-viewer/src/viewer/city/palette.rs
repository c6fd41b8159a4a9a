//! What buildings show and in which colours: the height and colour modes, the palette's
//! colour keys and tables, and the mapping of a method's statistics to a building's target.

use bevy::prelude::*;
use highrise_aggregate::{MethodStats, Snapshot};

use highrise_layout::look::{self, heat_srgb, heat_step, STUB_HEIGHT_WU};
pub use highrise_layout::look::{
    relative_full_scale, HeightFit, DIFF_STEPS, HEAT_STEPS, SQRT_FROM_BUILDINGS,
};

/// Number of distinct class colours.
pub const CLASS_COLOURS: usize = 24;
/// Thread-count colours: 1, 2, …, THREAD_STEPS (and more).
pub const THREAD_STEPS: usize = 8;

/// What full height stands for in the time modes, and how a share maps to a height.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum HeightScale {
    /// [`HeightScale::Relative`] in a city of fewer than [`SQRT_FROM_BUILDINGS`] buildings,
    /// [`HeightScale::Sqrt`] from there: a small program keeps the paper's proportions, a big
    /// one's next hot spots stand as towers beside the hottest.
    #[default]
    Auto,
    /// Full height is about the hottest method's value (rounded up to a quarter of an octave,
    /// so the scale moves in steps, not every snapshot), heights in proportion: among
    /// thousands of methods that share the time, the hottest stands as a tower.
    Relative,
    /// As [`HeightScale::Relative`], heights by the square root of the share of full height:
    /// a method at a quarter of the hottest stands half as tall, so the five hottest of a big
    /// program all stand out. Colour still says the share itself.
    Sqrt,
    /// The paper's scale: full height is 100 % of the window, heights in proportion.
    Absolute,
}

/// What building height shows.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum HeightMode {
    /// The paper's elevation: exclusive (self) time, max over threads.
    #[default]
    Exclusive,
    /// Time anywhere on the stack, max over threads.
    Inclusive,
    /// Exclusive time summed over threads (may exceed 100 %).
    Summed,
    /// Objects the method's own frames created per second over the window; the busiest
    /// method stands at full height.
    #[value(name = "allocations")]
    Allocations,
}

impl HeightMode {
    /// The value this mode reads from a method's statistics and allocations: a fraction of the
    /// window for the time modes, objects per second for [`HeightMode::Allocations`].
    pub fn value(self, stats: &MethodStats, alloc: AllocSample) -> f32 {
        match self {
            HeightMode::Exclusive => stats.elevation,
            HeightMode::Inclusive => stats.inclusive_elevation,
            HeightMode::Summed => stats.summed_elevation,
            HeightMode::Allocations => alloc.per_s,
        }
    }

    /// True when the mode reads allocations (targets then change with the memory snapshot).
    pub fn reads_memory(self) -> bool {
        self == HeightMode::Allocations
    }
}

/// What building colour shows.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColourMode {
    /// Heat ramp of the height value.
    #[default]
    Heat,
    /// One colour per class.
    Class,
    /// Thread count.
    Threads,
    /// Bytes the method's own frames allocated over the window, on a log scale: red the most,
    /// blue the least (the allocation-site paper's colouring).
    Bytes,
}

impl ColourMode {
    /// True when the mode reads allocations.
    pub fn reads_memory(self) -> bool {
        self == ColourMode::Bytes
    }
}

/// One method's allocations over the window, as the memory modes read them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AllocSample {
    /// Objects created per second.
    pub per_s: f32,
    /// Bytes allocated over the window.
    pub bytes: u64,
}

impl AllocSample {
    /// Method `method_id`'s sample in `snapshot` (zero for methods that allocated nothing).
    pub fn of(snapshot: &Snapshot, method_id: u32) -> Self {
        let window = snapshot.memory.method(method_id).window;
        let window_s = snapshot.window_ns.max(1) as f32 * 1e-9;
        Self {
            per_s: window.count as f32 / window_s,
            bytes: window.bytes,
        }
    }
}

/// What a memory mode's full height and hottest colour stand for: the busiest method's
/// objects per second and bytes in the compared snapshots.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AllocScale {
    pub max_per_s: f32,
    pub max_bytes: u64,
    /// The fewest bytes any allocating method allocated (0 when none did).
    pub min_bytes: u64,
}

impl AllocScale {
    /// The scale of one snapshot (zero when it has no allocations).
    pub fn of(snapshot: &Snapshot) -> Self {
        let window_s = snapshot.window_ns.max(1) as f32 * 1e-9;
        let (count, bytes, min_bytes) =
            snapshot
                .memory
                .methods
                .iter()
                .fold((0, 0, u64::MAX), |(count, bytes, min), m| {
                    let least = if m.window.bytes > 0 {
                        min.min(m.window.bytes)
                    } else {
                        min
                    };
                    (count.max(m.window.count), bytes.max(m.window.bytes), least)
                });
        Self {
            max_per_s: count as f32 / window_s,
            max_bytes: bytes,
            min_bytes: if bytes == 0 { 0 } else { min_bytes },
        }
    }

    /// The larger of two scales (two versions on one scale).
    pub fn max(self, other: Self) -> Self {
        let least = |a: u64, b: u64| match (a, b) {
            (0, b) => b,
            (a, 0) => a,
            (a, b) => a.min(b),
        };
        Self {
            max_per_s: self.max_per_s.max(other.max_per_s),
            max_bytes: self.max_bytes.max(other.max_bytes),
            min_bytes: least(self.min_bytes, other.min_bytes),
        }
    }

    /// The value standing at full height in `mode`.
    pub fn full_scale(self, mode: HeightMode) -> f32 {
        if mode.reads_memory() {
            self.max_per_s.max(f32::MIN_POSITIVE)
        } else {
            1.0
        }
    }

    /// Where `bytes` falls on the log scale from the fewest (0) to the most (1) any method
    /// allocated.
    pub fn bytes_share(self, bytes: u64) -> f32 {
        log_share(bytes, self.min_bytes, self.max_bytes)
    }
}

/// Which palette colour a building wears.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColourKey {
    Stub,
    Heat(u8),
    Class(u8),
    Threads(u8),
    Highlight,
    /// Aligned compare view: the method does not exist in this version.
    Absent,
    /// Diff city: only in B.
    Added,
    /// Diff city: only in A.
    Removed,
    /// Diff city: in both versions, under different packages.
    Moved,
    /// Diff city: B spends less (step 1..DIFF_STEPS, larger is more).
    Faster(u8),
    /// Diff city: B spends more.
    Slower(u8),
}

/// Colours and shared meshes. Buildings take their colour from a few small tables (linear-light
/// RGBA bytes for the instanced draw); districts and blocks share a handful of materials.
#[derive(Resource, Debug)]
pub struct Palette {
    pub cube: Handle<Mesh>,
    stub: [u8; 4],
    heat: Vec<[u8; 4]>,
    class: Vec<[u8; 4]>,
    threads: Vec<[u8; 4]>,
    highlight: [u8; 4],
    absent: [u8; 4],
    added: [u8; 4],
    removed: [u8; 4],
    moved: [u8; 4],
    faster: Vec<[u8; 4]>,
    slower: Vec<[u8; 4]>,
    /// Districts by nesting depth (deeper is lighter).
    pub district: Vec<Handle<StandardMaterial>>,
    pub block: Handle<StandardMaterial>,
    /// A block outside a focused package.
    pub block_dimmed: Handle<StandardMaterial>,
}

impl Palette {
    /// A building colour as linear-light RGBA bytes.
    pub fn rgba(&self, key: ColourKey) -> [u8; 4] {
        match key {
            ColourKey::Stub => self.stub,
            ColourKey::Heat(step) => self.heat[usize::from(step).min(HEAT_STEPS - 1)],
            ColourKey::Class(index) => self.class[usize::from(index) % CLASS_COLOURS],
            ColourKey::Threads(count) => {
                self.threads[usize::from(count).clamp(1, THREAD_STEPS) - 1]
            }
            ColourKey::Highlight => self.highlight,
            ColourKey::Absent => self.absent,
            ColourKey::Added => self.added,
            ColourKey::Removed => self.removed,
            ColourKey::Moved => self.moved,
            ColourKey::Faster(step) => self.faster[usize::from(step).min(DIFF_STEPS - 1)],
            ColourKey::Slower(step) => self.slower[usize::from(step).min(DIFF_STEPS - 1)],
        }
    }

    /// A building's colour, in grey when `greyed` (a session highrise failed on): its
    /// luminance, darker. The highlight keeps its colour (hover still reads the city).
    pub fn building_rgba(&self, key: ColourKey, greyed: bool) -> [u8; 4] {
        let rgba = self.rgba(key);
        if !greyed || key == ColourKey::Highlight {
            return rgba;
        }
        grey(rgba)
    }

    pub fn district_material(&self, depth: u16) -> Handle<StandardMaterial> {
        self.district[usize::from(depth).min(self.district.len() - 1)].clone()
    }
}

/// A linear-light colour's luminance, darkened, as an opaque grey.
pub fn grey(rgba: [u8; 4]) -> [u8; 4] {
    let [r, g, b, a] = rgba.map(f32::from);
    let level = ((0.2126 * r + 0.7152 * g + 0.0722 * b) * GREY_LEVEL).round() as u8;
    [level, level, level, a as u8]
}

/// How much darker a failed session's grey buildings are than their colours' luminance.
pub const GREY_LEVEL: f32 = 0.6;

/// A colour as linear-light RGBA bytes.
fn linear_bytes(colour: Color) -> [u8; 4] {
    let linear = LinearRgba::from(colour);
    [linear.red, linear.green, linear.blue, linear.alpha]
        .map(|channel| (channel.clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// Class colour `index` (of [`CLASS_COLOURS`]): golden-angle hues, alternating lightness, so
/// neighbours differ.
pub fn class_hue(index: u8) -> Color {
    let index = usize::from(index) % CLASS_COLOURS;
    let hue = (index as f32 * 137.508) % 360.0;
    let lightness = if index % 2 == 0 { 0.55 } else { 0.42 };
    Color::hsl(hue, 0.65, lightness)
}

/// The heat ramp (`highrise_layout::look::heat_srgb`), `t` in 0..=1.
pub fn heat_colour(t: f32) -> Color {
    srgb(heat_srgb(t))
}

fn srgb([r, g, b]: [f32; 3]) -> Color {
    Color::srgb(r, g, b)
}

impl FromWorld for Palette {
    fn from_world(world: &mut World) -> Self {
        let cube = world
            .resource_mut::<Assets<Mesh>>()
            .add(Cuboid::new(1.0, 1.0, 1.0));
        let heat = (0..HEAT_STEPS)
            .map(|step| linear_bytes(heat_colour(step as f32 / (HEAT_STEPS - 1) as f32)))
            .collect();
        let class = (0..CLASS_COLOURS)
            .map(|index| linear_bytes(class_hue(index as u8)))
            .collect();
        let threads = (1..=THREAD_STEPS)
            .map(|count| {
                linear_bytes(Color::hsl(
                    200.0 - 180.0 * count as f32 / THREAD_STEPS as f32,
                    0.7,
                    0.5,
                ))
            })
            .collect();
        // Diverging ramps from a neutral grey: blue where B is faster, red where slower.
        let ramp = |faster: bool| {
            (0..DIFF_STEPS as u8)
                .map(|step| linear_bytes(srgb(look::diff_ramp_srgb(faster, step))))
                .collect()
        };
        let (faster, slower) = (ramp(true), ramp(false));
        let mut materials = world.resource_mut::<Assets<StandardMaterial>>();
        let mut add = |colour: Color| {
            materials.add(StandardMaterial {
                base_color: colour,
                perceptual_roughness: 0.8,
                ..default()
            })
        };
        let district = (0..8)
            .map(|depth| add(srgb(look::district_srgb(depth))))
            .collect();
        let block = add(srgb(look::BLOCK_SRGB));
        let block_dimmed = add(Color::srgb(0.15, 0.16, 0.18));
        Self {
            cube,
            absent: linear_bytes(Color::srgb(0.16, 0.17, 0.20)),
            added: linear_bytes(srgb(look::ADDED_SRGB)),
            removed: linear_bytes(srgb(look::REMOVED_SRGB)),
            moved: linear_bytes(srgb(look::MOVED_SRGB)),
            faster,
            slower,
            stub: linear_bytes(srgb(look::STUB_SRGB)),
            heat,
            class,
            threads,
            highlight: linear_bytes(srgb(look::HIGHLIGHT_SRGB)),
            district,
            block,
            block_dimmed,
        }
    }
}

/// Where `value` falls between `least` (0) and `most` (1) on a log scale (1 when they are
/// equal, 0 for values at or below `least`).
pub fn log_share(value: u64, least: u64, most: u64) -> f32 {
    if value == 0 || most == 0 {
        return 0.0;
    }
    let least = least.clamp(1, most) as f32;
    if most as f32 <= least {
        return 1.0;
    }
    ((value as f32 / least).ln() / (most as f32 / least).ln()).clamp(0.0, 1.0)
}

/// A building's target height and colour from its method's statistics and allocations
/// (`block` picks the class colour; `scale` is what the memory modes measure against).
pub fn stats_target(
    stats: &MethodStats,
    alloc: AllocSample,
    block: u32,
    modes: (HeightMode, ColourMode),
    scale: AllocScale,
    fit: HeightFit,
) -> (f32, ColourKey) {
    let (height_mode, colour_mode) = modes;
    let value = height_mode.value(stats, alloc) / scale.full_scale(height_mode);
    let allocated = alloc.per_s > 0.0 || alloc.bytes > 0;
    let ran = value > 0.0 || stats.calls > 0 || stats.thread_count > 0 || allocated;
    if !ran {
        return (STUB_HEIGHT_WU, ColourKey::Stub);
    }
    let height_wu = fit.height_wu(value).max(STUB_HEIGHT_WU * 2.0);
    let heat = |t: f32| ColourKey::Heat(heat_step(t));
    let colour = match colour_mode {
        ColourMode::Heat => heat(value),
        ColourMode::Class => ColourKey::Class((block % 251) as u8),
        ColourMode::Threads => {
            ColourKey::Threads(stats.thread_count.clamp(1, THREAD_STEPS as u32) as u8)
        }
        // Methods that allocated nothing wear the stub grey: the ramp is for those that did.
        ColourMode::Bytes if alloc.bytes == 0 => ColourKey::Stub,
        ColourMode::Bytes => heat(scale.bytes_share(alloc.bytes)),
    };
    (height_wu, colour)
}

#[cfg(test)]
mod tests {
    use super::*;

    use highrise_aggregate::{Amount, MemorySnapshot, MethodMemory};

    fn window(count: u64, bytes: u64) -> MethodMemory {
        MethodMemory {
            window: Amount {
                count,
                bytes,
                ..Amount::default()
            },
            total: Amount::default(),
        }
    }

    /// In the allocation modes the busiest method stands at full height and wears the hottest
    /// colour; one creating a tenth as many objects stands a tenth as tall, in the coldest
    /// colour (it allocated the fewest bytes); one that ran without allocating is a low grey
    /// building; one that never ran a stub.
    #[test]
    fn allocation_modes_scale_to_the_busiest_method() {
        let snapshot = Snapshot {
            window_ns: 2_000_000_000,
            methods: vec![
                MethodStats::default(),
                MethodStats {
                    calls: 1,
                    ..MethodStats::default()
                },
                MethodStats::default(),
                MethodStats::default(),
            ],
            memory: std::sync::Arc::new(MemorySnapshot {
                methods: vec![
                    window(0, 0),
                    window(0, 0),
                    window(1_000, 64_000),
                    window(100, 640),
                ],
                records: 3,
                ..MemorySnapshot::default()
            }),
            ..Snapshot::default()
        };
        let scale = AllocScale::of(&snapshot);
        assert_eq!(scale.max_per_s, 500.0);
        assert_eq!(scale.max_bytes, 64_000);
        let modes = (HeightMode::Allocations, ColourMode::Bytes);
        let target = |id: u32| {
            stats_target(
                &snapshot.method(id),
                AllocSample::of(&snapshot, id),
                0,
                modes,
                scale,
                HeightFit::linear(10.0),
            )
        };
        assert_eq!(target(0), (STUB_HEIGHT_WU, ColourKey::Stub));
        assert_eq!(target(1), (STUB_HEIGHT_WU * 2.0, ColourKey::Stub));
        assert_eq!(target(2), (10.0, ColourKey::Heat((HEAT_STEPS - 1) as u8)));
        // The fewest bytes of any allocating method are the coldest colour.
        let (height, colour) = target(3);
        assert!((height - 1.0).abs() < 1e-5, "{height}");
        assert_eq!(colour, ColourKey::Heat(0));
        // Halfway on the log scale from 640 to 64 000 bytes: 6 400.
        assert_eq!(scale.bytes_share(6_400), 0.5);
    }
}
