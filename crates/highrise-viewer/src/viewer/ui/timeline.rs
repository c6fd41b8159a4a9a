//! The timeline: one strip per session along the bottom of the window, over the
//! past the session keeps (`SessionView::history`): the threads busy in profiled code as a
//! sparkline, a red tick per alert, a band per phase mark while it was open, and the moment
//! the city shows. Pause freezes the city at
//! the newest kept moment; a click or drag on the strip shows the moment under the pointer;
//! "live" goes back. Past moments carry heights and colours by time; allocations, floors and
//! call arcs are live only.

use bevy::prelude::*;
use bevy_egui::{egui, EguiContexts};
use highrise_aggregate::History;

use super::alerts::ViewerAlerts;
use crate::viewer::camera::PanelCover;
use crate::viewer::sessions::{SessionView, Sessions};

/// Height of one session's strip, points.
const STRIP_HEIGHT: f32 = 30.0;

/// `-m:ss` (or `-h:mm:ss`) for a span of program time before now.
pub fn ago_label(ago_ns: u64) -> String {
    let seconds = ago_ns / 1_000_000_000;
    if seconds >= 3600 {
        format!(
            "−{}:{:02}:{:02}",
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60
        )
    } else {
        format!("−{}:{:02}", seconds / 60, seconds % 60)
    }
}

