//! The bridge thread: decoded requests in, one ingest session per OTel resource and signal out
//! (a resource's spans and its profile samples are two sessions: exact calls, and samples). It
//! corrects each host's clock ([`SkewEstimator`]), queues spans on their session's [`Timeline`]
//! and samples on its [`SampleTimeline`], and on every tick moves every session's horizon to
//! now − delay, handing the messages to the session.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crossbeam_channel::{select, tick, Receiver};
use highrise_ingest::{LocalSession, LocalSessions};
use highrise_links::{MethodRef, SessionLinks};
use highrise_protocol::{AgentMessage, Hello, MAGIC, PROTOCOL_VERSION};

use crate::link_tracker::{LinkTracker, SpanIds};
use crate::profiles::{DecodedProfiles, ProfileBatch};
use crate::sample_timeline::{SampleCounts, SampleTimeline};
use crate::skew::SkewEstimator;
use crate::spans::{Decoded, ResourceId, ResourceInfo};
use crate::stats::OtlpStats;
use crate::timeline::{Timeline, TimelineCounts};

/// A request that passed decoding, on its way to the bridge.
#[derive(Debug)]
pub(crate) struct Incoming {
    pub peer: SocketAddr,
    pub received_unix_ns: u64,
    pub payload: Payload,
}

/// What a request brought.
#[derive(Debug)]
pub(crate) enum Payload {
    Spans(Decoded),
    Profiles(DecodedProfiles),
}

/// How the bridge runs.
#[derive(Debug, Clone)]
pub(crate) struct BridgeSettings {
    pub delay: Duration,
    pub tick: Duration,
    pub idle_end: Duration,
}

/// What a resource's session places, spans ([`Timeline`]) or samples ([`SampleTimeline`]): one
/// lifecycle for both ([`Placed`]).
trait Placing {
    /// What the stats count of it.
    type Counts: Default;
    /// The session's kind in the log.
    const KIND: &'static str;
    fn advance(&mut self, horizon_unix_ns: u64) -> Vec<AgentMessage>;
    /// Everything still waiting, and the end's wire time.
    fn finish(&mut self) -> (Vec<AgentMessage>, u64);
    fn is_idle(&self) -> bool;
    fn counts(&self) -> Self::Counts;
    fn count(stats: &OtlpStats, before: &Self::Counts, now: &Self::Counts);
    /// When an idle session ends, on its wire clock, at `horizon_unix_ns`.
    fn idle_end_time(&self, horizon_unix_ns: u64) -> u64;
}

impl Placing for Timeline {
    type Counts = TimelineCounts;
    const KIND: &'static str = "OTLP session";
    fn advance(&mut self, horizon_unix_ns: u64) -> Vec<AgentMessage> {
        Timeline::advance(self, horizon_unix_ns)
    }
    fn finish(&mut self) -> (Vec<AgentMessage>, u64) {
        Timeline::finish(self)
    }
    fn is_idle(&self) -> bool {
        Timeline::is_idle(self)
    }
    fn counts(&self) -> TimelineCounts {
        Timeline::counts(self)
    }
    fn count(stats: &OtlpStats, before: &TimelineCounts, now: &TimelineCounts) {
        stats.count_progress(before, now);
    }
    fn idle_end_time(&self, horizon_unix_ns: u64) -> u64 {
        self.wire_time(horizon_unix_ns)
    }
}

impl Placing for SampleTimeline {
    type Counts = SampleCounts;
    const KIND: &'static str = "OTLP profiles session";
    fn advance(&mut self, horizon_unix_ns: u64) -> Vec<AgentMessage> {
        SampleTimeline::advance(self, horizon_unix_ns)
    }
    fn finish(&mut self) -> (Vec<AgentMessage>, u64) {
        SampleTimeline::finish(self)
    }
    fn is_idle(&self) -> bool {
        SampleTimeline::is_idle(self)
    }
    fn counts(&self) -> SampleCounts {
        SampleTimeline::counts(self)
    }
    fn count(stats: &OtlpStats, before: &SampleCounts, now: &SampleCounts) {
        stats.count_samples(before, now);
    }
    fn idle_end_time(&self, _horizon_unix_ns: u64) -> u64 {
        self.wire_time(self.emitted_unix_ns())
    }
}

/// One resource's in-process session and what it places.
struct Placed<T: Placing> {
    session: LocalSession,
    timeline: T,
    /// When its last span or sample came.
    last_input: Instant,
    /// The timeline's counts as last added to the stats.
    reported: T::Counts,
}

/// A service instance's spans.
type OtlpSession = Placed<Timeline>;
/// A service instance's profiles.
type ProfileSession = Placed<SampleTimeline>;

