//! The city systems: plans placed, cities lined up, slabs spawned and glided, targets set and
//! buildings eased into their instances.

use bevy::prelude::*;
use bevy::render::view::NoFrustumCulling;
use highrise_layout::Rect;

use super::cities::Cities;
use super::model::{lerp_rect, set_instance_colour, City, CityKey, GLIDE_S, GROUPED_REFRESH_S};
use super::palette::{ColourKey, ColourMode, HeightMode, HeightScale, Palette};
use crate::viewer::compare::Compare;
use crate::viewer::instancing::{BuildingInstances, LevelOfDetail};
use crate::viewer::landscape::{arrange, host_groups, is_labelled, Arrangement, Landscape};
use crate::viewer::sessions::Sessions;

/// Gap between neighbouring cities, world units.
pub const CITY_GAP_WU: f32 = 12.0;
/// While buildings move, the hit-test bounds are refreshed at most this often, seconds.
pub const HIT_TEST_REFRESH_S: f64 = 0.1;

/// Marks a city's root entity (its transform places the city in the world).
#[derive(Component, Debug, Clone, Copy)]
pub struct CityRoot {
    pub city: CityKey,
}

/// The transform of a slab covering `rect` from `base` to `top`.
pub fn slab_transform(rect: &Rect, base_wu: f32, top_wu: f32) -> Transform {
    let centre = rect.center();
    let thickness = (top_wu - base_wu).max(0.01);
    Transform::from_xyz(centre.x, base_wu + thickness / 2.0, centre.z).with_scale(Vec3::new(
        rect.width_wu(),
        thickness,
        rect.depth_wu(),
    ))
}

/// Marks the entity that draws a city's buildings.
#[derive(Component, Debug, Clone, Copy)]
pub struct CityBuildings {
    pub city: CityKey,
}

/// The test-only hook of the viewer's guard: with `HIGHRISE_TEST_PANIC_ON=viewer:NAME`, placing
/// a method named `NAME` panics (inside the guard, failing only its session). Tests may set it.
#[derive(Resource, Debug, Clone, PartialEq, Eq)]
pub struct ViewerPanicHook(pub Option<String>);

impl Default for ViewerPanicHook {
    fn default() -> Self {
        Self(
            highrise_guard::injected_panic()
                .and_then(|name| name.strip_prefix("viewer:"))
                .map(str::to_string),
        )
    }
}

/// Runs one city's part of a system, guarded: a panic there (a bug met on its session's data)
/// fails that city only ([`City::failed`]), which then no longer changes. A failed city is
/// skipped.
pub(super) fn guarded(key: CityKey, city: &mut City, work: impl FnOnce(&mut City)) {
    if city.failed.is_some() {
        return;
    }
    if let Err(message) = highrise_guard::catch(|| work(city)) {
        error!("the viewer failed on city {key:?} (a bug; report this): {message}");
        city.failed = Some(message);
        city.greyed = true;
    }
}

/// Places newly defined methods (incremental insertion: existing buildings never move); a
/// session's city is made the first time it is seen. A city the viewer failed on marks its
/// session failed; a session highrise failed on gets its city greyed.
pub fn place_methods(
    mut sessions: ResMut<Sessions>,
    mut cities: ResMut<Cities>,
    hook: Option<Res<ViewerPanicHook>>,
) {
    let panic_on = hook.as_deref().and_then(|hook| hook.0.as_deref());
    for (&session_id, view) in sessions.by_id.iter_mut() {
        let key = CityKey::Session(session_id);
        let city = cities.entry(key);
        if let Some(crash) = view
            .crash
            .as_ref()
            .filter(|c| c.in_viewer && city.failed.is_none())
        {
            // The viewer failed folding in the session's report: its city stops there too.
            city.failed = Some(crash.message.clone());
        }
        guarded(key, city, |city| {
            if let Some(name) = panic_on {
                if view
                    .pending_methods
                    .iter()
                    .any(|method| method.method == name)
                {
                    panic!(
                        "injected panic ({}=viewer:{name}) placing method {name}",
                        highrise_guard::TEST_PANIC_ENV
                    );
                }
            }
            city.place(&mut view.pending_methods);
        });
        if let Some(message) = &city.failed {
            view.fail_in_viewer(message);
        } else if view.crash.is_some() {
            city.greyed = true;
        }
    }
}

