//! Cities: each session's methods laid out by `highrise-layout` and drawn as districts (flat
//! slabs shaded by nesting depth), blocks (raised bases) and buildings (boxes).
//!
//! Building heights follow the snapshot's elevation (0–100 % → 0–max height) with exponential
//! easing, so fluctuations read as motion; colours come from a small shared palette (every
//! building uses one of a few dozen materials), and only buildings whose height or colour
//! changed are touched each frame.

mod model;
mod palette;
mod systems;

use bevy::prelude::*;

pub use model::{
    place_instance, set_instance_colour, City, CityKey, Glide, EASING_RATE_PER_S, GLIDE_S,
    STUB_HEIGHT_WU,
};
pub use palette::{
    heat_colour, stats_target, ColourKey, ColourMode, HeightMode, Palette, CLASS_COLOURS,
    DIFF_STEPS, HEAT_STEPS, THREAD_STEPS,
};
pub use systems::{
    animate_buildings, arrange_cities, glide_cities, place_methods, set_targets, slab_transform,
    sync_structure, CityBuildings, CityRoot, MovedScratch, CITY_GAP_WU, HIT_TEST_REFRESH_S,
};

use super::compare::ComparePlugin;
use super::sessions::Sessions;

#[derive(Debug)]
pub struct CityPlugin;

/// A windowless app with only the city and compare systems (no rendering): for tests and benchmarks of the
/// viewer's own per-frame work. With `frame`, every update advances time by exactly that much;
/// without, time is real.
pub fn headless_city_app(frame: Option<std::time::Duration>) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default()))
        .init_asset::<Mesh>()
        .init_asset::<StandardMaterial>()
        .init_resource::<Sessions>()
        .init_resource::<super::hover::Hovered>()
        .add_plugins((CityPlugin, ComparePlugin));
    if let Some(frame) = frame {
        app.insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(frame));
    }
    app
}

impl Plugin for CityPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<HeightMode>()
            .init_resource::<ColourMode>()
            .init_resource::<Palette>()
            .init_resource::<MovedScratch>()
            .add_systems(
                Update,
                (
                    place_methods,
                    arrange_cities,
                    sync_structure,
                    glide_cities,
                    set_targets,
                    animate_buildings,
                )
                    .chain()
                    .in_set(CitySet),
            );
    }
}

/// The city systems, in order; hover and camera run after them.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub struct CitySet;
