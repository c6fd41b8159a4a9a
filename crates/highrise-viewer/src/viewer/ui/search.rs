//! Finding methods by name (substring, then fuzzy), and where to fly to show one.

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

/// One method as search sees it.
#[derive(Debug, Clone)]
struct Entry {
    session_id: u64,
    method_id: u32,
    /// Display name (`main.game.Board.createOrientation(String, InputStream)`).
    name: String,
    /// The name as sent (`main.game.Board.createOrientation(Ljava/lang/String;…`).
    raw: String,
    /// Both, lower-case, for the substring test.
    lower: String,
}

/// The methods of the shown cities, gathered once per plan (not per frame) and ranked per
/// query: the panel's search. A city of 200k methods takes one pass to gather and one to rank.
#[derive(Resource, Debug, Default)]
pub struct SearchIndex {
    /// (session, plan generation) per shown city the entries were gathered from.
    built_for: Vec<(u64, u64)>,
    entries: Vec<Entry>,
    query: String,
    limit: usize,
    found: Vec<(u64, u32, String)>,
}

impl SearchIndex {
    /// [`search`]'s answer, gathered again only when a shown city's plan changed and ranked
    /// again only when that or the query changed.
    pub fn find(
        &mut self,
        sessions: &Sessions,
        cities: &Cities,
        query: &str,
        limit: usize,
    ) -> &[(u64, u32, String)] {
        if query.trim().is_empty() {
            self.found.clear();
            self.query.clear();
            return &self.found;
        }
        let plans = shown_plans(sessions, cities);
        let regathered = plans != self.built_for;
        if regathered {
            self.entries = gather(sessions, cities);
            self.built_for = plans;
        }
        if regathered || query != self.query || limit != self.limit {
            self.found = rank(&self.entries, query, limit);
            self.query = query.to_owned();
            self.limit = limit;
        }
        &self.found
    }
}

fn shown_plans(sessions: &Sessions, cities: &Cities) -> Vec<(u64, u64)> {
    sessions
        .shown()
        .filter_map(|(&id, _)| Some((id, cities.session(id)?.plan_generation())))
        .collect()
}

fn gather(sessions: &Sessions, cities: &Cities) -> Vec<Entry> {
    let mut entries = Vec::new();
    for (&session_id, _) in sessions.shown() {
        let Some(city) = cities.session(session_id) else {
            continue;
        };
        let Some(layout) = city.layout.as_ref() else {
            continue;
        };
        for (index, building) in layout.buildings().iter().enumerate() {
            let Some((name, _, _)) = building_names(city, index as u32) else {
                continue;
            };
            let raw = raw_building_name(layout, index as u32).unwrap_or_default();
            let lower = format!("{name}\n{raw}").to_lowercase();
            entries.push(Entry {
                session_id,
                method_id: building.method_id,
                name,
                raw,
                lower,
            });
        }
    }
    entries
}

/// The methods matching `query`, best first, at most `limit`: those whose display name or name
/// as sent contains it (case-insensitive) first, then fuzzy matches (its characters in order,
/// fzf's syntax and scoring through `nucleo-matcher`: `intlp` finds `interpretLoop`), each group
/// by score, then shorter names first.
fn rank(entries: &[Entry], query: &str, limit: usize) -> Vec<(u64, u32, String)> {
    use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
    use nucleo_matcher::{Config, Matcher, Utf32Str};
    let query = query.trim();
    let lower_query = query.to_lowercase();
    let pattern = Pattern::parse(query, CaseMatching::Ignore, Normalization::Smart);
    let mut matcher = Matcher::new(Config::DEFAULT);
    let mut buf = Vec::new();
    let mut scored: Vec<(bool, u32, &Entry)> = Vec::new();
    for entry in entries {
        let contains = entry.lower.contains(&lower_query);
        let score = pattern
            .score(Utf32Str::new(&entry.name, &mut buf), &mut matcher)
            .max(pattern.score(Utf32Str::new(&entry.raw, &mut buf), &mut matcher));
        if contains || score.is_some() {
            scored.push((contains, score.unwrap_or(0), entry));
        }
    }
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(b.1.cmp(&a.1))
            .then(a.2.name.len().cmp(&b.2.name.len()))
            .then_with(|| a.2.name.cmp(&b.2.name))
    });
    scored
        .into_iter()
        .take(limit)
        .map(|(_, _, e)| (e.session_id, e.method_id, e.name.clone()))
        .collect()
}

/// Methods of all shown cities matching `query`, best first (see [`rank`]), each with its
/// display name: at most `limit`. Gathers every time; the panel keeps a [`SearchIndex`].
pub fn search(
    sessions: &Sessions,
    cities: &Cities,
    query: &str,
    limit: usize,
) -> Vec<(u64, u32, String)> {
    if query.trim().is_empty() {
        return Vec::new();
    }
    rank(&gather(sessions, cities), query, limit)
}

/// Whether a building's display name `name` or its name as sent contains `query` (already
/// lower-case): `createorientation(string` and `ljava/lang/string;` both find
/// `Board.createOrientation(Ljava/lang/String;Ljava/io/InputStream;)[[Z`.
pub fn building_matches(layout: &CityLayout, building: u32, name: &str, query: &str) -> bool {
    name.to_lowercase().contains(query)
        || raw_building_name(layout, building).is_some_and(|raw| raw.to_lowercase().contains(query))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(method_id: u32, name: &str) -> Entry {
        Entry {
            session_id: 1,
            method_id,
            name: name.to_owned(),
            raw: name.replace(' ', ""),
            lower: name.to_lowercase(),
        }
    }

    #[test]
    fn substring_matches_come_first_then_fuzzy_ones_by_score() {
        let entries = [
            entry(
                1,
                "org.mozilla.javascript.Interpreter.interpretLoop(Context, CallFrame, Object)",
            ),
            entry(
                2,
                "org.mozilla.javascript.Interpreter.doAdd(Object, Object)",
            ),
            entry(3, "org.mozilla.javascript.ScriptRuntime.toInt32(Object)"),
            entry(
                4,
                "org.mozilla.javascript.NativeIterator.init(ScriptableObject)",
            ),
        ];
        let ids = |query: &str, limit: usize| -> Vec<u32> {
            rank(&entries, query, limit).iter().map(|f| f.1).collect()
        };
        // Characters in order, not contiguous: only the fuzzy matcher finds it.
        assert_eq!(ids("intlp", 10)[0], 1);
        // A substring match outranks every fuzzy one.
        assert_eq!(ids("doadd", 10), vec![2]);
        assert_eq!(ids("toint", 10)[0], 3);
        // Equal matches: the shorter name first.
        assert_eq!(ids("interpreter.", 1), vec![2]);
        assert!(ids("zzz", 10).is_empty());
    }

    #[test]
    fn a_city_of_200k_names_is_ranked_in_one_pass() {
        let entries: Vec<Entry> = (0..200_000)
            .map(|i| {
                entry(
                    i,
                    &format!("pkg{}.sub{}.Class{}.method{i}()", i % 97, i % 13, i % 1000),
                )
            })
            .collect();
        let found = rank(&entries, "class345.method12345", 12);
        assert_eq!(found[0].1, 12_345, "{found:?}");
        assert_eq!(found.len(), 12);
    }
}