/// Places the shown cities (`landscape::arrange`: by host on labelled plates, or in one row;
/// A then B in the compare view), spawns a root per city, and hides the cities not shown.
pub fn arrange_cities(
    mut commands: Commands,
    sessions: Res<Sessions>,
    compare: Res<Compare>,
    mut cities: ResMut<Cities>,
    mut landscape: ResMut<Landscape>,
    mut roots: Query<(&mut Transform, &mut Visibility), With<CityRoot>>,
) {
    let order = compare.scene_order(&sessions);
    let (groups, labelled) = if compare.is_active() {
        (vec![(String::new(), order)], false)
    } else {
        let groups = host_groups(&sessions, &order);
        let labelled = is_labelled(&sessions, &groups);
        (groups, labelled)
    };
    let with_bounds: Vec<(String, Vec<(CityKey, Rect)>)> = groups
        .into_iter()
        .map(|(host, keys)| {
            let cities = keys
                .into_iter()
                .filter_map(|key| {
                    let layout = cities.get(key)?.layout.as_ref()?;
                    Some((key, layout.bounds()))
                })
                .collect();
            (host, cities)
        })
        .collect();
    let Arrangement { origins, hosts } = arrange(&with_bounds, labelled);
    if landscape.hosts != hosts {
        landscape.hosts = hosts;
    }
    for (key, city) in cities.iter_mut() {
        let placed = origins.iter().find(|(shown, _)| *shown == key).map(|o| o.1);
        city.hidden = placed.is_none();
        let Some(origin) = placed else {
            if let Some(root) = city.root {
                if let Ok((_, mut visibility)) = roots.get_mut(root) {
                    visibility.set_if_neq(Visibility::Hidden);
                }
            }
            continue;
        };
        let root = *city.root.get_or_insert_with(|| {
            commands
                .spawn((
                    CityRoot { city: key },
                    Transform::from_translation(origin),
                    Visibility::default(),
                ))
                .id()
        });
        if let Ok((mut transform, mut visibility)) = roots.get_mut(root) {
            visibility.set_if_neq(Visibility::Inherited);
            if city.origin != origin {
                transform.translation = origin;
            }
        }
        city.origin = origin;
    }
}

