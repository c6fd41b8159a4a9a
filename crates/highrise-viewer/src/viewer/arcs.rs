//! Call arcs: who calls whom, drawn as arcs over the city from each caller's roof to its
//! callee's, coloured from the caller end (cyan) to the callee end (orange), thicker for more
//! calls per second over about the last window. By default the hovered building's callers and
//! callees; on the panel's toggle (or `--call-arcs top`) the busiest edges of every city.
//!
//! The edges come with the session's snapshots (`Snapshot::edges`, refreshed twice a second by
//! the ingest side). Each frame the chosen arcs become line strips ([`ArcStrips`]) and the
//! strips one mesh of camera-facing ribbons ([`ribbon`]: a fixed width in pixels, vertex
//! colours, unlit, blended), so the viewer needs no gizmo renderer (`bevy_gizmos`, 17 s of a
//! cold build). Calls between services (the landscape's links, `landscape.rs`) are drawn the
//! same way from city to city, lower, whenever both cities are shown.

use std::sync::Arc;

use bevy::asset::RenderAssetUsages;
use bevy::pbr::{NotShadowCaster, NotShadowReceiver};
use bevy::prelude::*;
use bevy::render::mesh::{Indices, PrimitiveTopology};
use bevy::render::view::NoFrustumCulling;
use highrise_aggregate::{CallEdge, CallEdges};
use highrise_links::LinksSnapshot;

use super::camera::MainCamera;
use super::city::{Cities, City, CityKey};
use super::hover::Hovered;
use super::landscape::Landscape;
use super::sessions::Sessions;

/// Which arcs are drawn.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum CallArcs {
    /// None.
    Off,
    /// The hovered building's callers and callees.
    #[default]
    Hovered,
    /// The busiest edges of each city ([`TOP_EDGES`]), and the hovered building's.
    Top,
}

/// Edges drawn per city in [`CallArcs::Top`].
pub const TOP_EDGES: usize = 40;
/// Most callers and most callees drawn for a hovered building (the busiest).
pub const HOVERED_EDGES: usize = 48;
/// Points per arc.
const ARC_SEGMENTS: usize = 24;
const CALLER_END: Color = Color::srgb(0.25, 0.85, 1.0);
const CALLEE_END: Color = Color::srgb(1.0, 0.55, 0.1);

/// Line widths, in pixels, of the three width classes (thin, mid, thick).
pub const WIDTHS_PX: [f32; 3] = [1.5, 3.5, 6.0];
/// The viewport height assumed for a camera that does not know its own (headless), pixels.
const DEFAULT_VIEWPORT_HEIGHT_PX: f32 = 800.0;

#[derive(Debug)]
pub struct CallArcsPlugin;

impl Plugin for CallArcsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<CallArcs>()
            .init_resource::<ArcStrips>()
            .add_systems(Startup, spawn_arc_mesh)
            .add_systems(Update, (draw_arcs, draw_links, write_arc_mesh).chain());
    }
}

/// This frame's arcs as line strips: points with their colours, and per strip its first
/// point, its length and its width in pixels.
#[derive(Resource, Debug, Default)]
pub struct ArcStrips {
    points: Vec<Vec3>,
    colours: Vec<[f32; 4]>,
    strips: Vec<(usize, usize, f32)>,
}

impl ArcStrips {
    fn clear(&mut self) {
        self.points.clear();
        self.colours.clear();
        self.strips.clear();
    }

    fn push(&mut self, points: impl Iterator<Item = (Vec3, Color)>, width_px: f32) {
        let start = self.points.len();
        for (point, colour) in points {
            self.points.push(point);
            self.colours.push(LinearRgba::from(colour).to_f32_array());
        }
        self.strips
            .push((start, self.points.len() - start, width_px));
    }

    pub fn is_empty(&self) -> bool {
        self.strips.is_empty()
    }
}

/// The one entity the arcs are drawn with.
#[derive(Component, Debug)]
struct ArcMesh;

