//! The cities the pages draw, folded from the session reports: each session's plan (laid out
//! here, incrementally, as the window's is) and its buildings' towers as last sent. A tick
//! turns what changed into messages ([`crate::wire`]); a page that joins gets the whole state.

use std::collections::BTreeMap;
use std::sync::Arc;

use highrise_aggregate::{
    AlertConfig, AlertDetector, History, HistoryConfig, MethodStats, Snapshot, DEFAULT_WINDOW_S,
};
use highrise_ingest::{SessionId, SessionReport, SessionStatus};
use highrise_layout::look::relative_full_scale;
use highrise_layout::{CityLayout, LayoutConfig, MethodSpec};
use highrise_protocol::Measure;
use serde::Serialize;

use crate::wire::{self, Tower};

pub type Report = SessionReport<Arc<Snapshot>>;

/// One message to the pages: JSON text or a binary [`crate::wire`] message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    Text(String),
    Binary(bytes::Bytes),
}

/// A session's city as the pages know it.
struct SessionCity {
    report: Report,
    /// Definitions taken from the report so far (they are append-only).
    seen_definitions: usize,
    /// Display names by method id.
    display_names: Vec<String>,
    pending: Vec<MethodSpec>,
    /// Every definition as layout input (the compare plan starts from them).
    specs: Vec<MethodSpec>,
    layout: Option<CityLayout>,
    /// Display names by building, for the plan.
    names: Vec<String>,
    /// Bumped whenever the plan changes; the pages hold `sent_generation`.
    generation: u32,
    sent_generation: u32,
    /// Towers as last sent, by building.
    towers: Vec<Tower>,
    relative_full: f32,
    /// The snapshot the towers were made from (a new one makes new towers).
    towers_from_ns: Option<u64>,
    alerts: AlertDetector,
    alert_lines: Vec<String>,
    /// The session's recent past, for the page's timeline (as the window keeps it).
    history: History,
}

/// Most bytes a session's history holds for the pages.
const HISTORY_BYTES: usize = 64 << 20;

impl SessionCity {
    fn new(report: Report, alert_config: AlertConfig) -> Self {
        Self {
            report,
            seen_definitions: 0,
            display_names: Vec::new(),
            pending: Vec::new(),
            specs: Vec::new(),
            layout: None,
            names: Vec::new(),
            generation: 0,
            sent_generation: 0,
            towers: Vec::new(),
            relative_full: 1.0,
            towers_from_ns: None,
            alerts: AlertDetector::new(alert_config),
            alert_lines: Vec::new(),
            history: History::new(HistoryConfig {
                max_bytes: HISTORY_BYTES,
                ..HistoryConfig::default()
            }),
        }
    }

    fn accept(&mut self, mut report: Report) {
        if report.sink.is_none() {
            report.sink = self.report.sink.clone();
        }
        for definition in report.definitions().skip(self.seen_definitions) {
            self.seen_definitions += 1;
            let slot = definition.id as usize;
            if self.display_names.len() <= slot {
                self.display_names.resize(slot + 1, String::new());
            }
            self.display_names[slot] = definition.display_name();
            let spec = crate::compare::method_spec(definition);
            self.specs.push(spec.clone());
            self.pending.push(spec);
        }
        if let Some(snapshot) = &report.sink {
            self.history.push(snapshot);
            let raised = self.alerts.observe(snapshot);
            let alerts = self.alerts.alerts();
            for alert in &alerts[alerts.len() - raised..] {
                let name = alert
                    .method_id
                    .map_or_else(String::new, |id| self.name_of(id));
                self.alert_lines.push(alert.describe(&name));
            }
        }
        self.report = report;
    }

    fn name_of(&self, method_id: u32) -> String {
        self.display_names
            .get(method_id as usize)
            .filter(|name| !name.is_empty())
            .cloned()
            .unwrap_or_else(|| format!("method #{method_id}"))
    }

    /// A method's display name without its package (as the tooltip lists callers), the package
    /// read from the plan.
    fn short_name_of(&self, method_id: u32) -> String {
        let name = self.name_of(method_id);
        let package = self.layout.as_ref().and_then(|layout| {
            let building = layout
                .buildings()
                .get(layout.building_of(method_id)? as usize)?;
            let class = layout.blocks()[building.block as usize].class;
            let package = layout.classes()[class as usize].package;
            Some(layout.packages()[package as usize].path.as_str())
        });
        package
            .filter(|package| !package.is_empty())
            .and_then(|package| name.strip_prefix(package)?.strip_prefix('.'))
            .map_or_else(|| name.clone(), str::to_string)
    }

