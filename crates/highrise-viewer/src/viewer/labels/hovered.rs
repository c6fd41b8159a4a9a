//! The hovered building's name (`Class.method`), floating above its top and facing the
//! camera, drawn like the other labels; and a building's class and method as people read them.

use bevy::prelude::*;

use super::placement::{LabelDraw, View};
use super::scene::{LabelKind, ShownLabel};
use super::textures::label_material;
use crate::viewer::city::Cities;
use crate::viewer::hover::Hovered;

/// The hovered building's name, pixels of text height on screen.
const HOVER_TEXT_PX: f32 = 20.0;

/// The hovered building's name, floating above its top and facing the camera.
pub(super) fn hovered_label(
    cities: Res<Cities>,
    hovered: Option<Res<Hovered>>,
    (mut commands, assets, mut labels, mut images, mut materials, cameras, mut placed): LabelDraw,
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
pub(super) fn class_and_method_names(
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
