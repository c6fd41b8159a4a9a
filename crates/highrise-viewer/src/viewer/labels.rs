//! Names in the scene: each package's name lies flat along its district's front edge (sized
//! with the district: on the front margin when it fits there, else just above the district's
//! highest slab), each class's name in the street in front of its block once the camera is close
//! enough to read it, and the hovered building's name floats above it, facing the camera.
//!
//! At the overview of a big city, where a package's name lying on its district would stand
//! under [`OVERVIEW_BELOW_PX`] (twice that for a top-level package), it stands upright on screen instead ([`SceneLabels::overview`],
//! drawn by the overlay at [`OVERVIEW_TEXT_PX`]) at its district's front-left corner or middle,
//! where it fits; a package that only leads to one sub-package leaves its name to that one's
//! path.
//!
//! Level of detail: a label is shown only when its text would stand at least
//! [`MIN_TEXT_PX`] tall on screen, it is in view, and it does not cover a label that matters
//! more (packages before classes, larger before smaller); at most [`MAX_LABELS`] at once. The
//! candidates are gathered once per change of a city's plan; choosing among them runs only when
//! the camera or the scene moved, at most every [`LOD_INTERVAL_S`]. Each distinct text is
//! rasterised once (ab_glyph, the panel's Ubuntu font) into a small texture on an unlit,
//! alpha-blended quad; entities are pooled.
//!
//! Hot spots: each city's [`HOT_SPOT_NAMES`] tallest buildings (those that stand out) carry
//! their names, placed on screen every frame just above their tops, clear of the package
//! names, the alert badges ([`BadgeRects`]) and each other (a class name under one gives way);
//! the panel's overlay draws them ([`SceneLabels::hot_spots`]).

use std::collections::HashMap;

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::mesh::{Indices, PrimitiveTopology};
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};

use super::camera::{MainCamera, PanelCover};
use super::city::{Cities, City, CityKey, CitySet, ColourMode, HeightMode, STUB_HEIGHT_WU};
use super::compare::Compare;
use super::focus::PackageFocus;
use super::hover::Hovered;
use super::sessions::Sessions;

/// A label shorter than this on screen is not shown, pixels of text height.
pub const MIN_TEXT_PX: f32 = 11.0;
/// At most this many package and class labels at once.
pub const MAX_LABELS: usize = 240;
/// The level of detail is chosen again at most this often while the view moves, seconds.
pub const LOD_INTERVAL_S: f64 = 0.1;
/// Text height of a package name: this fraction of its district's larger side, at least the
/// district's margin times [`PACKAGE_MIN_FRACTION`], at most [`PACKAGE_MAX_TEXT_WU`] or, in a
/// big city, [`PACKAGE_MAX_CITY_FRACTION`] of the city's larger side: framed whole, a city
/// of thousands of methods is hundreds of world units wide, where 3 units of text are a few
/// pixels and its top-level packages would go unnamed.
const PACKAGE_TEXT_FRACTION: f32 = 0.16;
const PACKAGE_MIN_FRACTION: f32 = 0.7;
const PACKAGE_MAX_TEXT_WU: f32 = 3.0;
const PACKAGE_MAX_CITY_FRACTION: f32 = 0.035;
/// Package names lie this far above their district's slab when they fit its front margin.
const PACKAGE_LIFT_WU: f32 = 0.02;
/// A larger name floats this far over the highest slab of its district, above the stubs of
/// idle buildings and under any building that ran.
const STUB_CLEARANCE_WU: f32 = 0.1;
/// Text height of a package's name drawn on screen at the overview, pixels (two more for the
/// first two levels).
pub const OVERVIEW_TEXT_PX: f32 = 13.0;
/// A package name lying on its district smaller than this on screen (pixels) stands upright on
/// screen instead, where it fits.
pub const OVERVIEW_BELOW_PX: f32 = 24.0;
/// Text height of a city's name under its front edge (the overlay's), pixels.
pub const CITY_NAME_PX: f32 = 16.0;
/// Padding around a package's name on screen, pixels.
pub const OVERVIEW_PAD_PX: f32 = 2.0;
/// Text height of a class name, world units (it lies in the one-plot street).
const CLASS_TEXT_WU: f32 = 0.6;
/// The hovered building's name, pixels of text height on screen.
const HOVER_TEXT_PX: f32 = 20.0;
/// Rasterised text height, pixels (textures are this tall plus padding).
const RASTER_PX: f32 = 40.0;
const RASTER_PAD_PX: u32 = 3;
/// New label textures rasterised per level-of-detail pass (the rest come on the next pass).
const NEW_TEXTURES_PER_PASS: usize = 32;
/// Distinct label textures kept before unused ones are dropped.
const TEXTURE_CACHE: usize = 1_024;

