//! The default command, the window: its options, its listener, the programs it starts (the
//! demo, the OTLP receivers), then `highrise_viewer::viewer::run`.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::demo;
use highrise_viewer::viewer::{
    arcs::CallArcs, city, compare::CompareMode, instancing::LevelOfDetail, parse_size,
    ViewerOptions,
};

/// Options of the windowed viewer (the default command).
#[derive(Debug, Clone, clap::Args)]
pub struct ViewArgs {
    #[command(flatten)]
    pub listen: crate::listen::ListenArgs,
    /// Do not start the built-in demo program; only listen.
    #[arg(long)]
    pub no_demo: bool,
    /// Take a screenshot this many seconds after the first frame that shows a live city.
    /// Repeatable, paired in order with --screenshot; the viewer exits after the last one.
    #[arg(long = "screenshot-after", value_name = "SECONDS")]
    pub screenshot_after_s: Vec<f64>,
    /// Where to save the screenshot taken at the matching --screenshot-after (PNG).
    #[arg(long = "screenshot", value_name = "PATH")]
    pub screenshot: Vec<PathBuf>,
    /// Compare the first two programs that connect: independent, aligned or diff.
    #[arg(long, value_enum, value_name = "MODE")]
    pub compare: Option<CompareMode>,
    /// Instead of tetris, run the demo bookstore in both its versions (child processes) and
    /// compare them (diff view unless --compare says otherwise).
    #[arg(long)]
    pub compare_demo: bool,
    /// Open a recording (`.hrec`) as a session at start; repeatable (e.g. two runs to compare).
    #[arg(long, value_name = "FILE")]
    pub replay: Vec<PathBuf>,
    /// Speed of the --replay sessions (1 = as recorded).
    #[arg(long, default_value_t = 1.0)]
    pub replay_speed: f64,
    /// Where the panel's record buttons write `.hrec` files.
    #[arg(long, default_value = "highrise-recordings")]
    pub record_dir: PathBuf,
    /// Window size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x800")]
    pub window_size: String,
    /// What building height shows at start (the panel switches it).
    #[arg(long, value_enum, default_value_t = city::HeightMode::Exclusive)]
    pub height: city::HeightMode,
    /// What full height stands for in the time modes: about the hottest method's share, heights
    /// in proportion (`relative`) or by the square root (`sqrt`, so a big program's five
    /// hottest all stand out), `auto` choosing by the city's size (√ from 1,000 methods), or
    /// 100 % of the window (`absolute`, the paper's scale). The panel switches it.
    #[arg(long, value_enum, default_value_t = city::HeightScale::Auto)]
    pub height_scale: city::HeightScale,
    /// Level of detail: `auto` draws a block as one box (its buildings' footprints, as tall as
    /// the tallest) where its buildings are too small on screen to tell apart; `off` draws
    /// every building at any distance. The panel switches it.
    #[arg(long, value_enum, default_value_t = LevelOfDetail::Auto)]
    pub lod: LevelOfDetail,
    #[command(flatten)]
    pub web: crate::web::WebArgs,
    /// What building colour shows at start (the panel switches it).
    #[arg(long, value_enum, default_value_t = city::ColourMode::Heat)]
    pub colour: city::ColourMode,
    /// Stack each building into floors, one per class its method creates (by count).
    #[arg(long)]
    pub class_floors: bool,
    /// Which call arcs show at start: the hovered building's callers and callees, also the
    /// busiest edges of every city (`top`), or none (the panel switches it).
    #[arg(long, value_enum, default_value_t = CallArcs::Hovered)]
    pub call_arcs: CallArcs,
    /// Open the allocation-site view (the calling-context tree and its class list) at start.
    #[arg(long)]
    pub sites: bool,
    /// Open the memory-prediction window with this sample recording; repeatable.
    #[arg(long, value_name = "FILE")]
    pub predict: Vec<PathBuf>,
    /// The prediction window's measured run (at the size to predict).
    #[arg(long, value_name = "FILE")]
    pub predict_vs: Option<PathBuf>,
    /// The prediction window's phase method (e.g. `Parser.parse`).
    #[arg(long, value_name = "METHOD")]
    pub predict_phase: Option<String>,
    /// The prediction window's basis class and count, `CLASS=COUNT`.
    #[arg(long, value_name = "CLASS=COUNT")]
    pub predict_basis: Option<String>,
    /// Dive into this package (e.g. `org.apache.maven.model`) as soon as a program's city has
    /// it: the view frames it and dims the rest; Escape or the breadcrumbs lead back.
    #[arg(long, value_name = "PACKAGE")]
    pub focus: Option<String>,
    /// Where a building's "Show source" and "Open in editor" look for relative source files
    /// (Java's `Board.java` under its package's directories, Rust's workspace-relative paths),
    /// besides the current directory; repeatable.
    #[arg(long, value_name = "DIR")]
    pub source_root: Vec<PathBuf>,
}

