//! How session reports reach consumers: lossless where it matters, coalesced where it does not.
//!
//! Each consumer has its own mailbox ([`Updates`], from [`crate::IngestServer::updates`] or
//! [`crate::IngestServer::subscribe`]). Per session a mailbox holds at most three reports:
//! - the session's **first** report (it connected) and its **final** one (it ended, with the
//!   last statistics and snapshot): delivered to every mailbox exactly once, whatever the load;
//! - its **latest** periodic report: a newer one replaces it (latest wins), and the final report
//!   replaces it too, being newer whole state.
//!
//! Sessions with news are served round-robin, so one busy session cannot starve the others.
//! Nothing waits on a consumer: publishing is a short critical section, and a slow consumer
//! only ever holds three reports per session it has not caught up with (plus, until read, the
//! final reports of sessions that ended — a session's end is never dropped).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

pub use crossbeam_channel::{RecvTimeoutError, TryRecvError};

use crate::session_report::{SessionId, SessionReport};

/// What a report means for delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReportKind {
    /// The session's first report: delivered exactly once.
    First,
    /// A periodic report: coalesced (latest wins).
    Periodic,
    /// The session's final report: delivered exactly once, after everything else of it.
    Final,
}

/// The publishing side, shared by every session's worker: fans each report out to every
/// live mailbox. Cloning it counts one more producer; when the server and every worker have
/// dropped theirs, a drained mailbox reads as disconnected.
pub(crate) struct ReportHub<T> {
    shared: Arc<HubShared<T>>,
}

struct HubShared<T> {
    mailboxes: Mutex<Vec<Weak<Mailbox<T>>>>,
    producers: AtomicUsize,
}

struct Mailbox<T> {
    pending: Mutex<Pending<T>>,
    ready: Condvar,
}

struct Pending<T> {
    /// Sessions with undelivered reports, in the order they are served.
    order: VecDeque<SessionId>,
    slots: HashMap<SessionId, Slot<T>>,
    /// Set when the last producer is gone.
    disconnected: bool,
}

struct Slot<T> {
    first: Option<SessionReport<T>>,
    latest: Option<SessionReport<T>>,
    last: Option<SessionReport<T>>,
}

impl<T> Slot<T> {
    fn is_empty(&self) -> bool {
        self.first.is_none() && self.latest.is_none() && self.last.is_none()
    }

    fn len(&self) -> usize {
        usize::from(self.first.is_some())
            + usize::from(self.latest.is_some())
            + usize::from(self.last.is_some())
    }

    /// The next report to deliver: first, then the latest state, then the end.
    fn take_next(&mut self) -> Option<SessionReport<T>> {
        self.first
            .take()
            .or_else(|| self.latest.take())
            .or_else(|| self.last.take())
    }
}

impl<T> Pending<T> {
    fn put(&mut self, kind: ReportKind, report: SessionReport<T>) {
        let session_id = report.session_id;
        let Self { order, slots, .. } = self;
        let slot = slots.entry(session_id).or_insert_with(|| {
            order.push_back(session_id);
            Slot {
                first: None,
                latest: None,
                last: None,
            }
        });
        match kind {
            ReportKind::First => slot.first = Some(report),
            ReportKind::Periodic => slot.latest = Some(report),
            ReportKind::Final => {
                // The end is newer whole state than any periodic report still waiting.
                slot.latest = None;
                slot.last = Some(report);
            }
        }
    }

    fn take(&mut self) -> Option<SessionReport<T>> {
        while let Some(session_id) = self.order.pop_front() {
            let Some(slot) = self.slots.get_mut(&session_id) else {
                continue;
            };
            let report = slot.take_next();
            if slot.is_empty() {
                self.slots.remove(&session_id);
            } else {
                self.order.push_back(session_id);
            }
            if report.is_some() {
                return report;
            }
        }
        None
    }