pub use highrise_layout::look::{HOT_SPOT_MIN_SHARE, HOT_SPOT_NAMES};
/// Text height of a hot spot's name on screen, pixels.
pub const HOT_SPOT_TEXT_PX: f32 = 14.0;
/// A hot spot's name longer than this (characters) leaves out its parameters.
const HOT_SPOT_NAME_CHARS: usize = 40;
/// Padding around a hot spot's name (its dark box), pixels.
pub const HOT_SPOT_PAD_PX: f32 = 3.0;
/// While only a city's heights change, its hot spots are chosen again at most this often
/// (also where its targets do not say when they change: compare cities), seconds.
const HOT_SPOT_REFRESH_S: f64 = 0.25;

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
struct HotSpotChoice {
    chosen_from: Option<HotSpotSource>,
    chosen_at_s: f64,
    buildings: Vec<(u32, String)>,
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
struct OverviewPlace {
    rect: highrise_layout::Rect,
    top_wu: f32,
    /// The full path, and the package's own name when that is too long.
    path: String,
    /// Text height on screen, pixels.
    text_px: f32,
    /// A top-level package, or the one its chain of pass-through packages leads to.
    top_level: bool,
    /// The widths of the path and of the own name at `text_px`, pixels (measured once).
    widths_px: [f32; 2],
}

/// One label candidate of a city, in the city's own coordinates.
#[derive(Debug, Clone)]
struct Candidate {
    kind: LabelKind,
    text: String,
    /// Where the text's centre lies, city coordinates (Y: the surface it lies on).
    centre: Vec3,
    /// Text width and height on the ground, world units.
    size_wu: Vec2,
    /// Larger matters more (method count).
    weight: u32,
    /// A package's name on screen at the overview (none for a package that only leads to one
    /// sub-package: that one's path names it).
    overview: Option<OverviewPlace>,
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
    city_names: Vec<(Vec2, Vec2)>,
    /// The hovered building's label, if shown.
    pub hovered: Option<ShownLabel>,
    /// The hot spots' names placed this frame, hottest first per city.
    pub hot_spots: Vec<HotSpotLabel>,
    hot_spot_choice: HashMap<CityKey, HotSpotChoice>,
    /// Candidates per city, and the plan generation they were gathered from.
    candidates: HashMap<CityKey, (u64, Vec<Candidate>)>,
    /// Pooled flat label entities (the first `shown.len()` are in use).
    pool: Vec<Entity>,
    hover_entity: Option<Entity>,
    textures: HashMap<String, LabelTexture>,
    /// Camera pose and scene state the level of detail was chosen for.
    chosen_for: Option<(Vec3, Quat, u64)>,
    chosen_at_s: f64,
    use_clock: u64,
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

struct LabelTexture {
    material: Handle<StandardMaterial>,
    last_used: u64,
}

/// The font labels are drawn in, and the quads they are drawn on.
#[derive(Resource)]
#[allow(missing_debug_implementations)] // the font holds only borrowed font tables
pub struct LabelAssets {
    font: FontRef<'static>,
    /// A 1 x 1 quad lying on the ground (XZ), text reading along +X, its top toward −Z.
    ground_quad: Handle<Mesh>,
    /// A 1 x 1 quad standing in XY, facing +Z (turned toward the camera).
    upright_quad: Handle<Mesh>,
}

impl FromWorld for LabelAssets {
    fn from_world(world: &mut World) -> Self {
        let font = FontRef::try_from_slice(epaint_default_fonts::UBUNTU_LIGHT)
            .expect("the bundled Ubuntu font parses");
        let mut meshes = world.resource_mut::<Assets<Mesh>>();
        let ground_quad = meshes.add(quad([
            [-0.5, 0.0, -0.5],
            [0.5, 0.0, -0.5],
            [0.5, 0.0, 0.5],
            [-0.5, 0.0, 0.5],
        ]));
        let upright_quad = meshes.add(quad([
            [-0.5, 0.5, 0.0],
            [0.5, 0.5, 0.0],
            [0.5, -0.5, 0.0],
            [-0.5, -0.5, 0.0],
        ]));
        Self {
            font,
            ground_quad,
            upright_quad,
        }
    }
}

/// A quad through four corners given clockwise from the text's top-left.
fn quad(corners: [[f32; 3]; 4]) -> Mesh {
    let a = Vec3::from(corners[0]);
    let normal = (Vec3::from(corners[3]) - a)
        .cross(Vec3::from(corners[1]) - a)
        .normalize();
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::RENDER_WORLD | RenderAssetUsages::MAIN_WORLD,
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, corners.to_vec())
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, vec![normal.to_array(); 4])
    .with_inserted_attribute(
        Mesh::ATTRIBUTE_UV_0,
        vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
    )
    .with_inserted_indices(Indices::U32(vec![0, 1, 2, 0, 2, 3]))
}

impl LabelAssets {
    /// Width of `text` for a text height of 1, without rasterising it.
    fn aspect(&self, text: &str) -> f32 {
        let scaled = self.font.as_scaled(PxScale::from(RASTER_PX));
        let mut width = 0.0;
        let mut last = None;
        for c in text.chars() {
            let glyph = scaled.glyph_id(c);
            if let Some(previous) = last {
                width += scaled.kern(previous, glyph);
            }
            width += scaled.h_advance(glyph);
            last = Some(glyph);
        }
        (width + 2.0 * RASTER_PAD_PX as f32) / (RASTER_PX + 2.0 * RASTER_PAD_PX as f32)
    }

    /// Width of `text` drawn `text_px` tall on screen by the overlay (egui draws the same
    /// Ubuntu font), pixels, with a tenth more for egui's own spacing.
    fn width_px(&self, text: &str, text_px: f32) -> f32 {
        let padded = RASTER_PX + 2.0 * RASTER_PAD_PX as f32;
        let advance_px = self.aspect(text) * padded - 2.0 * RASTER_PAD_PX as f32;
        advance_px * text_px / RASTER_PX * 1.1
    }

    /// `text` in white on a transparent image (alpha is the glyph coverage).
    fn rasterise(&self, text: &str) -> Image {
        let scaled = self.font.as_scaled(PxScale::from(RASTER_PX));
        let pad = RASTER_PAD_PX as f32;
        let mut glyphs = Vec::new();
        let mut x = pad;
        let mut last = None;
        let baseline = pad + scaled.ascent();
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(previous) = last {
                x += scaled.kern(previous, id);
            }
            glyphs.push(id.with_scale_and_position(RASTER_PX, ab_glyph::point(x, baseline)));
            x += scaled.h_advance(id);
            last = Some(id);
        }
        let width = (x + pad).ceil().max(1.0) as u32;
        let height = (RASTER_PX + 2.0 * pad).ceil() as u32;
        // Glyph coverage, then a dark halo (the coverage spread by two pixels) so light text
        // reads on light slabs as on dark ones.
        let (w, h) = (width as usize, height as usize);
        let mut coverage = vec![0f32; w * h];
        for glyph in glyphs {
            let Some(outlined) = self.font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outlined.px_bounds();
            outlined.draw(|gx, gy, c| {
                let px = bounds.min.x as i64 + i64::from(gx);
                let py = bounds.min.y as i64 + i64::from(gy);
                if px < 0 || py < 0 || px >= width as i64 || py >= height as i64 {
                    return;
                }
                let cell = &mut coverage[py as usize * w + px as usize];
                *cell = cell.max(c.clamp(0.0, 1.0));
            });
        }
        // The halo is a 5 x 5 maximum filter, separable: rows, then columns.
        let mut rows = vec![0f32; w * h];
        for y in 0..h {
            for x in 0..w {
                rows[y * w + x] = (x.saturating_sub(2)..(x + 3).min(w))
                    .map(|sx| coverage[y * w + sx])
                    .fold(0f32, f32::max);
            }
        }
        let mut data = vec![0u8; w * h * 4];
        for y in 0..h {
            for x in 0..w {
                let halo = (y.saturating_sub(2)..(y + 3).min(h))
                    .map(|sy| rows[sy * w + x])
                    .fold(0f32, f32::max);
                let text = coverage[y * w + x];
                let alpha = text.max(halo * 0.65);
                let grey = if alpha > 0.0 { text / alpha } else { 1.0 };
                let pixel = &mut data[(y * w + x) * 4..(y * w + x) * 4 + 4];
                pixel[..3].fill((grey * 255.0) as u8);
                pixel[3] = (alpha * 255.0) as u8;
            }
        }
        Image::new(
            Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            TextureDimension::D2,
            data,
            TextureFormat::Rgba8UnormSrgb,
            RenderAssetUsages::RENDER_WORLD | RenderAssetUsages::MAIN_WORLD,
        )
    }
}

#[derive(Debug)]
pub struct LabelsPlugin;

impl Plugin for LabelsPlugin {
    fn build(&self, app: &mut App) {
        if !app.world().contains_resource::<Assets<Image>>() {
            app.init_asset::<Image>();
        }
        app.init_resource::<SceneLabels>()
            .init_resource::<LabelAssets>()
            .init_resource::<BadgeRects>()
            .add_systems(
                Update,
                (
                    gather_candidates,
                    choose_labels,
                    hovered_label,
                    choose_hot_spots,
                    place_hot_spots,
                )
                    .chain()
                    .after(CitySet::Animate),
            );
    }
}

