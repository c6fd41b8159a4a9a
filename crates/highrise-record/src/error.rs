//! The one error type of the recording crate.

/// What can go wrong reading or writing a recording. Every malformed input maps to one of
/// these; nothing in this crate panics on a file's bytes.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The underlying file or stream failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    /// The file is shorter than the header.
    #[error("not a highrise recording: the file has {file_bytes} bytes, shorter than the {header_bytes}-byte header")]
    TooShort { file_bytes: u64, header_bytes: u64 },
    /// A profile from another tool that could not be read (`import`).
    #[error("cannot read this profile: {reason}")]
    InvalidProfile { reason: String },
    /// The file does not start with the recording magic (nor is it a profile `import` reads).
    #[error("{} {}", describe_start(found), OPENS)]
    BadMagic { found: [u8; 8] },
    /// The header's checksum does not match.
    #[error("the recording's header is corrupt (checksum mismatch)")]
    CorruptHeader,
    /// A recording format this build does not read.
    #[error("recording format version {found} is not supported (this build reads versions 1 to {supported}); {}", if *found > *supported { "upgrade highrise" } else { "the file is from an older highrise" })]
    UnsupportedFormatVersion {
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
    /// The recorded stream speaks another agent protocol version.
    #[error("the recording holds agent protocol v{found}, this build speaks v{supported}")]
    ProtocolVersion { found: u32, supported: u32 },
    /// A record inside the file is damaged.
    #[error("corrupt recording at byte {offset}: {reason}")]
    Corrupt { offset: u64, reason: String },
    /// A frame handed to the writer is not one whole wire frame.
    #[error("not a whole frame: {reason}")]
    InvalidFrame { reason: String },
}

/// What highrise opens, for an error about a file it does not.
const OPENS: &str = "highrise opens its own recordings (.hrec) and other tools' profiles: folded \
                     stacks, speedscope and Chrome trace JSON, V8 .cpuprofile, pprof and JFR";

/// What a file that is not a recording starts with, in words: its first bytes as text when
/// they are text, else in hex.
fn describe_start(found: &[u8; 8]) -> String {
    let text: String = found
        .iter()
        .take_while(|&&byte| byte != 0)
        .map(|&byte| byte as char)
        .collect();
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_graphic() || c == ' ') {
        format!(
            "not a highrise recording nor a profile highrise reads (it starts with \"{text}\");"
        )
    } else {
        format!("not a highrise recording nor a profile highrise reads (it starts with bytes {found:02x?});")
    }
}

impl RecordError {
    pub(crate) fn corrupt(offset: u64, reason: impl Into<String>) -> Self {
        Self::Corrupt {
            offset,
            reason: reason.into(),
        }
    }
}
