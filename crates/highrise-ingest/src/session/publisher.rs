//! The publisher: hands a session's whole-state reports to every consumer's mailbox
//! ([`crate::updates`]): the first and the final one exactly once, periodic ones coalesced
//! (latest wins), so a slow consumer misses stale reports and never makes anything grow.

use std::time::Instant;

use super::state::Session;
use crate::sink::SessionSink;
use crate::updates::{ReportHub, ReportKind};

/// The shortest interval an events/s figure is measured over, seconds.
const RATE_INTERVAL_S: f64 = 0.5;

/// Publishes one session's reports.
pub(crate) struct Publisher<T> {
    hub: ReportHub<T>,
    sent_first: bool,
    rate_since: Instant,
    events_at_rate_since: u64,
    resyncs_at_rate_since: u64,
}

impl<T: Clone> Publisher<T> {
    pub(crate) fn new(hub: ReportHub<T>) -> Self {
        Self {
            hub,
            sent_first: false,
            rate_since: Instant::now(),
            events_at_rate_since: 0,
            resyncs_at_rate_since: 0,
        }
    }

    /// The event and sample rates over the last [`RATE_INTERVAL_S`] or more: agents send in
    /// batches (every few ms), so a rate per 16 ms report would flicker between 0 and bursts.
    fn update_rate<S: SessionSink<Snapshot = T>>(&mut self, session: &mut Session<S>) {
        let now = Instant::now();
        let elapsed_s = now.duration_since(self.rate_since).as_secs_f64();
        if elapsed_s < RATE_INTERVAL_S && self.sent_first {
            return;
        }
        if elapsed_s > 0.0 {
            let new_events = session
                .stats
                .events
                .saturating_sub(self.events_at_rate_since);
            session.stats.events_per_s = new_events as f64 / elapsed_s;
            let new_resyncs = session
                .stats
                .resyncs
                .saturating_sub(self.resyncs_at_rate_since);
            session.stats.resyncs_per_s = new_resyncs as f64 / elapsed_s;
        }
        self.rate_since = now;
        self.events_at_rate_since = session.stats.events;
        self.resyncs_at_rate_since = session.stats.resyncs;
    }

    /// Publishes when something changed (or `force`). The session's first report is kept for
    /// every consumer until read; later ones replace each other until read.
    pub(crate) fn publish<S: SessionSink<Snapshot = T>>(
        &mut self,
        session: &mut Session<S>,
        force: bool,
    ) {
        let flowing = session.stats.events_per_s != 0.0 || session.stats.resyncs_per_s != 0.0;
        if !(force || session.dirty || flowing) {
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
        session.stats.events_per_s = 0.0;
        session.stats.resyncs_per_s = 0.0;
        if !self.hub.publish(ReportKind::Final, session.report()) {
            tracing::debug!(
                session_id = session.session_id,
                "session ended with no consumer subscribed"
            );
        }
    }
}
