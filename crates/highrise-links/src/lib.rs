//! # highrise-links
//!
//! Calls between services, from end to end: the one home of cross-service links. The OTLP
//! bridge finds them, the window and `highrise record` read them; none of them needs another's
//! crate for it.
//!
//! A method of one session calling a method of another (an OpenTelemetry span whose parent
//! span is in another service) is a [`SessionLink`]. A session's own stream cannot say this,
//! so whoever sees both ends (the OTLP bridge, `highrise_otlp::link_tracker` finds them) publishes
//! them on a board ([`SessionLinks`]) as a whole-state [`LinksSnapshot`], and consumers (the
//! viewer's landscape, `highrise record`) read the latest. [`SessionNames`] names a snapshot's
//! ends for people and files, [`link_line`] prints one, and `links.json` ([`LinksFile`]) keeps
//! them beside `highrise record`'s recordings so a replay can draw them again
//! ([`LinksFile::read_beside`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use highrise_ingest::{SessionId, SessionInfo, SessionReport};
use highrise_protocol::MethodDef;
use serde::{Deserialize, Serialize};

/// One method of one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MethodRef {
    pub session_id: SessionId,
    pub method_id: u32,
}

/// Calls from `caller` (in one session) to `callee` (in another).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionLink {
    pub caller: MethodRef,
    pub callee: MethodRef,
    /// Every call so far.
    pub calls_total: u64,
    /// Calls that started within the last [`LinksSnapshot::window_s`] of the callee's session
    /// time (its horizon, for OTLP sessions).
    pub calls_window: u64,
    /// The calls by the Unix second their callee started in (the callee's clock), oldest
    /// first, the last hour at most: what a recording keeps so replays can draw the link as it
    /// was ([`CallsBySecond`]).
    pub calls_by_second: CallsBySecond,
}

/// (Unix second, calls started in it), ascending, shared between snapshots.
pub type CallsBySecond = Arc<Vec<(u64, u64)>>;

/// Every cross-session link known, at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinksSnapshot {
    /// Grows with each publish; a consumer redraws only when it changed.
    pub generation: u64,
    /// The window `calls_window` counts over, seconds.
    pub window_s: f32,
    /// Sorted by caller, then callee.
    pub links: Vec<SessionLink>,
}

impl LinksSnapshot {
    /// Calls per second over the window.
    pub fn rate_per_s(&self, link: &SessionLink) -> f32 {
        if self.window_s > 0.0 {
            link.calls_window as f32 / self.window_s
        } else {
            0.0
        }
    }
}

/// The board links are published on, made by whoever wires the OTLP receivers to the readers
/// (`highrise` makes one per run and hands it to both). Cheap to clone; the latest snapshot
/// wins.
#[derive(Debug, Clone, Default)]
pub struct SessionLinks {
    latest: Arc<Mutex<Arc<LinksSnapshot>>>,
}

impl SessionLinks {
    /// Replaces the board's snapshot (its generation is set to the previous one's + 1).
    pub fn publish(&self, window_s: f32, links: Vec<SessionLink>) {
        let mut latest = match self.latest.lock() {
            Ok(latest) => latest,
            Err(poisoned) => poisoned.into_inner(),
        };
        let generation = latest.generation + 1;
        *latest = Arc::new(LinksSnapshot {
            generation,
            window_s,
            links,
        });
    }

    /// The latest snapshot (empty, generation 0, before the first publish).
    pub fn latest(&self) -> Arc<LinksSnapshot> {
        let latest = match self.latest.lock() {
            Ok(latest) => latest,
            Err(poisoned) => poisoned.into_inner(),
        };
        Arc::clone(&latest)
    }
}

/// The file `record` writes in its output directory when services called each other.
pub const LINKS_FILE: &str = "links.json";

/// One end of a link, by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkEnd {
    /// The service (the session's program).
    pub service: String,
    /// The session's origin (`otlp; host=…; instance=…; sdk=…`).
    pub agent: String,
    /// The session's recording file name, when it was recorded.
    pub recording: Option<String>,
    /// `package.Class.method`.
    pub method: String,
}

/// A call between services, by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedLink {
    pub caller: LinkEnd,
    pub callee: LinkEnd,
    pub calls: u64,
    /// (Unix second on the callee's clock, calls that started in it), ascending: how the calls
    /// spread over the recording (absent in files from before it was kept).
    #[serde(default)]
    pub calls_by_second: Vec<(u64, u64)>,
}