/// A package's name as its district shows it: the full path when it fits, else its own name.
fn package_texts(path: &str) -> [&str; 2] {
    [path, path.rsplit('.').next().unwrap_or(path)]
}

/// Whether a package is the first on its way down from the root that branches or has classes:
/// a top-level package, or the one a chain of pass-through packages leads to (`com.google`
/// under a `com` that holds nothing else).
fn names_top_level(
    layout: &highrise_layout::CityLayout,
    package_index: usize,
    children: &[u32],
    own_classes: &[u32],
) -> bool {
    let packages = layout.packages();
    let mut at = packages[package_index].parent;
    while let Some(parent) = at.map(|p| p as usize) {
        if packages[parent].depth == 0 {
            return true;
        }
        if children[parent] != 1 || own_classes[parent] > 0 {
            return false;
        }
        at = packages[parent].parent;
    }
    true
}

/// The label candidates of one city's plan.
fn city_candidates(city: &City, assets: &LabelAssets) -> Vec<Candidate> {
    let Some(layout) = city.layout.as_ref() else {
        return Vec::new();
    };
    let config = layout.config();
    let margin_wu = config.district_padding_plots.max(1) as f32;
    let street_wu = config.street_plots.max(1) as f32;
    let mut out = Vec::new();
    // Per district: the top of the highest slab inside it (its sub-districts' and blocks'), so
    // a name lying over its front row floats just above them.
    let block_slab_wu = config.block_slab_wu;
    let bounds = layout.bounds();
    let max_text_wu = PACKAGE_MAX_TEXT_WU
        .max(bounds.width_wu().max(bounds.depth_wu()) * PACKAGE_MAX_CITY_FRACTION);
    let mut inner_top_wu: Vec<f32> = layout
        .districts()
        .iter()
        .map(|d| d.top_height_wu + block_slab_wu)
        .collect();
    // Children come after their parents in the plan: one backward pass carries tops up.
    for index in (0..layout.districts().len()).rev() {
        let district = &layout.districts()[index];
        let top = inner_top_wu[index];
        if let Some(parent) = district.parent {
            if let Some(t) = inner_top_wu.get_mut(parent as usize) {
                *t = t.max(top);
            }
        }
    }
    // A package with one sub-package and no class of its own is only a way through: no name
    // of its own at the overview.
    let mut children = vec![0u32; layout.packages().len()];
    let mut own_classes = vec![0u32; layout.packages().len()];
    for package in layout.packages() {
        if let Some(parent) = package.parent {
            children[parent as usize] += 1;
        }
    }
    for class in layout.classes() {
        own_classes[class.package as usize] += 1;
    }
    for (package_index, package) in layout.packages().iter().enumerate() {
        if package.path.is_empty() {
            continue;
        }
        let Some((index, district)) = package
            .districts
            .first()
            .and_then(|&d| Some((d as usize, layout.districts().get(d as usize)?)))
        else {
            continue;
        };
        let side_wu = district.rect.width_wu().max(district.rect.depth_wu());
        let height_wu = (side_wu * PACKAGE_TEXT_FRACTION)
            .clamp(margin_wu * PACKAGE_MIN_FRACTION, max_text_wu)
            .min(district.rect.depth_wu() * 0.3);
        // Within the front margin it lies on the slab; larger, it floats over the front row.
        let lift_wu = if height_wu <= margin_wu {
            district.top_height_wu + PACKAGE_LIFT_WU
        } else {
            inner_top_wu[index] + STUB_CLEARANCE_WU
        };
        let room_wu = district.rect.width_wu() - 0.4;
        let overview_px = if package.depth <= 2 {
            OVERVIEW_TEXT_PX + 2.0
        } else {
            OVERVIEW_TEXT_PX
        };
        let overview =
            (children[package_index] != 1 || own_classes[package_index] > 0).then(|| {
                OverviewPlace {
                    rect: district.rect,
                    top_wu: inner_top_wu[index] + STUB_CLEARANCE_WU,
                    path: package.path.clone(),
                    top_level: names_top_level(layout, package_index, &children, &own_classes),
                    text_px: overview_px,
                    widths_px: package_texts(&package.path)
                        .map(|text| assets.width_px(text, overview_px) + 2.0 * OVERVIEW_PAD_PX),
                }
            });
        // A name too long to lie on its district may still stand on screen at the overview
        // (a zero size never reads on the ground).
        let (text, width_wu) = package_texts(&package.path)
            .into_iter()
            .map(|text| (text, assets.aspect(text) * height_wu))
            .find(|(_, width_wu)| *width_wu <= room_wu)
            .unwrap_or((&package.path, 0.0));
        if width_wu == 0.0 && overview.is_none() {
            continue;
        }
        out.push(Candidate {
            kind: LabelKind::Package,
            overview,
            text: text.to_owned(),
            // Along the district's front edge (toward the default view), reading left to
            // right: on the margin, or floating over the front row when larger.
            centre: Vec3::new(
                district.rect.min_x + 0.2 + width_wu / 2.0,
                lift_wu,
                district.rect.max_z - 0.05 - height_wu / 2.0,
            ),
            size_wu: Vec2::new(width_wu, height_wu),
            weight: package.method_count.saturating_mul(4),
        });
    }
    for class in layout.classes() {
        let Some(block) = class
            .blocks
            .first()
            .and_then(|&b| layout.blocks().get(b as usize))
        else {
            continue;
        };
        let text = highrise_protocol::display_class(&class.name);
        let room_wu = block.rect.width_wu() + street_wu * 0.8;
        let mut height_wu = CLASS_TEXT_WU.min(street_wu * 0.7);
        let mut width_wu = assets.aspect(&text) * height_wu;
        if width_wu > room_wu {
            // Smaller text for a long name on a narrow block, down to 60 %.
            let shrink = room_wu / width_wu;
            if shrink < 0.6 {
                continue;
            }
            height_wu *= shrink;
            width_wu = room_wu;
        }
        out.push(Candidate {
            kind: LabelKind::Class,
            text,
            centre: Vec3::new(
                block.rect.min_x + width_wu / 2.0,
                block.base_height_wu + 0.015,
                block.rect.max_z + street_wu / 2.0,
            ),
            size_wu: Vec2::new(width_wu, height_wu),
            weight: class.method_count,
            overview: None,
        });
    }
    // Top-level packages first (a big city's overview names each of them), then larger before
    // smaller (the level of detail takes packages before classes).
    let top_level = |c: &Candidate| c.overview.as_ref().is_some_and(|o| o.top_level);
    out.sort_by(|a, b| {
        top_level(b)
            .cmp(&top_level(a))
            .then_with(|| b.weight.cmp(&a.weight))
            .then_with(|| a.text.cmp(&b.text))
    });
    out
}

