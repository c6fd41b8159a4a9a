//! Server configuration.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use highrise_protocol::{Hello, DEFAULT_PORT};

use crate::session_report::SessionId;

/// How the ingest server listens and publishes.
#[derive(Debug, Clone)]
pub struct IngestConfig {
    /// Where to listen. Loopback by default; anything else is the caller's explicit choice.
    pub listen_addr: SocketAddr,
    /// How often each session publishes a report while data flows.
    pub publish_interval: Duration,
    /// Decoded frames a session's reader may run ahead of its worker. When full, the reader
    /// stops reading the socket, TCP flow control pushes back, and the agent drops and counts.
    pub frame_queue_capacity: usize,
    /// Record every session from its first frame (`highrise record`). Where each goes (see
    /// [`recording_path`]): an existing directory gets `PROGRAM-LABEL-sID.hrec` per
    /// session; a path containing `{session}` (and optionally `{program}`, `{label}`) is
    /// filled in; any other path is used as is by session 1 and gets `-sID` before its
    /// extension for later sessions.
    pub record_sessions_to: Option<PathBuf>,
    /// The shared secret an agent whose connection does not come from a loopback address must
    /// send in its Hello (SPEC.md, "Tokens"); a Hello without it, or with another, is rejected.
    /// Loopback peers never need it. `None` (the default): no token asked of anyone, which is
    /// right on loopback; a server listening beyond loopback should have one
    /// ([`crate::settle_token`] makes one up when none is given).
    pub token: Option<String>,
}

impl Default for IngestConfig {
    fn default() -> Self {
        Self {
            listen_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, DEFAULT_PORT)),
            publish_interval: Duration::from_millis(50),
            frame_queue_capacity: 64,
            record_sessions_to: None,
            token: None,
        }
    }
}

/// The file session `session_id` is recorded to under [`IngestConfig::record_sessions_to`].
pub fn recording_path(target: &Path, session_id: SessionId, hello: &Hello) -> PathBuf {
    let clean = |text: &str| -> String {
        let cleaned: String = text
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if cleaned.is_empty() {
            "unnamed".into()
        } else {
            cleaned
        }
    };
    if target.is_dir() {
        let mut name = clean(&hello.program);
        if !hello.version_label.is_empty() {
            name = format!("{name}-{}", clean(&hello.version_label));
        }
        return target.join(format!(
            "{name}-s{session_id}.{}",
            highrise_record::EXTENSION
        ));
    }
    let text = target.to_string_lossy();
    if text.contains("{session}") {
        return PathBuf::from(
            text.replace("{session}", &session_id.to_string())
                .replace("{program}", &clean(&hello.program))
                .replace("{label}", &clean(&hello.version_label)),
        );
    }
    if session_id == 1 {
        return target.to_path_buf();
    }
    let stem = target.file_stem().map_or_else(
        || "recording".into(),
        |stem| stem.to_string_lossy().into_owned(),
    );
    let name = match target.extension() {
        Some(extension) => format!("{stem}-s{session_id}.{}", extension.to_string_lossy()),
        None => format!("{stem}-s{session_id}"),
    };
    target.with_file_name(name)
}