impl NamedLink {
    /// Calls that started in the `window_s` whole seconds before the second `unix_s` (which
    /// is still going on at that moment, so left out), as the live view counts its window.
    pub fn calls_in_window(&self, unix_s: u64, window_s: u64) -> u64 {
        let first = unix_s.saturating_sub(window_s);
        let from = self.calls_by_second.partition_point(|&(s, _)| s < first);
        let to = self.calls_by_second.partition_point(|&(s, _)| s < unix_s);
        self.calls_by_second[from..to]
            .iter()
            .map(|&(_, calls)| calls)
            .sum()
    }

    /// Calls that started before the second `unix_s`, those from before the series' oldest
    /// second (trimmed) included; all of them without a series.
    pub fn calls_before(&self, unix_s: u64) -> u64 {
        if self.calls_by_second.is_empty() {
            return self.calls;
        }
        let in_series: u64 = self.calls_by_second.iter().map(|&(_, calls)| calls).sum();
        let to = self.calls_by_second.partition_point(|&(s, _)| s < unix_s);
        let seen: u64 = self.calls_by_second[..to].iter().map(|&(_, c)| c).sum();
        self.calls.saturating_sub(in_series) + seen
    }
}

/// What is known of each session to name a link's ends: its Hello, definitions and recording.
#[derive(Debug, Default)]
pub struct SessionNames {
    by_id: HashMap<SessionId, Named>,
}

#[derive(Debug)]
struct Named {
    info: SessionInfo,
    definitions: Vec<Arc<[MethodDef]>>,
    recording: Option<PathBuf>,
}

impl SessionNames {
    /// Keeps what a report says about its session (the latest report has every definition).
    pub fn note<T>(&mut self, report: &SessionReport<T>) {
        let Some(info) = &report.info else {
            return;
        };
        self.by_id.insert(
            report.session_id,
            Named {
                info: info.clone(),
                definitions: report.definition_chunks.clone(),
                recording: report
                    .stats
                    .recording
                    .as_ref()
                    .map(|recording| recording.path.clone()),
            },
        );
    }

    fn end(&self, end: MethodRef) -> Option<LinkEnd> {
        let named = self.by_id.get(&end.session_id)?;
        let def = named
            .definitions
            .iter()
            .flat_map(|chunk| chunk.iter())
            .find(|def| def.id == end.method_id)?;
        Some(LinkEnd {
            service: named.info.program.clone(),
            agent: named.info.agent.clone(),
            recording: named
                .recording
                .as_ref()
                .and_then(|path| path.file_name())
                .map(|name| name.to_string_lossy().into_owned()),
            method: def.qualified_name(),
        })
    }

    /// The links whose two ends are known, by name, busiest first.
    pub fn name(&self, links: &LinksSnapshot) -> Vec<NamedLink> {
        let mut named: Vec<NamedLink> = links
            .links
            .iter()
            .filter_map(|link| {
                Some(NamedLink {
                    caller: self.end(link.caller)?,
                    callee: self.end(link.callee)?,
                    calls: link.calls_total,
                    calls_by_second: link.calls_by_second.to_vec(),
                })
            })
            .collect();
        named.sort_by_key(|link| std::cmp::Reverse(link.calls));
        named
    }
}

/// `checkout (host-1) shop.api.Inventory.reserve → inventory (host-6) GET /reserve: 31 calls`.
pub fn link_line(link: &NamedLink) -> String {
    let end = |end: &LinkEnd| {
        let host = end
            .agent
            .split(';')
            .find_map(|part| part.trim().strip_prefix("host="))
            .filter(|host| !host.is_empty())
            .map(|host| format!(" ({host})"))
            .unwrap_or_default();
        format!("{}{host} {}", end.service, end.method)
    };
    format!(
        "{} → {}: {} calls",
        end(&link.caller),
        end(&link.callee),
        link.calls
    )
}

/// Why `links.json` could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum LinksFileError {
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a links file: {source}")]
    Format {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// The content of `links.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinksFile {
    pub links: Vec<NamedLink>,
}

