//! The landscape: a level above packages. Sessions are grouped by host (an OpenTelemetry
//! resource's `host.name`, an agent's address; this machine for local ones) and each host's
//! services stand in a labelled grid on a ground plate of their own; each city keeps its own
//! layout. Calls that cross services (`highrise_links`, found by the OTLP
//! bridge, or for replays the `links.json` beside the recordings: `replay_links.rs`) are drawn
//! as arcs between the cities (`arcs.rs`) and listed in the tooltip.
//!
//! [`arrange`] is pure (keys and bounds in, origins and host areas out); the city systems' Arrange
//! stage calls it. With one host and no OpenTelemetry session the cities stand in one row with
//! no plate, as before there were landscapes.

use std::sync::Arc;

use bevy::prelude::*;
use highrise_ingest::SessionSource;
use highrise_layout::Rect;
use highrise_links::{LinksSnapshot, SessionLink, SessionLinks};

use super::city::{CityKey, Palette, CITY_GAP_WU};
use super::replay_links::{self, ReplayLinks};
use super::sessions::{Report, Sessions};

/// Room around a host's cities on its plate, world units.
pub const HOST_MARGIN_WU: f32 = 5.0;
/// Extra room at a plate's front edge for the cities' names.
pub const HOST_LABEL_WU: f32 = 3.0;
/// Gap between host plates.
pub const HOST_GAP_WU: f32 = 20.0;
/// The host of sessions from this machine.
pub const THIS_MACHINE: &str = "this machine";

/// One host's part of the landscape.
#[derive(Debug, Clone, PartialEq)]
pub struct HostArea {
    pub host: String,
    /// The plate, world coordinates.
    pub rect: Rect,
    /// Its services (cities) shown.
    pub services: usize,
}

/// The landscape as arranged this frame, and the cross-service calls.
#[derive(Resource, Debug, Default)]
pub struct Landscape {
    /// Host plates; empty when the cities stand in one row (one host, no OpenTelemetry
    /// session, or the compare view).
    pub hosts: Vec<HostArea>,
    /// The latest calls between sessions.
    pub links: Arc<LinksSnapshot>,
}

/// Where cross-session calls are published (the ingest server's board).
#[derive(Resource, Debug, Clone)]
pub struct LinksFeed(pub SessionLinks);

/// The host a session runs on: an OpenTelemetry session's `host=` (its resource's
/// `host.name`, else the exporter's address), else the agent's address; loopback agents and
/// replays of agent recordings are [`THIS_MACHINE`].
pub fn host_of(report: &Report) -> String {
    if let Some(info) = &report.info {
        if let Some(host) = otlp_host(&info.agent) {
            return host.to_owned();
        }
    }
    let replay = matches!(report.stats.source, SessionSource::Replay { .. });
    if replay || report.peer.ip().is_loopback() || report.peer.ip().is_unspecified() {
        THIS_MACHINE.to_owned()
    } else {
        report.peer.ip().to_string()
    }
}

/// `host=…` of an OTLP session's agent text (`otlp; host=…; instance=…; sdk=…`).
pub fn otlp_host(agent: &str) -> Option<&str> {
    let rest = agent.strip_prefix("otlp;")?;
    rest.split(';')
        .filter_map(|part| part.trim().strip_prefix("host="))
        .find(|host| !host.is_empty())
}

/// Whether a session came from OpenTelemetry.
pub fn is_otlp(report: &Report) -> bool {
    report
        .info
        .as_ref()
        .is_some_and(|info| info.agent.starts_with("otlp;"))
}

/// Cities by host, each host's services by name: what [`arrange`] takes. Hosts sorted by
/// name with this machine first.
pub fn host_groups(sessions: &Sessions, keys: &[CityKey]) -> Vec<(String, Vec<CityKey>)> {
    let mut groups: Vec<(String, Vec<(String, CityKey)>)> = Vec::new();
    for &key in keys {
        let CityKey::Session(session_id) = key else {
            continue;
        };
        let Some(view) = sessions.by_id.get(&session_id) else {
            continue;
        };
        let host = host_of(&view.report);
        let entry = match groups.iter_mut().position(|(name, _)| *name == host) {
            Some(index) => &mut groups[index].1,
            None => {
                groups.push((host, Vec::new()));
                &mut groups.last_mut().expect("just pushed").1
            }
        };
        entry.push((view.title(), key));
    }
    groups.sort_by(|a, b| (a.0 != THIS_MACHINE, &a.0).cmp(&(b.0 != THIS_MACHINE, &b.0)));
    groups
        .into_iter()
        .map(|(host, mut services)| {
            // By name, then connection order.
            services.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
            (host, services.into_iter().map(|(_, key)| key).collect())
        })
        .collect()
}

