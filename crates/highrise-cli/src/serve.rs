//! `highrise serve`: the listener without a window. Prints one line when a program connects,
//! a status line per live session every interval, each new error, and how each session ended.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use highrise_aggregate::{AlertConfig, AlertDetector, Snapshot, DEFAULT_WINDOW_S};
use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::{
    IngestConfig, IngestServer, SessionEnd, SessionId, SessionReport, SessionStatus,
};
use highrise_protocol::{Measure, PROTOCOL_VERSION};

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub listen: crate::listen::ListenArgs,
    /// Seconds between status lines.
    #[arg(long, default_value_t = 1.0)]
    pub interval_s: f64,
    /// Exit once this many sessions have ended (for scripts and tests).
    #[arg(long)]
    pub exit_after_sessions: Option<usize>,
    /// How many of the highest methods each status line lists.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// Also run the built-in demo program against this listener.
    #[arg(long)]
    pub demo: bool,
    #[command(flatten)]
    pub alerts: crate::report::AlertArgs,
    #[command(flatten)]
    pub otlp: crate::otlp::OtlpArgs,
    #[command(flatten)]
    pub web: crate::web::WebArgs,
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let token = args.listen.settle()?;
    let server = IngestServer::start(
        IngestConfig {
            listen_addr: args.listen.listen,
            token: token.token.clone(),
            ..IngestConfig::default()
        },
        {
            // Parked threads as the stuck alert counts them: at its threshold.
            let parked_share = args.alerts.config().stuck_elevation;
            // The page's tooltip lists callers: with --web, sessions keep their calling
            // contexts (as the window's do).
            let contexts = args.web.enabled();
            move |hello: &highrise_protocol::Hello| {
                let mut sink = if contexts {
                    AggregateSink::factory_with_contexts(hello)
                } else {
                    AggregateSink::factory(hello)
                };
                sink.aggregator_mut().set_parked_share(parked_share);
                sink
            }
        },
    )
    .context("cannot start the ingest server")?;
    let local_addr = server.local_addr();
    let mut stdout = std::io::stdout().lock();
    writeln!(
        stdout,
        "highrise: listening on {local_addr} (protocol v{PROTOCOL_VERSION}); start a program with a highrise agent, Ctrl-C to stop"
    )?;
    if let Some(notice) = token.notice() {
        writeln!(stdout, "{notice}")?;
    }
    stdout.flush()?;
    // Before the demo, so that a page opened at once sees it from its start.
    let _web = args
        .web
        .start(&server, &args.listen, args.alerts.config())?;
    if args.demo {
        crate::demo::spawn_in_background(local_addr)?;
    }
    // Dropped before the server (declared after it): OTLP sessions end with a Goodbye.
    let _otlp = args.otlp.start(
        server.local_sessions(),
        token.token.clone(),
        args.listen.allow_remote,
    )?;

    // Ctrl-C (SIGINT, also when a script started serve and the signal comes by `kill -INT`)
    // stops cleanly: the sessions end and their last lines are printed.
    let interrupted = crate::interrupt_flag()?;

    let interval = Duration::from_secs_f64(args.interval_s.max(0.05));
    let mut printer = Printer {
        top: args.top,
        alert_config: args.alerts.config(),
        ..Printer::default()
    };
    let mut next_status = Instant::now() + interval;
    loop {
        if interrupted.load(std::sync::atomic::Ordering::SeqCst) {
            return stop_on_interrupt(&mut stdout, server, &mut printer);
        }
        // Short waits, so that an interrupt is seen within a tenth of a second.
        let timeout = next_status
            .saturating_duration_since(Instant::now())
            .min(Duration::from_millis(100));
        match server.updates().recv_timeout(timeout) {
            Ok(report) => printer.update(&mut stdout, report)?,
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                printer.print_status(&mut stdout)?;
                next_status = Instant::now() + interval;
            }
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                bail!("the ingest server stopped")
            }
        }
        stdout.flush()?;
        if args
            .exit_after_sessions
            .is_some_and(|count| printer.ended >= count)
        {
            return Ok(());
        }
    }
}

