//! The level of detail: the camera as labels see it ([`View`]), a coarse grid of the screen
//! taken by labels ([`Occupancy`]), and choosing which package and class names to show for
//! the view and placing them on pooled entities; at a big city's overview, package names
//! upright on screen instead. Also where the cities' names and a focused package's
//! breadcrumbs stand, which the labels keep clear of.

use std::collections::HashMap;

use bevy::prelude::*;

use super::candidates::{package_texts, OVERVIEW_PAD_PX};
use super::scene::{LabelKind, OverviewPlace, SceneLabels, ShownLabel};
use super::textures::{evict_textures, label_material, texture_key, LabelAssets};
use crate::viewer::camera::{MainCamera, PanelCover};
use crate::viewer::city::{Cities, City, CityKey};
use crate::viewer::compare::Compare;
use crate::viewer::focus::PackageFocus;
use crate::viewer::sessions::Sessions;

/// A label shorter than this on screen is not shown, pixels of text height.
pub const MIN_TEXT_PX: f32 = 11.0;
/// At most this many package and class labels at once.
pub const MAX_LABELS: usize = 240;
/// The level of detail is chosen again at most this often while the view moves, seconds.
pub const LOD_INTERVAL_S: f64 = 0.1;
/// A package name lying on its district smaller than this on screen (pixels) stands upright on
/// screen instead, where it fits.
pub const OVERVIEW_BELOW_PX: f32 = 24.0;
/// Text height of a city's name under its front edge (the overlay's), pixels.
pub const CITY_NAME_PX: f32 = 16.0;
/// New label textures rasterised per level-of-detail pass (the rest come on the next pass).
const NEW_TEXTURES_PER_PASS: usize = 32;

/// The camera as the level of detail sees it: eye, view-projection, viewport. Computed from the
/// projection itself rather than `Camera::world_to_viewport`, which needs the render world's
/// camera values (absent in headless apps and before the first frame).
pub(super) struct View {
    pub(super) eye: Vec3,
    clip_from_world: Mat4,
    /// Pixels per world unit at distance 1.
    pub(super) px_per_wu_at_1: f32,
    viewport_px: Vec2,
}

impl View {
    pub(super) fn of(camera: &Camera, transform: &Transform, projection: &Projection) -> View {
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
    pub(super) fn scene(&self, cover: PanelCover, top_px: f32) -> (Vec2, Vec2) {
        (
            Vec2::new(cover.left_fraction * self.viewport_px.x, top_px),
            Vec2::new(
                self.viewport_px.x,
                (1.0 - cover.bottom_fraction) * self.viewport_px.y,
            ),
        )
    }

    /// Where a world point lands on screen (pixels from the top-left), if in front.
    pub(super) fn to_screen(&self, point: Vec3) -> Option<Vec2> {
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
pub(super) type LabelCamera<'w, 's> =
    Query<'w, 's, (&'static Camera, &'static Transform, &'static Projection), With<MainCamera>>;
/// Label entities (and, unread, other meshes): where each stands, whether shown, its text.
pub(super) type PlacedLabels<'w, 's> = Query<
    'w,
    's,
    (
        &'static mut Transform,
        &'static mut Visibility,
        &'static mut MeshMaterial3d<StandardMaterial>,
    ),
    Without<MainCamera>,
>;
/// What the label systems draw with: commands, the glyph atlas, the scene's labels, images and
/// materials for their textures, the camera and the placed label entities.
pub(super) type LabelDraw<'w, 's> = (
    Commands<'w, 's>,
    Res<'w, LabelAssets>,
    ResMut<'w, SceneLabels>,
    ResMut<'w, Assets<Image>>,
    ResMut<'w, Assets<StandardMaterial>>,
    LabelCamera<'w, 's>,
    PlacedLabels<'w, 's>,
);

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
pub(super) fn choose_labels(
    time: Res<Time>,
    cities: Res<Cities>,
    (mut commands, assets, mut labels, mut images, mut materials, cameras, mut placed): LabelDraw,
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

/// Pixels at the top of the scene the breadcrumbs of a focused package take.
pub(super) fn breadcrumbs_px(focus: Option<&PackageFocus>) -> f32 {
    if focus.is_some_and(|f| f.focused.is_some()) {
        BREADCRUMBS_PX
    } else {
        0.0
    }
}

/// Height of the breadcrumbs' bar (with its margin), pixels.
pub const BREADCRUMBS_PX: f32 = 46.0;