    fn len(&self) -> usize {
        self.slots.values().map(Slot::len).sum()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl<T: Clone> ReportHub<T> {
    /// A hub with one mailbox already subscribed (the server's [`Updates`]), so nothing
    /// published from the start is missed.
    pub(crate) fn new() -> (Self, Updates<T>) {
        let shared = Arc::new(HubShared {
            mailboxes: Mutex::new(Vec::new()),
            producers: AtomicUsize::new(1),
        });
        let hub = Self { shared };
        let updates = hub.subscribe();
        (hub, updates)
    }

    /// A new mailbox that receives every report published from now on.
    pub(crate) fn subscribe(&self) -> Updates<T> {
        let mailbox = Arc::new(Mailbox {
            pending: Mutex::new(Pending {
                order: VecDeque::new(),
                slots: HashMap::new(),
                disconnected: false,
            }),
            ready: Condvar::new(),
        });
        let mut mailboxes = lock(&self.shared.mailboxes);
        mailboxes.retain(|weak| weak.strong_count() > 0);
        mailboxes.push(Arc::downgrade(&mailbox));
        Updates { mailbox }
    }

    /// Delivers `report` to every live mailbox. False when no consumer is left.
    pub(crate) fn publish(&self, kind: ReportKind, report: SessionReport<T>) -> bool {
        let mailboxes: Vec<Arc<Mailbox<T>>> = {
            let mut weak = lock(&self.shared.mailboxes);
            weak.retain(|weak| weak.strong_count() > 0);
            weak.iter().filter_map(Weak::upgrade).collect()
        };
        let Some((last, others)) = mailboxes.split_last() else {
            return false;
        };
        for mailbox in others {
            mailbox.put(kind, report.clone());
        }
        last.put(kind, report);
        true
    }
}

impl<T> Mailbox<T> {
    fn put(&self, kind: ReportKind, report: SessionReport<T>) {
        lock(&self.pending).put(kind, report);
        self.ready.notify_all();
    }
}

impl<T> Clone for ReportHub<T> {
    fn clone(&self) -> Self {
        self.shared.producers.fetch_add(1, Ordering::Relaxed);
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<T> Drop for ReportHub<T> {
    fn drop(&mut self) {
        if self.shared.producers.fetch_sub(1, Ordering::AcqRel) != 1 {
            return;
        }
        for mailbox in lock(&self.shared.mailboxes)
            .iter()
            .filter_map(Weak::upgrade)
        {
            lock(&mailbox.pending).disconnected = true;
            mailbox.ready.notify_all();
        }
    }
}

/// One consumer's mailbox of session reports (see the module documentation): every session's
/// first and final report exactly once, and the newest state of each session in between.
/// The methods mirror a channel receiver's.
pub struct Updates<T> {
    mailbox: Arc<Mailbox<T>>,
}

/// Another handle on the same mailbox (for reading on after the server that owns it is gone):
/// a report is read by one handle, not by each.
impl<T> Clone for Updates<T> {
    fn clone(&self) -> Self {
        Self {
            mailbox: Arc::clone(&self.mailbox),
        }
    }
}

impl<T> std::fmt::Debug for Updates<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Updates")
            .field("pending", &self.len())
            .finish()
    }
}

impl<T> Updates<T> {
    /// The next report if one is waiting.
    pub fn try_recv(&self) -> Result<SessionReport<T>, TryRecvError> {
        let mut pending = lock(&self.mailbox.pending);
        match pending.take() {
            Some(report) => Ok(report),
            None if pending.disconnected => Err(TryRecvError::Disconnected),
            None => Err(TryRecvError::Empty),
        }
    }

    /// Waits up to `timeout` for the next report.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<SessionReport<T>, RecvTimeoutError> {
        let deadline = Instant::now() + timeout;
        let mut pending = lock(&self.mailbox.pending);
        loop {
            if let Some(report) = pending.take() {
                return Ok(report);
            }
            if pending.disconnected {
                return Err(RecvTimeoutError::Disconnected);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(RecvTimeoutError::Timeout);
            }
            pending = self
                .mailbox
                .ready
                .wait_timeout(pending, left)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
    }

    /// Every report waiting now, without blocking.
    pub fn try_iter(&self) -> impl Iterator<Item = SessionReport<T>> + '_ {
        std::iter::from_fn(move || self.try_recv().ok())
    }

    /// Reports waiting now (at most three per session).
    pub fn len(&self) -> usize {
        lock(&self.mailbox.pending).len()
    }

    /// True when no report is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session_report::{SessionEnd, SessionStats, SessionStatus};

    fn report(session_id: SessionId, events: u64, status: SessionStatus) -> SessionReport<()> {
        SessionReport {
            session_id,
            peer: "127.0.0.1:1".parse().expect("address"),
            info: None,
            status,
            stats: SessionStats {
                events,
                ..SessionStats::default()
            },
            errors: Vec::new(),
            definition_chunks: Vec::new(),
            class_chunks: Vec::new(),
            relation_chunks: Vec::new(),
            threads: Arc::default(),
            sink: None,
        }
    }

    #[test]
    fn periodic_reports_coalesce_but_first_and_final_are_kept() {
        let (hub, updates) = ReportHub::new();
        hub.publish(ReportKind::First, report(1, 0, SessionStatus::Connected));
        for events in 1..=1_000 {
            hub.publish(
                ReportKind::Periodic,
                report(1, events, SessionStatus::Connected),
            );
        }
        assert_eq!(updates.len(), 2);
        hub.publish(
            ReportKind::Final,
            report(1, 1_001, SessionStatus::Ended(SessionEnd::Goodbye)),
        );
        let got: Vec<_> = updates.try_iter().map(|r| r.stats.events).collect();
        // The final report replaced the waiting periodic one.
        assert_eq!(got, vec![0, 1_001]);
    }

    #[test]
    fn sessions_are_served_in_turn_and_every_subscriber_gets_every_end() {
        let (hub, first) = ReportHub::new();
        let second = hub.subscribe();
        for session in 1..=3 {
            hub.publish(
                ReportKind::First,
                report(session, 0, SessionStatus::Connected),
            );
            hub.publish(
                ReportKind::Periodic,
                report(session, 5, SessionStatus::Connected),
            );
        }
        for session in 1..=3 {
            hub.publish(
                ReportKind::Final,
                report(session, 9, SessionStatus::Ended(SessionEnd::Disconnected)),
            );
        }
        for updates in [&first, &second] {
            let got: Vec<_> = updates
                .try_iter()
                .map(|r| (r.session_id, r.is_ended()))
                .collect();
            assert_eq!(
                got,
                vec![
                    (1, false),
                    (2, false),
                    (3, false),
                    (1, true),
                    (2, true),
                    (3, true)
                ]
            );
        }
    }

    #[test]
    fn a_drained_mailbox_reads_disconnected_once_every_producer_is_gone() {
        let (hub, updates) = ReportHub::<()>::new();
        let worker = hub.clone();
        drop(hub);
        assert_eq!(updates.try_recv().err(), Some(TryRecvError::Empty));
        worker.publish(
            ReportKind::Final,
            report(4, 1, SessionStatus::Ended(SessionEnd::Goodbye)),
        );
        drop(worker);
        assert!(updates.try_recv().is_ok());
        assert_eq!(
            updates.recv_timeout(Duration::from_millis(1)).err(),
            Some(RecvTimeoutError::Disconnected)
        );
    }
}
