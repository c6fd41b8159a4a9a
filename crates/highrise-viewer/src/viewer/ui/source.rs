//! A building's context menu (right-click): its method's file and line, "Open in editor"
//! (`$HIGHRISE_EDITOR`, `$VISUAL`, `$EDITOR`: see [`crate::viewer::source::editor_command`]) and
//! "Show source" (a window with the lines around the method, its first line marked). Relative
//! files are looked for under `--source-root` directories and the current directory.

use bevy::prelude::*;
use bevy_egui::{egui, EguiContexts};
use highrise_protocol::MethodDef;

use crate::viewer::city::CityKey;
use crate::viewer::hover::Hovered;
use crate::viewer::sessions::Sessions;
use crate::viewer::source::{
    default_roots, editor_command, editor_from_env, find_source, source_lines,
};

/// Lines shown before and after the method's first line.
const BEFORE: u32 = 3;
const AFTER: u32 = 40;

/// The menu and the source window (a resource).
#[derive(Resource, Debug, Default)]
pub struct SourceMenu {
    /// Where relative source files are looked for besides the current directory's
    /// (`--source-root`).
    pub roots: Vec<std::path::PathBuf>,
    /// The method whose menu is open, and where (screen points).
    menu: Option<(MethodDef, egui::Pos2)>,
    /// The source window's method, file and lines (or why there are none).
    window: Option<SourceWindow>,
    /// The last "open in editor" outcome, shown in the menu until it closes.
    message: Option<String>,
}

impl SourceMenu {
    /// Looking for relative source files under `roots` too.
    pub fn with_roots(roots: Vec<std::path::PathBuf>) -> Self {
        Self {
            roots,
            ..Self::default()
        }
    }
}

#[derive(Debug)]
struct SourceWindow {
    title: String,
    line: u32,
    lines: Result<(String, Vec<(u32, String)>), String>,
}

/// `file:line` as the agent sent it.
fn location(definition: &MethodDef) -> Option<String> {
    let file = definition.file.as_deref()?;
    Some(match definition.line {
        Some(line) => format!("{file}:{line}"),
        None => file.to_string(),
    })
}

/// The source roots: `--source-root`'s, then the current directory's.
fn roots(extra: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    let mut roots = extra.to_vec();
    roots.extend(default_roots());
    roots
}

/// Opens the method in the user's editor; what to tell the user.
fn open_in_editor(definition: &MethodDef, roots: &[std::path::PathBuf]) -> String {
    let Some(file) = definition.file.as_deref() else {
        return "the agent sent no source file for this method".to_string();
    };
    let Some(path) = find_source(file, &definition.package, roots) else {
        return format!(
            "{file} is not on this machine (looked here, under src/ and --source-root)"
        );
    };
    // Absolute, whatever directory the editor starts in.
    let path = std::fs::canonicalize(&path).unwrap_or(path);
    let Some(editor) = editor_from_env() else {
        return "set $HIGHRISE_EDITOR (or $VISUAL, $EDITOR), e.g. `code`".to_string();
    };
    let Some(command) = editor_command(&editor, &path, definition.line) else {
        return format!("cannot read the editor command {editor:?}");
    };
    match std::process::Command::new(&command[0])
        .args(&command[1..])
        .spawn()
    {
        Ok(mut child) => {
            // Reaped off the main thread when the editor (or its launcher) exits.
            std::thread::spawn(move || child.wait());
            format!("opened: {}", command.join(" "))
        }
        Err(error) => format!("{}: {error}", command[0]),
    }
}

fn source_window(definition: &MethodDef, roots: &[std::path::PathBuf]) -> SourceWindow {
    let line = definition.line.unwrap_or(1);
    let lines = match definition.file.as_deref() {
        None => Err("the agent sent no source file for this method".to_string()),
        Some(file) => match find_source(file, &definition.package, roots) {
            None => Err(format!("{file} is not on this machine")),
            Some(path) => source_lines(&path, line, BEFORE, AFTER)
                .map(|lines| (path.display().to_string(), lines))
                .map_err(|error| format!("{}: {error}", path.display())),
        },
    };
    SourceWindow {
        title: definition.qualified_name(),
        line,
        lines,
    }
}

/// The system: opens the menu on a right-click on a session's building, draws it and the
/// source window.
pub(super) fn source_menu(
    mut contexts: EguiContexts,
    mut state: ResMut<SourceMenu>,
    hovered: Res<Hovered>,
    sessions: Res<Sessions>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let (right_click, left_click, pointer) = ctx.input(|input| {
        (
            input.pointer.secondary_clicked(),
            input.pointer.primary_clicked(),
            input.pointer.interact_pos(),
        )
    });
    let over_ui = ctx.is_pointer_over_area();
    if right_click && !over_ui {
        state.message = None;
        state.menu = match hovered.method() {
            Some((CityKey::Session(session_id), method_id)) => sessions
                .by_id
                .get(&session_id)
                .and_then(|view| view.report.definitions().find(|d| d.id == method_id))
                .map(|definition| (definition.clone(), pointer.unwrap_or_default())),
            _ => None,
        };
    } else if left_click && !over_ui {
        state.menu = None;
    }
    if let Some((definition, at)) = state.menu.clone() {
        let mut close = false;
        egui::Area::new(egui::Id::new("highrise-source-menu"))
            .order(egui::Order::Foreground)
            .fixed_pos(at)
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.label(egui::RichText::new(definition.qualified_name()).strong());
                    ui.label(
                        location(&definition).unwrap_or_else(|| "(no source file)".to_string()),
                    );
                    if ui.button("Open in editor").clicked() {
                        state.message = Some(open_in_editor(&definition, &roots(&state.roots)));
                    }
                    if ui.button("Show source").clicked() {
                        state.window = Some(source_window(&definition, &roots(&state.roots)));
                        close = true;
                    }
                    if let Some(message) = &state.message {
                        ui.label(message);
                    }
                    if ui.button("Close").clicked() {
                        close = true;
                    }
                });
            });
        if close {
            state.menu = None;
            state.message = None;
        }
    }
    if let Some(window) = &state.window {
        let mut open = true;
        egui::Window::new(format!("Source — {}", window.title))
            .id(egui::Id::new("highrise-source"))
            .open(&mut open)
            .default_size([640.0, 480.0])
            .default_pos([340.0, 80.0])
            .show(ctx, |ui| match &window.lines {
                Err(error) => {
                    ui.label(error);
                }
                Ok((path, lines)) => {
                    ui.label(path);
                    egui::ScrollArea::both().show(ui, |ui| {
                        for (number, text) in lines {
                            let row =
                                egui::RichText::new(format!("{number:>5}  {text}")).monospace();
                            if *number == window.line {
                                ui.label(
                                    row.strong()
                                        .background_color(egui::Color32::from_rgb(70, 60, 20)),
                                );
                            } else {
                                ui.label(row);
                            }
                        }
                    });
                }
            });
        if !open {
            state.window = None;
        }
    }
    Ok(())
}
