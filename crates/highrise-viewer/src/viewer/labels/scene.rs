//! What the labels hold: the [`SceneLabels`] resource and the values in it (what a label names,
//! the candidates gathered per city, the labels shown now, each city's hot spot choice, the
//! cached texture of each text), and the alert badges' boxes hot spot names keep clear of.

use std::collections::HashMap;

use bevy::prelude::*;

use crate::viewer::city::{CityKey, ColourMode, HeightMode};

/// A hot spot's name as placed this frame, screen pixels from the top-left.
#[derive(Debug, Clone, PartialEq)]
pub struct HotSpotLabel {
    pub city: CityKey,
    pub building: u32,
    /// `Class.method · 12.5 %`.
    pub text: String,
    /// The building's top on screen (a leader line joins it when the name had to move up).
    pub anchor_px: Vec2,
    /// The name's box on screen.
    pub min_px: Vec2,
    pub max_px: Vec2,
}

/// Screen boxes of the alert badges drawn last frame, which hot spot names keep clear of.
#[derive(Resource, Default, Debug)]
pub struct BadgeRects(pub Vec<(Vec2, Vec2)>);

/// What a city's hot spots were chosen from: its plan generation, what its targets were set
/// from, its tallest target (bits), its dimming (a focused package's).
type HotSpotSource = (u64, Option<(u64, HeightMode, ColourMode)>, u32, u64);

/// One city's hot spots: (building, name), hottest first, and what they were chosen from.
#[derive(Debug, Default)]
pub(super) struct HotSpotChoice {
    pub(super) chosen_from: Option<HotSpotSource>,
    pub(super) chosen_at_s: f64,
    pub(super) buildings: Vec<(u32, String)>,
}

/// What a label names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LabelKind {
    Package,
    Class,
    /// The hovered building.
    Building,
}

/// Where a package's name may stand on screen when its district is too far away for the name
/// lying on it to read (the overview): its district's top face, city coordinates.
#[derive(Debug, Clone)]
pub(super) struct OverviewPlace {
    pub(super) rect: highrise_layout::Rect,
    pub(super) top_wu: f32,
    /// The full path, and the package's own name when that is too long.
    pub(super) path: String,
    /// Text height on screen, pixels.
    pub(super) text_px: f32,
    /// A top-level package, or the one its chain of pass-through packages leads to.
    pub(super) top_level: bool,
    /// The widths of the path and of the own name at `text_px`, pixels (measured once).
    pub(super) widths_px: [f32; 2],
}

/// One label candidate of a city, in the city's own coordinates.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    pub(super) kind: LabelKind,
    pub(super) text: String,
    /// Where the text's centre lies, city coordinates (Y: the surface it lies on).
    pub(super) centre: Vec3,
    /// Text width and height on the ground, world units.
    pub(super) size_wu: Vec2,
    /// Larger matters more (method count).
    pub(super) weight: u32,
    /// A package's name on screen at the overview (none for a package that only leads to one
    /// sub-package: that one's path names it).
    pub(super) overview: Option<OverviewPlace>,
}

/// A label on screen now (what the level of detail chose), world coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownLabel {
    pub kind: LabelKind,
    pub city: CityKey,
    pub text: String,
    pub centre: Vec3,
    pub size_wu: Vec2,
    /// Text height on screen, pixels.
    pub text_px: f32,
    /// Its box on screen, pixels from the top-left.
    pub min_px: Vec2,
    pub max_px: Vec2,
}

/// The labels in the scene and their bookkeeping.
#[derive(Resource, Default)]
pub struct SceneLabels {
    /// The package and class labels shown now, most important first.
    pub shown: Vec<ShownLabel>,
    /// Package names drawn upright on screen (by the overlay) where their districts are too
    /// far away for the names lying on them to read: the overview of a big city.
    pub overview: Vec<ShownLabel>,
    /// Where the cities' names stand on screen (kept clear by every other name).
    pub(super) city_names: Vec<(Vec2, Vec2)>,
    /// The hovered building's label, if shown.
    pub hovered: Option<ShownLabel>,
    /// The hot spots' names placed this frame, hottest first per city.
    pub hot_spots: Vec<HotSpotLabel>,
    pub(super) hot_spot_choice: HashMap<CityKey, HotSpotChoice>,
    /// Candidates per city, and the plan generation they were gathered from.
    pub(super) candidates: HashMap<CityKey, (u64, Vec<Candidate>)>,
    /// Pooled flat label entities (the first `shown.len()` are in use).
    pub(super) pool: Vec<Entity>,
    pub(super) hover_entity: Option<Entity>,
    pub(super) textures: HashMap<String, LabelTexture>,
    /// Camera pose and scene state the level of detail was chosen for.
    pub(super) chosen_for: Option<(Vec3, Quat, u64)>,
    pub(super) chosen_at_s: f64,
    pub(super) use_clock: u64,
}

impl std::fmt::Debug for SceneLabels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SceneLabels")
            .field("shown", &self.shown.len())
            .field("hovered", &self.hovered)
            .field("hot_spots", &self.hot_spots)
            .field("textures", &self.textures.len())
            .finish()
    }
}

pub(super) struct LabelTexture {
    pub(super) material: Handle<StandardMaterial>,
    pub(super) last_used: u64,
}
