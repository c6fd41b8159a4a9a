//! The tooltip's lines: a building's method and statistics, or a class's or package's totals;
//! in a compare city, both versions and the difference.

use bevy::prelude::{Local, Res};
use highrise_aggregate::MethodStats;
use highrise_layout::{Change, HitTarget};

use super::names::{
    building_names, layout_building_names, qualified_name_of_class, without_package,
};
use crate::viewer::city::{Cities, CityKey};
use crate::viewer::compare::Compare;
use crate::viewer::hover::Hovered;
use crate::viewer::landscape::Landscape;
use crate::viewer::sessions::Sessions;

/// Said under a building whose numbers are estimates (see `MethodStats::approximate`).
pub use highrise_report::facts::APPROXIMATE_LINE;

/// Classes listed under a building (most created first).
const TOOLTIP_CLASSES: usize = 5;

/// A building's allocations, when its agent counts them: the rate over the window, the total
/// since the start, and the classes its own frames create, with counts and kB.
pub fn allocation_lines(
    snapshot: &highrise_aggregate::Snapshot,
    report: &crate::viewer::sessions::Report,
    method_id: u32,
) -> Vec<String> {
    let memory = &snapshot.memory;
    let method = memory.method(method_id);
    if memory.is_empty() || method.total.is_zero() {
        return Vec::new();
    }
    let window_s = snapshot.window_ns as f64 / 1e9;
    let mut lines = vec![format!(
        "allocations {:.0}/s ({:.1} kB/s) · {} since start ({:.1} kB), {} freed",
        method.window.count as f64 / window_s,
        method.window.bytes as f64 / 1e3 / window_s,
        method.total.count,
        method.total.bytes as f64 / 1e3,
        method.total.frees
    )];
    let mut classes: Vec<_> = memory
        .classes_of(method_id)
        .iter()
        .filter(|entry| entry.amount.count > 0)
        .collect();
    classes.sort_by_key(|entry| std::cmp::Reverse(entry.amount.count));
    for entry in classes.iter().take(TOOLTIP_CLASSES) {
        let name = report
            .classes()
            .find(|class| class.id == entry.class_id)
            .map_or_else(
                || format!("#{}", entry.class_id),
                |class| class.display_name(),
            );
        lines.push(format!(
            "  {name} {} ({:.1} kB)",
            entry.amount.count,
            entry.amount.bytes as f64 / 1e3
        ));
    }
    if classes.len() > TOOLTIP_CLASSES {
        lines.push(format!(
            "  … {} more classes",
            classes.len() - TOOLTIP_CLASSES
        ));
    }
    if memory.dropped.allocations > 0 {
        lines.push(format!(
            "  (the agent could not send {} allocations: counts are lower bounds)",
            memory.dropped.allocations
        ));
    }
    lines
}

/// A building's busiest callers and callees with calls/s, when the session keeps call edges
/// (`highrise_report::facts::call_lines`, the web page's too).
pub fn call_lines(
    snapshot: &highrise_aggregate::Snapshot,
    city: &crate::viewer::city::City,
    method_id: u32,
) -> Vec<String> {
    let Some(edges) = snapshot.edges.as_deref() else {
        return Vec::new();
    };
    let building_of = city.building_of_method();
    highrise_report::facts::call_lines(edges, method_id, |id| {
        building_of(id)
            .and_then(|building| building_names(city, building))
            .map_or_else(
                || format!("#{id}"),
                |(name, _, package)| without_package(&name, &package),
            )
    })
}

/// How far back the tooltip's sparkline reaches, ns.
pub const SPARKLINE_NS: u64 = 60_000_000_000;

/// What the tooltip draws under its lines for a building: its elevation over the last minute
/// of kept history (up to the moment shown), and its share of each thread.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BuildingDetail {
    /// (program time, elevation), oldest first.
    pub elevation: Vec<(u64, f32)>,
    /// (thread name or `thread <id>`, exclusive share, share on the stack), busiest first;
    /// empty until the session answers the focus on this method.
    pub threads: Vec<(String, f32, f32)>,
}

