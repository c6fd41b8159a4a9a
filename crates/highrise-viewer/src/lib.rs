//! `highrise-viewer`: everything the `highrise` binary shows, as a library. The only crate of
//! the workspace that depends on Bevy; the binary itself is `crates/highrise-cli`, which adds
//! this crate behind its default `viewer` feature.
//!
//! [`viewer::run`] opens the window on a listener from [`viewer::start_listener`]: a live 3D
//! city per connected program (the command line, `ViewArgs` in `highrise-cli`, fills its
//! [`viewer::ViewerOptions`]). [`viewer::ViewerPlugin`] is the same scene for any Bevy app, and
//! [`viewer::offscreen`] renders it without a window (`highrise report --png`).
//!
//! Where to start: [`viewer`]'s module documentation lists its plugins, one per concern.

// Bevy system parameters (`Res<T>`, `Query<..>`, `Commands`) carry lifetimes that Bevy code
// conventionally leaves implicit; spelling them out everywhere would only add noise.
#![allow(elided_lifetimes_in_paths)]

pub mod viewer;