/// Spawns entities for new districts and blocks (and, once, the city's building draw), places
/// the new buildings' instances, and refreshes the slabs' shapes (and shades: a re-laid-out
/// plan may renumber its districts); drops slabs the plan no longer has.
pub fn sync_structure(
    mut commands: Commands,
    mut cities: ResMut<Cities>,
    palette: Res<Palette>,
    mut slabs: Query<(&mut Transform, &mut MeshMaterial3d<StandardMaterial>), Without<CityRoot>>,
) {
    for (key, city) in cities.iter_mut() {
        if !city.structure_dirty || city.hidden {
            continue;
        }
        guarded(key, city, |city| {
            let (Some(layout), Some(root)) = (city.layout.as_ref(), city.root) else {
                return;
            };
            if city.instances.is_empty() && city.district_entities.is_empty() {
                // After a tidy or a new compare plan: drop the old children of the root.
                commands.entity(root).despawn_related::<Children>();
            }
            let mut sync = |entities: &mut Vec<Entity>,
                            shown: &mut Vec<(u32, Rect)>,
                            items: &mut dyn Iterator<
                Item = (u32, Rect, f32, f32, Handle<StandardMaterial>),
            >| {
                shown.clear();
                let mut count = 0;
                for (index, (owner, rect, base_wu, top_wu, material)) in items.enumerate() {
                    count = index + 1;
                    shown.push((owner, rect));
                    let transform = slab_transform(&rect, base_wu, top_wu);
                    match entities.get(index) {
                        Some(&entity) => {
                            if let Ok((mut current, mut current_material)) = slabs.get_mut(entity) {
                                *current = transform;
                                if current_material.0 != material {
                                    current_material.0 = material;
                                }
                            }
                        }
                        None => entities.push(
                            commands
                                .spawn((
                                    Mesh3d(palette.cube.clone()),
                                    MeshMaterial3d(material),
                                    transform,
                                    ChildOf(root),
                                ))
                                .id(),
                        ),
                    }
                }
                for entity in entities.drain(count.min(entities.len())..) {
                    commands.entity(entity).despawn();
                }
            };
            sync(
                &mut city.district_entities,
                &mut city.shown_districts,
                &mut layout.districts().iter().map(|d| {
                    (
                        d.package,
                        d.rect,
                        d.base_height_wu,
                        d.top_height_wu,
                        palette.district_material(d.depth),
                    )
                }),
            );
            sync(
                &mut city.block_entities,
                &mut city.shown_blocks,
                &mut layout.blocks().iter().map(|b| {
                    // A focused package's blocks stand out: the others' lots go dark.
                    let dimmed = layout
                        .classes()
                        .get(b.class as usize)
                        .and_then(|c| city.dimmed_packages.get(c.package as usize))
                        .copied()
                        .unwrap_or(false);
                    (
                        b.class,
                        b.rect,
                        b.base_height_wu,
                        b.top_height_wu,
                        if dimmed {
                            palette.block_dimmed.clone()
                        } else {
                            palette.block.clone()
                        },
                    )
                }),
            );
            let existing = city.instances.len();
            city.place_instances(existing, &palette);
            city.refresh_lod_keys();
            if city.instances_entity.is_none() {
                city.instances_entity = Some(
                    spawn_instanced_draw(&mut commands, &palette, root)
                        .insert(CityBuildings { city: key })
                        .id(),
                );
            }
            if city.grouped_entity.is_none() {
                city.grouped_entity =
                    Some(spawn_instanced_draw(&mut commands, &palette, root).id());
            }
            city.structure_dirty = false;
            city.heights_dirty = true;
        });
    }
}

/// Spawns an instanced draw of the shared cube under a city's `root` (its buildings, its class
/// floors), with no instances yet.
pub(super) fn spawn_instanced_draw<'a>(
    commands: &'a mut Commands,
    palette: &Palette,
    root: Entity,
) -> EntityCommands<'a> {
    commands.spawn((
        Mesh3d(palette.cube.clone()),
        BuildingInstances::default(),
        // The instances carry their own world positions: the cube's bounds say nothing about
        // where they stand.
        NoFrustumCulling,
        // Every city's draw uses the same cube: without this, Bevy merges adjacent cities'
        // draws into one batch and draws only the first city's instance buffer (cities
        // vanished with three programs).
        bevy::render::batching::NoAutomaticBatching,
        Transform::default(),
        ChildOf(root),
    ))
}