fn spawn_arc_mesh(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    // One degenerate triangle with every attribute the frames write: the mesh allocator
    // cannot place a mesh without vertices.
    let mesh = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, vec![[0.0f32; 3]; 3])
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, vec![[0.0f32, 1.0, 0.0]; 3])
    .with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, vec![[0.0f32; 4]; 3])
    .with_inserted_indices(Indices::U32(vec![0, 1, 2]));
    commands.spawn((
        ArcMesh,
        Mesh3d(meshes.add(mesh)),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::WHITE,
            unlit: true,
            alpha_mode: AlphaMode::Blend,
            cull_mode: None,
            double_sided: true,
            ..default()
        })),
        Transform::default(),
        Visibility::Hidden,
        // The mesh changes every frame; its bounds would be stale.
        NoFrustumCulling,
        NotShadowCaster,
        NotShadowReceiver,
    ));
}

/// A ribbon along `points` facing `eye`, `width_px` wide on screen: two vertices per point,
/// offset across the line and the view by half the width, where one pixel at distance `d`
/// spans `d * world_per_px_per_m`. Appends positions and the indices of two triangles per
/// segment.
pub fn ribbon(
    points: &[Vec3],
    width_px: f32,
    eye: Vec3,
    world_per_px_per_m: f32,
    positions: &mut Vec<[f32; 3]>,
    indices: &mut Vec<u32>,
) {
    let first = positions.len() as u32;
    for (i, &point) in points.iter().enumerate() {
        let before = points[i.saturating_sub(1)];
        let after = points[(i + 1).min(points.len() - 1)];
        let along = (after - before).normalize_or_zero();
        let to_eye = eye - point;
        let across = along.cross(to_eye).normalize_or_zero();
        let half = 0.5 * width_px * world_per_px_per_m * to_eye.length();
        positions.push((point - across * half).to_array());
        positions.push((point + across * half).to_array());
    }
    for segment in 0..points.len().saturating_sub(1) as u32 {
        let a = first + 2 * segment;
        indices.extend_from_slice(&[a, a + 1, a + 2, a + 1, a + 3, a + 2]);
    }
}

/// Writes this frame's strips into the arc mesh as ribbons facing the camera (hidden when
/// there are none).
fn write_arc_mesh(
    strips: Res<ArcStrips>,
    cameras: Query<(&GlobalTransform, &Projection, &Camera), With<MainCamera>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut target: Query<(&Mesh3d, &mut Visibility), With<ArcMesh>>,
) {
    let Ok((mesh, mut visibility)) = target.single_mut() else {
        return;
    };
    if strips.is_empty() {
        visibility.set_if_neq(Visibility::Hidden);
        return;
    }
    let Ok((transform, projection, camera)) = cameras.single() else {
        return;
    };
    let fov = match projection {
        Projection::Perspective(perspective) => perspective.fov,
        _ => std::f32::consts::FRAC_PI_4,
    };
    let height_px = camera
        .logical_viewport_size()
        .map_or(DEFAULT_VIEWPORT_HEIGHT_PX, |size| size.y.max(1.0));
    let (eye, world_per_px_per_m) = (transform.translation(), 2.0 * (0.5 * fov).tan() / height_px);
    let Some(mesh) = meshes.get_mut(&mesh.0) else {
        return;
    };
    let mut positions = Vec::with_capacity(2 * strips.points.len());
    let mut colours = Vec::with_capacity(2 * strips.points.len());
    let mut indices = Vec::with_capacity(6 * strips.points.len());
    for &(start, len, width_px) in &strips.strips {
        let points = &strips.points[start..start + len];
        ribbon(
            points,
            width_px,
            eye,
            world_per_px_per_m,
            &mut positions,
            &mut indices,
        );
        for &colour in &strips.colours[start..start + len] {
            colours.extend_from_slice(&[colour, colour]);
        }
    }
    let normals = vec![[0.0, 1.0, 0.0]; positions.len()];
    mesh.insert_attribute(Mesh::ATTRIBUTE_POSITION, positions);
    mesh.insert_attribute(Mesh::ATTRIBUTE_NORMAL, normals);
    mesh.insert_attribute(Mesh::ATTRIBUTE_COLOR, colours);
    mesh.insert_indices(Indices::U32(indices));
    visibility.set_if_neq(Visibility::Inherited);
}

