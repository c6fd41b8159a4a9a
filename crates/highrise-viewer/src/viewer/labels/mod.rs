//! Names in the scene: each package's name lies flat along its district's front edge (sized
//! with the district: on the front margin when it fits there, else just above the district's
//! highest slab), each class's name in the street in front of its block once the camera is close
//! enough to read it, and the hovered building's name floats above it, facing the camera.
//!
//! At the overview of a big city, where a package's name lying on its district would stand
//! under [`OVERVIEW_BELOW_PX`] (twice that for a top-level package), it stands upright on screen instead ([`SceneLabels::overview`],
//! drawn by the overlay at [`OVERVIEW_TEXT_PX`]) at its district's front-left corner or middle,
//! where it fits; a package that only leads to one sub-package leaves its name to that one's
//! path.
//!
//! Level of detail: a label is shown only when its text would stand at least
//! [`MIN_TEXT_PX`] tall on screen, it is in view, and it does not cover a label that matters
//! more (packages before classes, larger before smaller); at most [`MAX_LABELS`] at once. The
//! candidates are gathered once per change of a city's plan; choosing among them runs only when
//! the camera or the scene moved, at most every [`LOD_INTERVAL_S`]. Each distinct text is
//! rasterised once (ab_glyph, the panel's Ubuntu font) into a small texture on an unlit,
//! alpha-blended quad; entities are pooled.
//!
//! Hot spots: each city's [`HOT_SPOT_NAMES`] tallest buildings (those that stand out) carry
//! their names, placed on screen every frame just above their tops, clear of the package
//! names, the alert badges ([`BadgeRects`]) and each other (a class name under one gives way);
//! the panel's overlay draws them ([`SceneLabels::hot_spots`]).
//!
//! The parts, each importing only the ones listed before it:
//! - `scene`: [`SceneLabels`] and the values it holds (what a label names, candidates,
//!   shown labels, hot spot choices, cached textures);
//! - `textures`: [`LabelAssets`] (the font and the quads), rasterising a text, and the
//!   materials cached per text;
//! - `candidates`: what could be named in each city, gathered once per change of its plan;
//! - `placement`: the camera as labels see it, the level of detail choosing and placing the
//!   package and class names, and the overview's upright names;
//! - `hovered`: the hovered building's floating name;
//! - `hot_spots`: which buildings are hot spots, their names and where they stand on screen.

mod candidates;
mod hot_spots;
mod hovered;
mod placement;
mod scene;
mod textures;

use bevy::prelude::*;

use super::city::CitySet;

pub use candidates::{OVERVIEW_PAD_PX, OVERVIEW_TEXT_PX};
pub use hot_spots::{
    hot_spot_buildings, HOT_SPOT_MIN_SHARE, HOT_SPOT_NAMES, HOT_SPOT_PAD_PX, HOT_SPOT_TEXT_PX,
};
pub use placement::{
    city_name_anchor, BREADCRUMBS_PX, CITY_NAME_PX, LOD_INTERVAL_S, MAX_LABELS, MIN_TEXT_PX,
    OVERVIEW_BELOW_PX,
};
pub use scene::{BadgeRects, HotSpotLabel, LabelKind, SceneLabels, ShownLabel};
pub use textures::LabelAssets;

#[derive(Debug)]
pub struct LabelsPlugin;

impl Plugin for LabelsPlugin {
    fn build(&self, app: &mut App) {
        if !app.world().contains_resource::<Assets<Image>>() {
            app.init_asset::<Image>();
        }
        app.init_resource::<SceneLabels>()
            .init_resource::<LabelAssets>()
            .init_resource::<BadgeRects>()
            .add_systems(
                Update,
                (
                    candidates::gather_candidates,
                    placement::choose_labels,
                    hovered::hovered_label,
                    hot_spots::choose_hot_spots,
                    hot_spots::place_hot_spots,
                )
                    .chain()
                    .after(CitySet::Animate),
            );
    }
}
