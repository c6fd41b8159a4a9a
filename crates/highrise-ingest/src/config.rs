//! Server configuration.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use highrise_protocol::DEFAULT_PORT;

/// How the ingest server listens and publishes.
#[derive(Debug, Clone)]
pub struct IngestConfig {
    /// Where to listen. Loopback by default; anything else is the caller's explicit choice.
    pub listen_addr: SocketAddr,
    /// How often each session publishes a report while data flows.
    pub publish_interval: Duration,
    /// Reports the consumer may lag behind before newer ones wait (they are never queued
    /// beyond this: a session whose report does not fit retries with a fresher one).
    pub report_channel_capacity: usize,
    /// Decoded frames a session's reader may run ahead of its worker. When full, the reader
    /// stops reading the socket, TCP flow control pushes back, and the agent drops and counts.
    pub frame_queue_capacity: usize,
}

impl Default for IngestConfig {
    fn default() -> Self {
        Self {
            listen_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, DEFAULT_PORT)),
            publish_interval: Duration::from_millis(50),
            report_channel_capacity: 256,
            frame_queue_capacity: 64,
        }
    }
}