/// Where each city stands.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arrangement {
    /// Each city's origin (the world position of its layout's (0, 0)).
    pub origins: Vec<(CityKey, Vec3)>,
    pub hosts: Vec<HostArea>,
}

/// Places cities given their layouts' bounds. `labelled`: each host's cities in a grid on a
/// plate, the plates packed in rows about 1.6 times as wide as deep; else one row along X in
/// the order given, hosts ignored.
pub fn arrange(groups: &[(String, Vec<(CityKey, Rect)>)], labelled: bool) -> Arrangement {
    let mut arrangement = Arrangement::default();
    if !labelled {
        let mut next_x = 0.0f32;
        for (key, bounds) in groups.iter().flat_map(|(_, cities)| cities) {
            arrangement
                .origins
                .push((*key, Vec3::new(next_x - bounds.min_x, 0.0, -bounds.min_z)));
            next_x += bounds.width_wu() + CITY_GAP_WU;
        }
        return arrangement;
    }
    // Each host's grid, relative to its plate's corner.
    struct Block {
        host: String,
        size: Vec2,
        cities: Vec<(CityKey, Vec2)>,
    }
    let blocks: Vec<Block> = groups
        .iter()
        .filter(|(_, cities)| !cities.is_empty())
        .map(|(host, cities)| {
            let n = cities.len();
            let columns = if n <= 3 {
                n
            } else {
                ((n as f32 * 1.6).sqrt().ceil() as usize).clamp(1, n)
            };
            let mut cities_at = Vec::with_capacity(n);
            let (mut width, mut z) = (0.0f32, HOST_MARGIN_WU);
            for row in cities.chunks(columns) {
                let mut x = HOST_MARGIN_WU;
                let mut depth = 0.0f32;
                for (key, bounds) in row {
                    cities_at.push((*key, Vec2::new(x - bounds.min_x, z - bounds.min_z)));
                    x += bounds.width_wu() + CITY_GAP_WU;
                    depth = depth.max(bounds.depth_wu());
                }
                width = width.max(x - CITY_GAP_WU + HOST_MARGIN_WU);
                z += depth + CITY_GAP_WU;
            }
            let depth = z - CITY_GAP_WU + HOST_LABEL_WU;
            Block {
                host: host.clone(),
                size: Vec2::new(width, depth),
                cities: cities_at,
            }
        })
        .collect();
    let area: f32 = blocks.iter().map(|b| b.size.x * b.size.y).sum();
    let widest = blocks.iter().map(|b| b.size.x).fold(0.0f32, f32::max);
    let row_width = widest.max((area * 1.6).sqrt());
    let (mut x, mut z, mut shelf_depth) = (0.0f32, 0.0f32, 0.0f32);
    for block in blocks {
        if x > 0.0 && x + block.size.x > row_width {
            x = 0.0;
            z += shelf_depth + HOST_GAP_WU;
            shelf_depth = 0.0;
        }
        for (key, at) in &block.cities {
            arrangement
                .origins
                .push((*key, Vec3::new(x + at.x, 0.0, z + at.y)));
        }
        arrangement.hosts.push(HostArea {
            host: block.host,
            rect: Rect {
                min_x: x,
                min_z: z,
                max_x: x + block.size.x,
                max_z: z + block.size.y,
            },
            services: block.cities.len(),
        });
        x += block.size.x + HOST_GAP_WU;
        shelf_depth = shelf_depth.max(block.size.y);
    }
    arrangement
}

/// Whether the landscape is labelled by host: more than one host, or any OpenTelemetry
/// session.
pub fn is_labelled(sessions: &Sessions, groups: &[(String, Vec<CityKey>)]) -> bool {
    groups.len() > 1
        || groups.iter().flat_map(|(_, keys)| keys).any(|key| {
            let CityKey::Session(session_id) = key else {
                return false;
            };
            sessions
                .by_id
                .get(session_id)
                .is_some_and(|view| is_otlp(&view.report))
        })
}

