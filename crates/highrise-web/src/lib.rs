//! # highrise-web
//!
//! The city in a browser. `highrise serve --web` (and the window's `--web`) runs a
//! [`WebServer`]: a page anyone on the team opens with a link, drawing every live session's
//! city with three.js; `highrise report RUN.hrec --export html` writes a recording's city over
//! time as one HTML file ([`export::export_recording`], [`page::recording_html`]).
//!
//! One source of truth: highrise lays the cities out and aggregates (the pure crates); the page
//! draws what it is sent and defines no layout, no elevation and no colour of its own.
//!
//! ## Where to start
//!
//! - [`model::Cities`]: the session reports folded into cities; each tick's changes become
//!   messages, and a page that joins gets the whole state.
//! - [`wire`]: the binary messages (plans, towers as deltas), read by `web/src/wire.js`.
//! - [`server`]: hyper for the page and its read-only requests, a WebSocket per page for the
//!   stream; loopback unless the caller asks otherwise, then with a token.
//! - [`compare`]: two sessions on one plan, the diff city (and the pairing the window uses).
//! - [`page`]: the HTML, with the bundle built from `web/` (three.js from npm, bundled by
//!   esbuild: `scripts/build-web.sh`; the tests check it matches its sources).

pub mod compare;
pub mod export;
pub mod model;
pub mod page;
pub mod server;
pub mod wire;

pub use server::{WebConfig, WebError, WebServer};
