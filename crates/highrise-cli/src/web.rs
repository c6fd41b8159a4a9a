//! `--web` for `serve` (and the window): the city in a browser (`highrise-web`), at a link
//! printed at start.

use std::net::SocketAddr;

use anyhow::{bail, Context};
use highrise_aggregate::{AlertConfig, Snapshot};
use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::IngestServer;
use highrise_web::{WebConfig, WebServer};

/// Where pages are served by default.
pub const DEFAULT_WEB_ADDR: &str = "127.0.0.1:7879";

/// The web options.
#[derive(Debug, Clone, clap::Args)]
pub struct WebArgs {
    /// Also serve the city to web browsers, at the link printed at start (loopback:
    /// 127.0.0.1:7879).
    #[arg(long)]
    pub web: bool,
    /// Where pages are served (implies --web). Beyond loopback only with --allow-remote; the
    /// link then carries the agents' token (asked of every request).
    #[arg(long, value_name = "ADDR")]
    pub web_listen: Option<SocketAddr>,
}

impl WebArgs {
    /// Whether pages are served.
    pub fn enabled(&self) -> bool {
        self.web || self.web_listen.is_some()
    }

    /// Starts serving pages when asked to; the link is printed on stdout.
    pub fn start(
        &self,
        server: &IngestServer<AggregateSink>,
        listen: &crate::listen::ListenArgs,
        alerts: AlertConfig,
    ) -> anyhow::Result<Option<WebServer>> {
        if !self.enabled() {
            return Ok(None);
        }
        let addr = self
            .web_listen
            .unwrap_or_else(|| DEFAULT_WEB_ADDR.parse().expect("a valid address"));
        if !addr.ip().is_loopback() && !listen.allow_remote {
            bail!("refusing to serve pages on {addr} (not loopback): pass --allow-remote to open the city to other machines");
        }
        // Beyond loopback a token is asked of every request: the agents' one, or one made up.
        let token = highrise_ingest::settle_token(
            addr,
            listen
                .token
                .clone()
                .or_else(highrise_ingest::token_from_env),
        )
        .token;
        let updates: highrise_ingest::Updates<std::sync::Arc<Snapshot>> = server.subscribe();
        let web = WebServer::start(
            WebConfig {
                listen_addr: addr,
                token,
                alerts,
            },
            updates,
        )
        .context("cannot serve the city to browsers")?;
        println!("highrise: the city in a browser: {}", web.url());
        Ok(Some(web))
    }
}