#[derive(Debug)]
pub struct LandscapePlugin;

impl Plugin for LandscapePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Landscape>()
            .init_resource::<ReplayLinks>()
            .add_systems(PreUpdate, refresh_links)
            .add_systems(Update, sync_plates.after(super::city::CitySet::Arrange));
    }
}

/// How often the calls between replayed sessions are recounted, seconds.
const REPLAY_LINKS_INTERVAL_S: f32 = 0.25;

/// What [`refresh_links`] last merged.
#[derive(Debug, Default)]
struct MergedLinks {
    live_generation: u64,
    replayed: Vec<SessionLink>,
    since_s: f32,
    generation: u64,
}

/// Takes the latest cross-session calls when they changed: the live ones (the OTLP bridge's
/// board) and the replayed ones (`links.json` beside replayed recordings, [`replay_links`]).
fn refresh_links(
    feed: Option<Res<LinksFeed>>,
    sessions: Res<Sessions>,
    time: Res<Time>,
    mut replay: ResMut<ReplayLinks>,
    mut merged: Local<MergedLinks>,
    mut landscape: ResMut<Landscape>,
) {
    let live = feed.map(|feed| feed.0.latest()).unwrap_or_default();
    let mut changed = live.generation != merged.live_generation;
    merged.since_s += time.delta_secs();
    if merged.since_s >= REPLAY_LINKS_INTERVAL_S {
        merged.since_s = 0.0;
        replay.load_new(&sessions);
        let replayed = replay_links::replayed_links(replay.files(), &sessions);
        if replayed != merged.replayed {
            merged.replayed = replayed;
            changed = true;
        }
    }
    if !changed {
        return;
    }
    merged.live_generation = live.generation;
    merged.generation += 1;
    let mut links = live.links.clone();
    links.extend(merged.replayed.iter().cloned());
    landscape.links = Arc::new(LinksSnapshot {
        generation: merged.generation,
        window_s: if live.window_s > 0.0 {
            live.window_s
        } else {
            replay_links::WINDOW_S as f32
        },
        links,
    });
}

/// A host's ground plate.
#[derive(Component, Debug)]
pub struct HostPlate {
    pub index: usize,
}

const PLATE_TOP_WU: f32 = -0.02;
const PLATE_THICKNESS_WU: f32 = 0.1;

