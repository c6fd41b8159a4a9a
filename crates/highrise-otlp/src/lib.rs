//! `highrise-otlp`: OpenTelemetry traces and profiles (OTLP) into highrise sessions, so services
//! already instrumented with OpenTelemetry, or profiled by its eBPF profiler or a Collector, show
//! up as cities without a highrise agent.
//!
//! ```text
//! exporter / Collector ─ OTLP gRPC or HTTP/protobuf ─► receive.rs (hyper + tonic, 4317 / 4318)
//!   │ spans.rs: checked spans per resource (service.name, service.instance.id, host.name)
//!   ▼ bounded queue (full: 503 / UNAVAILABLE, the exporter retries)
//! bridge thread (bridge.rs): per-host clock skew (skew.rs), a Timeline per resource
//!   │ timeline.rs: spans wait for the horizon (now − delay), then become enters and exits
//!   │               on lanes (the span's thread, or pooled lanes nested by parent span)
//!   ▼ agent messages
//! highrise-ingest LocalSession: the same worker, aggregator, recording and reports as agents
//! ```
//!
//! Profiles (`ProfilesService/Export`, `/v1development/profiles`) take the same doors and
//! bridge: profiles.rs resolves each sample's stack and thread against the request's
//! dictionary, and a [`sample_timeline::SampleTimeline`] per resource places the samples in time order
//! as a sampled session (its elevations stated as estimates, as for the JVM sampler).
//!
//! Where to start: [`OtlpServer::start`] with an [`OtlpConfig`] and the ingest server's
//! [`highrise_ingest::IngestServer::local_sessions`]. Shut it down before the ingest server
//! (dropping it does): every waiting span is placed and each session ends with a Goodbye.

mod bridge;
pub mod link_tracker;
pub mod profiles;
mod profiles_json;
mod receive;
pub mod sample_timeline;
mod skew;
pub mod spans;
mod stats;
pub mod timeline;
mod wire;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::bounded;
use highrise_ingest::LocalSessions;
use highrise_links::SessionLinks;
use tokio::net::TcpListener;
use tokio::runtime::Runtime;

pub use bridge::agent_text;
pub use receive::{GRPC_EXPORT_PATH, GRPC_PROFILES_PATH, HTTP_PROFILES_PATH, HTTP_TRACES_PATH};
pub use skew::SkewEstimator;
pub use stats::{OtlpCounts, OtlpStats};

/// The OTLP/gRPC port of the specification.
pub const DEFAULT_GRPC_PORT: u16 = 4317;
/// The OTLP/HTTP port of the specification.
pub const DEFAULT_HTTP_PORT: u16 = 4318;
/// How far behind now OTLP sessions run by default: OTel SDKs' batch span processors export
/// every 5 s by default (`OTEL_BSP_SCHEDULE_DELAY`), so 6 s places spans of up to a second
/// sent by an unchanged SDK.
pub const DEFAULT_DELAY: Duration = Duration::from_secs(6);

/// Requests waiting for the bridge at most; beyond, exporters are told to retry.
const BRIDGE_QUEUE_REQUESTS: usize = 1024;

/// How the OTLP receivers listen and place spans.
#[derive(Debug, Clone)]
pub struct OtlpConfig {
    /// The gRPC port (HTTP/protobuf is taken there too); `None`: not opened.
    pub grpc_addr: Option<SocketAddr>,
    /// The HTTP/protobuf port (gRPC is taken there too); `None`: not opened.
    pub http_addr: Option<SocketAddr>,
    /// How far behind now each OTLP session's window runs, so late spans still find their
    /// place. A span that ends more than this after it started, plus its export delay, arrives
    /// too late and is counted as dropped.
    pub delay: Duration,
    /// How often the sessions' horizons move.
    pub tick: Duration,
    /// A resource that sends nothing for this long ends its session.
    pub idle_end: Duration,
    /// The token exporters on other machines must send (`authorization: Bearer TOKEN`); the
    /// same rule as agents: loopback exporters never need it.
    pub token: Option<String>,
    /// Larger requests are refused (413 / RESOURCE_EXHAUSTED).
    pub max_request_bytes: usize,
    /// Where calls between services are published ([`OtlpServer::links`]); a fresh board by
    /// default.
    pub links: SessionLinks,
}

impl Default for OtlpConfig {
    fn default() -> Self {
        Self {
            grpc_addr: Some(SocketAddr::from((Ipv4Addr::LOCALHOST, DEFAULT_GRPC_PORT))),
            http_addr: Some(SocketAddr::from((Ipv4Addr::LOCALHOST, DEFAULT_HTTP_PORT))),
            delay: DEFAULT_DELAY,
            tick: Duration::from_millis(20),
            idle_end: Duration::from_secs(300),
            token: None,
            max_request_bytes: 64 * 1024 * 1024,
            links: SessionLinks::default(),
        }
    }
}

