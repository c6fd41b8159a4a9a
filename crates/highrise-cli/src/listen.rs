//! Where a listening command (the window, `serve`) takes agents: the address, whether beyond
//! loopback is allowed, and the token agents on other machines must send.

use std::net::SocketAddr;

use anyhow::bail;
use highrise_ingest::{settle_token, token_from_env, ServerToken};

/// The listener's options, shared by the window and `highrise serve`.
#[derive(Debug, Clone, clap::Args)]
pub struct ListenArgs {
    /// Address to listen on for agents. Only loopback unless --allow-remote is given.
    #[arg(long, default_value_t = crate::default_addr())]
    pub listen: SocketAddr,
    /// Allow listening on a non-loopback address (agents on other machines can then connect).
    #[arg(long)]
    pub allow_remote: bool,
    /// The token agents on other machines must send (their HIGHRISE_TOKEN); default: this
    /// command's HIGHRISE_TOKEN (better than the command line, which other users can see).
    /// Listening beyond loopback without one makes one up and prints it. Agents on this machine
    /// never need it.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
}

impl ListenArgs {
    /// Refuses an address beyond loopback without --allow-remote; otherwise the token agents
    /// beyond loopback must send (from --token, HIGHRISE_TOKEN or made up).
    pub fn settle(&self) -> anyhow::Result<ServerToken> {
        if !self.listen.ip().is_loopback() && !self.allow_remote {
            bail!(
                "refusing to listen on {} (not loopback): pass --allow-remote to accept agents from other machines",
                self.listen
            );
        }
        Ok(settle_token(
            self.listen,
            self.token.clone().or_else(token_from_env),
        ))
    }
}