/// Ctrl-C: the server stops (every live session ends as "server shutdown"), the sessions' last
/// reports are printed, and serve exits with success.
fn stop_on_interrupt(
    out: &mut impl Write,
    server: IngestServer<AggregateSink>,
    printer: &mut Printer,
) -> anyhow::Result<()> {
    writeln!(out, "highrise: Ctrl-C: stopping; the sessions end")?;
    let updates = server.updates().clone();
    server.shutdown();
    let deadline = Instant::now() + Duration::from_secs(2);
    while let Ok(report) = updates.recv_timeout(deadline.saturating_duration_since(Instant::now()))
    {
        printer.update(out, report)?;
    }
    writeln!(out, "highrise: stopped")?;
    out.flush()?;
    Ok(())
}

type Report = SessionReport<Arc<Snapshot>>;

/// Display names of one session's methods; definitions are append-only, so `seen` of them are
/// already in `names`.
#[derive(Default)]
struct MethodNames {
    seen: usize,
    names: Vec<String>,
}

/// Turns the stream of session reports into lines.
#[derive(Default)]
struct Printer {
    top: usize,
    live: HashMap<SessionId, Report>,
    errors_printed: HashMap<SessionId, usize>,
    /// Sessions whose measure (sampled, adaptive) was said.
    measure_said: std::collections::HashSet<SessionId>,
    /// The notices printed, per session and key (a notice is printed again when it changes).
    notices_said: HashMap<(SessionId, String), String>,
    /// Per session, "package.Class.method" by method id, grown as definitions arrive.
    names: HashMap<SessionId, MethodNames>,
    /// Per session, the alerts raised from its snapshots (printed as they come).
    alerts: HashMap<SessionId, AlertDetector>,
    alert_config: AlertConfig,
    ended: usize,
}

impl Printer {
    fn update(&mut self, out: &mut impl Write, report: Report) -> anyhow::Result<()> {
        let id = report.session_id;
        let was_connected = self
            .live
            .get(&id)
            .is_some_and(|previous| previous.info.is_some());
        if !was_connected {
            if let Some(info) = &report.info {
                writeln!(
                    out,
                    "[session {id}] connected: {} \"{}\" pid {} from {} ({})",
                    info.program, info.version_label, info.pid, report.peer, info.agent
                )?;
            }
        }
        if let Some(info) = report.info.as_ref() {
            if info.measure.is_estimated() && self.measure_said.insert(id) {
                let window_s = report
                    .sink
                    .as_deref()
                    .map_or(DEFAULT_WINDOW_S, Snapshot::window_s);
                writeln!(
                    out,
                    "[session {id}] measured: {}",
                    info.measure.describe(window_s)
                )?;
            }
        }
        for notice in report.info.iter().flat_map(|info| &info.notices) {
            let said = self
                .notices_said
                .entry((id, notice.key.clone()))
                .or_default();
            if *said != notice.text {
                writeln!(out, "[session {id}] agent: {}", notice.text)?;
                said.clone_from(&notice.text);
            }
        }
        self.learn_names(&report);
        self.print_alerts(out, &report)?;
        let printed = self.errors_printed.entry(id).or_insert(0);
        for error in report.errors.iter().skip(*printed) {
            if error.is_crash() {
                // The one line that says it, as it happens (the session is still read to its
                // end, counted, and recorded).
                writeln!(out, "[session {id}] FAILED: {error}")?;
                continue;
            }
            writeln!(out, "[session {id}] error: {error}")?;
        }
        *printed = report.errors.len();
        if let SessionStatus::Ended(end) = &report.status {
            let how = match end {
                SessionEnd::Failed(error) if error.is_crash() => {
                    "failed: a bug in highrise, see FAILED above".to_string()
                }
                end => end.describe(),
            };
            writeln!(out, "[session {id}] ended ({how}); {}", summary(&report))?;
            self.live.remove(&id);
            self.print_top(out, &report)?;
            self.errors_printed.remove(&id);
            self.measure_said.remove(&id);
            self.notices_said.retain(|(session, _), _| *session != id);
            self.names.remove(&id);
            self.alerts.remove(&id);
            self.ended += 1;
        } else {
            self.live.insert(id, report);
        }
        Ok(())
    }

