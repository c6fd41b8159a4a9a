//! Session intake: the ingest server's reports become the [`Sessions`] resource.
//!
//! This is the only place the viewer talks to ingest. It reads whole-state reports (never raw
//! events); each frame it keeps the newest report per session and queues the method
//! definitions the city has not placed yet.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use bevy::prelude::*;
use highrise_aggregate::{History, HistoryConfig, Snapshot};
use highrise_aggregate_sink::{AggregateCommand, AggregateSink};
use highrise_ingest::{IngestServer, SessionId, SessionReport, SessionStatus};
use highrise_layout::MethodSpec;

/// The running ingest server.
#[derive(Resource, Debug)]
pub struct Ingest(pub IngestServer<AggregateSink>);

/// One report as the viewer keeps it.
pub type Report = SessionReport<Arc<Snapshot>>;

/// Everything the viewer knows about one connected (or ended) program.
#[derive(Debug)]
pub struct SessionView {
    pub report: Report,
    /// Definitions already handed to the city (definitions are append-only).
    pub definitions_seen: usize,
    /// Definitions not yet placed in the session's city (`Cities`, by `CityKey::Session`).
    pub pending_methods: Vec<MethodSpec>,
    /// Packages the user excluded (their time goes to their callers).
    pub excluded_packages: BTreeSet<String>,
    /// The aggregation window the user chose, seconds.
    pub window_s: f32,
    /// The session's recent snapshots (the timeline), sampled as reports arrive.
    pub history: History,
    /// The moment the user went back to on the timeline (`None`: live).
    pub scrub: Option<Scrub>,
    /// Phase marks' methods (`highrise.phase.NAME`): (method id, phase name), for the timeline.
    pub phase_marks: Vec<(u32, String)>,
    /// highrise failed on this session (ingest's or the viewer's own processing): the panel
    /// says so in red, its city is drawn grey.
    pub crash: Option<Crash>,
}

/// highrise's own failure on one session (a panic caught at the session's boundary): a bug in
/// highrise, not in the program. What the session showed so far stays readable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crash {
    /// What failed and where; the viewer's own failures start with "in the viewer: ".
    pub message: String,
    /// The viewer's own processing failed (not ingest's): the session's city no longer
    /// changes and no new definitions are queued for it.
    pub in_viewer: bool,
}

/// A moment of the past being shown instead of the live snapshot.
#[derive(Debug, Clone)]
pub struct Scrub {
    /// The kept sample at or before the program time the user chose, rebuilt.
    pub snapshot: Arc<Snapshot>,
}

impl SessionView {
    fn new(report: Report) -> Self {
        Self {
            report,
            definitions_seen: 0,
            pending_methods: Vec::new(),
            excluded_packages: BTreeSet::new(),
            window_s: 3.0,
            history: History::new(HistoryConfig::default()),
            scrub: None,
            phase_marks: Vec::new(),
            crash: None,
        }
    }

    /// Marks the session failed by the viewer's own processing (a panic caught around it, the
    /// caller logs it): shown in red, and the session's city no longer changes.
    pub fn fail_in_viewer(&mut self, message: &str) {
        if self.crash.as_ref().is_some_and(|crash| crash.in_viewer) {
            return;
        }
        self.crash = Some(Crash {
            message: format!("in the viewer: {message}"),
            in_viewer: true,
        });
        self.pending_methods = Vec::new();
    }

    /// The snapshot the city shows: the moment scrubbed to, else the latest.
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.shown_snapshot().map(|snapshot| &**snapshot)
    }

    /// [`SessionView::snapshot`], shared.
    pub fn shown_snapshot(&self) -> Option<&Arc<Snapshot>> {
        match &self.scrub {
            Some(scrub) => Some(&scrub.snapshot),
            None => self.report.sink.as_ref(),
        }
    }

    /// The latest snapshot, whatever the timeline shows (alerts, the calling-context tree).
    pub fn live_snapshot(&self) -> Option<&Snapshot> {
        self.report.sink.as_deref()
    }

    /// Shows the kept moment at or before `at_ns` (pausing live); false when nothing is kept.
    pub fn scrub_to(&mut self, at_ns: u64) -> bool {
        let Some(sample_ns) = self.history.sample_time_at(at_ns) else {
            return false;
        };
        if self
            .scrub
            .as_ref()
            .is_some_and(|scrub| scrub.snapshot.now_ns == sample_ns)
        {
            return true;
        }
        let Some(snapshot) = self.history.at(at_ns) else {
            return false;
        };
        self.scrub = Some(Scrub {
            snapshot: Arc::new(snapshot),
        });
        true
    }

    /// Back to the live snapshot.
    pub fn go_live(&mut self) {
        self.scrub = None;
    }

    /// "program (version)" for labels.
    pub fn title(&self) -> String {
        self.report.title()
    }

    pub fn is_live(&self) -> bool {
        !matches!(self.report.status, SessionStatus::Ended(_))
    }
}

