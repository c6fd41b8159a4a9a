//! The bridge thread: decoded requests in, one ingest session per OTel resource out. It corrects
//! each host's clock ([`SkewEstimator`]), queues spans on their session's [`Timeline`], and on
//! every tick moves every session's horizon to now − delay, handing the messages to the session.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crossbeam_channel::{select, tick, Receiver};
use highrise_ingest::{LocalSession, LocalSessions, MethodRef};
use highrise_protocol::{AgentMessage, Hello, MAGIC, PROTOCOL_VERSION};

use crate::links::{LinkTracker, SpanIds};
use crate::skew::SkewEstimator;
use crate::spans::{Decoded, ResourceId, ResourceInfo};
use crate::stats::OtlpStats;
use crate::timeline::{Timeline, TimelineCounts};

/// A request that passed decoding, on its way to the bridge.
#[derive(Debug)]
pub(crate) struct Incoming {
    pub peer: SocketAddr,
    pub received_unix_ns: u64,
    pub decoded: Decoded,
}

/// How the bridge runs.
#[derive(Debug, Clone)]
pub(crate) struct BridgeSettings {
    pub delay: Duration,
    pub tick: Duration,
    pub idle_end: Duration,
}

struct OtlpSession {
    session: LocalSession,
    timeline: Timeline,
    last_span: Instant,
    /// The timeline's counts as last added to the stats.
    reported: TimelineCounts,
}

impl OtlpSession {
    fn report(&mut self, stats: &OtlpStats) {
        let now = self.timeline.counts();
        stats.count_progress(&self.reported, &now);
        self.reported = now;
    }
}

pub(crate) fn unix_now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
        })
}

/// What a session's Hello says `agent` is: the origin of an OTLP session, readable by people
/// and by the landscape (`otlp; host=…; instance=…; sdk=…`).
pub fn agent_text(info: &ResourceInfo) -> String {
    // The values cannot add parts of their own (an instance id saying `; host=x`).
    let part = |value: &str| value.replace(';', ",");
    format!(
        "otlp; host={}; instance={}; sdk={}",
        part(&info.id.host),
        part(&info.id.instance),
        part(&info.sdk)
    )
}

pub(crate) fn run(
    incoming: Receiver<Incoming>,
    sessions: LocalSessions,
    settings: BridgeSettings,
    stats: Arc<OtlpStats>,
    stop: Arc<AtomicBool>,
) {
    let delay_ns = u64::try_from(settings.delay.as_nanos()).unwrap_or(u64::MAX);
    let ticker = tick(settings.tick);
    let mut open: HashMap<ResourceId, OtlpSession> = HashMap::new();
    let mut hosts: HashMap<String, SkewEstimator> = HashMap::new();
    let mut links = Links {
        tracker: LinkTracker::new(),
        epoch: Instant::now(),
        published: Instant::now(),
    };
    loop {
        select! {
            recv(incoming) -> request => {
                let Ok(request) = request else { break };
                accept(request, &mut open, &mut hosts, &sessions, delay_ns, &stats, &mut links);
            },
            recv(ticker) -> _ => {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let horizon = unix_now_ns().saturating_sub(delay_ns);
                open.retain(|id, session| {
                    let going_on = advance(id, session, horizon, settings.idle_end, &stats);
                    let session_id = session.session.id();
                    if going_on {
                        links.tracker.advance(session_id, horizon);
                    } else {
                        links.tracker.end_session(session_id);
                    }
                    going_on
                });
                links.publish(&sessions, horizon, false);
            },
        }
    }
    // Lossless ends: every waiting span out, then a Goodbye.
    while let Ok(request) = incoming.try_recv() {
        accept(
            request, &mut open, &mut hosts, &sessions, delay_ns, &stats, &mut links,
        );
    }
    let mut last_horizon = 0;
    for (_, mut session) in open.drain() {
        let (messages, end) = session.timeline.finish();
        session.report(&stats);
        links.tracker.end_session(session.session.id());
        last_horizon = last_horizon.max(session.timeline.emitted_unix_ns());
        if send_all(&mut session.session, messages).is_ok() {
            let _ = session
                .session
                .send(AgentMessage::Goodbye { timestamp: end });
        }
    }
    links.publish(&sessions, last_horizon, true);
}

/// Cross-service calls and when they were last published.
struct Links {
    tracker: LinkTracker,
    /// The generations' clock starts here.
    epoch: Instant,
    published: Instant,
}

/// How often the links are published at most (and at least, while there are any: their
/// windows empty as time goes on).
const LINKS_PUBLISH_INTERVAL: Duration = Duration::from_millis(250);
const LINKS_REFRESH_INTERVAL: Duration = Duration::from_secs(1);

