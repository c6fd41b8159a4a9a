//! `highrise report`: a headless summary of a recording (or B − A of two) for people and CI,
//! optionally drawn offscreen to a PNG. Summaries and diffs live in `highrise-report`.
//!
//! Exit codes: 0 success; 1 an error (unreadable or damaged recording, bad arguments); 2
//! `--fail-if-slower PCT` and some method present in both runs grew its mean elevation by more
//! than PCT percentage points; 3 `--fail-on-alert` and a run raised an alert (a method stuck
//! while the threads parked in it rose, a jump, drops).

use std::path::{Path, PathBuf};

use clap::Args;

/// Exit code of `highrise report --fail-if-slower` when the gate fails.
pub const REGRESSION_EXIT_CODE: i32 = 2;

/// Exit code of `highrise report --fail-on-alert` when a run raised an alert.
pub const ALERT_EXIT_CODE: i32 = 3;

/// Arguments of `highrise report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The recording to report on (run A when comparing).
    pub file: PathBuf,
    /// Compare with this recording (run B): per-method B − A and the structural diff.
    #[arg(long)]
    pub vs: Option<PathBuf>,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// With --vs: exit with code 2 when a method present in both runs grew its mean
    /// elevation by more than this many percentage points.
    #[arg(long, value_name = "PCT")]
    pub fail_if_slower: Option<f64>,
    /// Also render the city to this PNG: the recording's city at its end, or with --vs the
    /// diff city (B − A) of the two. Renders offscreen (any Vulkan device, software included).
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
    /// Exit with code 3 when a run raised an alert (see the thresholds below).
    #[arg(long)]
    pub fail_on_alert: bool,
    /// Write the recording (or profile) for another tool instead of reporting: FORMAT is
    /// pprof (gzipped protobuf), speedscope (JSON), collapsed (`a;b;c N` lines), chrome
    /// (trace events JSON, for Perfetto and chrome://tracing) or html (the city over time as
    /// one self-contained page that opens offline in a browser).
    #[arg(long, num_args = 2, value_names = ["FORMAT", "FILE"])]
    pub export: Option<Vec<String>>,
    #[command(flatten)]
    pub alerts: AlertArgs,
}

/// Alert thresholds (`highrise report`, `highrise serve`).
#[derive(Debug, Clone, Args)]
pub struct AlertArgs {
    /// Alert: a method at or above this elevation (percent) ...
    #[arg(long, value_name = "PCT", default_value_t = 95.0)]
    pub alert_stuck_pct: f64,
    /// ... for this many seconds while its thread count rose is stuck (a thread leak).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub alert_stuck_s: f64,
    /// Alert: a method whose elevation rose this many points above its recent average.
    #[arg(long, value_name = "POINTS", default_value_t = 50.0)]
    pub alert_jump_points: f64,
    /// Alert: the agent dropped this share (percent) of the window's events.
    #[arg(long, value_name = "PCT", default_value_t = 1.0)]
    pub alert_drop_pct: f64,
}

impl AlertArgs {
    /// The detector's thresholds.
    pub fn config(&self) -> highrise_aggregate::AlertConfig {
        highrise_aggregate::AlertConfig {
            stuck_elevation: (self.alert_stuck_pct / 100.0) as f32,
            stuck_for_s: self.alert_stuck_s,
            jump: (self.alert_jump_points / 100.0) as f32,
            drop_share: (self.alert_drop_pct / 100.0) as f32,
            ..highrise_aggregate::AlertConfig::default()
        }
    }
}

/// `--export FORMAT FILE`: the recording at `file` written as FORMAT.
fn export(file: &Path, format: &str, out: &Path) -> anyhow::Result<()> {
    use anyhow::Context;
    if format == "html" {
        let export = highrise_web::export::write_html(file, out)
            .with_context(|| format!("exporting {}", file.display()))?;
        eprintln!(
            "wrote {} ({} buildings, {} frames): open it in a browser",
            out.display(),
            export.buildings,
            export.frames
        );
        return Ok(());
    }
    let format: highrise_record::export::ExportFormat =
        format.parse().map_err(anyhow::Error::msg)?;
    let writer = std::io::BufWriter::new(
        std::fs::File::create(out).with_context(|| format!("creating {}", out.display()))?,
    );
    let exported = highrise_import::open(file)
        .and_then(|reader| highrise_record::export::export(reader, format, writer));
    if let Err(error) = exported {
        let _ = std::fs::remove_file(out);
        return Err(error).with_context(|| format!("exporting {}", file.display()));
    }
    eprintln!("wrote {}", out.display());
    Ok(())
}

