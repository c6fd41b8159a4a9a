//! Finding methods by name, and where to fly to show one.

use bevy::prelude::*;
use highrise_layout::CityLayout;

use super::names::{building_names, raw_building_name};
use crate::viewer::city::{Cities, City};
use crate::viewer::sessions::Sessions;

/// Where to fly to show a method: the top of its building, world coordinates.
pub fn method_focus_point(city: &City, method_id: u32) -> Option<Vec3> {
    let layout = city.layout.as_ref()?;
    let index = layout.building_of(method_id)? as usize;
    let building = &layout.buildings()[index];
    let height = city.heights_wu.get(index).copied().unwrap_or(0.0);
    let centre = building.footprint.center();
    Some(Vec3::new(centre.x, building.base_height_wu + height, centre.z) + city.origin)
}

/// Methods of all cities whose display name (`Board.createOrientation(String, InputStream)`)
/// or name as sent (`Board.createOrientation(Ljava/lang/String;…`) contains `query`
/// (case-insensitive); each with its display name.
pub fn search(
    sessions: &Sessions,
    cities: &Cities,
    query: &str,
    limit: usize,
) -> Vec<(u64, u32, String)> {
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (&session_id, _) in sessions.shown() {
        let Some(city) = cities.session(session_id) else {
            continue;
        };
        let Some(layout) = city.layout.as_ref() else {
            continue;
        };
        for (index, building) in layout.buildings().iter().enumerate() {
            if let Some((name, _, _)) = building_names(city, index as u32) {
                if building_matches(layout, index as u32, &name, &query) {
                    found.push((session_id, building.method_id, name));
                    if found.len() >= limit {
                        return found;
                    }
                }
            }
        }
    }
    found
}

/// Whether a building's display name `name` or its name as sent contains `query` (already
/// lower-case): `createorientation(string` and `ljava/lang/string;` both find
/// `Board.createOrientation(Ljava/lang/String;Ljava/io/InputStream;)[[Z`.
pub fn building_matches(layout: &CityLayout, building: u32, name: &str, query: &str) -> bool {
    name.to_lowercase().contains(query)
        || raw_building_name(layout, building).is_some_and(|raw| raw.to_lowercase().contains(query))
}
