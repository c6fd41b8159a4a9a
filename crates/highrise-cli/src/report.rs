//! `highrise report`: a headless summary of a recording (or B − A of two) for people and CI,
//! optionally drawn offscreen to a PNG. Summaries and diffs live in `highrise-report`.
//!
//! Exit codes: 0 success; 1 an error (unreadable or damaged recording, bad arguments); 2
//! `--fail-if-slower PCT` and some method present in both runs grew its mean elevation by more
//! than PCT percentage points.

use std::path::PathBuf;

use clap::Args;

/// Exit code of `highrise report --fail-if-slower` when the gate fails.
pub const REGRESSION_EXIT_CODE: i32 = 2;

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
}

/// Runs `highrise report`. Exits the process with [`REGRESSION_EXIT_CODE`] when the
/// `--fail-if-slower` gate fails.
pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    if args.fail_if_slower.is_some() && args.vs.is_none() {
        anyhow::bail!("--fail-if-slower needs --vs (two runs to compare)");
    }
    let a = highrise_report::summarize(&args.file)?;
    if let Some(png) = &args.png {
        render_png(&args, png)?;
    }
    let Some(vs) = &args.vs else {
        if args.json {
            println!("{}", serde_json::to_string_pretty(&a)?);
        } else {
            print!("{}", highrise_report::render_summary(&a));
        }
        return Ok(());
    };
    let b = highrise_report::summarize(vs)?;
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
    Ok(())
}

/// Draws the recording's city (or the diff city of the two) offscreen.
#[cfg(feature = "viewer")]
fn render_png(args: &ReportArgs, png: &std::path::Path) -> anyhow::Result<()> {
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
fn render_png(_args: &ReportArgs, png: &std::path::Path) -> anyhow::Result<()> {
    anyhow::bail!(
        "cannot render {}: this highrise was built without the viewer (feature `viewer`)",
        png.display()
    )
}
