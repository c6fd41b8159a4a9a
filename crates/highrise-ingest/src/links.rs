//! Calls that cross sessions: a method of one session calling a method of another (an
//! OpenTelemetry span whose parent span is in another service). A session's own stream cannot
//! say this, so whoever sees both ends (the OTLP bridge) publishes them here as a whole-state
//! [`LinksSnapshot`], and consumers (the viewer's landscape, `highrise record`) read the latest.

use std::sync::{Arc, Mutex};

use crate::report::SessionId;

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

/// The board links are published on: one per ingest server
/// ([`crate::IngestServer::session_links`], [`crate::LocalSessions::links`]). Cheap to clone;
/// the latest snapshot wins.
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
}