/// With `--fail-on-alert`: says the runs' alerts on stderr and exits with [`ALERT_EXIT_CODE`]
/// when there are any.
fn alert_gate(args: &ReportArgs, runs: &[&highrise_report::RunSummary]) {
    if !args.fail_on_alert {
        return;
    }
    let alerts: Vec<String> = runs
        .iter()
        .flat_map(|run| {
            run.alerts
                .iter()
                .map(move |alert| format!("  {}: {}", run.path.display(), alert.text))
        })
        .collect();
    if !alerts.is_empty() {
        eprintln!("FAIL: {} alert(s):", alerts.len());
        for alert in alerts {
            eprintln!("{alert}");
        }
        std::process::exit(ALERT_EXIT_CODE);
    }
}

/// Runs `highrise report`. Exits the process with [`REGRESSION_EXIT_CODE`] when the
/// `--fail-if-slower` gate fails.
pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    if args.fail_if_slower.is_some() && args.vs.is_none() {
        anyhow::bail!("--fail-if-slower needs --vs (two runs to compare)");
    }
    if let Some([format, out]) = args.export.as_deref() {
        return export(&args.file, format, Path::new(out));
    }
    let a = highrise_report::summarize_with(&args.file, args.alerts.config())?;
    if let Some(png) = &args.png {
        render_png(&args, png)?;
    }
    let Some(vs) = &args.vs else {
        if args.json {
            println!("{}", serde_json::to_string_pretty(&a)?);
        } else {
            print!("{}", highrise_report::render_summary(&a));
        }
        alert_gate(&args, &[&a]);
        return Ok(());
    };
    let b = highrise_report::summarize_with(vs, args.alerts.config())?;
    let comparison = highrise_report::compare(&a, &b);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&comparison)?);
    } else {
        print!("{}", highrise_report::render_comparison(&comparison));
    }
    if let Some(threshold_pct) = args.fail_if_slower {
        let regressions = comparison.regressions(threshold_pct);
        if !regressions.is_empty() {
            eprintln!(
                "FAIL: {} method(s) grew more than {threshold_pct} points of mean elevation:",
                regressions.len()
            );
            for delta in regressions {
                eprintln!(
                    "  {:+.2}  {} ({:.2}% → {:.2}%)",
                    delta.delta_mean_pct, delta.name, delta.mean_a_pct, delta.mean_b_pct
                );
            }
            std::process::exit(REGRESSION_EXIT_CODE);
        }
    }
    alert_gate(&args, &[&a, &b]);
    Ok(())
}

/// Draws the recording's city (or the diff city of the two) offscreen.
#[cfg(feature = "viewer")]
fn render_png(args: &ReportArgs, png: &Path) -> anyhow::Result<()> {
    use anyhow::Context as _;
    use highrise_viewer::viewer::{compare::CompareMode, offscreen};
    offscreen::render_png(offscreen::OffscreenRender {
        recordings: std::iter::once(args.file.clone())
            .chain(args.vs.clone())
            .collect(),
        compare: CompareMode::Diff,
        png: png.to_path_buf(),
        width_px: 1280,
        height_px: 800,
        settle_s: 1.5,
    })
    .with_context(|| format!("rendering {}", png.display()))
}

/// Without the viewer there is nothing to draw with: say so instead of skipping silently.
#[cfg(not(feature = "viewer"))]
fn render_png(_args: &ReportArgs, png: &Path) -> anyhow::Result<()> {
    anyhow::bail!(
        "cannot render {}: this highrise was built without the viewer (feature `viewer`)",
        png.display()
    )
}