/// All sessions, in connection order.
#[derive(Resource, Default, Debug)]
pub struct Sessions {
    pub by_id: BTreeMap<SessionId, SessionView>,
    /// Which session the panels act on (package tree, window, exclusion).
    pub selected: Option<SessionId>,
    /// Sessions the panel's Detach closed this frame (the agent takes itself out of the program).
    pub detach: Vec<SessionId>,
}

impl Sessions {
    /// Sessions that said Hello (others have nothing to show).
    pub fn shown(&self) -> impl Iterator<Item = (&SessionId, &SessionView)> {
        self.by_id
            .iter()
            .filter(|(_, view)| view.report.info.is_some())
    }
}

/// A change the user asked for in a live session's aggregation.
#[derive(Event, Debug, Clone)]
pub struct SessionCommand {
    pub session_id: SessionId,
    pub command: AggregateCommand,
}

#[derive(Debug)]
pub struct SessionsPlugin;

impl Plugin for SessionsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Sessions>()
            .add_event::<SessionCommand>()
            .add_systems(PreUpdate, intake_reports)
            .add_systems(PostUpdate, forward_commands);
    }
}

/// Takes every report that arrived since the last frame; keeps the newest per session. A panic
/// folding one in fails that session only ([`SessionView::fail_in_viewer`]).
pub fn intake_reports(ingest: Option<Res<Ingest>>, mut sessions: ResMut<Sessions>) {
    let Some(ingest) = ingest else {
        return;
    };
    let sessions = &mut *sessions;
    for report in ingest.0.updates().try_iter() {
        let session_id = report.session_id;
        if let Err(message) = highrise_guard::catch(|| accept_report(sessions, report)) {
            error!("the viewer failed on session {session_id} (a bug; report this): {message}");
            if let Some(view) = sessions.by_id.get_mut(&session_id) {
                view.fail_in_viewer(&message);
            }
        }
    }
}

pub use highrise_web::compare::method_spec;

/// Folds one report into the sessions (also used by tests without a server). A final report
/// of a session highrise failed on marks it crashed; one without a snapshot (the snapshot
/// itself failed) keeps the last one, so the city stays as it was.
pub fn accept_report(sessions: &mut Sessions, mut report: Report) {
    let session_id = report.session_id;
    let view = sessions
        .by_id
        .entry(session_id)
        .or_insert_with(|| SessionView::new(report.clone()));
    if view.crash.is_none() {
        view.crash = report.crash().map(|message| Crash {
            message: message.to_string(),
            in_viewer: false,
        });
    }
    // A session the viewer failed on keeps only its report's counts up to date: its city and
    // snapshot stay as they were.
    let frozen = view.crash.as_ref().is_some_and(|crash| crash.in_viewer);
    let fresh = report.sink.is_some() && !frozen;
    if !fresh {
        report.sink = view.report.sink.clone();
    }
    if !frozen {
        for definition in report.definitions().skip(view.definitions_seen) {
            if definition.is_phase_mark() {
                view.phase_marks
                    .push((definition.id, definition.method.clone()));
            }
            view.pending_methods.push(method_spec(definition));
            view.definitions_seen += 1;
        }
    }
    if let Some(snapshot) = report.sink.as_ref().filter(|_| fresh) {
        view.history.push(snapshot);
    }
    view.report = report;
    if sessions.selected.is_none() && sessions.by_id[&session_id].report.info.is_some() {
        sessions.selected = Some(session_id);
    }
}

fn forward_commands(
    ingest: Option<Res<Ingest>>,
    mut commands: EventReader<SessionCommand>,
    mut sessions: ResMut<Sessions>,
) {
    // Read through `Deref` first: a mutable access would mark `Sessions` changed every frame.
    let detach = if sessions.detach.is_empty() {
        Vec::new()
    } else {
        std::mem::take(&mut sessions.detach)
    };
    let Some(ingest) = ingest else {
        commands.clear();
        return;
    };
    for session_id in detach {
        if !ingest.0.detach_session(session_id) {
            warn!("session {session_id} is no live connection to detach");
        }
    }
    for command in commands.read() {
        if !ingest
            .0
            .send_command(command.session_id, command.command.clone())
        {
            warn!(
                "session {} did not take {:?} (ended?)",
                command.session_id, command.command
            );
        }
    }
}
