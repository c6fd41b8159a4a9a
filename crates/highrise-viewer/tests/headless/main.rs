//! The viewer's systems in a headless Bevy app (`MinimalPlugins`, no window, no GPU): session
//! reports in, building entities, heights, colours, hover and tooltip out.
//!
//! One test binary (each Bevy test binary costs a link), one module per plugin.

mod support;

mod camera;
mod city;
mod compare;
mod crash;
mod focus;
mod history;
mod hover_ui;
mod labels;
mod landscape;
mod lod;
mod recording;
mod sessions;