    /// Places the methods defined since the last call (the first batch laid out in full, the
    /// paper's order; later ones inserted in place). True when the plan changed.
    fn place(&mut self) -> bool {
        if self.pending.is_empty() {
            return false;
        }
        let layout = match self.layout.take() {
            None => CityLayout::full(&self.pending).unwrap_or_else(|error| {
                tracing::warn!("cannot lay out the city: {error}");
                insert_each(CityLayout::empty(&LayoutConfig::default()), &self.pending)
            }),
            Some(layout) => insert_each(layout, &self.pending),
        };
        self.pending.clear();
        self.names = layout
            .buildings()
            .iter()
            .map(|building| self.name_of(building.method_id))
            .collect();
        self.towers.resize(layout.buildings().len(), Tower::IDLE);
        self.layout = Some(layout);
        self.generation += 1;
        true
    }

    fn stats(&self, method_id: u32) -> MethodStats {
        self.report
            .sink
            .as_deref()
            .map_or_else(MethodStats::default, |snapshot| snapshot.method(method_id))
    }

    /// The towers of the latest snapshot, as (building, tower) where they differ from those
    /// sent (all when `all`); they become the ones sent.
    fn new_towers(&mut self, all: bool) -> Vec<(u32, Tower)> {
        let Some(layout) = &self.layout else {
            return Vec::new();
        };
        let snapshot = self.report.sink.as_deref();
        let fresh = snapshot.map(|s| s.now_ns) != self.towers_from_ns;
        let mut changed = Vec::new();
        if fresh {
            if let Some(snapshot) = snapshot {
                self.relative_full =
                    relative_full_scale(self.relative_full, wire::hottest(snapshot));
            }
            self.towers_from_ns = snapshot.map(|s| s.now_ns);
            for (index, building) in layout.buildings().iter().enumerate() {
                let tower = Tower::of(&self.stats(building.method_id));
                if tower != self.towers[index] {
                    self.towers[index] = tower;
                    if !all {
                        changed.push((index as u32, tower));
                    }
                }
            }
        }
        if all {
            changed = self.all_towers();
        }
        changed
    }

    /// Every tower as last sent, as (building, tower).
    fn all_towers(&self) -> Vec<(u32, Tower)> {
        (0..).zip(self.towers.iter().copied()).collect()
    }

    /// Every tower at the kept moment at or before `time_ns`, with its program time.
    fn towers_at(&self, time_ns: u64) -> Option<Moment> {
        let layout = self.layout.as_ref()?;
        let snapshot = self.history.at(time_ns)?;
        let towers = layout
            .buildings()
            .iter()
            .enumerate()
            .map(|(index, building)| {
                (
                    index as u32,
                    Tower::of(&snapshot.method(building.method_id)),
                )
            })
            .collect();
        Some(Moment {
            time_s: snapshot.now_ns as f64 * 1e-9,
            relative_full: relative_full_scale(0.0, wire::hottest(&snapshot)),
            towers,
        })
    }

    fn program_time_s(&self) -> f64 {
        self.report
            .sink
            .as_deref()
            .map_or(0.0, |s| s.now_ns as f64 * 1e-9)
    }

    fn heights_message(&self, all: bool, changed: Vec<(u32, Tower)>) -> Vec<u8> {
        wire::heights(
            self.report.session_id as u32,
            all,
            self.relative_full,
            self.program_time_s(),
            changed.into_iter(),
        )
    }

    fn plan_message(&self) -> Option<Vec<u8>> {
        let layout = self.layout.as_ref()?;
        Some(wire::plan(
            self.report.session_id as u32,
            self.generation,
            layout,
            &self.names,
        ))
    }

    /// How the session measures, and its window, seconds.
    fn measure(&self) -> (Measure, f32) {
        let report = &self.report;
        let measure = report
            .info
            .as_ref()
            .map_or(Measure::EXACT, |info| info.measure);
        let window_s = report
            .sink
            .as_deref()
            .map_or(DEFAULT_WINDOW_S, Snapshot::window_s);
        (measure, window_s)
    }