/// Gathers each shown city's label candidates again when its plan changed.
fn gather_candidates(
    cities: Res<Cities>,
    assets: Res<LabelAssets>,
    mut labels: ResMut<SceneLabels>,
) {
    let mut seen = Vec::new();
    for (key, city) in cities.iter() {
        if city.hidden || city.layout.is_none() {
            continue;
        }
        seen.push(key);
        let generation = city.plan_generation();
        if labels
            .candidates
            .get(&key)
            .is_some_and(|(gathered, _)| *gathered == generation)
        {
            continue;
        }
        let candidates = city_candidates(city, &assets);
        labels.candidates.insert(key, (generation, candidates));
        labels.chosen_for = None;
    }
    let before = labels.candidates.len();
    labels.candidates.retain(|key, _| seen.contains(key));
    if labels.candidates.len() != before {
        labels.chosen_for = None;
    }
}

/// The camera as the level of detail sees it: eye, view-projection, viewport. Computed from the
/// projection itself rather than `Camera::world_to_viewport`, which needs the render world's
/// camera values (absent in headless apps and before the first frame).
struct View {
    eye: Vec3,
    clip_from_world: Mat4,
    /// Pixels per world unit at distance 1.
    px_per_wu_at_1: f32,
    viewport_px: Vec2,
}

impl View {
    fn of(camera: &Camera, transform: &Transform, projection: &Projection) -> View {
        let viewport_px = camera
            .logical_viewport_size()
            .unwrap_or(Vec2::new(1280.0, 800.0));
        let (clip_from_view, fov) = match projection {
            Projection::Perspective(p) => {
                let mut p = p.clone();
                p.aspect_ratio = viewport_px.x / viewport_px.y.max(1.0);
                (
                    bevy::render::camera::CameraProjection::get_clip_from_view(&p),
                    p.fov,
                )
            }
            other => (
                bevy::render::camera::CameraProjection::get_clip_from_view(other),
                std::f32::consts::FRAC_PI_4,
            ),
        };
        View {
            eye: transform.translation,
            clip_from_world: clip_from_view * transform.compute_matrix().inverse(),
            px_per_wu_at_1: viewport_px.y / (2.0 * (fov / 2.0).tan()),
            viewport_px,
        }
    }

    /// The part of the view the panels leave to the scene: (top-left, bottom-right), pixels;
    /// `top_px` are kept for the breadcrumbs of a focused package.
    fn scene(&self, cover: PanelCover, top_px: f32) -> (Vec2, Vec2) {
        (
            Vec2::new(cover.left_fraction * self.viewport_px.x, top_px),
            Vec2::new(
                self.viewport_px.x,
                (1.0 - cover.bottom_fraction) * self.viewport_px.y,
            ),
        )
    }

    /// Where a world point lands on screen (pixels from the top-left), if in front.
    fn to_screen(&self, point: Vec3) -> Option<Vec2> {
        let clip = self.clip_from_world * point.extend(1.0);
        if clip.w <= 1e-4 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        Some(Vec2::new(
            (ndc.x + 1.0) / 2.0 * self.viewport_px.x,
            (1.0 - ndc.y) / 2.0 * self.viewport_px.y,
        ))
    }

    /// How tall text `height_wu` tall lying flat at `centre` stands on screen: smaller with
    /// distance and as the view grazes the ground.
    fn text_px(&self, centre: Vec3, height_wu: f32) -> f32 {
        let to_eye = self.eye - centre;
        let distance = to_eye.length().max(1e-3);
        let facing = (to_eye.y / distance).abs().max(0.05);
        height_wu * facing.sqrt() * self.px_per_wu_at_1 / distance
    }
}

/// A coarse screen grid of taken cells, so labels do not cover each other.
struct Occupancy {
    cell_px: f32,
    columns: usize,
    taken: Vec<bool>,
}

impl Occupancy {
    fn new(viewport_px: Vec2, cell_px: f32) -> Self {
        let columns = (viewport_px.x / cell_px).ceil().max(1.0) as usize + 1;
        let rows = (viewport_px.y / cell_px).ceil().max(1.0) as usize + 1;
        Self {
            cell_px,
            columns,
            taken: vec![false; columns * rows],
        }
    }

    /// Takes the cells under the screen rectangle `min..max` if all are free.
    fn try_take(&mut self, min: Vec2, max: Vec2) -> bool {
        let rows = self.taken.len() / self.columns;
        let cell = |v: f32, n: usize| ((v / self.cell_px).floor().max(0.0) as usize).min(n - 1);
        let (x0, x1) = (cell(min.x, self.columns), cell(max.x, self.columns));
        let (y0, y1) = (cell(min.y, rows), cell(max.y, rows));
        for y in y0..=y1 {
            if self.taken[y * self.columns + x0..=y * self.columns + x1]
                .iter()
                .any(|&t| t)
            {
                return false;
            }
        }
        for y in y0..=y1 {
            self.taken[y * self.columns + x0..=y * self.columns + x1].fill(true);
        }
        true
    }
}

/// The camera as labels read it.
type LabelCamera<'w, 's> =
    Query<'w, 's, (&'static Camera, &'static Transform, &'static Projection), With<MainCamera>>;
/// Label entities (and, unread, other meshes): where each stands, whether shown, its text.
type PlacedLabels<'w, 's> = Query<
    'w,
    's,
    (
        &'static mut Transform,
        &'static mut Visibility,
        &'static mut MeshMaterial3d<StandardMaterial>,
    ),
    Without<MainCamera>,
>;

/// Where a city's name is written (centred under it, by the overlay), world coordinates: a
/// little in front of the middle of its front edge.
pub fn city_name_anchor(city: &City) -> Option<Vec3> {
    let bounds = city.world_bounds()?;
    Some(Vec3::new(
        (bounds.min_x + bounds.max_x) / 2.0,
        0.0,
        bounds.max_z + 1.5,
    ))
}

/// What else the labels keep clear of: the cities' names (sessions, compare view), the panels,
/// a focused package's breadcrumbs.
type SceneContext<'w> = (
    Option<Res<'w, Sessions>>,
    Option<Res<'w, Compare>>,
    Option<Res<'w, PanelCover>>,
    Option<Res<'w, PackageFocus>>,
);

