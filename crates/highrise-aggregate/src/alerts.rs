//! Alerts: what should make a developer look, raised from successive snapshots.
//!
//! - **Stuck**: a method at or above `stuck_elevation` for `stuck_for_s` while the threads
//!   parked in it ([`MethodStats::parked_threads`](crate::MethodStats::parked_threads)) rose
//!   over that time — the paper's thread leak (threads parked in one method pile up). Parked
//!   threads, not all the threads that ran it: in the real game (exal99/Tetris) a new game's
//!   thread starts as the old one parks, so the thread count had already risen when the
//!   method became stuck, and the next leak did not raise it (2 threads, 2 parked, no alert). The
//!   episode survives dips under the threshold shorter than `stuck_gap_s` (a parked thread
//!   woken for a moment, a resync after lost events): only a dip that long ends it.
//! - **Jump**: a method whose elevation stayed `jump` (a share of the window, 0.5 = 50 points)
//!   above its own recent past (the mean of its first `baseline_s`, then a moving average over
//!   `baseline_s`) for `jump_for_s`; at most one per method per `baseline_s`, so a method that
//!   swings does not raise one per swing. None until the method has a real past: `baseline_s`
//!   since it was first seen and since the program started, so warming up is not a jump.
//! - **Dropping**: the agent dropped at least `drop_share` of the window's events.
//!
//! Each is raised once per episode: again only after the condition has ended. A raised stuck
//! alert keeps following its method's parked threads while the method stays stuck.
//!
//! Estimates (`MethodStats::approximate`: a thread of the method lost events in the window, so
//! the time until its resync went to the method then on top; or any number while the agent is
//! dropping) may raise a stuck alert, marked [`Alert::estimated`]: a parked thread sends
//! nothing, so it loses nothing, and its method's time is right; the loss's error sits on the
//! busy threads. They may not raise a jump: that error is a method credited with a whole
//! loss-to-resync gap, which is exactly what a jump looks like. Nor may any number within
//! `baseline_s` of the session's last drop: a thread that lost events and then went quiet
//! (the real game's event thread at game over) keeps the frame of its last recorded event on
//! top until its next profiled call, unmarked, as the agent cannot tell which thread lost
//! until then; `baseline_s` later such a frame is part of its method's baseline. Pure logic,
//! fed by [`AlertDetector::observe`]; the report, `highrise serve` and the viewer call it.

use crate::Snapshot;

/// Thresholds ([`Default`]: stuck at ≥ 95 % for ≥ 10 s through dips under 3 s, a jump of 50
/// points over a 30 s average lasting 1 s, 1 % of events dropped).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlertConfig {
    /// Elevation (0–1) at or above which a method counts as stuck.
    pub stuck_elevation: f32,
    /// How long it must stay there, seconds.
    pub stuck_for_s: f64,
    /// A dip under `stuck_elevation` shorter than this, seconds, does not end a stuck episode.
    pub stuck_gap_s: f64,
    /// Rise of elevation (0–1) above the method's recent average that is a jump.
    pub jump: f32,
    /// The recent average's time constant, seconds (also the least time between two jump
    /// alerts of one method).
    pub baseline_s: f64,
    /// How long the rise must last, seconds.
    pub jump_for_s: f64,
    /// Share of the window's events dropped (0–1) that raises a dropping alert.
    pub drop_share: f32,
}

impl Default for AlertConfig {
    fn default() -> Self {
        Self {
            stuck_elevation: 0.95,
            stuck_for_s: 10.0,
            stuck_gap_s: 3.0,
            jump: 0.5,
            baseline_s: 30.0,
            jump_for_s: 1.0,
            drop_share: 0.01,
        }
    }
}

/// What an alert is about.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AlertKind {
    /// Stuck since `since_ns` (program time) with `parked_then` threads parked in it;
    /// `parked_now` now (the most while it stays stuck).
    Stuck {
        since_ns: u64,
        parked_then: u32,
        parked_now: u32,
    },
    /// Elevation went from its recent average `from` to `to`.
    Jump { from: f32, to: f32 },
    /// `share` of the window's events were dropped.
    Dropping { share: f32 },
}

/// One alert: its kind, its method (none for dropping), when it was raised (program time).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Alert {
    pub kind: AlertKind,
    pub method_id: Option<u32>,
    pub raised_ns: u64,
    /// Raised on estimated numbers (a stuck episode with a sample marked approximate before
    /// it was raised): some thread's stack came from a resync (the agent dropped events, or
    /// the session is sampled).
    pub estimated: bool,
}