    fn summary(&self) -> SessionSummary {
        let report = &self.report;
        let (measure, window_s) = self.measure();
        SessionSummary {
            id: report.session_id,
            title: report.title(),
            agent: report
                .info
                .as_ref()
                .map_or_else(String::new, |i| i.agent.clone()),
            pid: report.info.as_ref().map_or(0, |i| i.pid),
            status: status_text(&report.status),
            live: !matches!(report.status, SessionStatus::Ended(_)),
            measure: measure.is_estimated().then(|| measure.describe(window_s)),
            sampled: !measure.counts_calls(),
            flow: report.stats.flow(&measure),
            methods: report.stats.definitions,
            threads: report.threads.len(),
            errors: report.stats.errors_total,
            events_dropped: report.stats.agent_events_dropped,
            dropped_share: report.sink.as_deref().map_or(0.0, |s| s.dropped_share),
            alerts: self.alert_lines.clone(),
            notices: report
                .info
                .iter()
                .flat_map(|info| &info.notices)
                .map(|notice| notice.text.clone())
                .collect(),
        }
    }
}

/// A kept moment's towers.
struct Moment {
    time_s: f64,
    relative_full: f32,
    towers: Vec<(u32, Tower)>,
}

fn insert_each(mut layout: CityLayout, methods: &[MethodSpec]) -> CityLayout {
    for method in methods {
        if let Err(error) = layout.insert(method) {
            tracing::warn!("cannot place {}.{}: {error}", method.class, method.method);
        }
    }
    layout
}

/// How a session ended, or that it is live, as people read it.
pub fn status_text(status: &SessionStatus) -> String {
    match status {
        SessionStatus::Handshaking => "connecting".to_string(),
        SessionStatus::Connected => "live".to_string(),
        SessionStatus::Ended(end) => format!("ended ({})", end.describe()),
    }
}

/// What the panel lists of a session (the `sessions` message).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SessionSummary {
    pub id: SessionId,
    pub title: String,
    pub agent: String,
    pub pid: u32,
    pub status: String,
    pub live: bool,
    /// How the agent measures, when its figures are estimates.
    pub measure: Option<String>,
    /// Calls are not counted (samples).
    pub sampled: bool,
    pub flow: String,
    pub methods: u64,
    pub threads: usize,
    pub errors: u64,
    pub events_dropped: u64,
    pub dropped_share: f32,
    pub alerts: Vec<String>,
    pub notices: Vec<String>,
}

/// The diff city the pages asked for last: its sessions, their definitions counted, and plan.
struct Diff {
    inputs: (SessionId, usize, SessionId, usize),
    generation: u32,
    plan: crate::compare::DiffPlan,
}

/// The cities of every session the server has seen.
pub struct Cities {
    sessions: BTreeMap<SessionId, SessionCity>,
    diff: Option<Diff>,
    alert_config: AlertConfig,
    /// The `sessions` message as last sent.
    sent_sessions: String,
}

impl Cities {
    pub fn new(alert_config: AlertConfig) -> Self {
        let mut cities = Self {
            sessions: BTreeMap::new(),
            diff: None,
            alert_config,
            sent_sessions: String::new(),
        };
        // A page that joins before the first tick gets the (empty) list, valid JSON.
        cities.sent_sessions = cities.sessions_message();
        cities
    }

    /// Folds one report in (the city changes on the next [`Cities::tick`]).
    pub fn accept(&mut self, report: Report) {
        let config = self.alert_config;
        match self.sessions.get_mut(&report.session_id) {
            Some(city) => city.accept(report),
            None => {
                let id = report.session_id;
                let mut city = SessionCity::new(report.clone(), config);
                city.accept(report);
                self.sessions.insert(id, city);
            }
        }
    }

    /// What changed since the last tick, as messages for every page.
    pub fn tick(&mut self) -> Vec<Message> {
        let mut out = Vec::new();
        let sessions = self.sessions_message();
        if sessions != self.sent_sessions {
            self.sent_sessions.clone_from(&sessions);
            out.push(Message::Text(sessions));
        }
        for city in self.sessions.values_mut() {
            let replanned = city.place();
            let changed = city.new_towers(replanned);
            if replanned {
                out.extend(city.plan_message().map(|b| Message::Binary(b.into())));
                city.sent_generation = city.generation;
            }
            if replanned || !changed.is_empty() {
                out.push(Message::Binary(
                    city.heights_message(replanned, changed).into(),
                ));
            }
        }
        out
    }

