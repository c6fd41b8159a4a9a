//! The one error type of the protocol crate.

/// What can be wrong with bytes that claim to be highrise protocol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// A frame's length prefix is larger than [`crate::MAX_FRAME_BYTES`].
    #[error("frame of {length_bytes} bytes exceeds the maximum of {max_bytes} bytes (not a highrise agent, or a corrupt stream)")]
    FrameTooLarge { length_bytes: u64, max_bytes: u64 },
    /// The stream ended inside a frame.
    #[error("stream ended mid-frame: got {got_bytes} of {expected_bytes} bytes")]
    Truncated { got_bytes: u64, expected_bytes: u64 },
    /// A message tag this implementation does not know (a newer agent?).
    #[error("unknown message tag {tag}")]
    UnknownTag { tag: u32 },
    /// The first message was not a Hello.
    #[error("expected Hello as the first message, got message tag {tag}")]
    NotHello { tag: u32 },
    /// The Hello did not start with the magic bytes.
    #[error("bad magic {found:02x?} (expected \"HRSE\"): not a highrise agent")]
    BadMagic { found: [u8; 4] },
    /// The peers speak different protocol versions.
    #[error("protocol version mismatch: agent speaks v{agent_version}, viewer speaks v{viewer_version}; upgrade the {}", if agent_version > viewer_version { "viewer" } else { "agent" })]
    VersionMismatch {
        agent_version: u32,
        viewer_version: u32,
    },
    /// The payload is not a valid encoding of the message.
    #[error("malformed message: {detail}")]
    Malformed { detail: String },
    /// The packed events of a batch are inconsistent.
    #[error("malformed event batch: {detail}")]
    BadEvents { detail: String },
}

impl ProtocolError {
    pub(crate) fn malformed(detail: impl Into<String>) -> Self {
        Self::Malformed {
            detail: detail.into(),
        }
    }

    pub(crate) fn bad_events(detail: impl Into<String>) -> Self {
        Self::BadEvents {
            detail: detail.into(),
        }
    }
}