/// Opens the window and runs until it is closed: listens, starts the demo (per `--no-demo`,
/// `--compare-demo`) and the OTLP receivers when asked, and keeps them alive until the window
/// closes. `process_start` is when the binary started (for the startup-time line).
pub fn run(
    args: ViewArgs,
    otlp: crate::otlp::OtlpArgs,
    process_start: std::time::Instant,
) -> anyhow::Result<()> {
    let token = args.listen.settle()?;
    let mut options = args.options()?;
    let server = highrise_viewer::viewer::start_listener(args.listen.listen, token.token.clone())?;
    let addr = server.local_addr();
    println!("highrise: listening on {addr}");
    if let Some(notice) = token.notice() {
        println!("{notice}");
    }
    // The same cities in browsers, before the demo so that a page sees it from its start.
    let _web = args.web.start(
        &server,
        &args.listen,
        highrise_aggregate::AlertConfig::default(),
    )?;
    // Dropped after the window (and its server): the programs may stop when dropped, and OTLP
    // sessions end with a Goodbye.
    let _programs = args.start_demo(addr)?;
    let receivers = otlp.start(
        server.local_sessions(),
        token.token.clone(),
        args.listen.allow_remote,
    )?;
    if let Some(receivers) = &receivers {
        options.links = receivers.links().clone();
    }
    highrise_viewer::viewer::run(server, options, process_start)
}

impl ViewArgs {
    /// The demo the window starts once it listens on `addr`: the bookstore's two versions as
    /// child processes with `--compare-demo` (kept alive by the returned pair), else tetris on
    /// a background thread unless `--no-demo`.
    fn start_demo(&self, addr: SocketAddr) -> anyhow::Result<Option<demo::ComparePair>> {
        if self.compare_demo {
            return demo::spawn_compare_pair(addr, 3600.0).map(Some);
        }
        if !self.no_demo {
            demo::spawn_in_background(addr)?;
        }
        Ok(None)
    }

    /// What the window shows at start; the compare demo's two versions are best read as one
    /// diff city.
    fn options(&self) -> anyhow::Result<ViewerOptions> {
        if self.screenshot_after_s.len() != self.screenshot.len() {
            anyhow::bail!("give one --screenshot PATH for each --screenshot-after SECONDS");
        }
        let compare = match self.compare {
            Some(mode) => mode,
            None if self.compare_demo => CompareMode::Diff,
            None => CompareMode::default(),
        };
        Ok(ViewerOptions {
            window_size_px: parse_size(&self.window_size, "--window-size")?,
            screenshots: self
                .screenshot_after_s
                .iter()
                .copied()
                .zip(self.screenshot.iter().cloned())
                .collect(),
            compare,
            replay: self.replay.clone(),
            replay_speed: self.replay_speed,
            record_dir: self.record_dir.clone(),
            height: self.height,
            height_scale: self.height_scale,
            lod: self.lod,
            colour: self.colour,
            class_floors: self.class_floors,
            call_arcs: self.call_arcs,
            sites: self.sites,
            predict: self.predict.clone(),
            predict_vs: self.predict_vs.clone(),
            predict_phase: self.predict_phase.clone(),
            predict_basis: self.predict_basis.clone(),
            focus: self.focus.clone(),
            source_root: self.source_root.clone(),
            links: Default::default(),
        })
    }
}