/// `m:ss` for a span of program time.
fn span_label(span_ns: u64) -> String {
    let seconds = span_ns / 1_000_000_000;
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

/// What the history holds, for the strip's right end: its span and memory.
pub fn kept_label(history: &History) -> String {
    let Some((oldest_ns, newest_ns)) = history.range_ns() else {
        return "nothing kept yet".to_string();
    };
    let config = history.config();
    format!(
        "{} kept (up to {}) · {:.1} MiB (cap {} MiB)",
        span_label(newest_ns - oldest_ns),
        span_label(config.span_ns),
        history.memory_bytes() as f64 / (1 << 20) as f64,
        config.max_bytes >> 20
    )
}

/// The system: a bottom panel with each shown session's strip.
pub(super) fn timeline(
    mut contexts: EguiContexts,
    mut sessions: ResMut<Sessions>,
    alerts: Res<ViewerAlerts>,
    mut cover: ResMut<PanelCover>,
) -> Result {
    if sessions.shown().next().is_none() {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?;
    let height = egui::TopBottomPanel::bottom("highrise-timeline")
        .resizable(false)
        .show(ctx, |ui| {
            for (&session_id, view) in sessions
                .by_id
                .iter_mut()
                .filter(|(_, view)| view.report.info.is_some())
            {
                let raised: Vec<u64> = alerts.of(session_id).iter().map(|a| a.raised_ns).collect();
                session_strip(ui, view, &raised);
            }
        })
        .response
        .rect
        .height();
    // Framing keeps the scene above the strips.
    let fraction = (height / ctx.screen_rect().height().max(1.0)).clamp(0.0, 0.6);
    if (cover.bottom_fraction - fraction).abs() > 0.01 {
        cover.bottom_fraction = fraction;
    }
    Ok(())
}

fn session_strip(ui: &mut egui::Ui, view: &mut SessionView, alerts_ns: &[u64]) {
    ui.horizontal(|ui| {
        let range = view.history.range_ns();
        let live = view.scrub.is_none();
        let toggle = if live {
            ui.button("⏸ pause")
                .on_hover_text("Freeze the city at this moment (the program keeps being recorded)")
        } else {
            ui.button("▶ live").on_hover_text("Back to the live city")
        };
        if toggle.clicked() {
            match (live, range) {
                (true, Some((_, newest_ns))) => {
                    view.scrub_to(newest_ns);
                }
                _ => view.go_live(),
            }
        }
        ui.add_sized(
            [170.0, STRIP_HEIGHT],
            egui::Label::new(egui::RichText::new(view.title()).strong()).truncate(),
        );
        let Some((oldest_ns, newest_ns)) = range else {
            ui.label("no history yet");
            return;
        };
        let right_text = match &view.scrub {
            Some(scrub) => format!(
                "{} · {}",
                ago_label(newest_ns.saturating_sub(scrub.snapshot.now_ns)),
                kept_label(&view.history)
            ),
            None => format!("live · {}", kept_label(&view.history)),
        };
        let width = (ui.available_width() - 330.0).max(120.0);
        let (rect, response) = ui.allocate_exact_size(
            egui::vec2(width, STRIP_HEIGHT),
            egui::Sense::click_and_drag(),
        );
        let span_ns = (newest_ns - oldest_ns).max(1);
        let x_of = |t_ns: u64| {
            rect.left() + rect.width() * (t_ns.saturating_sub(oldest_ns) as f32 / span_ns as f32)
        };
        let time_at = |x: f32| {
            let fraction = ((x - rect.left()) / rect.width().max(1.0)).clamp(0.0, 1.0);
            oldest_ns + (fraction as f64 * span_ns as f64) as u64
        };
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 3.0, egui::Color32::from_gray(28));
        draw_activity(&painter, rect, &view.history, oldest_ns, newest_ns);
        draw_phases(&painter, rect, view, &x_of);
        for &raised_ns in alerts_ns
            .iter()
            .filter(|t| (oldest_ns..=newest_ns).contains(*t))
        {
            let x = x_of(raised_ns);
            painter.line_segment(
                [egui::pos2(x, rect.top()), egui::pos2(x, rect.top() + 8.0)],
                egui::Stroke::new(2.0, egui::Color32::from_rgb(240, 70, 60)),
            );
        }
        let shown_ns = view
            .scrub
            .as_ref()
            .map_or(newest_ns, |scrub| scrub.snapshot.now_ns);
        let x = x_of(shown_ns);
        painter.line_segment(
            [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
            egui::Stroke::new(
                2.0,
                if live {
                    egui::Color32::from_rgb(90, 200, 120)
                } else {
                    egui::Color32::from_rgb(250, 200, 60)
                },
            ),
        );
        if let Some(pointer) = response.hover_pos() {
            let at_ns = time_at(pointer.x);
            painter.line_segment(
                [
                    egui::pos2(pointer.x, rect.top()),
                    egui::pos2(pointer.x, rect.bottom()),
                ],
                egui::Stroke::new(1.0, egui::Color32::from_gray(140)),
            );
            let busy = view.history.busy_threads_at(at_ns).unwrap_or(0.0);
            response.clone().on_hover_text(format!(
                "{} · {busy:.2} threads busy in profiled code · click or drag to show this moment",
                ago_label(newest_ns.saturating_sub(at_ns))
            ));
        }
        if response.clicked() || response.dragged() {
            if let Some(pointer) = response.interact_pointer_pos() {
                view.scrub_to(time_at(pointer.x));
            }
        }
        ui.label(right_text);
    });
}

/// Most phase marks drawn on one strip.
const MAX_PHASE_BANDS: usize = 6;

/// A band along the strip's bottom while each phase mark was open (on some thread's stack in
/// the window), in the phase's own colour, named where it starts.
fn draw_phases(
    painter: &egui::Painter,
    rect: egui::Rect,
    view: &SessionView,
    x_of: &dyn Fn(u64) -> f32,
) {
    let Some((oldest_ns, newest_ns)) = view.history.range_ns() else {
        return;
    };
    for (lane, (method_id, name)) in view.phase_marks.iter().take(MAX_PHASE_BANDS).enumerate() {
        let colour = crate::viewer::ui::class_colour_egui(name).gamma_multiply(0.8);
        let bottom = rect.bottom() - 1.0 - lane as f32 * 4.0;
        let series = view.history.series(*method_id, oldest_ns, newest_ns);
        let mut open_from: Option<u64> = None;
        let close = |from_ns: u64, to_ns: u64| {
            let band = egui::Rect::from_min_max(
                egui::pos2(x_of(from_ns), bottom - 3.0),
                egui::pos2(x_of(to_ns).max(x_of(from_ns) + 1.0), bottom),
            );
            painter.rect_filled(band, 0.0, colour);
            if band.width() > 40.0 {
                painter.text(
                    band.left_top() + egui::vec2(2.0, -1.0),
                    egui::Align2::LEFT_BOTTOM,
                    name,
                    egui::FontId::proportional(9.0),
                    colour,
                );
            }
        };
        for point in &series {
            let open = point.value.thread_count > 0;
            match (open, open_from) {
                (true, None) => open_from = Some(point.now_ns),
                (false, Some(from_ns)) => {
                    close(from_ns, point.now_ns);
                    open_from = None;
                }
                _ => {}
            }
        }
        if let Some(from_ns) = open_from {
            close(from_ns, newest_ns);
        }
    }
}

/// The busy-threads sparkline: the highest value per pixel column, scaled to at least one
/// thread.
fn draw_activity(
    painter: &egui::Painter,
    rect: egui::Rect,
    history: &History,
    oldest_ns: u64,
    newest_ns: u64,
) {
    let points = history.activity(oldest_ns, newest_ns);
    let columns = rect.width().max(1.0) as usize;
    let span_ns = (newest_ns - oldest_ns).max(1) as f64;
    let mut highest = vec![f32::NAN; columns];
    for point in &points {
        let column =
            (((point.now_ns - oldest_ns) as f64 / span_ns) * (columns - 1) as f64) as usize;
        let slot = &mut highest[column.min(columns - 1)];
        *slot = if slot.is_nan() {
            point.value
        } else {
            slot.max(point.value)
        };
    }
    let top = highest
        .iter()
        .copied()
        .filter(|v| !v.is_nan())
        .fold(1.0f32, f32::max);
    let line: Vec<egui::Pos2> = highest
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.is_nan())
        .map(|(column, &value)| {
            egui::pos2(
                rect.left() + column as f32,
                rect.bottom() - 2.0 - (rect.height() - 4.0) * (value / top),
            )
        })
        .collect();
    if line.len() >= 2 {
        painter.add(egui::Shape::line(
            line,
            egui::Stroke::new(1.5, egui::Color32::from_rgb(110, 170, 255)),
        ));
    }
    painter.text(
        rect.right_top() + egui::vec2(-4.0, 2.0),
        egui::Align2::RIGHT_TOP,
        format!("{top:.1} threads"),
        egui::FontId::proportional(10.0),
        egui::Color32::from_gray(150),
    );
}