impl Alert {
    /// The alert in words, for people: `name` is its method's (ignored for dropping). The
    /// report, `highrise serve` and the viewer's list all say it so.
    pub fn describe(&self, name: &str) -> String {
        let text = match self.kind {
            AlertKind::Stuck {
                parked_then,
                parked_now,
                ..
            } => format!(
                "{name} stuck at full elevation while the threads parked in it rose from {parked_then} to {parked_now} (a thread leak?)"
            ),
            AlertKind::Jump { from, to } => format!(
                "{name} jumped from {:.1} % (its recent average) to {:.1} %",
                from * 100.0,
                to * 100.0
            ),
            AlertKind::Dropping { share } => format!(
                "the agent dropped {:.1} % of the window's events",
                share * 100.0
            ),
        };
        if self.estimated {
            format!("{text}; ≈ estimated: from resynced stacks (dropped events, or samples)")
        } else {
            text
        }
    }
}

/// A stuck episode of one method.
#[derive(Debug, Clone, Copy)]
struct Episode {
    since_ns: u64,
    parked_then: u32,
    /// Index of its raised alert.
    raised: Option<usize>,
    /// Since when it has been under the threshold (a dip), if it is now.
    dip_since_ns: Option<u64>,
    /// A sample of the episode was an estimate.
    estimated: bool,
}

/// Per method: the stuck episode, the moving average, whether a jump is raised.
#[derive(Debug, Clone, Copy, Default)]
struct Watch {
    /// The stuck episode, while at or above the threshold (or in a short dip).
    stuck: Option<Episode>,
    baseline: f32,
    /// Seconds of samples in `baseline` while it is still a plain mean (its first
    /// `baseline_s`); after that it is a moving average.
    baseline_s: f64,
    /// When the method was first seen (it has a past `baseline_s` later).
    first_ns: Option<u64>,
    /// Since when it has been `jump` above its average, and the average then.
    rising: Option<(u64, f32)>,
    /// When its last jump alert was raised.
    jumped_ns: Option<u64>,
    /// The most threads parked in it over the last `stuck_for_s` or so: the most in the
    /// current and the previous period of `stuck_for_s` (`[previous, current]`), and the
    /// current period's number. A stuck episode starts from this, so threads that come and
    /// go in a pool are no pile-up.
    parked_peaks: [u32; 2],
    parked_period: u64,
}

/// Raises alerts from successive snapshots of one session.
#[derive(Debug, Clone, Default)]
pub struct AlertDetector {
    config: AlertConfig,
    watches: Vec<Watch>,
    last_ns: Option<u64>,
    /// The first snapshot's time: the program's start-up as this detector saw it.
    start_ns: Option<u64>,
    /// The last snapshot whose window held dropped events.
    dropped_ns: Option<u64>,
    dropping: bool,
    alerts: Vec<Alert>,
}

impl AlertDetector {
    pub fn new(config: AlertConfig) -> Self {
        Self {
            config,
            ..Self::default()
        }
    }

    /// Every alert raised so far, in order.
    pub fn alerts(&self) -> &[Alert] {
        &self.alerts
    }