    fn print_status(&self, out: &mut impl Write) -> anyhow::Result<()> {
        let mut ids: Vec<_> = self.live.keys().copied().collect();
        ids.sort_unstable();
        for id in ids {
            let report = &self.live[&id];
            if report.info.is_some() {
                writeln!(out, "[session {id}] {}", summary(report))?;
                self.print_top(out, report)?;
            }
        }
        Ok(())
    }

    /// Alerts the session's latest snapshot raised, one line each.
    fn print_alerts(&mut self, out: &mut impl Write, report: &Report) -> anyhow::Result<()> {
        let Some(snapshot) = &report.sink else {
            return Ok(());
        };
        let id = report.session_id;
        let config = self.alert_config;
        let detector = self
            .alerts
            .entry(id)
            .or_insert_with(|| AlertDetector::new(config));
        let raised = detector.observe(snapshot);
        let alerts = &detector.alerts()[detector.alerts().len() - raised..];
        let names = self.names.get(&id).map(|known| &known.names);
        let name_of = |method_id: Option<u32>| {
            method_id.map_or_else(String::new, |method_id| {
                names
                    .and_then(|names| names.get(method_id as usize))
                    .filter(|name| !name.is_empty())
                    .map_or_else(|| format!("method #{method_id}"), Clone::clone)
            })
        };
        for alert in alerts {
            let name = name_of(alert.method_id);
            let text = alert.describe(&name);
            writeln!(out, "[session {id}] ALERT: {text}")?;
        }
        Ok(())
    }

    fn learn_names(&mut self, report: &Report) {
        let MethodNames { seen, names } = self.names.entry(report.session_id).or_default();
        for definition in report.definitions().skip(*seen) {
            *seen += 1;
            let slot = definition.id as usize;
            if names.len() <= slot {
                names.resize(slot + 1, String::new());
            }
            names[slot] = definition.display_name();
        }
    }

    /// The session's highest methods right now: elevation, threads, calls in the window.
    fn print_top(&self, out: &mut impl Write, report: &Report) -> anyhow::Result<()> {
        let Some(snapshot) = &report.sink else {
            return Ok(());
        };
        let names = self.names.get(&report.session_id).map(|known| &known.names);
        let window_s = snapshot.window_ns as f64 / 1e9;
        if snapshot.dropped_share > 0.0 {
            writeln!(
                out,
                "    {:.1} % of events dropped in the last {window_s:.1} s: ≈ marks estimates",
                snapshot.dropped_share * 100.0
            )?;
        }
        let measure = report
            .info
            .as_ref()
            .map_or(Measure::EXACT, |info| info.measure);
        for (rank, (method_id, stats)) in snapshot.top_by_elevation(self.top).iter().enumerate() {
            let name = names
                .and_then(|names| names.get(*method_id as usize))
                .filter(|name| !name.is_empty())
                .map_or_else(|| format!("method #{method_id}"), Clone::clone);
            // Sampled: the estimate's error, and no calls (samples do not count them).
            let (error, calls) = match measure.error_points(stats.elevation, window_s as f32) {
                Some(points) => (format!(" ±{points:.1}"), "calls not counted".to_string()),
                None => (
                    String::new(),
                    format!("{} calls/{window_s:.1}s", stats.calls),
                ),
            };
            writeln!(
                out,
                "    {:>2}. {name:<48} {}{:>6.1} %{error}  {} thread{}  {calls}  (inclusive {:.1} %)",
                rank + 1,
                if stats.approximate { "≈" } else { " " },
                stats.elevation * 100.0,
                stats.thread_count,
                if stats.thread_count == 1 { "" } else { "s" },
                stats.inclusive_elevation * 100.0,
            )?;
        }
        Ok(())
    }
}

fn summary<T>(report: &SessionReport<T>) -> String {
    let stats = &report.stats;
    let program = report
        .info
        .as_ref()
        .map_or("(no hello)", |info| info.program.as_str());
    let measure = report
        .info
        .as_ref()
        .map_or(Measure::EXACT, |info| info.measure);
    format!(
        "{program}: {}, {} methods, {} threads, {} errors, {} events dropped by the agent",
        stats.flow(&measure),
        stats.definitions,
        report.threads.len(),
        stats.errors_total,
        stats.agent_events_dropped
    )
}
