//! Alerts: what should make a developer look, raised from successive snapshots (issue 17).
//!
//! - **Stuck**: a method at or above `stuck_elevation` for `stuck_for_s` while its thread count
//!   rose over that time — the paper's thread leak (threads parked in one method pile up).
//! - **Jump**: a method whose elevation stayed `jump` (a share of the window, 0.5 = 50 points)
//!   above its own recent past (the mean of its first `baseline_s`, then a moving average over
//!   `baseline_s`) for `jump_for_s`; at most one per method per `baseline_s`, so a method that
//!   swings does not raise one per swing. None until the method has a real past: `baseline_s`
//!   since it was first seen and since the program started, so warming up is not a jump.
//! - **Dropping**: the agent dropped at least `drop_share` of the window's events.
//!
//! Each is raised once per episode: again only after the condition has ended. A raised stuck
//! alert keeps following its method's thread count while the method stays stuck. Pure logic,
//! fed by [`AlertDetector::observe`]; the report, `highrise serve` and the viewer call it.

use crate::Snapshot;

/// Thresholds ([`Default`]: stuck at ≥ 95 % for ≥ 10 s, a jump of 50 points over a 30 s
/// average lasting 1 s, 1 % of events dropped).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlertConfig {
    /// Elevation (0–1) at or above which a method counts as stuck.
    pub stuck_elevation: f32,
    /// How long it must stay there, seconds.
    pub stuck_for_s: f64,
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
    /// Stuck since `since_ns` (program time) with `threads_then` threads; `threads_now` now
    /// (the highest while it stays stuck).
    Stuck {
        since_ns: u64,
        threads_then: u32,
        threads_now: u32,
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
}

/// Per method: the stuck episode, the moving average, whether a jump is raised.
#[derive(Debug, Clone, Copy, Default)]
struct Watch {
    /// (since, threads then, index of its raised alert) while at or above the threshold.
    stuck: Option<(u64, u32, Option<usize>)>,
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
}

/// Raises alerts from successive snapshots of one session.
#[derive(Debug, Clone, Default)]
pub struct AlertDetector {
    config: AlertConfig,
    watches: Vec<Watch>,
    last_ns: Option<u64>,
    /// The first snapshot's time: the program's start-up as this detector saw it.
    start_ns: Option<u64>,
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
            if elevation >= config.stuck_elevation {
                match &mut watch.stuck {
                    None => watch.stuck = Some((now_ns, stats.thread_count, None)),
                    Some((since, then, raised)) => match raised {
                        Some(index) => {
                            if let AlertKind::Stuck { threads_now, .. } =
                                &mut self.alerts[*index].kind
                            {
                                *threads_now = (*threads_now).max(stats.thread_count);
                            }
                        }
                        None => {
                            if now_ns.saturating_sub(*since) >= stuck_for_ns
                                && stats.thread_count > *then
                            {
                                *raised = Some(self.alerts.len());
                                self.alerts.push(Alert {
                                    kind: AlertKind::Stuck {
                                        since_ns: *since,
                                        threads_then: *then,
                                        threads_now: stats.thread_count,
                                    },
                                    method_id: Some(method_id as u32),
                                    raised_ns: now_ns,
                                });
                            }
                        }
                    },
                }
            } else {
                watch.stuck = None;
            }
            // Jump, against the average before this snapshot, lasting `jump_for_s`, and not
            // within `baseline_s` of its last one; only once the method has a real past: a
            // whole `baseline_s` since it was first seen and since the program started (a
            // method warming up at start-up, or a game loop starting, is no jump).
            let warm = now_ns.saturating_sub(first_ns) >= baseline_ns
                && now_ns.saturating_sub(start_ns) >= baseline_ns;
            if warm && elevation - watch.baseline >= config.jump {
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

    fn snapshot(now_s: f64, methods: &[(f32, u32)], dropped_share: f32) -> Snapshot {
        Snapshot {
            now_ns: (now_s * 1e9) as u64,
            window_ns: 3 * S,
            methods: methods
                .iter()
                .map(|&(elevation, thread_count)| MethodStats {
                    elevation,
                    thread_count,
                    ..MethodStats::default()
                })
                .collect(),
            dropped_share,
            ..Snapshot::default()
        }
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
            let raised = detector.observe(&snapshot(t, &[(elevation, leaked), (0.96, 1)], 0.0));
            let stuck: Vec<_> = detector
                .alerts()
                .iter()
                .filter(|a| matches!(a.kind, AlertKind::Stuck { .. }))
                .collect();
            if raised_at.is_none() && !stuck.is_empty() {
                raised_at = Some(t);
            }
            assert!(stuck.len() <= 1, "{:?}", detector.alerts());
            let _ = raised;
        }
        // Stuck from 2 s, raised 10 s later (12 s), at 4 threads; 30 s: 10 threads.
        assert_eq!(raised_at, Some(12.0));
        let stuck: Vec<&Alert> = detector
            .alerts()
            .iter()
            .filter(|a| matches!(a.kind, AlertKind::Stuck { .. }))
            .collect();
        assert_eq!(stuck.len(), 1);
        assert_eq!(stuck[0].method_id, Some(0));
        assert_eq!(
            stuck[0].kind,
            AlertKind::Stuck {
                since_ns: 2 * S,
                threads_then: 1,
                threads_now: 10,
            }
        );
        // No jump: method 0 went from 0 to 100 % at the program's start-up (2 s), before it
        // had a past of 30 s; method 1 sat at 96 % all along.
        assert!(
            detector
                .alerts()
                .iter()
                .all(|a| !matches!(a.kind, AlertKind::Jump { .. })),
            "{:?}",
            detector.alerts()
        );
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
        let jumps: Vec<&Alert> = detector
            .alerts()
            .iter()
            .filter(|a| matches!(a.kind, AlertKind::Jump { .. }))
            .collect();
        assert!(jumps.is_empty(), "{jumps:?}");
        // Later: method 1 back to 0 for a while, then 100 % again: now it has a past.
        let mut detector = AlertDetector::new(AlertConfig::default());
        for tenth in 0..500u32 {
            let t = f64::from(tenth) / 10.0;
            let elevation = if t < 40.0 { 0.05 } else { 0.9 };
            detector.observe(&snapshot(t, &[(elevation, 1)], 0.0));
        }
        let jumps: Vec<&Alert> = detector
            .alerts()
            .iter()
            .filter(|a| matches!(a.kind, AlertKind::Jump { .. }))
            .collect();
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
        detector.observe(&snapshot(0.0, &[(0.6, 1)], 0.0));
        detector.observe(&snapshot(0.5, &[(0.6, 2)], 0.0));
        assert!(detector.alerts().is_empty());
        assert_eq!(detector.observe(&snapshot(1.0, &[(0.6, 2)], 0.0)), 1);
    }
}