impl Links {
    fn publish(&mut self, sessions: &LocalSessions, horizon: u64, now: bool) {
        let since = self.published.elapsed();
        if !now && since < LINKS_PUBLISH_INTERVAL {
            return;
        }
        let refresh = now || since >= LINKS_REFRESH_INTERVAL;
        if let Some(found) = self.tracker.take_links(horizon, refresh) {
            if !found.is_empty() || now {
                sessions.links().publish(LinkTracker::window_s(), found);
            }
            self.published = Instant::now();
        }
    }
}

fn accept(
    request: Incoming,
    open: &mut HashMap<ResourceId, OtlpSession>,
    hosts: &mut HashMap<String, SkewEstimator>,
    sessions: &LocalSessions,
    delay_ns: u64,
    stats: &OtlpStats,
    links: &mut Links,
) {
    for batch in request.decoded.resources {
        let host = if batch.info.id.host.is_empty() {
            request.peer.ip().to_string()
        } else {
            batch.info.id.host.clone()
        };
        let skew = hosts
            .entry(host)
            .or_insert_with(|| SkewEstimator::new(delay_ns));
        if let Some(latest_end) = batch.spans.iter().map(|span| span.end_unix_ns).max() {
            skew.observe(request.received_unix_ns, latest_end);
        }
        let session = match open.get_mut(&batch.info.id) {
            Some(session) => session,
            None => {
                let zero = unix_now_ns().saturating_sub(delay_ns);
                let hello = Hello {
                    magic: MAGIC,
                    protocol_version: PROTOCOL_VERSION,
                    agent: agent_text(&batch.info),
                    program: batch.info.id.service.clone(),
                    version_label: batch.info.version.clone(),
                    pid: batch.info.pid,
                    clock_unit_ns: 1,
                    clock_zero_unix_ns: zero,
                };
                let Some(session) = sessions.open(hello, request.peer) else {
                    // The server is shutting down: nothing more can be placed.
                    stats.count_unplaced(batch.spans.len() as u64);
                    continue;
                };
                tracing::info!(
                    service = %batch.info.id.service,
                    host = %batch.info.id.host,
                    session = session.id(),
                    "OTLP session opened"
                );
                open.entry(batch.info.id.clone()).or_insert(OtlpSession {
                    session,
                    timeline: Timeline::new(zero),
                    last_span: Instant::now(),
                    reported: TimelineCounts::default(),
                })
            }
        };
        session.last_span = Instant::now();
        let session_id = session.session.id();
        let now_ns = u64::try_from(links.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
        for mut span in batch.spans {
            span.start_unix_ns = skew.correct(span.start_unix_ns);
            span.end_unix_ns = skew.correct(span.end_unix_ns);
            let ids = SpanIds::of(&span);
            if let Some(method_id) = session.timeline.add(span) {
                let method = MethodRef {
                    session_id,
                    method_id,
                };
                links.tracker.observe(method, ids, now_ns);
            }
        }
    }
}

/// Moves one session to `horizon`; false when it is over (idle long enough, or gone).
fn advance(
    id: &ResourceId,
    session: &mut OtlpSession,
    horizon: u64,
    idle_end: Duration,
    stats: &OtlpStats,
) -> bool {
    let messages = session.timeline.advance(horizon);
    session.report(stats);
    if send_all(&mut session.session, messages).is_err() {
        tracing::warn!(service = %id.service, "OTLP session closed by the server");
        return false;
    }
    if session.timeline.is_idle() && session.last_span.elapsed() >= idle_end {
        tracing::info!(service = %id.service, "OTLP session idle: ended");
        let end = session.timeline.wire_time(horizon);
        let _ = session
            .session
            .send(AgentMessage::Goodbye { timestamp: end });
        return false;
    }
    true
}

fn send_all(
    session: &mut LocalSession,
    messages: Vec<AgentMessage>,
) -> Result<(), highrise_ingest::SessionClosed> {
    for message in messages {
        session.send(message)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_attribute_cannot_add_parts_to_the_agent_text() {
        let info = ResourceInfo {
            id: ResourceId {
                service: "shop".into(),
                instance: "i-1; host=elsewhere".into(),
                host: "web-1".into(),
            },
            version: String::new(),
            sdk: "opentelemetry python".into(),
            pid: 0,
        };
        assert_eq!(
            agent_text(&info),
            "otlp; host=web-1; instance=i-1, host=elsewhere; sdk=opentelemetry python"
        );
    }
}