/// The detail of the hovered building of a session's city, if one is hovered.
pub fn building_detail(sessions: &Sessions, hovered: &Hovered) -> Option<BuildingDetail> {
    let Some((CityKey::Session(session_id), method_id)) = hovered.method() else {
        return None;
    };
    let view = sessions.by_id.get(&session_id)?;
    let to_ns = view.snapshot().map_or(0, |s| s.now_ns);
    let elevation = view
        .history
        .series(method_id, to_ns.saturating_sub(SPARKLINE_NS), to_ns)
        .into_iter()
        .map(|point| (point.now_ns, point.value.elevation))
        .collect();
    // Per-thread shares come with the live snapshot (the history keeps no threads); names
    // from the session's thread list.
    let threads = view
        .scrub
        .is_none()
        .then(|| view.live_snapshot()?.focus.clone())
        .flatten()
        .filter(|focus| focus.method_id == method_id)
        .map(|focus| {
            let names: std::collections::HashMap<u64, &str> = view
                .report
                .threads
                .iter()
                .filter(|thread| !thread.name.is_empty())
                .map(|thread| (thread.thread_id, thread.name.as_str()))
                .collect();
            let name_of = |thread_id: u64| {
                names
                    .get(&thread_id)
                    .map_or_else(|| format!("thread {thread_id}"), |name| name.to_string())
            };
            focus
                .threads
                .into_iter()
                .map(|share| {
                    (
                        name_of(share.thread_id),
                        share.elevation,
                        share.inclusive_elevation,
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Some(BuildingDetail { elevation, threads })
}

/// Asks the hovered building's session for that method's per-thread shares (and the
/// previously hovered session to stop).
pub fn focus_hovered(
    hovered: Res<Hovered>,
    mut focused: Local<Option<(highrise_ingest::SessionId, u32)>>,
    mut commands: bevy::prelude::EventWriter<crate::viewer::sessions::SessionCommand>,
) {
    let wanted = match hovered.method() {
        Some((CityKey::Session(session_id), method_id)) => Some((session_id, method_id)),
        _ => None,
    };
    if *focused == wanted {
        return;
    }
    let focus = highrise_aggregate_sink::AggregateCommand::Focus;
    if let Some((session_id, _)) = *focused {
        if wanted.is_none_or(|(wanted_session, _)| wanted_session != session_id) {
            commands.write(crate::viewer::sessions::SessionCommand {
                session_id,
                command: focus(None),
            });
        }
    }
    if let Some((session_id, method_id)) = wanted {
        commands.write(crate::viewer::sessions::SessionCommand {
            session_id,
            command: focus(Some(method_id)),
        });
    }
    *focused = wanted;
}

fn percent(fraction: f32) -> String {
    format!("{:.1} %", fraction * 100.0)
}

/// The tooltip's lines for what is hovered (empty when nothing is).
/// Calls between services through the hovered building (the landscape's links): its remote
/// callers and callees, busiest first, with their service and calls per second.
pub fn link_lines(
    landscape: &Landscape,
    sessions: &Sessions,
    cities: &Cities,
    hovered: &Hovered,
) -> Vec<String> {
    let Some((CityKey::Session(session_id), method_id)) = hovered.method() else {
        return Vec::new();
    };
    let links = &landscape.links;
    let here = highrise_links::MethodRef {
        session_id,
        method_id,
    };
    let name_of = |end: highrise_links::MethodRef| {
        let service = sessions.by_id.get(&end.session_id).map_or_else(
            || format!("session {}", end.session_id),
            |view| view.title(),
        );
        let method = cities
            .session(end.session_id)
            .and_then(|city| {
                let building = city.layout.as_ref()?.building_of(end.method_id)?;
                building_names(city, building)
            })
            .map_or_else(|| format!("method {}", end.method_id), |(name, _, _)| name);
        format!("{service} · {method}")
    };
    let mut found: Vec<(u64, String)> = links
        .links
        .iter()
        .filter_map(|link| {
            let rate = links.rate_per_s(link);
            if link.callee == here {
                Some((
                    link.calls_window,
                    format!(
                        "called from {}: {rate:.1}/s ({} calls)",
                        name_of(link.caller),
                        link.calls_total
                    ),
                ))
            } else if link.caller == here {
                Some((
                    link.calls_window,
                    format!(
                        "calls {}: {rate:.1}/s ({} calls)",
                        name_of(link.callee),
                        link.calls_total
                    ),
                ))
            } else {
                None
            }
        })
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    found.truncate(MAX_LINK_LINES);
    found.into_iter().map(|(_, line)| line).collect()
}

/// Calls between services listed in the tooltip at most.
pub const MAX_LINK_LINES: usize = 8;

pub fn tooltip_lines(
    sessions: &Sessions,
    compare: &Compare,
    cities: &Cities,
    hovered: &Hovered,
) -> Vec<String> {
    let (Some(key), Some(target)) = (hovered.city, hovered.target) else {
        return Vec::new();
    };
    let CityKey::Session(session_id) = key else {
        return compare_tooltip_lines(sessions, compare, key, target);
    };
    let Some(view) = sessions.by_id.get(&session_id) else {
        return Vec::new();
    };
    let Some(city) = cities.session(session_id) else {
        return Vec::new();
    };
    let Some(layout) = city.layout.as_ref() else {
        return Vec::new();
    };
    let stats_of = |method_id: u32| {
        view.snapshot()
            .map_or_else(MethodStats::default, |s| s.method(method_id))
    };
    let measure = view
        .report
        .info
        .as_ref()
        .map_or(highrise_protocol::Measure::EXACT, |info| info.measure);
    let calls_counted = measure.counts_calls();
    match target {
        HitTarget::Building {
            building,
            method_id,
        } => {
            let Some((name, class, package)) = building_names(city, building) else {
                return Vec::new();
            };
            let stats = stats_of(method_id);
            let window_s = view.snapshot().map_or(
                highrise_aggregate::DEFAULT_WINDOW_S,
                highrise_aggregate::Snapshot::window_s,
            );
            let place = highrise_report::facts::MethodPlace {
                name: &name,
                class: &class,
                package: &package,
                program: &view.title(),
            };
            let mut lines = highrise_report::facts::method_lines(place, &stats, &measure, window_s);
            if let Some(snapshot) = view.snapshot() {
                lines.extend(allocation_lines(snapshot, &view.report, method_id));
                lines.extend(call_lines(snapshot, city, method_id));
            }
            lines
        }
        HitTarget::Block { block } => {
            let Some(class_index) = layout.blocks().get(block as usize).map(|b| b.class) else {
                return Vec::new();
            };
            let methods: Vec<u32> = layout
                .buildings()
                .iter()
                .filter(|b| layout.blocks()[b.block as usize].class == class_index)
                .map(|b| b.method_id)
                .collect();
            let class = &layout.classes()[class_index as usize];
            let package = &layout.packages()[class.package as usize].path;
            totals_lines(
                format!("class {}", qualified_name_of_class(package, &class.name)),
                &methods,
                &stats_of,
                calls_counted,
            )
        }
        HitTarget::District { district } => {
            let Some(package_index) = layout.districts().get(district as usize).map(|d| d.package)
            else {
                return Vec::new();
            };
            let package = &layout.packages()[package_index as usize];
            let prefix = format!("{}.", package.path);
            let methods: Vec<u32> = layout
                .buildings()
                .iter()
                .filter(|b| {
                    let class = &layout.classes()[layout.blocks()[b.block as usize].class as usize];
                    let path = &layout.packages()[class.package as usize].path;
                    package.path.is_empty() || *path == package.path || path.starts_with(&prefix)
                })
                .map(|b| b.method_id)
                .collect();
            let label = if package.path.is_empty() {
                "(root package)".to_string()
            } else {
                package.path.clone()
            };
            totals_lines(
                format!("package {label}"),
                &methods,
                &stats_of,
                calls_counted,
            )
        }
    }
}

/// Tooltip of a compare city: the method with both versions' values and the difference, or the
/// class or package under the cursor.
fn compare_tooltip_lines(
    sessions: &Sessions,
    compare: &Compare,
    key: CityKey,
    target: HitTarget,
) -> Vec<String> {
    let Some(pair) = compare.pair.as_ref() else {
        return Vec::new();
    };
    let layout = &pair.city;
    let title = compare.label(sessions, key);
    match target {
        HitTarget::Building { building, .. } => {
            let (Some((name, class, package)), Some(plot)) = (
                layout_building_names(layout, building),
                pair.buildings.get(building as usize),
            ) else {
                return Vec::new();
            };
            let side = |session: Option<u64>, method_id: Option<u32>| {
                let view = session.and_then(|id| sessions.by_id.get(&id));
                let label = view.map_or_else(|| "?".to_string(), |v| v.title());
                match method_id {
                    None => (None, format!("{label}: not in this version")),
                    Some(id) => {
                        let stats = view
                            .and_then(|v| v.snapshot())
                            .map_or_else(MethodStats::default, |s| s.method(id));
                        (
                            Some(stats.elevation),
                            format!(
                                "{label}: elevation {} · {} threads · {} calls",
                                percent(stats.elevation),
                                stats.thread_count,
                                stats.calls
                            ),
                        )
                    }
                }
            };
            let id_a = plot.method_id_a.or_else(|| {
                compare
                    .moved_from_a
                    .get(building as usize)
                    .copied()
                    .flatten()
            });
            let (value_a, line_a) = side(compare.a, id_a);
            let (value_b, line_b) = side(compare.b, plot.method_id_b);
            let verdict = match (plot.change, value_a, value_b) {
                (Change::Added, ..) => "added in B".to_string(),
                (Change::Removed, ..) => "removed in B".to_string(),
                (Change::MovedIn, Some(a), Some(b)) => format!(
                    "moved into this package in B · B − A: {:+.1} points",
                    (b - a) * 100.0
                ),
                (Change::MovedIn, ..) => "moved into this package in B".to_string(),
                (Change::MovedOut, ..) => "moved out of this package in B".to_string(),
                (Change::Unchanged, Some(a), Some(b)) => {
                    let delta_points = (b - a) * 100.0;
                    let word = if delta_points > 0.05 {
                        "slower"
                    } else if delta_points < -0.05 {
                        "faster"
                    } else {
                        "unchanged"
                    };
                    format!("B − A: {delta_points:+.1} points ({word})")
                }
                (Change::Unchanged, ..) => String::new(),
            };
            let mut lines = vec![name, format!("A · {line_a}"), format!("B · {line_b}")];
            if !verdict.is_empty() {
                lines.push(verdict);
            }
            lines.push(format!(
                "class {class} · package {}",
                if package.is_empty() {
                    "(root)"
                } else {
                    &package
                }
            ));
            lines.push(title);
            lines
        }
        HitTarget::Block { block } => {
            let Some(class) = layout
                .blocks()
                .get(block as usize)
                .and_then(|b| layout.classes().get(b.class as usize))
            else {
                return Vec::new();
            };
            let package = &layout.packages()[class.package as usize].path;
            vec![
                format!("class {}", qualified_name_of_class(package, &class.name)),
                title,
            ]
        }
        HitTarget::District { district } => {
            let Some(package) = layout
                .districts()
                .get(district as usize)
                .and_then(|d| layout.packages().get(d.package as usize))
            else {
                return Vec::new();
            };
            vec![format!("package {}", package.path), title]
        }
    }
}

fn totals_lines(
    title: String,
    methods: &[u32],
    stats_of: &dyn Fn(u32) -> MethodStats,
    calls_counted: bool,
) -> Vec<String> {
    let mut summed = 0.0f32;
    let mut calls = 0u64;
    let mut busiest: Option<(u32, f32)> = None;
    for &method_id in methods {
        let stats = stats_of(method_id);
        summed += stats.summed_elevation;
        calls += u64::from(stats.calls);
        if busiest.is_none_or(|(_, e)| stats.elevation > e) {
            busiest = Some((method_id, stats.elevation));
        }
    }
    let mut lines = vec![
        title,
        format!("{} methods", methods.len()),
        format!("summed elevation {}", percent(summed)),
        if calls_counted {
            format!("calls in window {calls}")
        } else {
            "calls not counted (sampled)".to_string()
        },
    ];
    if let Some((_, elevation)) = busiest.filter(|(_, e)| *e > 0.0) {
        lines.push(format!("busiest method at {}", percent(elevation)));
    }
    lines
}