/// Chooses which labels to show for the current view and places them.
#[allow(clippy::too_many_arguments)] // a Bevy system: each parameter is one resource or query
fn choose_labels(
    mut commands: Commands,
    time: Res<Time>,
    cities: Res<Cities>,
    assets: Res<LabelAssets>,
    mut labels: ResMut<SceneLabels>,
    mut images: ResMut<Assets<Image>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    cameras: LabelCamera,
    mut placed: PlacedLabels,
    (sessions, compare, cover, focus): SceneContext,
) {
    let Ok((camera, camera_transform, projection)) = cameras.single() else {
        return;
    };
    let now_s = time.elapsed_secs_f64();
    // The scene moves while cities glide: their origins and plans are part of the state.
    let scene_state =
        cities
            .iter()
            .filter(|(_, city)| !city.hidden)
            .fold(0u64, |acc, (_, city)| {
                acc.wrapping_mul(31)
                    .wrapping_add(city.plan_generation())
                    .wrapping_add(city.origin.x.to_bits() as u64)
            });
    let pose = (
        camera_transform.translation,
        camera_transform.rotation,
        scene_state,
    );
    if labels.chosen_for == Some(pose) || now_s - labels.chosen_at_s < LOD_INTERVAL_S {
        return;
    }
    labels.chosen_for = Some(pose);
    labels.chosen_at_s = now_s;
    let view = View::of(camera, camera_transform, projection);
    let mut occupancy = Occupancy::new(view.viewport_px, 8.0);
    let scene = view.scene(
        cover.as_deref().copied().unwrap_or_default(),
        breadcrumbs_px(focus.as_deref()),
    );
    // Each city's name, which the overlay writes under its front edge, comes first.
    let mut city_names = Vec::new();
    if let (Some(sessions), Some(compare)) = (sessions.as_deref(), compare.as_deref()) {
        for key in compare.scene_order(sessions) {
            let Some(anchor) = cities.get(key).and_then(city_name_anchor) else {
                continue;
            };
            if let Some(at) = view.to_screen(anchor) {
                let half_width_px =
                    assets.width_px(&compare.label(sessions, key), CITY_NAME_PX) / 2.0;
                let name = (
                    at - Vec2::new(half_width_px, 0.0),
                    at + Vec2::new(half_width_px, CITY_NAME_PX * 1.3),
                );
                occupancy.try_take(name.0, name.1);
                city_names.push(name);
            }
        }
    }
    let mut shown = Vec::new();
    let mut overview = Vec::new();
    let (mut new_textures, mut more_to_come) = (0, false);
    let origins: HashMap<CityKey, Vec3> = cities
        .iter()
        .filter(|(_, city)| !city.hidden)
        .map(|(key, city)| (key, city.origin))
        .collect();
    // Packages of every city first, then classes, each by weight.
    for kind in [LabelKind::Package, LabelKind::Class] {
        for (&key, (_, candidates)) in &labels.candidates {
            let Some(&origin) = origins.get(&key) else {
                continue;
            };
            for candidate in candidates.iter().filter(|c| c.kind == kind) {
                if shown.len() >= MAX_LABELS {
                    break;
                }
                let centre = candidate.centre + origin;
                let text_px = view.text_px(centre, candidate.size_wu.y);
                // A top-level package's name reads better upright until it is large indeed.
                let below_px = match &candidate.overview {
                    Some(place) if place.top_level => 2.0 * OVERVIEW_BELOW_PX,
                    _ => OVERVIEW_BELOW_PX,
                };
                if candidate.size_wu.x == 0.0 || text_px < below_px {
                    // Small on the ground: at the overview, upright on screen, else on the
                    // ground if it still reads there.
                    let label = candidate.overview.as_ref().and_then(|place| {
                        overview_label(&view, place, origin, scene, &mut occupancy)
                    });
                    let placed = label.is_some();
                    overview.extend(label.map(|(text, min, max, text_px)| ShownLabel {
                        kind,
                        city: key,
                        text,
                        centre,
                        size_wu: Vec2::ZERO,
                        text_px,
                        min_px: min,
                        max_px: max,
                    }));
                    if placed || candidate.size_wu.x == 0.0 || text_px < MIN_TEXT_PX {
                        continue;
                    }
                }
                let half = Vec3::new(candidate.size_wu.x / 2.0, 0.0, candidate.size_wu.y / 2.0);
                let corners = [
                    centre - half,
                    centre + half,
                    centre + Vec3::new(half.x, 0.0, -half.z),
                    centre + Vec3::new(-half.x, 0.0, half.z),
                ];
                let Some(screen) = corners
                    .iter()
                    .map(|&c| view.to_screen(c))
                    .collect::<Option<Vec<Vec2>>>()
                else {
                    continue;
                };
                let min = screen.iter().copied().reduce(Vec2::min).unwrap_or_default();
                let max = screen.iter().copied().reduce(Vec2::max).unwrap_or_default();
                let inside = max.x > 0.0
                    && max.y > 0.0
                    && min.x < view.viewport_px.x
                    && min.y < view.viewport_px.y;
                if !inside || !occupancy.try_take(min, max) {
                    continue;
                }
                let known = labels
                    .textures
                    .contains_key(&texture_key(kind, &candidate.text));
                if !known {
                    if new_textures == NEW_TEXTURES_PER_PASS {
                        more_to_come = true;
                        continue;
                    }
                    new_textures += 1;
                }
                shown.push(ShownLabel {
                    kind,
                    city: key,
                    text: candidate.text.clone(),
                    centre,
                    size_wu: candidate.size_wu,
                    text_px,
                    min_px: min,
                    max_px: max,
                });
            }
        }
    }
    // Place them on pooled entities.
    labels.use_clock += 1;
    let clock = labels.use_clock;
    while labels.pool.len() < shown.len() {
        let entity = commands
            .spawn((
                Mesh3d(assets.ground_quad.clone()),
                MeshMaterial3d::<StandardMaterial>::default(),
                Transform::default(),
                Visibility::Hidden,
                bevy::render::view::NoFrustumCulling,
            ))
            .id();
        labels.pool.push(entity);
    }
    for (index, label) in shown.iter().enumerate() {
        let material = label_material(
            &mut labels,
            &assets,
            &mut images,
            &mut materials,
            &label.text,
            label.kind,
            clock,
        );
        let entity = labels.pool[index];
        let transform = Transform::from_translation(label.centre).with_scale(Vec3::new(
            label.size_wu.x,
            1.0,
            label.size_wu.y,
        ));
        match placed.get_mut(entity) {
            Ok((mut t, mut v, mut m)) => {
                *t = transform;
                *v = Visibility::Visible;
                m.0 = material;
            }
            // Spawned this frame: the commands give it its place.
            Err(_) => {
                commands.entity(entity).insert((
                    transform,
                    Visibility::Visible,
                    MeshMaterial3d(material),
                ));
            }
        }
    }
    for &entity in &labels.pool[shown.len()..] {
        if let Ok((_, mut v, _)) = placed.get_mut(entity) {
            v.set_if_neq(Visibility::Hidden);
        }
    }
    labels.shown = shown;
    labels.overview = overview;
    labels.city_names = city_names;
    evict_textures(&mut labels, &mut materials, clock);
    if more_to_come {
        labels.chosen_for = None; // choose again next pass, with the textures made so far
    }
}