    /// Looks at the next snapshot (program time must not go back); returns how many alerts it
    /// raised (the last ones of [`alerts`](Self::alerts)).
    pub fn observe(&mut self, snapshot: &Snapshot) -> usize {
        let before = self.alerts.len();
        let now_ns = snapshot.now_ns;
        let dt_s = self
            .last_ns
            .map_or(0.0, |last| now_ns.saturating_sub(last) as f64 / 1e9);
        self.last_ns = Some(now_ns);
        let start_ns = *self.start_ns.get_or_insert(now_ns);
        let config = self.config;
        let stuck_for_ns = (config.stuck_for_s * 1e9) as u64;
        let jump_for_ns = (config.jump_for_s * 1e9) as u64;
        let baseline_ns = (config.baseline_s * 1e9) as u64;
        let stuck_gap_ns = (config.stuck_gap_s * 1e9) as u64;
        // The stuck period this observation falls in (parked peaks are kept per period).
        let period = now_ns / stuck_for_ns.max(1);
        let dropping_now = snapshot.dropped_share > 0.0;
        if dropping_now {
            self.dropped_ns = Some(now_ns);
        }
        let exact_for_jumps = self
            .dropped_ns
            .is_none_or(|dropped_ns| now_ns.saturating_sub(dropped_ns) >= baseline_ns);
        // The moving average's weight for this step (exponential, time constant baseline_s).
        let keep = (-dt_s / config.baseline_s.max(1e-3)).exp() as f32;
        if self.watches.len() < snapshot.methods.len() {
            self.watches
                .resize(snapshot.methods.len(), Watch::default());
        }
        for (method_id, (watch, stats)) in
            self.watches.iter_mut().zip(&snapshot.methods).enumerate()
        {
            let elevation = stats.elevation;
            let first_ns = *watch.first_ns.get_or_insert_with(|| {
                // A method's past starts where it is first seen (no jump from nothing).
                watch.baseline = elevation;
                now_ns
            });
            // Stuck.
            if period != watch.parked_period {
                watch.parked_peaks = if period == watch.parked_period + 1 {
                    [watch.parked_peaks[1], 0]
                } else {
                    [0, 0]
                };
                watch.parked_period = period;
            }
            let parked = stats.parked_threads;
            watch.parked_peaks[1] = watch.parked_peaks[1].max(parked);
            let recent_parked = watch.parked_peaks[0].max(watch.parked_peaks[1]);
            if elevation >= config.stuck_elevation {
                let episode = watch.stuck.get_or_insert(Episode {
                    since_ns: now_ns,
                    parked_then: recent_parked,
                    raised: None,
                    dip_since_ns: None,
                    estimated: false,
                });
                episode.dip_since_ns = None;
                match episode.raised {
                    Some(index) => {
                        if let AlertKind::Stuck { parked_now, .. } = &mut self.alerts[index].kind {
                            *parked_now = (*parked_now).max(parked);
                        }
                    }
                    None => {
                        if now_ns.saturating_sub(first_ns) < stuck_for_ns {
                            // The method's first `stuck_for_s` are its start-up: whatever
                            // parks in it then (a pool filling) is where it starts from.
                            episode.parked_then = episode.parked_then.max(parked);
                        }
                        episode.estimated |= stats.approximate || dropping_now;
                        if now_ns.saturating_sub(episode.since_ns) >= stuck_for_ns
                            && parked > episode.parked_then
                        {
                            episode.raised = Some(self.alerts.len());
                            self.alerts.push(Alert {
                                kind: AlertKind::Stuck {
                                    since_ns: episode.since_ns,
                                    parked_then: episode.parked_then,
                                    parked_now: parked,
                                },
                                method_id: Some(method_id as u32),
                                raised_ns: now_ns,
                                estimated: episode.estimated,
                            });
                        }
                    }
                }
            } else if let Some(episode) = &mut watch.stuck {
                // A dip: the episode ends only when it lasts `stuck_gap_s`.
                let dip_since_ns = *episode.dip_since_ns.get_or_insert(now_ns);
                if now_ns.saturating_sub(dip_since_ns) >= stuck_gap_ns {
                    watch.stuck = None;
                }
            }
            // Jump, against the average before this snapshot, lasting `jump_for_s`, and not
            // within `baseline_s` of its last one; only once the method has a real past: a
            // whole `baseline_s` since it was first seen and since the program started (a
            // method warming up at start-up, or a game loop starting, is no jump).
            let warm = now_ns.saturating_sub(first_ns) >= baseline_ns
                && now_ns.saturating_sub(start_ns) >= baseline_ns;
            let exact = exact_for_jumps && !stats.approximate;
            if warm && exact && elevation - watch.baseline >= config.jump {
                let (since, from) = *watch.rising.get_or_insert((now_ns, watch.baseline));
                let cooled = watch
                    .jumped_ns
                    .is_none_or(|last| now_ns.saturating_sub(last) >= baseline_ns);
                if cooled && now_ns.saturating_sub(since) >= jump_for_ns {
                    watch.jumped_ns = Some(now_ns);
                    self.alerts.push(Alert {
                        kind: AlertKind::Jump {
                            from,
                            to: elevation,
                        },
                        method_id: Some(method_id as u32),
                        raised_ns: now_ns,
                        estimated: false,
                    });
                }
            } else {
                watch.rising = None;
            }
            if now_ns.saturating_sub(first_ns) < baseline_ns {
                // Its first `baseline_s`: the plain mean of its samples, weighted by time (not
                // its first sample, which may be a start-up's).
                let weight_s = dt_s.max(1e-3);
                let total_s = watch.baseline_s + weight_s;
                watch.baseline = ((f64::from(watch.baseline) * watch.baseline_s
                    + f64::from(elevation) * weight_s)
                    / total_s) as f32;
                watch.baseline_s = total_s;
            } else {
                watch.baseline = watch.baseline * keep + elevation * (1.0 - keep);
            }
        }
        // Dropping.
        let share = snapshot.dropped_share;
        if !self.dropping && share >= config.drop_share && share > 0.0 {
            self.dropping = true;
            self.alerts.push(Alert {
                kind: AlertKind::Dropping { share },
                method_id: None,
                raised_ns: now_ns,
                estimated: false,
            });
        } else if self.dropping && share < config.drop_share / 2.0 {
            self.dropping = false;
        }
        self.alerts.len() - before
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MethodStats;

    const S: u64 = 1_000_000_000;

    /// One method's numbers: elevation, threads that ran it, threads parked in it, estimated.
    fn stats(elevation: f32, threads: u32, parked: u32, approximate: bool) -> MethodStats {
        MethodStats {
            elevation,
            thread_count: threads,
            parked_threads: parked,
            approximate,
            ..MethodStats::default()
        }
    }

    fn snapshot_of(now_s: f64, methods: Vec<MethodStats>, dropped_share: f32) -> Snapshot {
        Snapshot {
            now_ns: (now_s * 1e9) as u64,
            window_ns: 3 * S,
            methods,
            dropped_share,
            ..Snapshot::default()
        }
    }

    /// Methods as (elevation, threads): every thread of a method at 95 % or more is parked
    /// in it.
    fn snapshot(now_s: f64, methods: &[(f32, u32)], dropped_share: f32) -> Snapshot {
        let methods = methods
            .iter()
            .map(|&(elevation, threads)| {
                let parked = if elevation >= 0.95 { threads } else { 0 };
                stats(elevation, threads, parked, false)
            })
            .collect();
        snapshot_of(now_s, methods, dropped_share)
    }

    fn stuck_alerts(detector: &AlertDetector) -> Vec<&Alert> {
        detector
            .alerts()
            .iter()
            .filter(|a| matches!(a.kind, AlertKind::Stuck { .. }))
            .collect()
    }

    fn jump_alerts(detector: &AlertDetector) -> Vec<&Alert> {
        detector
            .alerts()
            .iter()
            .filter(|a| matches!(a.kind, AlertKind::Jump { .. }))
            .collect()
    }

    /// The paper's leak: method 0 sits at 100 % from 2 s and gains a thread every 3 s; method
    /// 1 is at 96 % on one thread all along (stuck, but no threads pile up: no alert).
    #[test]
    fn a_leak_raises_one_stuck_alert_that_follows_its_threads() {
        let mut detector = AlertDetector::new(AlertConfig::default());
        let mut raised_at = None;
        for tenth in 0..300u32 {
            let t = f64::from(tenth) / 10.0;
            let leaked = if t >= 2.0 {
                1 + ((t - 2.0) / 3.0) as u32
            } else {
                0
            };
            let elevation = if leaked > 0 { 1.0 } else { 0.0 };
            detector.observe(&snapshot(t, &[(elevation, leaked), (0.96, 1)], 0.0));
            let stuck = stuck_alerts(&detector);
            if raised_at.is_none() && !stuck.is_empty() {
                raised_at = Some(t);
            }
            assert!(stuck.len() <= 1, "{:?}", detector.alerts());
        }
        // Stuck from 2 s, raised 10 s later (12 s), at 4 threads; 30 s: 10 threads. It
        // starts from 3: what parked in the method's first 10 s is its start-up.
        assert_eq!(raised_at, Some(12.0));
        let stuck = stuck_alerts(&detector);
        assert_eq!(stuck.len(), 1);
        assert_eq!(stuck[0].method_id, Some(0));
        assert_eq!(
            stuck[0].kind,
            AlertKind::Stuck {
                since_ns: 2 * S,
                parked_then: 3,
                parked_now: 10,
            }
        );
        // No jump: method 0 went from 0 to 100 % at the program's start-up (2 s), before it
        // had a past of 30 s; method 1 sat at 96 % all along.
        assert!(jump_alerts(&detector).is_empty(), "{:?}", detector.alerts());
    }

    /// What every program raised at its start (a game loop "jumped 2 % to 56 %", a finalizer
    /// "3 % to 100 %"): a method warming up is no jump; the same rise after a past of 30 s is.
    #[test]
    fn warming_up_is_no_jump_and_a_rise_after_a_real_past_is() {
        let mut detector = AlertDetector::new(AlertConfig::default());
        let elevation_at = |t: f64| {
            if t < 1.0 {
                0.02
            } else if t < 60.0 {
                // Warmed up: 56 % from 1 s on.
                0.56
            } else {
                0.0
            }
        };
        for tenth in 0..700u32 {
            let t = f64::from(tenth) / 10.0;
            // A method first seen at 40 s, idle, then at 100 % from 50 s: a real jump once it
            // has a past (70 s), not before.
            let late = if t < 40.0 {
                None
            } else if t < 50.0 {
                Some(0.0)
            } else {
                Some(1.0)
            };
            let mut methods = vec![(elevation_at(t), 1)];
            if let Some(elevation) = late {
                methods.push((elevation, 1));
            }
            detector.observe(&snapshot(t, &methods, 0.0));
        }
        let jumps = jump_alerts(&detector);
        assert!(jumps.is_empty(), "{jumps:?}");
        // Later: method 1 back to 0 for a while, then 100 % again: now it has a past.
        let mut detector = AlertDetector::new(AlertConfig::default());
        for tenth in 0..500u32 {
            let t = f64::from(tenth) / 10.0;
            let elevation = if t < 40.0 { 0.05 } else { 0.9 };
            detector.observe(&snapshot(t, &[(elevation, 1)], 0.0));
        }
        let jumps = jump_alerts(&detector);
        assert_eq!(jumps.len(), 1, "{jumps:?}");
        assert_eq!(jumps[0].raised_ns, 41 * S);
        assert!(
            matches!(jumps[0].kind, AlertKind::Jump { from, .. } if (from - 0.05).abs() < 0.01)
        );
    }

    #[test]
    fn dropping_is_raised_once_per_episode() {
        let mut detector = AlertDetector::new(AlertConfig::default());
        let shares = [0.0, 0.02, 0.03, 0.006, 0.004, 0.05];
        let raised: Vec<usize> = shares
            .iter()
            .enumerate()
            .map(|(i, &share)| detector.observe(&snapshot(i as f64, &[], share)))
            .collect();
        // Raised at 0.02; 0.006 is not yet below half the threshold; 0.004 ends it; again.
        assert_eq!(raised, vec![0, 1, 0, 0, 0, 1]);
        assert!(detector
            .alerts()
            .iter()
            .all(|a| a.method_id.is_none() && matches!(a.kind, AlertKind::Dropping { .. })));
    }

    #[test]
    fn thresholds_are_configurable() {
        let config = AlertConfig {
            stuck_elevation: 0.5,
            stuck_for_s: 1.0,
            ..AlertConfig::default()
        };
        let mut detector = AlertDetector::new(config);
        let at = |t: f64, parked: u32| snapshot_of(t, vec![stats(0.6, 2, parked, false)], 0.0);
        // Seen from 0 s (its start-up is over at 1 s), stuck from 20 s.
        detector.observe(&snapshot_of(0.0, vec![stats(0.1, 1, 0, false)], 0.0));
        detector.observe(&at(20.0, 1));
        detector.observe(&at(20.5, 2));
        assert!(detector.alerts().is_empty());
        assert_eq!(detector.observe(&at(21.0, 2)), 1);
    }

    /// The real game (exal99/Tetris, recorded: tests/alerts): each finished game's thread
    /// parks in `run()` as the next game's thread starts, so two threads ran `run()` from the
    /// moment it was stuck, and the second leak changed nothing in that count. Parked threads
    /// rose from 1 to 2: raised as the second parks (the episode is older than 10 s).
    #[test]
    fn a_leak_whose_thread_count_never_rises_is_raised_on_its_parked_threads() {
        let mut detector = AlertDetector::new(AlertConfig::default());
        for tenth in 0..700u32 {
            let t = f64::from(tenth) / 10.0;
            // Game 1 runs (0-24 s), parks; game 2 runs (24-44 s), parks; at the menu after.
            let (elevation, threads, parked) = match t {
                t if t < 24.0 => (0.55, 1, 0),
                t if t < 27.0 => (0.7, 2, 0),
                t if t < 47.0 => (1.0, 2, 1),
                _ => (1.0, 2, 2),
            };
            detector.observe(&snapshot_of(
                t,
                vec![stats(elevation, threads, parked, true)],
                0.0,
            ));
        }
        let stuck = stuck_alerts(&detector);
        assert_eq!(stuck.len(), 1, "{:?}", detector.alerts());
        assert_eq!(stuck[0].raised_ns, 47 * S);
        assert!(stuck[0].estimated);
        assert_eq!(
            stuck[0].kind,
            AlertKind::Stuck {
                since_ns: 27 * S,
                parked_then: 1,
                parked_now: 2
            }
        );
        assert!(stuck[0]
            .describe("main.game.MainSinglePlayerThread.run")
            .ends_with(
                "rose from 1 to 2 (a thread leak?); ≈ estimated: from resynced stacks (dropped events, or samples)"
            ));
    }

    /// Dips under the threshold shorter than `stuck_gap_s` (a parked thread woken for a
    /// moment, a resync) keep the episode; one as long ends it.
    #[test]
    fn a_short_dip_keeps_the_episode_and_a_long_one_ends_it() {
        let run = |dip_s: f64| {
            let mut detector = AlertDetector::new(AlertConfig::default());
            for tenth in 0..450u32 {
                // Idle for its first 20 s (its start-up), then as from 0 here.
                let t = f64::from(tenth) / 10.0 - 20.0;
                // Stuck from 0 with 1 parked, 2 parked from 8 s; a dip at 5 s and at 11 s.
                let dipped = (5.0..5.0 + dip_s).contains(&t) || (11.0..11.0 + dip_s).contains(&t);
                let parked = if t < 0.0 {
                    0
                } else if t < 8.0 {
                    1
                } else {
                    2
                };
                let elevation = if t < 0.0 || dipped { 0.5 } else { 1.0 };
                detector.observe(&snapshot_of(
                    t + 20.0,
                    vec![stats(elevation, 3, if dipped { 0 } else { parked }, false)],
                    0.0,
                ));
            }
            stuck_alerts(&detector)
                .iter()
                .map(|alert| alert.raised_ns as f64 / 1e9 - 20.0)
                .collect::<Vec<f64>>()
        };
        // 2 s dips: stuck since 0, raised at 10 s.
        assert_eq!(run(2.0), vec![10.0]);
        // 4 s dips: the first ends the episode (new one from 9 s with 2 parked then), the
        // second the next one; no rise within an episode, no alert.
        assert_eq!(run(4.0), Vec::<f64>::new());
    }

    /// A pool whose idle threads wait in one method come and go between 1 and 3 parked: no
    /// pile-up, since an episode starts from the most parked over the last `stuck_for_s`.
    #[test]
    fn a_pools_idle_threads_coming_and_going_are_no_pile_up() {
        let mut detector = AlertDetector::new(AlertConfig::default());
        for tenth in 0..1200u32 {
            let t = f64::from(tenth) / 10.0;
            let parked = 1 + (tenth / 7) % 3;
            detector.observe(&snapshot_of(t, vec![stats(1.0, 3, parked, false)], 0.0));
        }
        assert!(detector.alerts().is_empty(), "{:?}", detector.alerts());
    }

    /// Estimates may raise no jump (their error is a loss-to-resync gap credited to one
    /// method, a jump's very shape); the same rise measured exactly is one.
    #[test]
    fn an_estimated_rise_is_no_jump() {
        for approximate in [true, false] {
            let mut detector = AlertDetector::new(AlertConfig::default());
            for tenth in 0..500u32 {
                let t = f64::from(tenth) / 10.0;
                let elevation = if t < 40.0 { 0.05 } else { 0.9 };
                detector.observe(&snapshot_of(
                    t,
                    vec![stats(elevation, 1, 0, approximate && t >= 40.0)],
                    0.0,
                ));
            }
            let jumps = jump_alerts(&detector).len();
            assert_eq!(
                jumps,
                usize::from(!approximate),
                "approximate: {approximate}"
            );
        }
        // Nor within 30 s of the session's last drop, marked or not (a quiet thread's frame
        // kept on top after a loss it never settled); 30 s after, the same rise is a jump.
        for dropped_until_s in [45.0, 5.0] {
            let mut detector = AlertDetector::new(AlertConfig::default());
            for tenth in 0..800u32 {
                let t = f64::from(tenth) / 10.0;
                let elevation = if t < 40.0 { 0.05 } else { 0.9 };
                let dropped = if t < dropped_until_s { 0.2 } else { 0.0 };
                detector.observe(&snapshot_of(
                    t,
                    vec![stats(elevation, 1, 0, false)],
                    dropped,
                ));
            }
            let jumps = jump_alerts(&detector).len();
            assert_eq!(
                jumps,
                usize::from(dropped_until_s < 10.0),
                "{dropped_until_s}"
            );
        }
    }
}