/// Moves gliding districts, blocks and buildings a step toward their plan's places; on the
/// last step they stand exactly there.
pub fn glide_cities(
    time: Res<Time>,
    mut cities: ResMut<Cities>,
    mut slabs: Query<&mut Transform, Without<CityRoot>>,
) {
    let now_s = time.elapsed_secs_f64();
    for (_, city) in cities.iter_mut() {
        let Some(glide) = city.glide.as_mut() else {
            continue;
        };
        if glide.started_s.is_some() {
            glide.just_started = false;
        }
        let Some(layout) = city.layout.as_ref() else {
            continue;
        };
        if city.hidden || city.structure_dirty || city.failed.is_some() {
            continue; // not drawn, or its entities are made this frame: start next frame
        }
        let started_s = *glide.started_s.get_or_insert(now_s);
        let t = glide.eased(now_s);
        let origin = city.origin;
        let instances = std::sync::Arc::make_mut(&mut city.instances);
        for (index, building) in layout.buildings().iter().enumerate() {
            let Some(instance) = instances.get_mut(index) else {
                break;
            };
            let centre = building.footprint.center();
            let to = Vec2::new(centre.x, centre.z);
            let from = glide.from_buildings.get(index).copied().unwrap_or(to);
            // Exactly on the plot once there (and for buildings that do not move at all).
            let at = if t >= 1.0 || from.distance_squared(to) < 1e-6 {
                to
            } else {
                from.lerp(to, t)
            };
            instance.centre_x = at.x + origin.x;
            instance.base_y = building.base_height_wu;
            instance.centre_z = at.y + origin.z;
        }
        city.instances_dirty = true;
        let mut slide = |entities: &[Entity],
                         shown: &mut [(u32, Rect)],
                         from: &[Option<Rect>],
                         plan: &mut dyn Iterator<Item = (Rect, f32, f32)>| {
            for (index, (to, base_wu, top_wu)) in plan.enumerate() {
                let rect = match from.get(index).copied().flatten() {
                    Some(from) => lerp_rect(&from, &to, t),
                    None => to,
                };
                if let Some(entry) = shown.get_mut(index) {
                    entry.1 = rect;
                }
                if let Some(mut transform) =
                    entities.get(index).and_then(|&e| slabs.get_mut(e).ok())
                {
                    *transform = slab_transform(&rect, base_wu, top_wu);
                }
            }
        };
        slide(
            &city.district_entities,
            &mut city.shown_districts,
            &glide.from_districts,
            &mut layout
                .districts()
                .iter()
                .map(|d| (d.rect, d.base_height_wu, d.top_height_wu)),
        );
        slide(
            &city.block_entities,
            &mut city.shown_blocks,
            &glide.from_blocks,
            &mut layout
                .blocks()
                .iter()
                .map(|b| (b.rect, b.base_height_wu, b.top_height_wu)),
        );
        if now_s - started_s >= f64::from(GLIDE_S) {
            city.glide = None;
        }
    }
}

/// Recomputes targets when a new snapshot arrived or the modes changed.
pub fn set_targets(
    sessions: Res<Sessions>,
    mut cities: ResMut<Cities>,
    height_mode: Res<HeightMode>,
    height_scale: Res<HeightScale>,
    colour_mode: Res<ColourMode>,
) {
    for (&session_id, view) in &sessions.by_id {
        let Some(snapshot) = view.shown_snapshot().cloned() else {
            continue;
        };
        let key = CityKey::Session(session_id);
        let Some(city) = cities.get_mut(key) else {
            continue;
        };
        let wanted = Some((snapshot.now_ns, *height_mode, *colour_mode));
        if city.height_scale != *height_scale {
            city.height_scale = *height_scale;
            city.targets_from = None;
        }
        if city.targets_from != wanted {
            guarded(key, city, |city| {
                city.set_targets_from(&snapshot, *height_mode, *colour_mode);
            });
        }
    }
}

