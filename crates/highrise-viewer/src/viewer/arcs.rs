//! Call arcs: who calls whom, drawn as arcs over the city from each caller's roof to its
//! callee's, coloured from the caller end (cyan) to the callee end (orange), thicker for more
//! calls per second over about the last window. By default the hovered building's callers and
//! callees; on the panel's toggle (or `--call-arcs top`) the busiest edges of every city.
//!
//! The edges come with the session's snapshots (`Snapshot::edges`, refreshed twice a second by
//! the ingest side); drawing is immediate-mode gizmos, three groups for three line widths.
//! Calls between services (the landscape's links, `landscape.rs`) are drawn the same way
//! from city to city, lower, whenever both cities are shown.

use std::sync::Arc;

use bevy::prelude::*;
use highrise_aggregate::{CallEdge, CallEdges};
use highrise_report::links::LinksSnapshot;

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

/// Line widths, in pixels, of the three width groups.
#[derive(Debug, Default, Reflect, GizmoConfigGroup)]
pub struct ThinArcs;
#[derive(Debug, Default, Reflect, GizmoConfigGroup)]
pub struct MidArcs;
#[derive(Debug, Default, Reflect, GizmoConfigGroup)]
pub struct ThickArcs;

#[derive(Debug)]
pub struct CallArcsPlugin;

impl Plugin for CallArcsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<CallArcs>()
            .init_gizmo_group::<ThinArcs>()
            .init_gizmo_group::<MidArcs>()
            .init_gizmo_group::<ThickArcs>()
            .add_systems(Startup, configure_widths)
            .add_systems(Update, (draw_arcs, draw_links));
    }
}

fn configure_widths(mut store: ResMut<GizmoConfigStore>) {
    store.config_mut::<ThinArcs>().0.line.width = 1.5;
    store.config_mut::<MidArcs>().0.line.width = 3.5;
    store.config_mut::<ThickArcs>().0.line.width = 6.0;
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
    let roof = |method_id: u32| {
        let building = building_of(method_id)?;
        let instance = city.instances.get(building as usize)?;
        Some(Vec3::new(
            instance.centre_x,
            instance.base_y + instance.height,
            instance.centre_z,
        ))
    };
    let busiest = edges
        .iter()
        .map(|edge| all.calls_per_s(edge))
        .fold(0.0f64, f64::max);
    edges
        .iter()
        .filter(|edge| edge.caller != edge.callee)
        .filter_map(|edge| {
            let (from, to) = (roof(edge.caller)?, roof(edge.callee)?);
            let share = if busiest > 0.0 {
                all.calls_per_s(edge) / busiest
            } else {
                0.0
            };
            let width = match share {
                share if share >= 0.5 => 2,
                share if share >= 0.1 => 1,
                _ => 0,
            };
            Some(Arc3 {
                from,
                to,
                width,
                idle: false,
            })
        })
        .collect()
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
    (mut thin, mut mid, mut thick): (Gizmos<ThinArcs>, Gizmos<MidArcs>, Gizmos<ThickArcs>),
    mut cache: Local<ChosenCache>,
) {
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
            match arc.width {
                0 => thin.linestrip_gradient(points),
                1 => mid.linestrip_gradient(points),
                _ => thick.linestrip_gradient(points),
            }
        }
    }
}

/// The roof of `method_id`'s building in `city`, world coordinates.
fn roof_of(city: &City, method_id: u32) -> Option<Vec3> {
    let building = city.layout.as_ref()?.building_of(method_id)?;
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
            let share = if busiest > 0 {
                link.calls_window as f32 / busiest as f32
            } else {
                0.0
            };
            let width = match share {
                share if share >= 0.5 => 2,
                share if share >= 0.1 => 1,
                _ => 0,
            };
            Some(Arc3 {
                from,
                to,
                width,
                idle: link.calls_window == 0,
            })
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
    (mut thin, mut mid, mut thick): (Gizmos<ThinArcs>, Gizmos<MidArcs>, Gizmos<ThickArcs>),
) {
    if *mode == CallArcs::Off || landscape.links.links.is_empty() {
        return;
    }
    for arc in place_links(&cities, &landscape.links) {
        let alpha = if arc.idle { IDLE_ALPHA } else { 1.0 };
        let points = arc_points_lifted(arc.from, arc.to, 0.2)
            .map(move |(point, t)| (point, CALLER_END.mix(&CALLEE_END, t).with_alpha(alpha)));
        match arc.width {
            0 => thin.linestrip_gradient(points),
            1 => mid.linestrip_gradient(points),
            _ => thick.linestrip_gradient(points),
        }
    }
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
}