/// One plate per host area, reshaped when the arrangement changes.
fn sync_plates(
    mut commands: Commands,
    landscape: Res<Landscape>,
    palette: Res<Palette>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut material: Local<Option<Handle<StandardMaterial>>>,
    mut plates: Query<(Entity, &HostPlate, &mut Transform)>,
) {
    if !landscape.is_changed() {
        return;
    }
    let material = material
        .get_or_insert_with(|| {
            materials.add(StandardMaterial {
                base_color: Color::srgb(0.13, 0.16, 0.22),
                perceptual_roughness: 1.0,
                ..default()
            })
        })
        .clone();
    let transform_of = |rect: &Rect| {
        super::city::slab_transform(rect, PLATE_TOP_WU - PLATE_THICKNESS_WU, PLATE_TOP_WU)
    };
    let mut kept = vec![false; landscape.hosts.len()];
    for (entity, plate, mut transform) in &mut plates {
        match landscape.hosts.get(plate.index) {
            Some(area) => {
                kept[plate.index] = true;
                let wanted = transform_of(&area.rect);
                if *transform != wanted {
                    *transform = wanted;
                }
            }
            None => commands.entity(entity).despawn(),
        }
    }
    for (index, area) in landscape.hosts.iter().enumerate() {
        if !kept[index] {
            commands.spawn((
                HostPlate { index },
                Mesh3d(palette.cube.clone()),
                MeshMaterial3d(material.clone()),
                transform_of(&area.rect),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(width: f32, depth: f32) -> Rect {
        Rect {
            min_x: 0.0,
            min_z: 0.0,
            max_x: width,
            max_z: depth,
        }
    }

    #[test]
    fn otlp_hosts_come_from_the_agent_text() {
        assert_eq!(
            otlp_host("otlp; host=db-1; instance=7; sdk=opentelemetry python 1.45"),
            Some("db-1")
        );
        assert_eq!(otlp_host("otlp; host=; instance=7"), None);
        assert_eq!(otlp_host("highrise-agent-rust 0.1; host=x"), None);
    }

    #[test]
    fn hosts_get_plates_that_hold_their_cities_without_overlap() {
        let groups: Vec<(String, Vec<(CityKey, Rect)>)> = vec![
            (
                "host-1".into(),
                (1..=5)
                    .map(|id| (CityKey::Session(id), rect(20.0, 10.0)))
                    .collect(),
            ),
            (
                "host-2".into(),
                vec![(CityKey::Session(6), rect(40.0, 30.0))],
            ),
            ("host-3".into(), vec![(CityKey::Session(7), rect(8.0, 8.0))]),
        ];
        let arrangement = arrange(&groups, true);
        assert_eq!(arrangement.hosts.len(), 3);
        assert_eq!(arrangement.origins.len(), 7);
        let world = |key: CityKey| {
            let origin = arrangement.origins.iter().find(|o| o.0 == key).unwrap().1;
            let (_, bounds) = groups
                .iter()
                .flat_map(|(_, cities)| cities)
                .find(|c| c.0 == key)
                .unwrap();
            Rect {
                min_x: bounds.min_x + origin.x,
                min_z: bounds.min_z + origin.z,
                max_x: bounds.max_x + origin.x,
                max_z: bounds.max_z + origin.z,
            }
        };
        let overlaps = |a: &Rect, b: &Rect| {
            a.min_x < b.max_x && b.min_x < a.max_x && a.min_z < b.max_z && b.min_z < a.max_z
        };
        let inside = |inner: &Rect, outer: &Rect| {
            inner.min_x >= outer.min_x
                && inner.max_x <= outer.max_x
                && inner.min_z >= outer.min_z
                && inner.max_z <= outer.max_z
        };
        for (host, cities) in &groups {
            let area = arrangement.hosts.iter().find(|a| a.host == *host).unwrap();
            assert_eq!(area.services, cities.len());
            for (key, _) in cities {
                assert!(inside(&world(*key), &area.rect), "{key:?} outside {host}");
            }
        }
        for (i, a) in arrangement.hosts.iter().enumerate() {
            for b in &arrangement.hosts[i + 1..] {
                assert!(
                    !overlaps(&a.rect, &b.rect),
                    "{} and {} overlap",
                    a.host,
                    b.host
                );
            }
        }
        let keys: Vec<CityKey> = (1..=7).map(CityKey::Session).collect();
        for (i, &a) in keys.iter().enumerate() {
            for &b in &keys[i + 1..] {
                assert!(!overlaps(&world(a), &world(b)), "{a:?} and {b:?} overlap");
            }
        }
        // Five services on one host: a grid (3 columns), not a row.
        let host_1 = &arrangement.hosts[0];
        assert!(host_1.rect.width_wu() < 5.0 * 20.0, "{:?}", host_1.rect);
        // The landscape is not one long row either.
        let width = arrangement
            .hosts
            .iter()
            .map(|a| a.rect.max_x)
            .fold(0.0, f32::max);
        let depth = arrangement
            .hosts
            .iter()
            .map(|a| a.rect.max_z)
            .fold(0.0, f32::max);
        assert!(width < 4.0 * depth, "{width} × {depth}");
    }

    #[test]
    fn unlabelled_cities_stand_in_one_row() {
        let groups: Vec<(String, Vec<(CityKey, Rect)>)> = vec![(
            THIS_MACHINE.into(),
            vec![
                (CityKey::Session(1), rect(10.0, 10.0)),
                (CityKey::Session(2), rect(10.0, 10.0)),
            ],
        )];
        let arrangement = arrange(&groups, false);
        assert!(arrangement.hosts.is_empty());
        assert_eq!(arrangement.origins[0].1, Vec3::ZERO);
        assert_eq!(
            arrangement.origins[1].1,
            Vec3::new(10.0 + CITY_GAP_WU, 0.0, 0.0)
        );
    }
}
