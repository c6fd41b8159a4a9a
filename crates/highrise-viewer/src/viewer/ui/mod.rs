//! The egui side: a panel with sessions, modes, the window length, search, top methods, the
//! package tree (live exclusion) and "tidy layout"; and, over the scene, each city's name and
//! the tooltip of what is hovered.
//!
//! - `panel`: the side panel and its sections;
//! - `search`: finding methods by name, and where to fly to show one;
//! - `names`: the names of a building as people read them and as the agent sent them;
//! - `tooltip`: the tooltip's lines for what is hovered (sessions' and compare cities);
//! - `overlay`: the city names and the tooltip drawn over the scene;
//! - `sites`: the allocation-site view (the calling-context tree and its class list);
//! - `predict`: the memory-prediction window (Murphy & Saenko 1998);
//! - `diagram`: the class-diagram window beside it (classes, relations, objects per owner);
//! - `source`: a building's context menu (open in the editor, show the source);
//! - `alerts`: alert badges over buildings and the alert list;
//! - `timeline`: each session's strip of its kept past: pause, scrub, back to live.

mod alerts;
mod diagram;
mod names;
mod overlay;
mod panel;
mod predict;
mod search;
mod sites;
pub mod source;
mod timeline;
mod tooltip;

use bevy::prelude::*;
use bevy_egui::EguiPrimaryContextPass;

pub use names::{
    building_names, layout_building_names, qualified_name_of_class, raw_building_name,
};
pub use panel::{crash_line, dropped_line, replay_line, CRASH_LINE_CHARS};
pub use predict::{predict_window, prediction_of, PredictView, Role};
pub use search::{building_matches, method_focus_point, search, SearchIndex};
pub use sites::{
    class_colour_egui, class_list_ui, sites_window, tree_ui, SiteLabels, SitesAction, SitesCache,
    SitesView,
};
pub use timeline::{ago_label, kept_label};
pub use tooltip::{
    building_detail, focus_hovered, link_lines, tooltip_lines, BuildingDetail, APPROXIMATE_LINE,
};

#[derive(Debug)]
pub struct UiPlugin;

impl Plugin for UiPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SearchBox>()
            .init_resource::<SearchIndex>()
            .init_resource::<SitesView>()
            .init_resource::<PredictView>()
            .init_resource::<source::SourceMenu>()
            .init_resource::<alerts::ViewerAlerts>()
            .init_resource::<crate::viewer::labels::BadgeRects>()
            .add_systems(
                EguiPrimaryContextPass,
                (
                    panel::panel,
                    timeline::timeline,
                    sites::sites,
                    predict::predict_system,
                    source::source_menu,
                    alerts::alerts,
                    overlay::city_labels,
                    overlay::overview_names,
                    overlay::hot_spot_names,
                    overlay::breadcrumbs,
                    overlay::tooltip,
                )
                    .chain(),
            )
            .add_systems(Update, focus_hovered);
    }
}

/// The search box's text.
#[derive(Resource, Default, Debug)]
pub struct SearchBox(pub String);

/// "package.Class.method" (the fully-qualified name users search and read).
pub use highrise_protocol::qualified_name;
