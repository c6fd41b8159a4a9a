//! Calls between services (OTLP sessions' links, `highrise_ingest::SessionLinks`) named for
//! people and files: `record` prints them and writes `links.json` beside the recordings
//! ([`highrise_report::links`], which replays read back).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use highrise_ingest::{LinksSnapshot, MethodRef, SessionId, SessionInfo, SessionReport};
use highrise_protocol::MethodDef;
use highrise_report::links::{LinkEnd, LinksFile, NamedLink};

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

/// Writes `links.json` into `dir`.
pub fn write_links(dir: &Path, links: Vec<NamedLink>) -> anyhow::Result<PathBuf> {
    Ok(LinksFile { links }.write(dir)?)
}
