//! # highrise-layout
//!
//! The city plan of highrise's 3D code-city: **packages are districts, classes are blocks,
//! methods are buildings** (Ogami et al., "High-Rising Cities", 2017, §III.B.1). Pure logic: no
//! engine, no I/O; glam types only.
//!
//! ## Where to start
//!
//! - [`CityLayout::full`] lays a set of [`MethodSpec`]s out from scratch in the paper's order:
//!   every method a building on a uniform 1 x 1 plot; a class's methods together on one block,
//!   alphabetical; classes and sub-packages inside their package's district, most methods at
//!   the origin corner (min X, min Z), ties by name; streets between blocks and districts;
//!   near-square districts, each sub-district in whichever of its shapes fits where it lands
//!   (`pack.rs`), so districts of different sizes tile their parent. The result is a pure
//!   function of the set of methods.
//! - [`CityLayout::insert`] adds a method defined later, in place where it can (free plots,
//!   then growing the block, then growing districts, then annexes). The city never gets larger
//!   than 1.3x the footprint of a fresh [`CityLayout::full`] of the same methods, whatever the
//!   arrival order: an insert that would break that re-lays the city out, keeping each
//!   district's children and each block's buildings in their previous order (new ones
//!   appended) and every building, class and package index. [`InsertOutcome::relaid_out`] and
//!   [`CityLayout::generation`] tell a consumer when existing rectangles changed;
//!   [`CityLayout::tidy`] restores the paper's ordering on request (never needed for size).
//!   Districts grow into the free space beside them (after a full layout, a re-layout, or an
//!   insert that makes a district) and a grown root is trimmed to its contents, so districts
//!   cover the city's plate rather than leaving bare ground between shelves.
//! - [`CityLayout::districts`], [`CityLayout::blocks`], [`CityLayout::buildings`] are what the
//!   viewer draws: plain [`Rect`]s on the ground plane (X, Z; Y up; 1 plot = 1 world unit) with
//!   depths and base heights.
//! - [`CityLayout::set_heights`] + [`CityLayout::hit_test`] answer "what is under the cursor"
//!   through a bounding-volume hierarchy, without scanning all buildings.
//! - [`aligned_pair`] and [`independent_pair`] lay two versions out for side-by-side
//!   comparison; [`measure_drift`] and [`area_overhead`] measure stability.
//! - [`look`]: how a city looks (heights from shares, the heat ramp, hot-spot names), one
//!   definition for the desktop viewer and the web page.
//! - [`layered`] places a small directed graph in rows (the class diagram's 2D view).
//!
//! ```
//! use highrise_layout::{CityLayout, MethodSpec};
//! use glam::Vec3;
//!
//! let methods = vec![
//!     MethodSpec::new(1, "main.game", "Board", "clear"),
//!     MethodSpec::new(2, "main.game", "Board", "drop"),
//!     MethodSpec::new(3, "main", "Main", "main"),
//! ];
//! let mut city = CityLayout::full(&methods).unwrap();
//! assert_eq!(city.buildings().len(), 3);
//!
//! // A method defined later lands in place; had existing rectangles changed (a grown block,
//! // a re-layout), `relaid_out` would say so and the generation would go up.
//! let outcome = city.insert(&MethodSpec::new(4, "main.game", "Board", "rotate")).unwrap();
//! assert_eq!(city.generation(), u64::from(outcome.relaid_out));
//!
//! // Hover: a ray straight down onto the first building.
//! let target = city.buildings()[0].plot.center();
//! let hit = city.hit_test(target + Vec3::Y * 50.0, -Vec3::Y).unwrap();
//! assert!(matches!(hit.target, highrise_layout::HitTarget::Building { .. }));
//! ```

mod bytes;
mod full_layout;
mod fxhash;
mod geom;
mod graph;
mod hit;
mod idmap;
mod insert;
pub mod look;
mod pack;
mod pairs;
mod plan;
mod relayout;
mod spec;
mod stability;
pub mod synthetic;

pub use geom::Rect;
pub use graph::layered;
pub use hit::{Hit, HitTarget};
pub use insert::{InsertOutcome, Placement};
pub use pairs::{
    aligned_pair, aligned_pair_with_config, independent_pair, independent_pair_with_config,
    AlignedBuilding, AlignedPair, Change, IndependentPair,
};
pub use plan::{Block, Building, CityLayout, Class, District, Package};
pub use spec::{LayoutConfig, LayoutError, MethodSpec};
pub use stability::{area_overhead, measure_drift, Drift};