impl<T: Placing> Placed<T> {
    fn new(session: LocalSession, timeline: T) -> Self {
        Placed {
            session,
            timeline,
            last_input: Instant::now(),
            reported: T::Counts::default(),
        }
    }

    fn report(&mut self, stats: &OtlpStats) {
        let now = self.timeline.counts();
        T::count(stats, &self.reported, &now);
        self.reported = now;
    }

    /// Moves the session to `horizon`; false when it is over (idle long enough, or gone).
    fn advance(
        &mut self,
        id: &ResourceId,
        horizon: u64,
        idle_end: Duration,
        stats: &OtlpStats,
    ) -> bool {
        let messages = self.timeline.advance(horizon);
        self.report(stats);
        if send_all(&mut self.session, messages).is_err() {
            tracing::warn!(service = %id.service, "{} closed by the server", T::KIND);
            return false;
        }
        if self.timeline.is_idle() && self.last_input.elapsed() >= idle_end {
            tracing::info!(service = %id.service, "{} idle: ended", T::KIND);
            let end = self.timeline.idle_end_time(horizon);
            let _ = self.session.send(AgentMessage::Goodbye { timestamp: end });
            return false;
        }
        true
    }

    /// Ends the session losslessly: everything waiting out, then its Goodbye.
    fn finish(mut self, stats: &OtlpStats) {
        let (messages, end) = self.timeline.finish();
        self.report(stats);
        if send_all(&mut self.session, messages).is_ok() {
            let _ = self.session.send(AgentMessage::Goodbye { timestamp: end });
        }
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
    board: SessionLinks,
    settings: BridgeSettings,
    stats: Arc<OtlpStats>,
    stop: Arc<AtomicBool>,
) {
    let delay_ns = u64::try_from(settings.delay.as_nanos()).unwrap_or(u64::MAX);
    let ticker = tick(settings.tick);
    let mut open: HashMap<ResourceId, OtlpSession> = HashMap::new();
    let mut profiled: HashMap<ResourceId, ProfileSession> = HashMap::new();
    let mut hosts: HashMap<String, SkewEstimator> = HashMap::new();
    let mut links = Links {
        tracker: LinkTracker::new(),
        board,
        epoch: Instant::now(),
        published: Instant::now(),
    };
    loop {
        select! {
            recv(incoming) -> request => {
                let Ok(request) = request else { break };
                take(request, &mut open, &mut profiled, &mut hosts, &sessions, delay_ns, &stats, &mut links);
            },
            recv(ticker) -> _ => {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let horizon = unix_now_ns().saturating_sub(delay_ns);
                open.retain(|id, session| {
                    let going_on = session.advance(id, horizon, settings.idle_end, &stats);
                    let session_id = session.session.id();
                    if going_on {
                        links.tracker.advance(session_id, horizon);
                    } else {
                        links.tracker.end_session(session_id);
                    }
                    going_on
                });
                links.publish(horizon, false);
                profiled.retain(|id, session| session.advance(id, horizon, settings.idle_end, &stats));
            },
        }
    }
    // Lossless ends: every waiting span out, then a Goodbye.
    while let Ok(request) = incoming.try_recv() {
        take(
            request,
            &mut open,
            &mut profiled,
            &mut hosts,
            &sessions,
            delay_ns,
            &stats,
            &mut links,
        );
    }
    for (_, session) in profiled.drain() {
        session.finish(&stats);
    }
    let mut last_horizon = 0;
    for (_, session) in open.drain() {
        links.tracker.end_session(session.session.id());
        last_horizon = last_horizon.max(session.timeline.emitted_unix_ns());
        session.finish(&stats);
    }
    links.publish(last_horizon, true);
}

/// Cross-service calls and when they were last published.
struct Links {
    tracker: LinkTracker,
    /// Where they are published.
    board: SessionLinks,
    /// The generations' clock starts here.
    epoch: Instant,
    published: Instant,
}

/// How often the links are published at most (and at least, while there are any: their
/// windows empty as time goes on).
const LINKS_PUBLISH_INTERVAL: Duration = Duration::from_millis(250);
const LINKS_REFRESH_INTERVAL: Duration = Duration::from_secs(1);

impl Links {
    fn publish(&mut self, horizon: u64, now: bool) {
        let since = self.published.elapsed();
        if !now && since < LINKS_PUBLISH_INTERVAL {
            return;
        }
        let refresh = now || since >= LINKS_REFRESH_INTERVAL;
        if let Some(found) = self.tracker.take_links(horizon, refresh) {
            if !found.is_empty() || now {
                self.board.publish(LinkTracker::window_s(), found);
            }
            self.published = Instant::now();
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn take(
    request: Incoming,
    open: &mut HashMap<ResourceId, OtlpSession>,
    profiled: &mut HashMap<ResourceId, ProfileSession>,
    hosts: &mut HashMap<String, SkewEstimator>,
    sessions: &LocalSessions,
    delay_ns: u64,
    stats: &OtlpStats,
    links: &mut Links,
) {
    let Incoming {
        peer,
        received_unix_ns,
        payload,
    } = request;
    match payload {
        Payload::Spans(decoded) => accept(
            peer,
            received_unix_ns,
            decoded,
            open,
            hosts,
            sessions,
            delay_ns,
            stats,
            links,
        ),
        Payload::Profiles(decoded) => {
            for batch in decoded.resources {
                accept_samples(
                    peer,
                    received_unix_ns,
                    batch,
                    profiled,
                    hosts,
                    sessions,
                    delay_ns,
                    stats,
                );
            }
        }
    }
}

/// The host a resource runs on, for its clock: `host.name`, or the exporter's address.
fn host_of(id: &ResourceId, peer: SocketAddr) -> String {
    if id.host.is_empty() {
        peer.ip().to_string()
    } else {
        id.host.clone()
    }
}

/// The Hello of a session for `info` whose wire time 0 is `zero`.
fn hello(info: &ResourceInfo, agent: String, zero: u64) -> Hello {
    Hello {
        magic: MAGIC,
        protocol_version: PROTOCOL_VERSION,
        agent,
        program: info.id.service.clone(),
        version_label: info.version.clone(),
        pid: info.pid,
        clock_unit_ns: 1,
        clock_zero_unix_ns: zero,
    }
}

#[allow(clippy::too_many_arguments)]
fn accept_samples(
    peer: SocketAddr,
    received_unix_ns: u64,
    mut batch: ProfileBatch,
    profiled: &mut HashMap<ResourceId, ProfileSession>,
    hosts: &mut HashMap<String, SkewEstimator>,
    sessions: &LocalSessions,
    delay_ns: u64,
    stats: &OtlpStats,
) {
    let skew = hosts
        .entry(host_of(&batch.info.id, peer))
        .or_insert_with(|| SkewEstimator::new(delay_ns));
    if let Some(latest) = batch.samples.iter().map(|sample| sample.time_unix_ns).max() {
        skew.observe(received_unix_ns, latest);
    }
    for sample in &mut batch.samples {
        sample.time_unix_ns = skew.correct(sample.time_unix_ns);
    }
    let session = match profiled.get_mut(&batch.info.id) {
        Some(session) => session,
        None => {
            // The session starts with its first sample, or at its horizon if that is later.
            let horizon = unix_now_ns().saturating_sub(delay_ns);
            let first = batch.samples.iter().map(|sample| sample.time_unix_ns).min();
            let zero = first.map_or(horizon, |first| first.max(horizon));
            let agent = format!("{}; signal=profiles", agent_text(&batch.info));
            let Some(session) = sessions.open(hello(&batch.info, agent, zero), peer) else {
                // The server is shutting down: nothing more can be placed.
                return;
            };
            tracing::info!(
                service = %batch.info.id.service,
                host = %batch.info.id.host,
                session = session.id(),
                "OTLP profiles session opened"
            );
            profiled
                .entry(batch.info.id.clone())
                .or_insert(Placed::new(session, SampleTimeline::new(zero)))
        }
    };
    session.last_input = Instant::now();
    session.timeline.add(batch.period_ns, batch.samples);
    session.report(stats);
}

#[allow(clippy::too_many_arguments)]
fn accept(
    peer: SocketAddr,
    received_unix_ns: u64,
    decoded: Decoded,
    open: &mut HashMap<ResourceId, OtlpSession>,
    hosts: &mut HashMap<String, SkewEstimator>,
    sessions: &LocalSessions,
    delay_ns: u64,
    stats: &OtlpStats,
    links: &mut Links,
) {
    for batch in decoded.resources {
        let skew = hosts
            .entry(host_of(&batch.info.id, peer))
            .or_insert_with(|| SkewEstimator::new(delay_ns));
        if let Some(latest_end) = batch.spans.iter().map(|span| span.end_unix_ns).max() {
            skew.observe(received_unix_ns, latest_end);
        }
        let session = match open.get_mut(&batch.info.id) {
            Some(session) => session,
            None => {
                let zero = unix_now_ns().saturating_sub(delay_ns);
                let hello = hello(&batch.info, agent_text(&batch.info), zero);
                let Some(session) = sessions.open(hello, peer) else {
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
                open.entry(batch.info.id.clone())
                    .or_insert(Placed::new(session, Timeline::new(zero)))
            }
        };
        session.last_input = Instant::now();
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