    /// Everything a page that joins now needs: the look, the sessions, each city's plan and
    /// towers as sent so far.
    pub fn full_state(&self) -> Vec<Message> {
        let mut out = vec![
            Message::Text(hello_message()),
            Message::Text(self.sent_sessions.clone()),
        ];
        for city in self.sessions.values() {
            if city.sent_generation == 0 {
                continue;
            }
            out.extend(city.plan_message().map(|b| Message::Binary(b.into())));
            out.push(Message::Binary(
                city.heights_message(true, city.all_towers()).into(),
            ));
        }
        out
    }

    fn sessions_message(&self) -> String {
        let sessions: Vec<SessionSummary> =
            self.sessions.values().map(SessionCity::summary).collect();
        serde_json::json!({ "type": "sessions", "sessions": sessions }).to_string()
    }

    /// The hover facts of building `building` of session `session` (the desktop tooltip's
    /// lines), or `None` when there is no such building.
    pub fn facts(&self, session: SessionId, building: u32) -> Option<Vec<String>> {
        let city = self.sessions.get(&session)?;
        let layout = city.layout.as_ref()?;
        let built = layout.buildings().get(building as usize)?;
        let block = &layout.blocks()[built.block as usize];
        let class = &layout.classes()[block.class as usize];
        let package = &layout.packages()[class.package as usize].path;
        let (measure, window_s) = city.measure();
        let title = city.report.title();
        let name = city.name_of(built.method_id);
        let place = highrise_report::facts::MethodPlace {
            name: &name,
            class: &class.name,
            package,
            program: &title,
        };
        let stats = city.stats(built.method_id);
        let mut lines = highrise_report::facts::method_lines(place, &stats, &measure, window_s);
        if let Some(edges) = city.report.sink.as_deref().and_then(|s| s.edges.as_deref()) {
            lines.extend(highrise_report::facts::call_lines(
                edges,
                built.method_id,
                |id| city.short_name_of(id),
            ));
        }
        Some(lines)
    }

    /// The highest methods of a session now: (building, display name, elevation).
    pub fn top(&self, session: SessionId, count: usize) -> Vec<(u32, String, f32)> {
        let Some(city) = self.sessions.get(&session) else {
            return Vec::new();
        };
        let Some(layout) = &city.layout else {
            return Vec::new();
        };
        let Some(snapshot) = city.report.sink.as_deref() else {
            return Vec::new();
        };
        snapshot
            .top_by_elevation(count)
            .into_iter()
            .filter_map(|(method_id, stats)| {
                let building = layout.building_of(method_id)?;
                Some((building, city.name_of(method_id), stats.elevation))
            })
            .collect()
    }

    /// The program time the session's kept history spans, seconds (oldest, newest).
    pub fn history_range_s(&self, session: SessionId) -> Option<(f64, f64)> {
        let (oldest_ns, newest_ns) = self.sessions.get(&session)?.history.range_ns()?;
        Some((oldest_ns as f64 * 1e-9, newest_ns as f64 * 1e-9))
    }

    /// A [`wire::HEIGHTS`] message with every tower of the session at the kept moment at or
    /// just before `time_s` (the timeline's past).
    pub fn heights_at(&self, session: SessionId, time_s: f64) -> Option<Vec<u8>> {
        let city = self.sessions.get(&session)?;
        let time_ns = (time_s.max(0.0) * 1e9) as u64;
        let moment = city.towers_at(time_ns)?;
        Some(wire::heights(
            session as u32,
            true,
            moment.relative_full,
            moment.time_s,
            moment.towers.into_iter(),
        ))
    }

