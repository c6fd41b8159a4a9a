//! Calls between services in replays: a replayed OpenTelemetry recording has no live bridge
//! to find them, so they come from the `links.json` that `highrise record --otlp` wrote beside
//! the recordings ([`highrise_links::LinksFile`]). Each link's ends are matched to the
//! replay sessions by recording file name and method name, and its calls in the window are
//! counted at the callee replay's own moment, so the arcs grow and shrink as they did live.
//!
//! [`replayed_links`] is pure; [`ReplayLinks`] keeps the files read, by directory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bevy::prelude::*;
use highrise_ingest::{SessionId, SessionSource};
use highrise_links::{LinkEnd, LinksFile, MethodRef, SessionLink};

use super::sessions::{SessionView, Sessions};

/// The window replayed links count calls over, seconds (the live links' window).
pub const WINDOW_S: u64 = 3;

/// `links.json` files read (or found missing), by the directory of the replays beside them.
#[derive(Resource, Debug, Default)]
pub struct ReplayLinks {
    files: HashMap<PathBuf, Option<Arc<LinksFile>>>,
}

impl ReplayLinks {
    /// Reads the links file of every replayed session's directory not read yet (an unreadable
    /// one is said once and skipped).
    pub fn load_new(&mut self, sessions: &Sessions) {
        for view in sessions.by_id.values() {
            let Some(path) = replay_path(view) else {
                continue;
            };
            let dir = directory(path);
            if self.files.contains_key(&dir) {
                continue;
            }
            let file = match LinksFile::read_beside(path) {
                Ok(Some((path, file))) => {
                    info!(
                        "replaying {} calls between services from {}",
                        file.links.len(),
                        path.display()
                    );
                    Some(Arc::new(file))
                }
                Ok(None) => None,
                Err(error) => {
                    warn!("{error}");
                    None
                }
            };
            self.files.insert(dir, file);
        }
    }

    /// The files read, by directory.
    pub fn files(&self) -> impl Iterator<Item = (&Path, &Arc<LinksFile>)> {
        self.files
            .iter()
            .filter_map(|(dir, file)| Some((dir.as_path(), file.as_ref()?)))
    }
}

fn replay_path(view: &SessionView) -> Option<&Path> {
    match &view.report.stats.source {
        SessionSource::Replay { path } => Some(path),
        _ => None,
    }
}

fn directory(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The replay session of `end`'s recording in `dir`, and its method.
fn resolve(sessions: &Sessions, dir: &Path, end: &LinkEnd) -> Option<(MethodRef, SessionId)> {
    let recording = end.recording.as_deref()?;
    let (&session_id, view) = sessions.by_id.iter().find(|(_, view)| {
        replay_path(view).is_some_and(|path| {
            directory(path) == dir
                && path
                    .file_name()
                    .is_some_and(|name| name.to_string_lossy() == recording)
        })
    })?;
    let def = view
        .report
        .definitions()
        .find(|def| def.qualified_name() == end.method)?;
    Some((
        MethodRef {
            session_id,
            method_id: def.id,
        },
        session_id,
    ))
}

/// The Unix second a session is at: its clock's zero plus the program time shown.
fn unix_second(view: &SessionView) -> Option<u64> {
    let info = view.report.info.as_ref()?;
    let now_ns = view.snapshot()?.now_ns;
    Some(info.clock_zero_unix_ns.saturating_add(now_ns) / 1_000_000_000)
}

/// The recorded calls between replayed sessions, as live links at each callee's moment: calls
/// so far and in the last [`WINDOW_S`] seconds. Links whose ends are not both replayed (or
/// whose methods are not defined yet) are left out.
pub fn replayed_links<'a>(
    files: impl IntoIterator<Item = (&'a Path, &'a Arc<LinksFile>)>,
    sessions: &Sessions,
) -> Vec<SessionLink> {
    let mut links = Vec::new();
    for (dir, file) in files {
        for link in &file.links {
            let Some((caller, _)) = resolve(sessions, dir, &link.caller) else {
                continue;
            };
            let Some((callee, callee_session)) = resolve(sessions, dir, &link.callee) else {
                continue;
            };
            let Some(now_s) = sessions.by_id.get(&callee_session).and_then(unix_second) else {
                continue;
            };
            links.push(SessionLink {
                caller,
                callee,
                calls_total: link.calls_before(now_s),
                calls_window: link.calls_in_window(now_s, WINDOW_S),
                calls_by_second: Default::default(),
            });
        }
    }
    links.sort_by_key(|link| (link.caller, link.callee));
    links
}