/// Where a package's name stands on screen at the overview: (text, box min and max, text
/// height), inside its district's box on screen, at its front-left corner or else its middle
/// or another corner, where no label is yet. A top-level package too small on screen for its
/// name, or whose places are taken, is named just beside its district. `None` when the district
/// is too small on screen or all is taken.
fn overview_label(
    view: &View,
    place: &OverviewPlace,
    origin: Vec3,
    scene: (Vec2, Vec2),
    occupancy: &mut Occupancy,
) -> Option<(String, Vec2, Vec2, f32)> {
    let rect = place.rect;
    let at = |x: f32, z: f32| view.to_screen(Vec3::new(x, place.top_wu, z) + origin);
    let corners = [
        at(rect.min_x, rect.min_z)?,
        at(rect.max_x, rect.min_z)?,
        at(rect.max_x, rect.max_z)?,
        at(rect.min_x, rect.max_z)?,
    ];
    let min = corners.iter().copied().reduce(Vec2::min)?;
    let max = corners.iter().copied().reduce(Vec2::max)?;
    let text_px = place.text_px;
    let height_px = text_px + 2.0 * OVERVIEW_PAD_PX;
    let mut take = |text: &str, size: Vec2, spots: &[Vec2], inside_only: bool| {
        spots.iter().find_map(|&spot| {
            let (spot_min, spot_max) = (spot, spot + size);
            let on_screen = spot_min.cmpge(scene.0).all() && spot_max.cmple(scene.1).all();
            let inside = spot_min.cmpge(min).all() && spot_max.cmple(max).all();
            (on_screen && (inside || !inside_only) && occupancy.try_take(spot_min, spot_max))
                .then(|| (text.to_owned(), spot_min, spot_max, text_px))
        })
    };
    let fits = package_texts(&place.path)
        .into_iter()
        .zip(place.widths_px)
        .find(|(_, width_px)| *width_px <= (max.x - min.x) * 0.8);
    if let Some((text, width_px)) = fits.filter(|_| max.y - min.y >= 2.0 * height_px) {
        let size = Vec2::new(width_px, height_px);
        // Its front-left corner (where the name lies on the ground), its middle, its left and
        // right corners, its back corner.
        let spots = [
            corners[3] + Vec2::new(6.0, -6.0 - height_px),
            (min + max - size) / 2.0,
            corners[0] + Vec2::new(8.0, -height_px / 2.0),
            corners[2] + Vec2::new(-8.0 - size.x, -height_px / 2.0),
            corners[1] + Vec2::new(-size.x / 2.0, 6.0),
        ];
        if let Some(found) = take(text, size, &spots, true) {
            return Some(found);
        }
    }
    if !place.top_level {
        return None;
    }
    // Beside it: above, below, right, left of its box on screen; then the same a row or two
    // farther out, or shifted by half its width.
    let [path, own] = package_texts(&place.path);
    let (text, width_px) = if place.widths_px[0] <= TOP_LEVEL_BESIDE_MAX_PX {
        (path, place.widths_px[0])
    } else {
        (own, place.widths_px[1])
    };
    let size = Vec2::new(width_px, height_px);
    let centre = (min + max) / 2.0;
    let spots: Vec<Vec2> = (0..3)
        .flat_map(|row| {
            let out = row as f32 * (size.y + 2.0);
            [0.0, -0.5, 0.5].into_iter().flat_map(move |shift| {
                let (dx, dy) = (shift * size.x, shift * size.y * 2.0);
                [
                    Vec2::new(centre.x - size.x / 2.0 + dx, min.y - size.y - 2.0 - out),
                    Vec2::new(centre.x - size.x / 2.0 + dx, max.y + 2.0 + out),
                    Vec2::new(max.x + 4.0 + out, centre.y - size.y / 2.0 + dy),
                    Vec2::new(min.x - 4.0 - size.x - out, centre.y - size.y / 2.0 + dy),
                ]
            })
        })
        .collect();
    take(text, size, &spots, false)
}

/// A top-level package named beside its district uses its own name beyond this width, pixels.
const TOP_LEVEL_BESIDE_MAX_PX: f32 = 220.0;

fn texture_key(kind: LabelKind, text: &str) -> String {
    format!("{kind:?}:{text}")
}

/// The material that draws `text` (rasterised once and cached).
fn label_material(
    labels: &mut SceneLabels,
    assets: &LabelAssets,
    images: &mut Assets<Image>,
    materials: &mut Assets<StandardMaterial>,
    text: &str,
    kind: LabelKind,
    clock: u64,
) -> Handle<StandardMaterial> {
    let key = texture_key(kind, text);
    if let Some(texture) = labels.textures.get_mut(&key) {
        texture.last_used = clock;
        return texture.material.clone();
    }
    let image = images.add(assets.rasterise(text));
    let tint = match kind {
        LabelKind::Package => Color::srgb(0.93, 0.94, 0.97),
        LabelKind::Class => Color::srgb(0.78, 0.82, 0.88),
        LabelKind::Building => Color::srgb(1.0, 1.0, 1.0),
    };
    let material = materials.add(StandardMaterial {
        base_color: tint,
        base_color_texture: Some(image),
        alpha_mode: AlphaMode::Blend,
        unlit: true,
        double_sided: true,
        cull_mode: None,
        ..default()
    });
    labels.textures.insert(
        key,
        LabelTexture {
            material: material.clone(),
            last_used: clock,
        },
    );
    material
}

/// Drops the least recently used textures beyond the cache size.
fn evict_textures(labels: &mut SceneLabels, materials: &mut Assets<StandardMaterial>, clock: u64) {
    if labels.textures.len() <= TEXTURE_CACHE {
        return;
    }
    let mut ages: Vec<(u64, String)> = labels
        .textures
        .iter()
        .filter(|(_, t)| t.last_used != clock)
        .map(|(k, t)| (t.last_used, k.clone()))
        .collect();
    ages.sort_unstable();
    let excess = labels.textures.len() - TEXTURE_CACHE / 2;
    for (_, key) in ages.into_iter().take(excess) {
        if let Some(texture) = labels.textures.remove(&key) {
            materials.remove(&texture.material);
        }
    }
}

/// The hovered building's name, floating above its top and facing the camera.
#[allow(clippy::too_many_arguments)] // a Bevy system: each parameter is one resource or query
fn hovered_label(
    mut commands: Commands,
    cities: Res<Cities>,
    hovered: Option<Res<Hovered>>,
    assets: Res<LabelAssets>,
    mut labels: ResMut<SceneLabels>,
    mut images: ResMut<Assets<Image>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    cameras: LabelCamera,
    mut placed: PlacedLabels,
) {
    let target = hovered
        .as_deref()
        .and_then(|h| h.building())
        .and_then(|(key, building)| {
            let city = cities.get(key)?;
            let layout = city.layout.as_ref()?;
            let placed = layout.buildings().get(building as usize)?;
            let text = class_and_method(layout, building)?;
            let height_wu = city
                .heights_wu
                .get(building as usize)
                .copied()
                .unwrap_or(0.0);
            let top = Vec3::new(
                placed.footprint.center().x,
                placed.base_height_wu + height_wu,
                placed.footprint.center().z,
            ) + city.origin;
            Some((key, text, top))
        });
    let camera = cameras.single().ok();
    let (Some((key, text, top)), Some((camera, camera_transform, projection))) = (target, camera)
    else {
        if let Some(entity) = labels.hover_entity {
            if let Ok((_, mut v, _)) = placed.get_mut(entity) {
                v.set_if_neq(Visibility::Hidden);
            }
        }
        labels.hovered = None;
        return;
    };
    let view = View::of(camera, camera_transform, projection);
    let distance = view.eye.distance(top).max(1e-3);
    let height_wu = HOVER_TEXT_PX * distance / view.px_per_wu_at_1;
    let width_wu = assets.aspect(&text) * height_wu;
    let centre = top + Vec3::Y * height_wu * 0.9;
    let clock = labels.use_clock;
    let material = label_material(
        &mut labels,
        &assets,
        &mut images,
        &mut materials,
        &text,
        LabelKind::Building,
        clock,
    );
    let transform = Transform::from_translation(centre)
        .with_rotation(camera_transform.rotation)
        .with_scale(Vec3::new(width_wu, height_wu, 1.0));
    let entity = *labels.hover_entity.get_or_insert_with(|| {
        commands
            .spawn((
                Mesh3d(assets.upright_quad.clone()),
                MeshMaterial3d(material.clone()),
                transform,
                Visibility::Visible,
                bevy::render::view::NoFrustumCulling,
            ))
            .id()
    });
    if let Ok((mut t, mut v, mut m)) = placed.get_mut(entity) {
        *t = transform;
        v.set_if_neq(Visibility::Visible);
        if m.0 != material {
            m.0 = material;
        }
    }
    labels.hovered = Some(ShownLabel {
        kind: LabelKind::Building,
        city: key,
        text,
        centre,
        size_wu: Vec2::new(width_wu, height_wu),
        text_px: HOVER_TEXT_PX,
        min_px: Vec2::ZERO,
        max_px: Vec2::ZERO,
    });
}

