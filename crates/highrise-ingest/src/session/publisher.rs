//! The publisher: sends a session's whole-state reports to the consumer with `try_send`, so a
//! slow consumer misses stale reports instead of making anything buffer.

use std::time::{Duration, Instant};

use crossbeam_channel::{Sender, TrySendError};

use super::state::Session;
use crate::report::SessionReport;
use crate::sink::SessionSink;

/// How long the final report of a session may wait for room in a full report channel.
const FINAL_REPORT_TIMEOUT: Duration = Duration::from_secs(2);

/// Sends reports without ever queueing more than the channel holds.
pub(crate) struct Publisher<T> {
    reports: Sender<SessionReport<T>>,
    last_publish: Instant,
    events_at_last_publish: u64,
}

impl<T> Publisher<T> {
    pub(crate) fn new(reports: Sender<SessionReport<T>>) -> Self {
        Self {
            reports,
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

    /// Publishes when something changed (or `force`). A full channel leaves the session dirty,
    /// so the next tick retries with a fresher report instead of queueing this one.
    pub(crate) fn publish<S: SessionSink<Snapshot = T>>(
        &mut self,
        session: &mut Session<S>,
        force: bool,
    ) {
        if !(force || session.dirty || session.stats.events_per_s != 0.0) {
            return;
        }
        self.update_rate(session);
        match self.reports.try_send(session.report()) {
            Ok(()) => session.dirty = false,
            Err(TrySendError::Full(_)) => session.dirty = true,
            Err(TrySendError::Disconnected(_)) => session.dirty = false,
        }
    }

    /// The last report must arrive: wait a while for room. It reads 0 events/s: nothing flows
    /// after it, and a rate over the last moments (a replay reads its tail in a burst, tens of
    /// millions of events per second) would otherwise stay on screen for good.
    pub(crate) fn publish_final<S: SessionSink<Snapshot = T>>(&mut self, session: &mut Session<S>) {
        self.update_rate(session);
        session.stats.events_per_s = 0.0;
        let report = session.report();
        if self
            .reports
            .send_timeout(report, FINAL_REPORT_TIMEOUT)
            .is_err()
        {
            tracing::warn!(
                session_id = session.session_id,
                "final session report dropped: the consumer did not read reports"
            );
        }
    }
}
