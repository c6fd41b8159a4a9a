//! `highrise-protocol`: the wire protocol between a highrise agent (the code inside the profiled
//! program) and the highrise viewer.
//!
//! The byte-level, language-neutral description lives in `agent-protocol/SPEC.md`; this crate is
//! its Rust implementation, and `agent-protocol/golden/` holds byte files every implementation
//! must reproduce. Where to start:
//!
//! - [`AgentMessage`]: everything an agent sends ([`Hello`] first, then [`MethodDef`]s,
//!   [`EventBatch`]es, heartbeats, …, [`AgentMessage::Goodbye`] last). A Hello may end with a
//!   token for viewers that listen beyond loopback: [`encode_hello`], [`decode_hello`].
//! - [`ViewerMessage`]: the viewer's one answer to a `Hello` (welcome or reject).
//! - [`frame`]: length-prefixed framing ([`write_frame`], [`FrameHeader`], [`MAX_FRAME_BYTES`]).
//! - [`PackedEventWriter`] / [`decode_events`]: the compact event encoding inside an
//!   [`EventBatch`] (delta timestamps, enter/exit packed into the method-id varint).
//! - [`PackedRecordWriter`] / [`decode_records`] (version 2): the same with memory records
//!   between a thread's enters and exits ("this frame created 3 `Piece`s, 72 bytes"), naming
//!   classes sent as [`ClassDef`]s.
//! - [`display`]: how people read a method's name whatever agent sent it
//!   ([`display_name`]: `main.game.Board.createOrientation(String, InputStream)`).
//!
//! All messages are bincode 2 with the standard configuration (little endian, variable-length
//! integers); see [`encode_message`] and [`decode_agent_message`].

mod codec;
pub mod display;
mod error;
mod events;
pub mod frame;
mod message;

pub use codec::{
    decode_agent_message, decode_hello, decode_viewer_message, encode_hello, encode_message,
    peek_hello_header, HelloHeader,
};
pub use display::{
    display_class, display_method, display_name, method_display, signature_form, JvmBase,
    JvmDescriptor, JvmType, SignatureForm,
};
pub use error::ProtocolError;
pub use events::{
    decode_events, decode_records, Event, EventKind, MemoryAmount, PackedEventWriter,
    PackedRecordWriter,
};
pub use frame::{
    encode_frame, frame_payload, read_frame, write_frame, Decoded, FrameDecoder, FrameHeader,
    ReadFrameError, FRAME_HEADER_BYTES, MAX_FRAME_BYTES,
};
pub use message::{
    qualified_name, replay_agent, replayed_file, AgentMessage, ClassDef, ClassKind, ClassRelation,
    EventBatch, Hello, LiveClass, LiveObjects, Measure, MeasureMode, MethodDef, RelationKind,
    ViewerMessage, MAX_NOTICE_KEY_BYTES, MAX_NOTICE_TEXT_BYTES, PHASE_MARK_CLASS,
    PHASE_MARK_PACKAGE, REPLAY_AGENT_PREFIX,
};

/// The protocol version this crate speaks. Bumped on any incompatible change to the bytes.
/// Version 2 added class definitions, packed records with memory records, and memory drop
/// totals (tags 9–11), then live-object snapshots (tag 12, sent only on request), class relations (tag 13) and the
/// session's measure (tag 14, sampled agents) and notices (tag 15); nothing of
/// version 1 changed.
pub const PROTOCOL_VERSION: u32 = 2;

/// The oldest agent version a receiver accepts: version-1 agents (and recordings) are read
/// unchanged, as they never send the messages version 2 added.
pub const MIN_PROTOCOL_VERSION: u32 = 1;

/// Class ids are dense indexes like method ids; a class definition at or above this is
/// rejected.
pub const MAX_CLASS_ID: u32 = 1 << 24;

/// The start of every token refusal's [`ViewerMessage::Reject`] reason, so an agent (or a
/// person) can tell a missing or wrong token from the other refusals.
pub const REJECT_UNAUTHORIZED: &str = "unauthorized:";

/// The environment variable agents (and the viewer, as a default for `--token`) read the
/// token from.
pub const TOKEN_ENV: &str = "HIGHRISE_TOKEN";

/// The TCP port the viewer listens on by default (on 127.0.0.1).
pub const DEFAULT_PORT: u16 = 7878;

/// The four bytes every [`Hello`] starts with: ASCII `HRSE`.
pub const MAGIC: [u8; 4] = *b"HRSE";

/// Method ids are dense indexes; a definition with an id at or above this is rejected so a
/// receiver can keep per-method tables as plain arrays.
pub const MAX_METHOD_ID: u32 = 1 << 24;

/// Dense means dense: a definition whose id is this much or more above the number of methods
/// the session has defined so far is rejected, so the per-method tables grow with the
/// definitions received, never with one hostile id (an id near [`MAX_METHOD_ID`] as the first
/// definition made every table 16.7 M entries, about a gigabyte).
pub const MAX_METHOD_ID_GAP: u32 = 1 << 16;
