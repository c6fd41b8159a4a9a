//! `--otlp` for the viewer, `serve` and `record`: OpenTelemetry exporters and Collectors send
//! traces to highrise (`highrise-otlp`), and each service instance becomes a session like an
//! agent's.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{bail, Context};
use highrise_ingest::LocalSessions;
use highrise_otlp::{OtlpConfig, OtlpServer, DEFAULT_GRPC_PORT, DEFAULT_HTTP_PORT};

/// The OTLP options shared by the commands that listen.
#[derive(Debug, Clone, clap::Args)]
pub struct OtlpArgs {
    /// Also take OpenTelemetry traces and profiles (OTLP): gRPC on 127.0.0.1:4317 and HTTP
    /// (protobuf or JSON, plain or gzip) on 127.0.0.1:4318 (each port takes both). Each service
    /// instance becomes a city: its spans as exact calls, its profile samples as a sampled city.
    #[arg(long)]
    pub otlp: bool,
    /// Where OTLP/gRPC listens (implies --otlp). Beyond loopback only with --allow-remote;
    /// exporters there must send `authorization: Bearer TOKEN` (the agents' token).
    #[arg(long, value_name = "ADDR")]
    pub otlp_grpc: Option<SocketAddr>,
    /// Where OTLP/HTTP listens (implies --otlp); the same rules as --otlp-grpc.
    #[arg(long, value_name = "ADDR")]
    pub otlp_http: Option<SocketAddr>,
    /// How far behind now OTLP cities run, so spans and samples exported late still find their
    /// place.
    /// SDKs' batch processors export every 5 s by default: lower this together with their
    /// OTEL_BSP_SCHEDULE_DELAY.
    #[arg(long, value_name = "MS", default_value_t = highrise_otlp::DEFAULT_DELAY.as_millis() as u64)]
    pub otlp_delay_ms: u64,
    /// An OTLP service that sends nothing for this long ends its session.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0)]
    pub otlp_idle_end_s: f64,
}

impl OtlpArgs {
    pub fn enabled(&self) -> bool {
        self.otlp || self.otlp_grpc.is_some() || self.otlp_http.is_some()
    }

    /// Starts the receivers when asked to; `token` is the agents' token (asked of exporters
    /// beyond loopback), `allow_remote` whether listening beyond loopback was allowed.
    pub fn start(
        &self,
        sessions: LocalSessions,
        token: Option<String>,
        allow_remote: bool,
    ) -> anyhow::Result<Option<OtlpServer>> {
        if !self.enabled() {
            return Ok(None);
        }
        let loopback = |port| SocketAddr::from(([127, 0, 0, 1], port));
        let grpc = self.otlp_grpc.unwrap_or(loopback(DEFAULT_GRPC_PORT));
        let http = self.otlp_http.unwrap_or(loopback(DEFAULT_HTTP_PORT));
        for addr in [grpc, http] {
            if !addr.ip().is_loopback() && !allow_remote {
                bail!(
                    "refusing to take OTLP on {addr} (not loopback): pass --allow-remote to take traces from other machines"
                );
            }
            if !addr.ip().is_loopback() && token.is_none() {
                bail!("taking OTLP beyond loopback needs a token (--token or HIGHRISE_TOKEN)");
            }
        }
        let server = OtlpServer::start(
            OtlpConfig {
                grpc_addr: Some(grpc),
                http_addr: Some(http),
                delay: Duration::from_millis(self.otlp_delay_ms),
                idle_end: Duration::from_secs_f64(self.otlp_idle_end_s.max(1.0)),
                token,
                ..OtlpConfig::default()
            },
            sessions,
        )
        .context("starting the OTLP receivers")?;
        println!(
            "highrise: taking OpenTelemetry traces and profiles (OTLP) on {} (gRPC) and {} (HTTP), {} ms behind",
            server.grpc_addr().map_or("-".into(), |a| a.to_string()),
            server.http_addr().map_or("-".into(), |a| a.to_string()),
            self.otlp_delay_ms
        );
        Ok(Some(server))
    }
}