/// A building's class as people read it (`Outer.Inner`) and its method's display name.
fn class_and_method_names(
    layout: &highrise_layout::CityLayout,
    building: u32,
) -> Option<(String, String)> {
    let placed = layout.buildings().get(building as usize)?;
    let class = layout
        .classes()
        .get(layout.blocks().get(placed.block as usize)?.class as usize)?;
    let (method, signature) = layout.method_name(building)?;
    Some((
        highrise_protocol::display_class(&class.name),
        highrise_protocol::method_display(&class.name, method, signature),
    ))
}

/// `Class.method` of a building, as its floating name reads.
fn class_and_method(layout: &highrise_layout::CityLayout, building: u32) -> Option<String> {
    let (class, method) = class_and_method_names(layout, building)?;
    Some(format!("{class}.{method}"))
}

/// A hot spot's name, short enough to read over a tower: the innermost class and the method,
/// its parameters elided when the whole is longer than [`HOT_SPOT_NAME_CHARS`]
/// (`MavenProjectComparator.compare(…)`).
fn hot_spot_name(layout: &highrise_layout::CityLayout, building: u32) -> Option<String> {
    let (class_name, method) = class_and_method_names(layout, building)?;
    let inner = class_name.rsplit('.').next().unwrap_or(&class_name);
    let name = format!("{inner}.{method}");
    if name.chars().count() <= HOT_SPOT_NAME_CHARS {
        return Some(name);
    }
    Some(match method.split_once('(') {
        Some((bare, rest)) if rest != ")" => format!("{inner}.{bare}(…)"),
        _ => name,
    })
}

/// A city's hot spots: up to [`HOT_SPOT_NAMES`] buildings by target height, tallest first
/// (ties: lower index), each at least [`HOT_SPOT_MIN_SHARE`] of the tallest and above an idle
/// stub, none of the `dimmed` (outside a focused package). One pass keeping the best few: no
/// sort of the whole city.
pub fn hot_spot_buildings(target_heights_wu: &[f32], dimmed: &[bool]) -> Vec<u32> {
    let mut best: Vec<(f32, u32)> = Vec::with_capacity(HOT_SPOT_NAMES + 1);
    let floor_wu = STUB_HEIGHT_WU * 2.0;
    for (index, &height_wu) in target_heights_wu.iter().enumerate() {
        if height_wu <= floor_wu
            || (best.len() == HOT_SPOT_NAMES && height_wu <= best[HOT_SPOT_NAMES - 1].0)
            || dimmed.get(index).copied().unwrap_or(false)
        {
            continue;
        }
        let at = best.partition_point(|&(h, _)| h >= height_wu);
        best.insert(at, (height_wu, index as u32));
        best.truncate(HOT_SPOT_NAMES);
    }
    let tallest_wu = best.first().map_or(0.0, |b| b.0);
    best.into_iter()
        .filter(|&(h, _)| h >= tallest_wu * HOT_SPOT_MIN_SHARE)
        .map(|(_, index)| index)
        .collect()
}

/// What a hot spot's name says after the method: its share in the time modes.
fn hot_spot_value(
    sessions: Option<&Sessions>,
    key: CityKey,
    method_id: u32,
    mode: HeightMode,
) -> Option<String> {
    let CityKey::Session(session_id) = key else {
        return None;
    };
    if mode.reads_memory() {
        return None;
    }
    let snapshot = sessions?.by_id.get(&session_id)?.shown_snapshot()?;
    let stats = snapshot.method(method_id);
    let share = mode.value(&stats, super::city::AllocSample::default()) * 100.0;
    Some(if share < 10.0 {
        format!("{share:.1} %")
    } else {
        format!("{share:.0} %")
    })
}

/// Chooses each shown city's hot spots again when its targets or plan changed.
fn choose_hot_spots(
    time: Res<Time>,
    cities: Res<Cities>,
    sessions: Option<Res<Sessions>>,
    height_mode: Option<Res<HeightMode>>,
    mut labels: ResMut<SceneLabels>,
) {
    let now_s = time.elapsed_secs_f64();
    let mode = height_mode.as_deref().copied().unwrap_or_default();
    let mut seen = Vec::new();
    for (key, city) in cities.iter() {
        let Some(layout) = city.layout.as_ref().filter(|_| !city.hidden) else {
            continue;
        };
        seen.push(key);
        let wanted = (
            city.plan_generation(),
            city.targets_from,
            city.tallest_target_wu.to_bits(),
            city.dim_generation,
        );
        let choice = labels.hot_spot_choice.entry(key).or_default();
        // Chosen again when the plan or the dimming changed; when only the heights did, at
        // most every HOT_SPOT_REFRESH_S (a pass over every building: not every frame of a city
        // whose heights all move).
        let recent = now_s - choice.chosen_at_s < HOT_SPOT_REFRESH_S;
        let same_plan = choice
            .chosen_from
            .is_some_and(|from| from.0 == wanted.0 && from.3 == wanted.3);
        let fresh =
            (same_plan && recent) || (choice.chosen_from == Some(wanted) && wanted.1.is_some());
        if fresh {
            continue;
        }
        choice.chosen_from = Some(wanted);
        choice.chosen_at_s = now_s;
        choice.buildings = hot_spot_buildings(&city.target_heights_wu, city.dimmed())
            .into_iter()
            .filter_map(|building| {
                let name = hot_spot_name(layout, building)?;
                let method_id = layout.buildings().get(building as usize)?.method_id;
                let text = match hot_spot_value(sessions.as_deref(), key, method_id, mode) {
                    Some(value) => format!("{name} · {value}"),
                    None => name,
                };
                Some((building, text))
            })
            .collect();
    }
    labels.hot_spot_choice.retain(|key, _| seen.contains(key));
}

/// Pixels at the top of the scene the breadcrumbs of a focused package take.
fn breadcrumbs_px(focus: Option<&PackageFocus>) -> f32 {
    if focus.is_some_and(|f| f.focused.is_some()) {
        BREADCRUMBS_PX
    } else {
        0.0
    }
}