    /// The diff city of sessions `a` and `b` now: its [`wire::DIFF`] message, and its plan when
    /// it is not generation `known` (the page's). The plan is laid out again only when either
    /// session defined methods since.
    pub fn diff(
        &mut self,
        a: SessionId,
        b: SessionId,
        known: u32,
    ) -> Option<(Option<Vec<u8>>, Vec<u8>)> {
        let (city_a, city_b) = (self.sessions.get(&a)?, self.sessions.get(&b)?);
        let inputs = (a, city_a.specs.len(), b, city_b.specs.len());
        if self.diff.as_ref().is_none_or(|diff| diff.inputs != inputs) {
            let plan = crate::compare::DiffPlan::new(
                city_a.specs.clone(),
                &city_b.specs,
                |id| city_a.name_of(id),
                |id| city_b.name_of(id),
            )
            .ok()?;
            let generation = self.diff.as_ref().map_or(1, |diff| diff.generation + 1);
            self.diff = Some(Diff {
                inputs,
                generation,
                plan,
            });
        }
        let diff = self.diff.as_ref()?;
        let empty = Snapshot::default();
        let message = diff.plan.diff_message(
            diff.generation,
            city_a.report.sink.as_deref().unwrap_or(&empty),
            city_b.report.sink.as_deref().unwrap_or(&empty),
        );
        let plan = (known != diff.generation).then(|| {
            wire::plan(
                wire::DIFF_SESSION,
                diff.generation,
                &diff.plan.pair.city,
                &diff.plan.names,
            )
        });
        Some((plan, message))
    }

    pub fn session_ids(&self) -> Vec<SessionId> {
        self.sessions.keys().copied().collect()
    }

    /// Forgets ended sessions beyond the latest `keep` (a long-lived server sees many).
    pub fn forget_ended(&mut self, keep: usize) {
        let ended: Vec<SessionId> = self
            .sessions
            .iter()
            .filter(|(_, city)| matches!(city.report.status, SessionStatus::Ended(_)))
            .map(|(&id, _)| id)
            .collect();
        for id in ended.iter().take(ended.len().saturating_sub(keep)) {
            self.sessions.remove(id);
        }
    }
}

/// The first message a page gets: how a city looks ([`highrise_layout::look`]).
pub fn hello_message() -> String {
    hello_json().to_string()
}

/// [`hello_message`] as JSON (an export carries it inside its data).
pub fn hello_json() -> serde_json::Value {
    use highrise_layout::look;
    let heat: Vec<[f32; 3]> = (0..look::HEAT_STEPS as u8)
        .map(look::heat_step_srgb)
        .collect();
    let districts: Vec<[f32; 3]> = (0..8).map(look::district_srgb).collect();
    serde_json::json!({
        "type": "hello",
        "version": env!("CARGO_PKG_VERSION"),
        "look": {
            "heat": heat,
            "stub": look::STUB_SRGB,
            "highlight": look::HIGHLIGHT_SRGB,
            "block": look::BLOCK_SRGB,
            "districts": districts,
            "stub_height_wu": look::STUB_HEIGHT_WU,
            "sqrt_from_buildings": look::SQRT_FROM_BUILDINGS,
            "hot_spot_names": look::HOT_SPOT_NAMES,
            "hot_spot_min_share": look::HOT_SPOT_MIN_SHARE,
            "diff": {
                "added": look::ADDED_SRGB,
                "removed": look::REMOVED_SRGB,
                "moved": look::MOVED_SRGB,
                "faster": (0..look::DIFF_STEPS as u8).map(|s| look::diff_ramp_srgb(true, s)).collect::<Vec<_>>(),
                "slower": (0..look::DIFF_STEPS as u8).map(|s| look::diff_ramp_srgb(false, s)).collect::<Vec<_>>(),
            },
        }
    })
}

impl std::fmt::Debug for Cities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cities")
            .field("sessions", &self.sessions.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page that joins before the first tick gets the look and the (empty) session list, never
    /// an empty text the page cannot read as JSON.
    #[test]
    fn every_text_a_joining_page_gets_is_json() {
        let mut cities = Cities::new(AlertConfig::default());
        let texts = |cities: &Cities| -> Vec<String> {
            cities
                .full_state()
                .into_iter()
                .filter_map(|message| match message {
                    Message::Text(text) => Some(text),
                    Message::Binary(_) => None,
                })
                .collect()
        };
        let before = texts(&cities);
        assert_eq!(before.len(), 2, "{before:?}");
        cities.tick();
        let after = texts(&cities);
        assert_eq!(after.len(), 2, "{after:?}");
        for text in before.iter().chain(&after) {
            assert!(
                serde_json::from_str::<serde_json::Value>(text).is_ok(),
                "{text:?}"
            );
        }
    }
}