/// One arc to draw: roof to roof, and its width class (0 thin … 2 thick).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arc3 {
    pub from: Vec3,
    pub to: Vec3,
    pub width: u8,
    /// No call in the window: drawn faint (a link seen before, quiet now).
    pub idle: bool,
}

/// The arcs of one city: `edges` placed on its buildings (edges whose caller or callee has no
/// building are left out), widths by calls per second relative to the busiest drawn.
pub fn place_arcs(city: &City, all: &CallEdges, edges: &[CallEdge]) -> Vec<Arc3> {
    let building_of = city.building_of_method();
    let roof = |method_id: u32| roof_of_building(city, building_of(method_id)?);
    let busiest = edges
        .iter()
        .map(|edge| all.calls_per_s(edge))
        .fold(0.0f64, f64::max);
    edges
        .iter()
        .filter(|edge| edge.caller != edge.callee)
        .filter_map(|edge| {
            let (from, to) = (roof(edge.caller)?, roof(edge.callee)?);
            Some(arc(from, to, all.calls_per_s(edge), busiest, false))
        })
        .collect()
}

/// An arc whose `calls` are a share of the busiest drawn's `busiest` (its width).
fn arc(from: Vec3, to: Vec3, calls: f64, busiest: f64, idle: bool) -> Arc3 {
    let share = if busiest > 0.0 { calls / busiest } else { 0.0 };
    Arc3 {
        from,
        to,
        width: width_class(share),
        idle,
    }
}

/// The edges to draw for one city: the hovered building's busiest callers and callees, plus
/// the city's busiest edges in [`CallArcs::Top`].
pub fn chosen_edges(
    mode: CallArcs,
    edges: &CallEdges,
    hovered_method: Option<u32>,
) -> Vec<CallEdge> {
    let mut chosen = Vec::new();
    if mode == CallArcs::Off {
        return chosen;
    }
    if mode == CallArcs::Top {
        chosen.extend(edges.top_recent(TOP_EDGES));
    }
    if let Some(method_id) = hovered_method {
        let busiest = |mut list: Vec<CallEdge>| {
            list.sort_by_key(|edge| std::cmp::Reverse((edge.recent_calls, edge.calls)));
            list.truncate(HOVERED_EDGES);
            list
        };
        chosen.extend(busiest(edges.callers_of(method_id).copied().collect()));
        chosen.extend(busiest(edges.callees_of(method_id).to_vec()));
    }
    chosen.sort_by_key(|edge| (edge.caller, edge.callee));
    chosen.dedup_by_key(|edge| (edge.caller, edge.callee));
    chosen
}

/// Points along the arc from `from` to `to`: a parabola rising above both roofs by a share
/// of the distance.
pub fn arc_points(from: Vec3, to: Vec3) -> impl Iterator<Item = (Vec3, f32)> {
    arc_points_lifted(from, to, 0.35)
}

/// [`arc_points`] rising by `lift_share` of the distance.
fn arc_points_lifted(from: Vec3, to: Vec3, lift_share: f32) -> impl Iterator<Item = (Vec3, f32)> {
    let lift = from.distance(to) * lift_share + 0.5;
    (0..=ARC_SEGMENTS).map(move |step| {
        let t = step as f32 / ARC_SEGMENTS as f32;
        let mut point = from.lerp(to, t);
        point.y += 4.0 * lift * t * (1.0 - t);
        (point, t)
    })
}

/// Per city: the edges chosen for the last (edges, mode, hovered method).
#[derive(Debug, Default)]
struct ChosenCache {
    by_city: std::collections::HashMap<CityKey, Chosen>,
}

#[derive(Debug, Default)]
struct Chosen {
    edges: Option<Arc<CallEdges>>,
    mode: CallArcs,
    hovered_method: Option<u32>,
    chosen: Vec<CallEdge>,
}