/// Eases heights, writes the heights and colours that changed into the city's instances, hands
/// them to the draw when anything changed, and refreshes the hit-test bounds.
pub fn animate_buildings(
    time: Res<Time>,
    mut cities: ResMut<Cities>,
    palette: Res<Palette>,
    hovered: Option<Res<crate::viewer::hover::Hovered>>,
    detail: Option<Res<LevelOfDetail>>,
    mut draws: Query<&mut BuildingInstances>,
) {
    let dt_s = time.delta_secs().min(0.1);
    let all_detailed = detail.is_some_and(|detail| *detail == LevelOfDetail::Off);
    let highlighted = hovered.as_deref().and_then(|h| h.building());
    for (key, city) in cities.iter_mut() {
        if city.hidden {
            continue;
        }
        if city.failed.is_some() {
            city.follow_failed(&palette);
            hand_to_draw(city, &mut draws, None, time.elapsed_secs_f64());
            continue;
        }
        let placed = city.layout.as_ref().map(|layout| layout.buildings().len());
        if placed != Some(city.instances.len()) {
            continue; // no city yet, or its buildings are being placed this frame
        }
        guarded(key, city, |city| {
            if city.ease(dt_s) {
                city.instances_dirty = true;
            }
            if city.instances_origin != city.origin {
                // The city moved (the scene was rearranged): place every building again.
                city.place_instances(0, &palette);
                city.refresh_lod_keys();
            }
            if city.all_detailed != all_detailed {
                city.all_detailed = all_detailed;
                city.refresh_lod_keys();
            }
            city.recolour_greyed(&palette);
            let Some(layout) = city.layout.as_mut() else {
                return;
            };
            let highlight = highlighted
                .filter(|(city_key, _)| *city_key == key)
                .map(|(_, building)| building as usize)
                .filter(|&index| index < city.instances.len());
            if city.highlighted != highlight {
                city.recolour.extend(city.highlighted);
                city.recolour.extend(highlight);
                city.highlighted = highlight;
            }
            let mut recolour = std::mem::take(&mut city.recolour);
            let count = city.colours.len();
            if recolour.len() > count / 8 {
                // Most colours may have changed: one pass over all of them, in order, beats
                // sorting and deduplicating a long list.
                recolour.clear();
                recolour.extend(0..count);
            } else if recolour.len() > 256 {
                // Many: a bit per building puts them in order, once each, cheaper than a sort.
                let bits = &mut city.recolour_bits;
                bits.clear();
                bits.resize(count.div_ceil(64), 0);
                for &index in &recolour {
                    bits[index / 64] |= 1 << (index % 64);
                }
                recolour.clear();
                for (word_index, &word) in bits.iter().enumerate() {
                    let mut word = word;
                    while word != 0 {
                        recolour.push(word_index * 64 + word.trailing_zeros() as usize);
                        word &= word - 1;
                    }
                }
            } else {
                recolour.sort_unstable();
                recolour.dedup();
            }
            // In index order, each index once (the heights are already in the instances).
            if !recolour.is_empty() {
                let instances = std::sync::Arc::make_mut(&mut city.instances);
                for &index in &recolour {
                    let wanted = if Some(index) == city.highlighted {
                        ColourKey::Highlight
                    } else {
                        city.target_colours[index]
                    };
                    if city.colours[index] != wanted {
                        city.colours[index] = wanted;
                        instances[index] = set_instance_colour(
                            instances[index],
                            palette.building_rgba(
                                wanted,
                                super::model::is_grey(city.greyed, &city.dimmed, index),
                            ),
                        );
                        city.instances_dirty = true;
                    }
                }
            }
            recolour.clear();
            city.recolour = recolour;
            // The hit-test bounds follow the heights at most HIT_TEST_REFRESH_S behind: refitting
            // the whole hierarchy every frame while everything moves costs more than it is worth.
            let now_s = time.elapsed_secs_f64();
            let settled = city.animating.is_empty();
            if city.heights_dirty
                && (settled || now_s - city.hit_test_refreshed_s >= HIT_TEST_REFRESH_S)
            {
                if let Err(error) = layout.set_heights(&city.heights_wu) {
                    warn!("hit-test heights out of date: {error}");
                }
                city.heights_dirty = false;
                city.hit_test_refreshed_s = now_s;
            }
            hand_to_draw(city, &mut draws, Some(&palette), now_s);
        });
    }
}

/// Hands a city's instances to its draw if they changed, and its blocks' grouped boxes as
/// they follow from them: rebuilt in `palette`'s colours at most every [`GROUPED_REFRESH_S`]
/// while heights move, and once they settle (`None`: a failed city, whose boxes are only
/// handed over as they are).
fn hand_to_draw(
    city: &mut City,
    draws: &mut Query<'_, '_, &mut BuildingInstances>,
    palette: Option<&Palette>,
    now_s: f64,
) {
    if city.instances_dirty {
        if let Some(mut draw) = city.instances_entity.and_then(|e| draws.get_mut(e).ok()) {
            draw.show(&city.instances);
            city.instances_dirty = false;
            city.instances_generation += 1;
            city.grouped_stale = true;
        }
    }
    let due = city.animating.is_empty() || now_s - city.grouped_at_s >= GROUPED_REFRESH_S;
    if city.grouped_stale && (due || palette.is_none()) {
        if let Some(mut draw) = city.grouped_entity.and_then(|e| draws.get_mut(e).ok()) {
            if let Some(palette) = palette {
                city.place_grouped_boxes(palette);
            }
            draw.show(&city.grouped_boxes);
            city.grouped_stale = false;
            city.grouped_at_s = now_s;
        }
    }
}
