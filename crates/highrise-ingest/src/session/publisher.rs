//! The publisher: hands a session's whole-state reports to every consumer's mailbox
//! ([`crate::updates`]): the first and the final one exactly once, periodic ones coalesced
//! (latest wins), so a slow consumer misses stale reports and never makes anything grow.

use std::time::Instant;

use super::state::Session;
use crate::sink::SessionSink;
use crate::updates::{ReportHub, ReportKind};

/// Publishes one session's reports.
pub(crate) struct Publisher<T> {
    hub: ReportHub<T>,
    sent_first: bool,
    last_publish: Instant,
    events_at_last_publish: u64,
}

impl<T: Clone> Publisher<T> {
    pub(crate) fn new(hub: ReportHub<T>) -> Self {
        Self {
            hub,
            sent_first: false,
            last_publish: Instant::now(),
            events_at_last_publish: 0,
        }
    }

    fn update_rate<S: SessionSink<Snapshot = T>>(&mut self, session: &mut Session<S>) {
        let now = Instant::now();
        let elapsed_s = now.duration_since(self.last_publish).as_secs_f64();
        if elapsed_s > 0.0 {
            let new_events = session
                .stats
                .events
                .saturating_sub(self.events_at_last_publish);
            session.stats.events_per_s = new_events as f64 / elapsed_s;
        }
        self.last_publish = now;
        self.events_at_last_publish = session.stats.events;
    }

    /// Publishes when something changed (or `force`). The session's first report is kept for
    /// every consumer until read; later ones replace each other until read.
    pub(crate) fn publish<S: SessionSink<Snapshot = T>>(
        &mut self,
        session: &mut Session<S>,
        force: bool,
    ) {
        if !(force || session.dirty || session.stats.events_per_s != 0.0) {
            return;
        }
        self.update_rate(session);
        let kind = if self.sent_first {
            ReportKind::Periodic
        } else {
            ReportKind::First
        };
        self.sent_first = true;
        self.hub.publish(kind, session.report());
        session.dirty = false;
    }

    /// The last report, delivered to every consumer exactly once whatever the load. It reads 0
    /// events/s: nothing flows after it, and a rate over the last moments (a replay reads its
    /// tail in a burst, tens of millions of events per second) would otherwise stay on screen
    /// for good.
    pub(crate) fn publish_final<S: SessionSink<Snapshot = T>>(&mut self, session: &mut Session<S>) {
        self.update_rate(session);
        session.stats.events_per_s = 0.0;
        if !self.hub.publish(ReportKind::Final, session.report()) {
            tracing::debug!(
                session_id = session.session_id,
                "session ended with no consumer subscribed"
            );
        }
    }
}