/// Starting the receivers failed.
#[derive(Debug, thiserror::Error)]
pub enum OtlpError {
    #[error("cannot listen for OTLP on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot start the OTLP runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot start the OTLP bridge thread: {0}")]
    Thread(std::io::Error),
}

/// Running OTLP receivers and their bridge. Dropping it (or [`OtlpServer::shutdown`]) stops
/// listening, places every waiting span and ends every OTLP session.
#[derive(Debug)]
pub struct OtlpServer {
    grpc_addr: Option<SocketAddr>,
    http_addr: Option<SocketAddr>,
    stats: Arc<OtlpStats>,
    stop: Arc<AtomicBool>,
    runtime: Option<Runtime>,
    bridge: Option<JoinHandle<()>>,
    links: SessionLinks,
}

impl OtlpServer {
    /// Binds the configured ports (port 0 picks a free one) and starts placing spans into
    /// sessions opened with `sessions`.
    pub fn start(config: OtlpConfig, sessions: LocalSessions) -> Result<Self, OtlpError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("highrise-otlp")
            .enable_io()
            .enable_time()
            .build()
            .map_err(OtlpError::Runtime)?;
        let bind = |addr: SocketAddr| -> Result<(TcpListener, SocketAddr), OtlpError> {
            let listener = std::net::TcpListener::bind(addr)
                .and_then(|listener| listener.set_nonblocking(true).map(|()| listener))
                .map_err(|source| OtlpError::Bind { addr, source })?;
            let local = listener
                .local_addr()
                .map_err(|source| OtlpError::Bind { addr, source })?;
            let _entered = runtime.enter();
            let listener = TcpListener::from_std(listener)
                .map_err(|source| OtlpError::Bind { addr, source })?;
            Ok((listener, local))
        };
        let grpc = config.grpc_addr.map(bind).transpose()?;
        let http = config.http_addr.map(bind).transpose()?;
        let stats = Arc::new(OtlpStats::default());
        let stop = Arc::new(AtomicBool::new(false));
        let (bridge_tx, bridge_rx) = bounded(BRIDGE_QUEUE_REQUESTS);
        let settings = bridge::BridgeSettings {
            delay: config.delay,
            tick: config.tick,
            idle_end: config.idle_end,
        };
        let bridge = {
            let stats = Arc::clone(&stats);
            let stop = Arc::clone(&stop);
            let links = config.links.clone();
            std::thread::Builder::new()
                .name("highrise-otlp-bridge".into())
                .spawn(move || bridge::run(bridge_rx, sessions, links, settings, stats, stop))
                .map_err(OtlpError::Thread)?
        };
        let front = Arc::new(receive::Front {
            bridge: bridge_tx,
            stats: Arc::clone(&stats),
            token: config.token.clone(),
            max_request_bytes: config.max_request_bytes,
        });
        let mut addrs = [None, None];
        for (slot, bound) in addrs.iter_mut().zip([grpc, http]) {
            if let Some((listener, local)) = bound {
                runtime.spawn(receive::serve(listener, Arc::clone(&front)));
                tracing::info!(%local, "OTLP listening");
                *slot = Some(local);
            }
        }
        Ok(Self {
            grpc_addr: addrs[0],
            http_addr: addrs[1],
            stats,
            stop,
            runtime: Some(runtime),
            bridge: Some(bridge),
            links: config.links,
        })
    }

    /// The gRPC port actually bound.
    pub fn grpc_addr(&self) -> Option<SocketAddr> {
        self.grpc_addr
    }

    /// The HTTP/protobuf port actually bound.
    pub fn http_addr(&self) -> Option<SocketAddr> {
        self.http_addr
    }

    /// The board calls between services are published on ([`OtlpConfig::links`]).
    pub fn links(&self) -> &SessionLinks {
        &self.links
    }

    /// What the receivers and the bridge did so far.
    pub fn counts(&self) -> OtlpCounts {
        self.stats.counts()
    }

    /// Stops listening, places every waiting span and ends every OTLP session (a Goodbye
    /// each); returns the final counts.
    pub fn shutdown(mut self) -> OtlpCounts {
        self.stop();
        self.stats.counts()
    }

    fn stop(&mut self) {
        // The listeners first (their tasks hold the bridge's queue), then the bridge finishes.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
        self.stop.store(true, Ordering::Relaxed);
        if let Some(bridge) = self.bridge.take() {
            let _ = bridge.join();
        }
    }
}

impl Drop for OtlpServer {
    fn drop(&mut self) {
        self.stop();
    }
}
