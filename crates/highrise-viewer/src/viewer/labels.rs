//! Names in the scene: each package's name lies flat along its district's front edge (sized
//! with the district: on the front margin when it fits there, else just above the district's
//! highest slab), each class's name in the street in front of its block once the camera is close
//! enough to read it, and the hovered building's name floats above it, facing the camera.
//!
//! Level of detail: a label is shown only when its text would stand at least
//! [`MIN_TEXT_PX`] tall on screen, it is in view, and it does not cover a label that matters
//! more (packages before classes, larger before smaller); at most [`MAX_LABELS`] at once. The
//! candidates are gathered once per change of a city's plan; choosing among them runs only when
//! the camera or the scene moved, at most every [`LOD_INTERVAL_S`]. Each distinct text is
//! rasterised once (ab_glyph, the panel's Ubuntu font) into a small texture on an unlit,
//! alpha-blended quad; entities are pooled.

use std::collections::HashMap;

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::mesh::{Indices, PrimitiveTopology};
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};

use super::camera::MainCamera;
use super::city::{Cities, City, CityKey, CitySet};
use super::hover::Hovered;

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

/// What a label names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LabelKind {
    Package,
    Class,
    /// The hovered building.
    Building,
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
}

/// The labels in the scene and their bookkeeping.
#[derive(Resource, Default)]
pub struct SceneLabels {
    /// The package and class labels shown now, most important first.
    pub shown: Vec<ShownLabel>,
    /// The hovered building's label, if shown.
    pub hovered: Option<ShownLabel>,
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
            .add_systems(
                Update,
                (gather_candidates, choose_labels, hovered_label)
                    .chain()
                    .after(CitySet::Animate),
            );
    }
}

/// A package's name as its district shows it: the full path when it fits, else its own name.
fn package_texts(path: &str) -> [&str; 2] {
    [path, path.rsplit('.').next().unwrap_or(path)]
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
    for package in layout.packages() {
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
        let Some((text, width_wu)) = package_texts(&package.path)
            .into_iter()
            .map(|text| (text, assets.aspect(text) * height_wu))
            .find(|(_, width_wu)| *width_wu <= room_wu)
        else {
            continue;
        };
        out.push(Candidate {
            kind: LabelKind::Package,
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
        });
    }
    // Larger before smaller (the level of detail takes packages before classes).
    out.sort_by(|a, b| b.weight.cmp(&a.weight).then_with(|| a.text.cmp(&b.text)));
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
    let mut shown = Vec::new();
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
                if text_px < MIN_TEXT_PX {
                    continue;
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
    evict_textures(&mut labels, &mut materials, clock);
    if more_to_come {
        labels.chosen_for = None; // choose again next pass, with the textures made so far
    }
}

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
            let class = layout
                .classes()
                .get(layout.blocks().get(placed.block as usize)?.class as usize)?;
            let (method, signature) = layout.method_name(building)?;
            let text = format!(
                "{}.{}",
                highrise_protocol::display_class(&class.name),
                highrise_protocol::method_display(&class.name, method, signature)
            );
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
    });
}
