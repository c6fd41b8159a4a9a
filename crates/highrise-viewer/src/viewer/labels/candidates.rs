//! What could be named in each city: every package's name along its district's front edge
//! (and, for the overview, where it may stand upright on screen) and every class's name in
//! the street before its block, gathered again only when the city's plan changed.

use bevy::prelude::*;

use super::scene::{Candidate, LabelKind, OverviewPlace, SceneLabels};
use super::textures::LabelAssets;
use crate::viewer::city::{Cities, City};

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
/// Padding around a package's name on screen, pixels.
pub const OVERVIEW_PAD_PX: f32 = 2.0;
/// Text height of a class name, world units (it lies in the one-plot street).
const CLASS_TEXT_WU: f32 = 0.6;

/// A package's name as its district shows it: the full path when it fits, else its own name.
pub(super) fn package_texts(path: &str) -> [&str; 2] {
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
pub(super) fn gather_candidates(
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
