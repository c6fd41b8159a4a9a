//! Class floors: each building of a session's city stacked into floors, one per class its
//! method's own frames created (since the session started), floor thickness by instance count,
//! in one stable colour per class name — the allocation-site paper's inner boxes, in 3D. Drawn
//! as a second instanced draw per city over the buildings (slightly wider, so they cover the
//! building), following the animated heights; the hovered building is left bare so its
//! highlight shows. Only sessions' own cities (not the compare view's) get floors.

use std::sync::Arc;

use bevy::prelude::*;
use highrise_aggregate::Snapshot;

use super::model::CityKey;
use super::palette::{ColourKey, Palette, CLASS_COLOURS};
use super::Cities;
use crate::viewer::instancing::BuildingInstances;
use crate::viewer::sessions::{Report, Sessions};

/// Classes drawn as their own floor per building; the rest share one grey floor on top.
pub const FLOOR_CLASSES: usize = 5;
/// How much wider than its building a floor is (so floors cover the building's faces).
const FLOOR_WIDEN: f32 = 1.06;

/// Whether buildings show class floors (panel checkbox, `--class-floors`).
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClassFloors(pub bool);

/// One floor: a share of a building's height, in a class colour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloorSpan {
    /// The building (layout order).
    pub building: u32,
    /// Where the floor starts, as a fraction of the building's height from its base.
    pub from: f32,
    /// Its thickness, as a fraction of the building's height.
    pub share: f32,
    pub colour: ColourKey,
}

/// A city's floors: the spans, and their instances as last drawn.
#[derive(Debug, Default)]
pub struct CityFloors {
    pub spans: Vec<FloorSpan>,
    /// (snapshot time, plan generation) the spans were computed from, and when (app time, s).
    spans_from: Option<(u64, u64)>,
    spans_at_s: f64,
    /// (building instances generation, highlighted building) the instances follow.
    instances_from: Option<(u64, Option<usize>)>,
    pub instances: Arc<Vec<crate::viewer::instancing::BuildingInstance>>,
    pub entity: Option<Entity>,
}

/// The colour of a class, the same in every session and run: its display name hashed (FNV-1a)
/// into the class palette.
pub fn class_colour(display_name: &str) -> ColourKey {
    let hash = display_name
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
    ColourKey::Class((hash % CLASS_COLOURS as u64) as u8)
}

/// Class id → its colour in a session (classes it never defined wear the stub grey).
fn class_colours(report: &Report) -> impl Fn(u32) -> ColourKey {
    let colours: std::collections::HashMap<u32, ColourKey> = report
        .classes()
        .map(|class| (class.id, class_colour(&class.display_name())))
        .collect();
    move |class_id| colours.get(&class_id).copied().unwrap_or(ColourKey::Stub)
}

/// The floors of every building whose method created objects: per method, its classes by
/// count (at most [`FLOOR_CLASSES`], then one "other classes" floor), bottom to top from the
/// most created. `building_of` maps a method id to its building.
pub fn floor_spans(
    snapshot: &Snapshot,
    colour_of: impl Fn(u32) -> ColourKey,
    building_of: impl Fn(u32) -> Option<u32>,
) -> Vec<FloorSpan> {
    let memory = &snapshot.memory;
    let mut spans = Vec::new();
    let mut classes = Vec::new();
    for entries in memory
        .method_classes
        .chunk_by(|a, b| a.method_id == b.method_id)
    {
        let Some(building) = building_of(entries[0].method_id) else {
            continue;
        };
        classes.clear();
        classes.extend(
            entries
                .iter()
                .filter(|entry| entry.amount.count > 0)
                .map(|entry| (entry.amount.count, entry.class_id)),
        );
        let total: u64 = classes.iter().map(|&(count, _)| count).sum();
        if total == 0 {
            continue;
        }
        // Most created first; ties by class id, so the order is stable.
        classes.sort_unstable_by_key(|&(count, class_id)| (std::cmp::Reverse(count), class_id));
        let mut from = 0.0f32;
        for (index, &(count, class_id)) in classes.iter().enumerate() {
            let (count, colour) = if index < FLOOR_CLASSES || classes.len() == FLOOR_CLASSES + 1 {
                (count, colour_of(class_id))
            } else {
                let rest: u64 = classes[index..].iter().map(|&(count, _)| count).sum();
                (rest, ColourKey::Stub)
            };
            let share = count as f32 / total as f32;
            spans.push(FloorSpan {
                building,
                from,
                share,
                colour,
            });
            from += share;
            if colour == ColourKey::Stub {
                break;
            }
        }
    }
    spans
}