impl LinksFile {
    /// Writes `links.json` into `dir`.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, LinksFileError> {
        let path = dir.join(LINKS_FILE);
        let text = match serde_json::to_string_pretty(self) {
            Ok(text) => text,
            Err(source) => return Err(LinksFileError::Format { path, source }),
        };
        match std::fs::write(&path, text + "\n") {
            Ok(()) => Ok(path),
            Err(source) => Err(LinksFileError::Io { path, source }),
        }
    }

    /// The `links.json` beside `recording` (in its directory), if there is one; an unreadable
    /// one is an error that names it.
    pub fn read_beside(recording: &Path) -> Result<Option<(PathBuf, Self)>, LinksFileError> {
        let dir = match recording.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let path = dir.join(LINKS_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(LinksFileError::Io { path, source }),
        };
        match serde_json::from_str(&text) {
            Ok(file) => Ok(Some((path, file))),
            Err(source) => Err(LinksFileError::Format { path, source }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_publish_wins_and_generations_grow() {
        let board = SessionLinks::default();
        let reader = board.clone();
        assert_eq!(reader.latest().generation, 0);
        assert!(reader.latest().links.is_empty());
        let link = SessionLink {
            caller: MethodRef {
                session_id: 1,
                method_id: 3,
            },
            callee: MethodRef {
                session_id: 2,
                method_id: 0,
            },
            calls_total: 10,
            calls_window: 6,
            calls_by_second: Arc::new(vec![(1_800_000_000, 10)]),
        };
        board.publish(3.0, vec![link.clone()]);
        board.publish(
            3.0,
            vec![SessionLink {
                calls_total: 12,
                ..link
            }],
        );
        let latest = reader.latest();
        assert_eq!(latest.generation, 2);
        assert_eq!(latest.links.len(), 1);
        assert_eq!(latest.links[0].calls_total, 12);
        assert_eq!(latest.rate_per_s(&latest.links[0]), 2.0);
    }

    fn end(service: &str, method: &str) -> LinkEnd {
        LinkEnd {
            service: service.into(),
            agent: format!("otlp; host={service}-host; instance=; sdk="),
            recording: Some(format!("{service}-s1.hrec")),
            method: method.into(),
        }
    }

    #[test]
    fn windows_count_the_seconds_they_cover_and_files_round_trip() {
        let link = NamedLink {
            caller: end("shop", "shop.api.Inventory.reserve"),
            callee: end("inventory", "flask.server.GET /reserve"),
            calls: 9,
            calls_by_second: vec![(100, 2), (101, 3), (103, 4)],
        };
        // The second under way is left out: at 101.x only second 100 is whole.
        assert_eq!(link.calls_in_window(100, 3), 0);
        assert_eq!(link.calls_in_window(101, 3), 2);
        assert_eq!(link.calls_in_window(103, 3), 5);
        assert_eq!(link.calls_in_window(104, 3), 7);
        assert_eq!(link.calls_in_window(106, 3), 4);
        assert_eq!(link.calls_in_window(107, 3), 0);
        assert_eq!(link.calls_before(101), 2);
        assert_eq!(link.calls_before(200), 9);
        // Its oldest seconds trimmed: what they held still counts.
        let trimmed = NamedLink {
            calls_by_second: link.calls_by_second[1..].to_vec(),
            ..link.clone()
        };
        assert_eq!(
            (trimmed.calls_before(101), trimmed.calls_before(102)),
            (2, 5)
        );

        let dir = tempfile::tempdir().expect("a directory");
        let file = LinksFile { links: vec![link] };
        let written = file.write(dir.path()).expect("written");
        let (read_path, read) = LinksFile::read_beside(&dir.path().join("shop-s1.hrec"))
            .expect("readable")
            .expect("found");
        assert_eq!((read_path, read), (written, file));
        // Files from before the series was kept still read.
        std::fs::write(
            dir.path().join(LINKS_FILE),
            r#"{"links":[{"caller":{"service":"a","agent":"","recording":null,"method":"m"},
                "callee":{"service":"b","agent":"","recording":null,"method":"n"},"calls":3}]}"#,
        )
        .expect("written");
        let (_, old) = LinksFile::read_beside(&dir.path().join("x.hrec"))
            .expect("readable")
            .expect("found");
        assert!(old.links[0].calls_by_second.is_empty());
        assert!(matches!(
            LinksFile::read_beside(Path::new("/nonexistent/x.hrec")),
            Ok(None)
        ));
        std::fs::write(dir.path().join(LINKS_FILE), "not json").expect("written");
        let error = LinksFile::read_beside(&dir.path().join("x.hrec")).expect_err("refused");
        assert!(error.to_string().contains("is not a links file"), "{error}");
    }
}
