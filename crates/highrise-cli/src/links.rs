//! Calls between services (OTLP sessions' links, `highrise_ingest::SessionLinks`) named for
//! people and files: `record` prints them and writes `links.json` beside the recordings.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use highrise_ingest::{LinksSnapshot, MethodRef, SessionId, SessionInfo, SessionReport};
use highrise_protocol::MethodDef;
use serde::{Deserialize, Serialize};

/// The file `record` writes in its output directory when services called each other.
pub const LINKS_FILE: &str = "links.json";

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
}

/// The content of `links.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinksFile {
    pub links: Vec<NamedLink>,
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
                })
            })
            .collect();
        named.sort_by(|a, b| b.calls.cmp(&a.calls));
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

/// Writes `links.json` into `dir`.
pub fn write_links(dir: &Path, links: Vec<NamedLink>) -> anyhow::Result<PathBuf> {
    let path = dir.join(LINKS_FILE);
    let text = serde_json::to_string_pretty(&LinksFile { links })?;
    std::fs::write(&path, text + "\n")
        .map_err(|error| anyhow::anyhow!("cannot write {}: {error}", path.display()))?;
    Ok(path)
}
