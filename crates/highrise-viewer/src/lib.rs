//! `highrise-viewer`: the `highrise` binary and everything it shows. The only crate of the
//! workspace that depends on Bevy.
//!
//! With no subcommand `highrise` opens the viewer ([`viewer::run`]): a window with a live 3D
//! city per connected program, listening on 127.0.0.1:7878, with the built-in demo program
//! attached so there is something to see at once (`--no-demo` to only listen).
//! `highrise serve` ([`serve::run`]) is the same listener without a window, printing what each
//! program does; `highrise demo` ([`demo::run`]) runs the demo program against a running
//! highrise.
//!
//! Where to start: [`viewer`]'s module documentation lists its plugins, one per concern.

// Bevy system parameters (`Res<T>`, `Query<..>`, `Commands`) carry lifetimes that Bevy code
// conventionally leaves implicit; spelling them out everywhere would only add noise.
#![allow(elided_lifetimes_in_paths)]

pub mod attach;
pub mod demo;
pub mod record;
pub mod serve;
pub mod viewer;