/// Height of the breadcrumbs' bar (with its margin), pixels.
pub const BREADCRUMBS_PX: f32 = 46.0;

/// True when two screen boxes overlap.
fn overlaps((a_min, a_max): (Vec2, Vec2), (b_min, b_max): (Vec2, Vec2)) -> bool {
    a_min.x < b_max.x && b_min.x < a_max.x && a_min.y < b_max.y && b_min.y < a_max.y
}

/// Places the hot spots' names over their buildings' tops (as the heights animate), clear of
/// package names, alert badges and each other: a name that would cover one moves beside the
/// top or up, up to seven rows, else waits. Class names under a hot spot's name give way.
#[allow(clippy::too_many_arguments)] // a Bevy system: each parameter is one resource or query
fn place_hot_spots(
    cities: Res<Cities>,
    hovered: Option<Res<Hovered>>,
    assets: Res<LabelAssets>,
    badges: Res<BadgeRects>,
    (cover, focus): (Option<Res<PanelCover>>, Option<Res<PackageFocus>>),
    mut labels: ResMut<SceneLabels>,
    cameras: LabelCamera,
    mut placed: PlacedLabels,
) {
    let Ok((camera, camera_transform, projection)) = cameras.single() else {
        labels.hot_spots.clear();
        return;
    };
    let view = View::of(camera, camera_transform, projection);
    let (scene_min, scene_max) = view.scene(
        cover.as_deref().copied().unwrap_or_default(),
        breadcrumbs_px(focus.as_deref()),
    );
    let hovered = hovered.as_deref().and_then(|h| h.building());
    let mut taken: Vec<(Vec2, Vec2)> = labels
        .shown
        .iter()
        .filter(|l| l.kind == LabelKind::Package)
        .chain(&labels.overview)
        .map(|l| (l.min_px, l.max_px))
        .chain(badges.0.iter().copied())
        .chain(labels.city_names.iter().copied())
        .collect();
    let mut hot_spots = Vec::new();
    let height_px = HOT_SPOT_TEXT_PX + 2.0 * HOT_SPOT_PAD_PX;
    // A tower rising out of the top of the view is named where it leaves it, under this.
    let highest_y = scene_min.y + height_px + 6.0;
    for (key, city) in cities.iter() {
        let (Some(layout), Some(choice)) = (city.layout.as_ref(), labels.hot_spot_choice.get(&key))
        else {
            continue;
        };
        if city.hidden {
            continue;
        }
        for (building, text) in &choice.buildings {
            if hovered == Some((key, *building)) {
                continue; // its name floats over it already
            }
            let Some(placed_building) = layout.buildings().get(*building as usize) else {
                continue;
            };
            let height_wu = city
                .heights_wu
                .get(*building as usize)
                .copied()
                .unwrap_or(0.0);
            let centre = placed_building.footprint.center();
            let top = Vec3::new(
                centre.x,
                placed_building.base_height_wu + height_wu,
                centre.z,
            ) + city.origin;
            let base = Vec3::new(centre.x, placed_building.base_height_wu, centre.z) + city.origin;
            // The tower's top on screen; for a tower rising out of the top of the view (up
            // close, its top perhaps behind the camera), where it leaves it, under the edge.
            let Some(mut anchor) = view.to_screen(base) else {
                continue;
            };
            for step in 1..=16 {
                let Some(at) = view.to_screen(base.lerp(top, step as f32 / 16.0)) else {
                    break;
                };
                if at.y < highest_y {
                    if anchor.y > highest_y {
                        let t = (anchor.y - highest_y) / (anchor.y - at.y);
                        anchor += (at - anchor) * t;
                    }
                    break;
                }
                anchor = at;
            }
            if !(anchor.cmpge(scene_min).all() && anchor.cmple(scene_max).all()) {
                continue;
            }
            let width_px = assets.width_px(text, HOT_SPOT_TEXT_PX) + 2.0 * HOT_SPOT_PAD_PX;
            // Over the top first, then beside it, then higher, up to eight rows; then beside
            // the tower below its top (a tower leaving the top of the view has no room above).
            let shift_px = width_px / 2.0 + 4.0;
            let above = (0..8)
                .flat_map(|row| [0.0, -1.0, 1.0, -2.0, 2.0].map(|side| (row, side * shift_px)));
            let below =
                (1..8).flat_map(|row| [-1.0, 1.0, -2.0, 2.0].map(|side| (-row, side * shift_px)));
            let spot = above.chain(below).find_map(|(row, dx)| {
                let bottom = if row >= 0 {
                    anchor.y - 3.0 - row as f32 * (height_px + 3.0)
                } else {
                    anchor.y + 3.0 + (-row) as f32 * (height_px + 3.0)
                };
                let x = anchor.x + dx;
                let min = Vec2::new(x - width_px / 2.0, bottom - height_px);
                let max = Vec2::new(x + width_px / 2.0, bottom);
                let inside = min.cmpge(scene_min).all() && max.cmple(scene_max).all();
                (inside && !taken.iter().any(|&other| overlaps((min, max), other)))
                    .then_some((min, max))
            });
            let Some((min, max)) = spot else {
                continue;
            };
            taken.push((min, max));
            hot_spots.push(HotSpotLabel {
                city: key,
                building: *building,
                text: text.clone(),
                anchor_px: anchor,
                min_px: min,
                max_px: max,
            });
        }
    }
    // Class names under a hot spot's name give way to it.
    for (label, &entity) in labels.shown.iter().zip(&labels.pool) {
        let covered = label.kind == LabelKind::Class
            && hot_spots
                .iter()
                .any(|h| overlaps((label.min_px, label.max_px), (h.min_px, h.max_px)));
        if let Ok((_, mut visibility, _)) = placed.get_mut(entity) {
            visibility.set_if_neq(if covered {
                Visibility::Hidden
            } else {
                Visibility::Visible
            });
        }
    }
    labels.hot_spots = hot_spots;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_spots_are_the_few_tallest_that_stand_out() {
        let mut heights = vec![STUB_HEIGHT_WU; 1_000];
        for (index, height) in [
            (7, 10.0),
            (3, 4.0),
            (900, 8.0),
            (500, 2.6),
            (42, 3.0),
            (1, 2.4),
        ] {
            heights[index] = height;
        }
        // Five at most, tallest first; 2.4 wu is below a quarter of the tallest.
        assert_eq!(hot_spot_buildings(&heights, &[]), vec![7, 900, 3, 42, 500]);
        // Inside a focused package (the rest dimmed), the hottest there.
        let mut dimmed = vec![false; 1_000];
        dimmed[7] = true;
        assert_eq!(
            hot_spot_buildings(&heights, &dimmed),
            vec![900, 3, 42, 500, 1]
        );
        heights[500] = 2.0;
        heights[42] = 2.0;
        assert_eq!(hot_spot_buildings(&heights, &[]), vec![7, 900, 3]);
        // An idle city has none.
        assert!(hot_spot_buildings(&[STUB_HEIGHT_WU; 10], &[]).is_empty());
    }
}
