//! Hot spots: each city's tallest buildings that stand out, chosen again when its targets,
//! plan or dimming change, named (`Class.method · 12.5 %`) and placed on screen every frame
//! just above their tops, clear of package names, alert badges and each other; the overlay
//! draws them.

use bevy::prelude::*;

use super::hovered::class_and_method_names;
use super::placement::{breadcrumbs_px, LabelCamera, PlacedLabels, View};
use super::scene::{BadgeRects, HotSpotLabel, LabelKind, SceneLabels};
use super::textures::LabelAssets;
use crate::viewer::camera::PanelCover;
use crate::viewer::city::{Cities, CityKey, HeightMode, STUB_HEIGHT_WU};
use crate::viewer::focus::PackageFocus;
use crate::viewer::hover::Hovered;
use crate::viewer::sessions::Sessions;

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
    let share = mode.value(&stats, crate::viewer::city::AllocSample::default()) * 100.0;
    Some(if share < 10.0 {
        format!("{share:.1} %")
    } else {
        format!("{share:.0} %")
    })
}

/// Chooses each shown city's hot spots again when its targets or plan changed.
pub(super) fn choose_hot_spots(
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

/// True when two screen boxes overlap.
fn overlaps((a_min, a_max): (Vec2, Vec2), (b_min, b_max): (Vec2, Vec2)) -> bool {
    a_min.x < b_max.x && b_min.x < a_max.x && a_min.y < b_max.y && b_min.y < a_max.y
}

/// Places the hot spots' names over their buildings' tops (as the heights animate), clear of
/// package names, alert badges and each other: a name that would cover one moves beside the
/// top or up, up to seven rows, else waits. Class names under a hot spot's name give way.
#[allow(clippy::too_many_arguments)] // a Bevy system: each parameter is one resource or query
pub(super) fn place_hot_spots(
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