/// Floors follow new class counts at most this often, seconds (their shares move slowly:
/// the counts are cumulative).
const SPANS_REFRESH_S: f64 = 0.25;

/// Takes a city's floors down (off, hidden, or its city failed), once.
fn clear_floors(floors: &mut CityFloors, draws: &mut Query<&mut BuildingInstances>) {
    if floors.spans.is_empty() && floors.instances.is_empty() {
        return;
    }
    floors.spans.clear();
    floors.spans_from = None;
    floors.instances_from = None;
    floors.instances = Arc::default();
    if let Some(mut draw) = floors.entity.and_then(|e| draws.get_mut(e).ok()) {
        draw.show(&floors.instances);
    }
}

/// Keeps each session city's floors in step with its snapshot, plan and animated heights
/// (guarded per city, like the other city systems).
pub fn sync_floors(
    time: Res<Time>,
    mut commands: Commands,
    sessions: Res<Sessions>,
    mut cities: ResMut<Cities>,
    floors_on: Res<ClassFloors>,
    palette: Res<Palette>,
    mut draws: Query<&mut BuildingInstances>,
) {
    for (key, city) in cities.iter_mut() {
        let CityKey::Session(session_id) = key else {
            continue;
        };
        let (Some(root), Some(view)) = (city.root, sessions.by_id.get(&session_id)) else {
            continue;
        };
        if city.failed.is_some() {
            // A city the viewer failed on no longer follows its snapshot: its floors go.
            clear_floors(&mut city.floors, &mut draws);
            continue;
        }
        super::systems::guarded(key, city, |city| {
            // Floors stay live: the timeline keeps no allocations.
            let snapshot = view.report.sink.clone();
            let wanted_spans = snapshot
                .as_ref()
                .filter(|_| floors_on.0 && !city.hidden)
                .map(|s| (s.now_ns, city.plan_generation()));
            // Lent out while the city itself is read.
            let mut taken = std::mem::take(&mut city.floors);
            let floors = &mut taken;
            'sync: {
                if wanted_spans.is_none() {
                    clear_floors(floors, &mut draws);
                    break 'sync;
                }
                let now_s = time.elapsed_secs_f64();
                let plan_moved =
                    floors.spans_from.map(|(_, plan)| plan) != wanted_spans.map(|(_, plan)| plan);
                let mut changed = false;
                if floors.spans_from != wanted_spans
                    && (plan_moved || now_s - floors.spans_at_s >= SPANS_REFRESH_S)
                {
                    if let Some(snapshot) = snapshot.as_ref() {
                        floors.spans = floor_spans(
                            snapshot,
                            class_colours(&view.report),
                            city.building_of_method(),
                        );
                    }
                    floors.spans_from = wanted_spans;
                    floors.spans_at_s = now_s;
                    changed = true;
                }
                let wanted_instances = Some((city.instances_generation, city.highlighted));
                if changed || floors.instances_from != wanted_instances {
                    let buildings = &city.instances;
                    let instances = Arc::make_mut(&mut floors.instances);
                    instances.clear();
                    for span in &floors.spans {
                        let index = span.building as usize;
                        let Some(building) = buildings.get(index) else {
                            continue;
                        };
                        if Some(index) == city.highlighted {
                            continue;
                        }
                        // A hair taller than the building, so no top face is shared with it.
                        let height = building.height + 0.02;
                        let mut floor = *building;
                        floor.base_y = building.base_y + height * span.from;
                        floor.height = height * span.share;
                        floor.width = building.width * FLOOR_WIDEN;
                        floor.depth = building.depth * FLOOR_WIDEN;
                        floor.rgba = palette.building_rgba(
                            span.colour,
                            super::model::is_grey(city.greyed, &city.dimmed, index),
                        );
                        instances.push(floor);
                    }
                    floors.instances_from = wanted_instances;
                    let spawned = floors.entity.is_none();
                    let entity = *floors.entity.get_or_insert_with(|| {
                        super::systems::spawn_instanced_draw(&mut commands, &palette, root).id()
                    });
                    if let Ok(mut draw) = draws.get_mut(entity) {
                        draw.show(&floors.instances);
                    } else {
                        // Spawned this frame: hand the instances over next frame. Gone with its
                        // city's old root (a new plan or tidy): spawn another.
                        if !spawned {
                            floors.entity = None;
                        }
                        floors.instances_from = None;
                    }
                }
            }
            city.floors = taken;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use highrise_aggregate::{Amount, MemorySnapshot, MethodClassAmount};

    fn made(method_id: u32, class_id: u32, count: u64) -> MethodClassAmount {
        MethodClassAmount {
            method_id,
            class_id,
            amount: Amount {
                count,
                bytes: count * 16,
                ..Amount::default()
            },
        }
    }

    /// Floors go bottom-up from the most created class, shares by count, at most
    /// FLOOR_CLASSES of them and then one grey floor for the rest; methods without a building
    /// or without instances get none.
    #[test]
    fn floors_stack_classes_by_count() {
        let mut method_classes = vec![made(1, 10, 30), made(1, 11, 10), made(2, 12, 0)];
        method_classes.extend((0..8).map(|class| made(3, 20 + class, 1 + u64::from(class))));
        method_classes.push(made(4, 10, 5));
        let snapshot = Snapshot {
            memory: Arc::new(MemorySnapshot {
                method_classes,
                records: 1,
                ..MemorySnapshot::default()
            }),
            ..Snapshot::default()
        };
        let colour_of = |class_id: u32| ColourKey::Class(class_id as u8);
        // Method 4 has no building.
        let building_of = |method_id: u32| (method_id < 4).then_some(method_id * 100);
        let spans = floor_spans(&snapshot, colour_of, building_of);
        let of = |building: u32| -> Vec<(f32, f32, ColourKey)> {
            spans
                .iter()
                .filter(|s| s.building == building)
                .map(|s| (s.from, s.share, s.colour))
                .collect()
        };
        assert_eq!(
            of(100),
            vec![
                (0.0, 0.75, ColourKey::Class(10)),
                (0.75, 0.25, ColourKey::Class(11))
            ]
        );
        assert!(of(200).is_empty());
        let third = of(300);
        assert_eq!(third.len(), FLOOR_CLASSES + 1);
        // 36 instances: 8, 7, 6, 5, 4 each their floor, then 3 + 2 + 1 in one grey floor.
        assert_eq!(third[0].2, ColourKey::Class(27));
        assert!((third[0].1 - 8.0 / 36.0).abs() < 1e-6);
        assert_eq!(third[FLOOR_CLASSES].2, ColourKey::Stub);
        assert!((third[FLOOR_CLASSES].1 - 6.0 / 36.0).abs() < 1e-6);
        let top = third[FLOOR_CLASSES].0 + third[FLOOR_CLASSES].1;
        assert!((top - 1.0).abs() < 1e-5, "{top}");
        assert!(spans.iter().all(|s| s.building != 400));
    }

    #[test]
    fn a_class_keeps_its_colour_across_sessions() {
        assert_eq!(
            class_colour("shapes.factory.Circle"),
            class_colour("shapes.factory.Circle")
        );
        let distinct: std::collections::BTreeSet<_> = [
            "shapes.factory.Circle",
            "shapes.factory.Rectangle",
            "shapes.canvas.Canvas",
            "java.lang.String",
            "int[]",
        ]
        .iter()
        .map(|name| format!("{:?}", class_colour(name)))
        .collect();
        assert!(distinct.len() >= 4, "{distinct:?}");
    }
}
