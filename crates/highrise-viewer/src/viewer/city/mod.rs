//! Cities: each session's methods laid out by `highrise-layout` and drawn as districts (flat
//! slabs shaded by nesting depth), blocks (raised bases) and buildings (boxes); the compare
//! view's cities are drawn the same way. Every city lives in [`Cities`] under its [`CityKey`].
//!
//! Districts and blocks are entities sharing one cube mesh and a few materials. A city's
//! buildings are one instanced draw (`instancing`): no entity, transform or material per
//! building, only a flat array of instances in which the heights and colours that changed are
//! rewritten. Building heights follow the snapshot's elevation (0–100 % → 0–max height) with
//! exponential easing, so fluctuations read as motion; colours come from small palette tables.
//!
//! - `palette`: the height and colour modes, colour keys and the [`Palette`];
//! - `model`: [`City`] (plan, slabs, instances, animated state) as data with its methods;
//! - `cities`: the [`Cities`] resource;
//! - `systems`: the per-frame systems, in the stages of [`CitySet`];
//! - `floors`: class floors (a building's classes stacked, by count) as a second draw.
//!
//! Each city's part of a system that reads its session's data runs guarded
//! (`highrise_guard::catch`): a panic there fails that city only ([`City::failed`]: frozen,
//! grey, its session marked crashed "in the viewer"); a session highrise failed on elsewhere
//! gets its city drawn grey ([`City::greyed`]).

mod cities;
mod floors;
mod model;
mod palette;
mod systems;

use bevy::prelude::*;

pub use cities::Cities;
pub use floors::{class_colour, floor_spans, ClassFloors, FloorSpan, FLOOR_CLASSES};
pub use model::{
    place_instance, set_instance_colour, City, CityKey, Glide, EASING_RATE_PER_S, GLIDE_S,
    GROUPED_REFRESH_S, STUB_HEIGHT_WU,
};
pub use palette::{
    class_hue, grey, heat_colour, log_share, relative_full_scale, stats_target, AllocSample,
    AllocScale, ColourKey, ColourMode, HeightFit, HeightMode, HeightScale, Palette, CLASS_COLOURS,
    DIFF_STEPS, GREY_LEVEL, HEAT_STEPS, SQRT_FROM_BUILDINGS, THREAD_STEPS,
};
pub use systems::{
    animate_buildings, arrange_cities, glide_cities, place_methods, set_targets, slab_transform,
    sync_structure, CityBuildings, CityRoot, ViewerPanicHook, CITY_GAP_WU, HIT_TEST_REFRESH_S,
};

use super::compare::ComparePlugin;
use super::sessions::Sessions;

#[derive(Debug)]
pub struct CityPlugin;

/// A windowless app with only the city and compare systems (no rendering): for tests and
/// benchmarks of the viewer's own per-frame work. With `frame`, every update advances time by
/// exactly that much; without, time is real.
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
        app.init_resource::<Cities>()
            .init_resource::<super::landscape::Landscape>()
            .init_resource::<HeightMode>()
            .init_resource::<HeightScale>()
            .init_resource::<ColourMode>()
            .init_resource::<ClassFloors>()
            .init_resource::<super::instancing::LevelOfDetail>()
            .init_resource::<Palette>()
            .init_resource::<ViewerPanicHook>()
            .configure_sets(
                Update,
                (
                    CitySet::Layout,
                    CitySet::Arrange,
                    CitySet::Structure,
                    CitySet::Glide,
                    CitySet::Targets,
                    CitySet::Animate,
                )
                    .chain(),
            )
            .add_systems(
                Update,
                (
                    place_methods.in_set(CitySet::Layout),
                    arrange_cities.in_set(CitySet::Arrange),
                    sync_structure.in_set(CitySet::Structure),
                    glide_cities.in_set(CitySet::Glide),
                    set_targets.in_set(CitySet::Targets),
                    (animate_buildings, floors::sync_floors)
                        .chain()
                        .in_set(CitySet::Animate),
                ),
            );
    }
}

/// The stages of the city systems in `Update`, run in this order every frame. Hover picks
/// before [`CitySet::Layout`]; the camera and the labels read the cities after
/// [`CitySet::Animate`].
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CitySet {
    /// Newly defined methods placed in their sessions' plans; the compare view's shared plan
    /// rebuilt.
    Layout,
    /// The shown cities placed (by host, or in a row: `landscape`), a root spawned per city,
    /// the others hidden.
    Arrange,
    /// District and block slabs and each city's building draw spawned or reshaped.
    Structure,
    /// Districts, blocks and buildings the plan moved glide a step toward their new places.
    Glide,
    /// Target heights and colours from the newest snapshots and the modes (sessions' cities,
    /// then the compare view's).
    Targets,
    /// Heights eased and written with colours into the instances, handed to the draw; the
    /// hit-test bounds refreshed.
    Animate,
}