fn draw_arcs(
    mode: Res<CallArcs>,
    hovered: Option<Res<Hovered>>,
    sessions: Res<Sessions>,
    cities: Res<Cities>,
    mut strips: ResMut<ArcStrips>,
    mut cache: Local<ChosenCache>,
) {
    strips.clear();
    if *mode == CallArcs::Off {
        return;
    }
    let hovered_building = hovered.as_ref().and_then(|hovered| hovered.method());
    for (key, city) in cities.iter() {
        let CityKey::Session(session_id) = key else {
            continue;
        };
        if city.hidden {
            continue;
        }
        let Some(edges) = sessions
            .by_id
            .get(&session_id)
            .and_then(|view| view.snapshot())
            .and_then(|snapshot| snapshot.edges.clone())
        else {
            continue;
        };
        let hovered_method = hovered_building
            .filter(|(city_key, _)| *city_key == key)
            .map(|(_, method_id)| method_id);
        // The choice changes only with the edges (twice a second), the mode or the hover:
        // choosing is linear in the edges, placing only in the chosen ones.
        let entry = cache.by_city.entry(key).or_default();
        let fresh = entry
            .edges
            .as_ref()
            .is_some_and(|kept| Arc::ptr_eq(kept, &edges))
            && entry.mode == *mode
            && entry.hovered_method == hovered_method;
        if !fresh {
            entry.chosen = chosen_edges(*mode, &edges, hovered_method);
            entry.edges = Some(Arc::clone(&edges));
            entry.mode = *mode;
            entry.hovered_method = hovered_method;
        }
        if entry.chosen.is_empty() {
            // Nothing to place: skip the method → building lookup (a map over every
            // building when ids are sparse), the common case with nothing hovered.
            continue;
        }
        for arc in place_arcs(city, &edges, &entry.chosen) {
            let points = arc_points(arc.from, arc.to)
                .map(|(point, t)| (point, CALLER_END.mix(&CALLEE_END, t)));
            strips.push(points, width_px(arc.width));
        }
    }
}

/// The roof of `method_id`'s building in `city`, world coordinates.
fn roof_of(city: &City, method_id: u32) -> Option<Vec3> {
    roof_of_building(city, city.layout.as_ref()?.building_of(method_id)?)
}

/// The roof of `building` in `city`, world coordinates.
fn roof_of_building(city: &City, building: u32) -> Option<Vec3> {
    let instance = city.instances.get(building as usize)?;
    Some(Vec3::new(
        instance.centre_x,
        instance.base_y + instance.height,
        instance.centre_z,
    ))
}

/// Arcs for calls that cross services (the landscape's links) whose two cities are shown,
/// widths by calls per second relative to the busiest link.
pub fn place_links(cities: &Cities, links: &LinksSnapshot) -> Vec<Arc3> {
    let busiest = links
        .links
        .iter()
        .map(|link| link.calls_window)
        .max()
        .unwrap_or(0);
    let shown = |session_id| cities.session(session_id).filter(|city| !city.hidden);
    links
        .links
        .iter()
        .filter_map(|link| {
            let from = roof_of(shown(link.caller.session_id)?, link.caller.method_id)?;
            let to = roof_of(shown(link.callee.session_id)?, link.callee.method_id)?;
            let calls = link.calls_window as f64;
            Some(arc(from, to, calls, busiest as f64, link.calls_window == 0))
        })
        .collect()
}

/// How much of an idle link's colour shows.
const IDLE_ALPHA: f32 = 0.2;

/// Cross-service arcs, always (unless arcs are off): the landscape's few service-to-service
/// calls are what it is for.
fn draw_links(
    mode: Res<CallArcs>,
    landscape: Res<Landscape>,
    cities: Res<Cities>,
    mut strips: ResMut<ArcStrips>,
) {
    if *mode == CallArcs::Off || landscape.links.links.is_empty() {
        return;
    }
    for arc in place_links(&cities, &landscape.links) {
        let alpha = if arc.idle { IDLE_ALPHA } else { 1.0 };
        let points = arc_points_lifted(arc.from, arc.to, 0.2)
            .map(move |(point, t)| (point, CALLER_END.mix(&CALLEE_END, t).with_alpha(alpha)));
        strips.push(points, width_px(arc.width));
    }
}

/// The width class (0 thin … 2 thick) of an arc with `share` of the busiest drawn's calls.
fn width_class(share: f64) -> u8 {
    match share {
        share if share >= 0.5 => 2,
        share if share >= 0.1 => 1,
        _ => 0,
    }
}

/// The width in pixels of a width class (0 thin … 2 thick).
fn width_px(width: u8) -> f32 {
    WIDTHS_PX[usize::from(width).min(WIDTHS_PX.len() - 1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(caller: u32, callee: u32, recent_calls: u64) -> CallEdge {
        CallEdge {
            caller,
            callee,
            calls: recent_calls * 2,
            recent_calls,
        }
    }

    fn edges() -> CallEdges {
        CallEdges {
            edges: vec![
                edge(0, 1, 30),
                edge(0, 2, 5),
                edge(1, 2, 100),
                edge(3, 1, 1),
            ],
            span_ns: 3_000_000_000,
            now_ns: 3_000_000_000,
            capped_calls: 0,
        }
    }

    #[test]
    fn a_hovered_building_gets_its_callers_and_callees() {
        let pairs = |chosen: Vec<CallEdge>| -> Vec<(u32, u32)> {
            chosen.iter().map(|e| (e.caller, e.callee)).collect()
        };
        assert_eq!(
            pairs(chosen_edges(CallArcs::Hovered, &edges(), Some(1))),
            [(0, 1), (1, 2), (3, 1)]
        );
        assert!(chosen_edges(CallArcs::Hovered, &edges(), None).is_empty());
        assert!(chosen_edges(CallArcs::Off, &edges(), Some(1)).is_empty());
        assert_eq!(pairs(chosen_edges(CallArcs::Top, &edges(), None)).len(), 4);
    }

    #[test]
    fn an_arc_runs_roof_to_roof_above_both() {
        let (from, to) = (Vec3::new(0.0, 2.0, 0.0), Vec3::new(10.0, 5.0, 0.0));
        let points: Vec<(Vec3, f32)> = arc_points(from, to).collect();
        assert_eq!(points.first().map(|p| p.0), Some(from));
        assert!(points.last().is_some_and(|p| p.0.distance(to) < 1e-4));
        let middle = points[points.len() / 2].0;
        assert!(middle.y > to.y + 2.0, "{middle}");
    }

    #[test]
    fn a_ribbon_is_as_wide_on_screen_as_asked_and_faces_the_eye() {
        // A line along x, seen from 100 m above its middle: one pixel spans 0.01 m per metre.
        let points = [
            Vec3::ZERO,
            Vec3::new(5.0, 0.0, 0.0),
            Vec3::new(10.0, 0.0, 0.0),
        ];
        let eye = Vec3::new(5.0, 100.0, 0.0);
        let (mut positions, mut indices) = (vec![[9.0; 3]], Vec::new());
        ribbon(&points, 4.0, eye, 0.01, &mut positions, &mut indices);
        assert_eq!(positions.len(), 1 + 2 * points.len());
        // Two triangles per segment, after the vertex that was already there.
        assert_eq!(indices, [1, 2, 3, 2, 4, 3, 3, 4, 5, 4, 6, 5]);
        let middle = (Vec3::from(positions[3]), Vec3::from(positions[4]));
        // Across the line and the view (along z), 4 px × 0.01 × 100 m = 4 m wide.
        assert!(
            (middle.0.distance(middle.1) - 4.0).abs() < 1e-4,
            "{middle:?}"
        );
        assert!(
            (middle.1 - middle.0).normalize().z.abs() > 0.999,
            "{middle:?}"
        );
        assert!((((middle.0 + middle.1) / 2.0) - points[1]).length() < 1e-4);
        // Farther from the eye, wider in the world: the same on screen.
        let near = Vec3::from(positions[1]).distance(Vec3::from(positions[2]));
        assert!(near > 4.0, "{near}");
    }
}
