//! Reports name methods per language (a Java recording's table reads
//! `createOrientation(String, InputStream)`, its JSON keeps the descriptor), and a comparison
//! across a package restructuring (every package moved under a new root, as in the paper's
//! second case study) reports every method as moved, none added or removed, even where a
//! signature names a class that moved.

use std::path::{Path, PathBuf};

use highrise_protocol::{
    encode_frame, AgentMessage, EventKind, Hello, MethodDef, PackedEventWriter,
};
use highrise_record::{RecordingHeader, RecordingWriter};
use highrise_testkit::messages::{hello, method};

/// (package, class, method, descriptor) of a little Java game, like the paper's Tetris.
const GAME: &[(&str, &str, &str, &str)] = &[
    (
        "game",
        "Board",
        "createOrientation",
        "(Ljava/lang/String;Ljava/io/InputStream;)[[Z",
    ),
    ("game", "Board", "<init>", "(II)V"),
    ("game", "Board", "<clinit>", "()V"),
    ("game", "Board", "rotate", "(I)V"),
    ("game", "Board", "attach", "(Lgui/GameGUI;)V"),
    ("game", "Game", "run", "()V"),
    (
        "game",
        "Game",
        "step",
        "(Lgame/Board;Lgui/GameGUI$KeyHandler;)Z",
    ),
    ("gui", "GameGUI", "paint", "(Lgame/Board;[Lgame/Piece;)V"),
    ("gui", "GameGUI", "<init>", "(Lgame/Game;)V"),
    (
        "gui",
        "GameGUI$KeyHandler",
        "keyPressed",
        "(Ljava/awt/event/KeyEvent;)V",
    ),
    (
        "gui",
        "GameGUI$KeyHandler",
        "bind",
        "(Lgui/widgets/Button;)V",
    ),
    (
        "util",
        "Log",
        "info",
        "(Ljava/lang/String;[Ljava/lang/Object;)V",
    ),
];

/// A Java class's internal-name references moved under `root` (what the compiler writes
/// after the refactoring).
fn moved_descriptor(descriptor: &str, root: &str) -> String {
    ["game/", "gui/", "util/"]
        .iter()
        .fold(descriptor.to_string(), |text, package| {
            text.replace(&format!("L{package}"), &format!("L{root}/{package}"))
        })
}

/// Writes a recording of one thread calling each method in turn for 1 s of program time.
fn record(path: &Path, label: &str, methods: &[(String, String, String, String)]) {
    let definitions: Vec<MethodDef> = methods
        .iter()
        .enumerate()
        .map(|(id, (package, class, name, signature))| MethodDef {
            signature: Some(signature.clone()),
            ..method(id as u32, package, class, name)
        })
        .collect();
    let mut messages = vec![
        AgentMessage::Hello(Hello {
            version_label: label.into(),
            pid: 1,
            clock_unit_ns: 1_000,
            clock_zero_unix_ns: 1_700_000_000_000_000_000,
            ..hello("highrise-agent-java test", "tetris")
        }),
        AgentMessage::DefineMethods(definitions),
        AgentMessage::ThreadStart {
            thread_id: 1,
            name: "main".into(),
            timestamp: 0,
        },
    ];
    // 10 ms per method, round after round; the first method (createOrientation) twice as long.
    let mut events = PackedEventWriter::new(1, 0);
    let mut t = 0u64;
    while t < 1_000_000 {
        for id in 0..methods.len() as u32 {
            let length = if id == 0 { 20_000 } else { 10_000 };
            events.push(t, id, EventKind::Enter);
            events.push(t + length, id, EventKind::Exit);
            t += length;
        }
    }
    messages.push(AgentMessage::Events(events.finish()));
    messages.push(AgentMessage::Goodbye { timestamp: t });
    let file = std::fs::File::create(path).expect("creates");
    let mut writer = RecordingWriter::new(
        std::io::BufWriter::new(file),
        &RecordingHeader::new(1_700_000_000_000_000_000),
    )
    .expect("header");
    for (n, message) in messages.iter().enumerate() {
        let frame = encode_frame(message).expect("encodes");
        writer
            .write_frame(n as u64 * 1_000_000, &frame, t * 1_000)
            .expect("writes");
    }
    writer.finish().expect("finishes");
}

fn game(root: Option<&str>) -> Vec<(String, String, String, String)> {
    GAME.iter()
        .map(|(package, class, method, descriptor)| match root {
            None => (
                package.to_string(),
                class.to_string(),
                method.to_string(),
                descriptor.to_string(),
            ),
            Some(root) => (
                format!("{root}.{package}"),
                class.to_string(),
                method.to_string(),
                moved_descriptor(descriptor, root),
            ),
        })
        .collect()
}

fn recorded(dir: &Path, name: &str, root: Option<&str>) -> PathBuf {
    let path = dir.join(name);
    record(&path, name, &game(root));
    path
}

#[test]
fn a_java_recording_reads_as_java_in_the_table_and_keeps_descriptors_in_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = recorded(dir.path(), "java.hrec", None);
    let summary = highrise_report::summarize(&path).expect("summarizes");
    let table = highrise_report::render_summary(&summary);
    for shown in [
        "game.Board.createOrientation(String, InputStream)",
        "game.Board.Board(int, int)",
        "game.Board.static {}",
        "game.Game.step(Board, GameGUI.KeyHandler)",
        "gui.GameGUI.paint(Board, Piece[])",
        "gui.GameGUI.KeyHandler.keyPressed(KeyEvent)",
        "util.Log.info(String, Object[])",
    ] {
        assert!(table.contains(shown), "{shown} not in\n{table}");
    }
    assert!(!table.contains("Ljava/lang/String;"), "{table}");
    // Highest mean first: createOrientation runs twice as long as the others.
    let first_row = table
        .lines()
        .find(|line| line.contains("game."))
        .expect("a method row");
    assert!(
        first_row.ends_with("  game.Board.createOrientation(String, InputStream)"),
        "{first_row}"
    );

    let json: serde_json::Value = serde_json::to_value(&summary).expect("serializes");
    let orientation = json["methods"]
        .as_array()
        .expect("methods")
        .iter()
        .find(|m| m["method"] == "createOrientation")
        .expect("createOrientation");
    assert_eq!(
        orientation["signature"],
        "(Ljava/lang/String;Ljava/io/InputStream;)[[Z"
    );
    assert_eq!(
        orientation["display_name"],
        "game.Board.createOrientation(String, InputStream)"
    );
    assert_eq!(orientation["name"], "game.Board.createOrientation");
}

#[test]
fn every_package_moved_under_a_new_root_is_all_moves_and_nothing_added_or_removed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = highrise_report::summarize(&recorded(dir.path(), "before.hrec", None)).expect("A");
    let b =
        highrise_report::summarize(&recorded(dir.path(), "after.hrec", Some("main"))).expect("B");
    let comparison = highrise_report::compare(&a, &b);
    let structure = &comparison.structure;
    assert_eq!(structure.methods_added, Vec::<String>::new());
    assert_eq!(structure.methods_removed, Vec::<String>::new());
    assert_eq!(structure.methods_moved.len(), GAME.len());
    assert_eq!(structure.classes_added, Vec::<String>::new());
    assert_eq!(structure.classes_removed, Vec::<String>::new());
    assert_eq!(structure.classes_moved.len(), 5);
    assert_eq!(
        structure.packages_added,
        vec!["main.game", "main.gui", "main.util"]
    );
    assert_eq!(structure.packages_removed, vec!["game", "gui", "util"]);
    assert!(comparison.methods.iter().all(|m| m.change == "moved"));
    // A moved method is compared with itself: same cost before and after.
    assert!(comparison.regressions(0.0).is_empty());
    let attach = comparison
        .methods
        .iter()
        .find(|m| m.method == "attach")
        .expect("attach");
    assert_eq!(
        (attach.package_a.as_deref(), attach.package_b.as_deref()),
        (Some("game"), Some("main.game"))
    );
    assert_eq!(attach.signature.as_deref(), Some("(Lmain/gui/GameGUI;)V"));
    assert_eq!(attach.display_name, "main.game.Board.attach(GameGUI)");
    assert_eq!(attach.delta_mean_pct, 0.0);

    let table = highrise_report::render_comparison(&comparison);
    assert!(table.contains("methods moved: 12"), "{table}");
    assert!(!table.contains("methods added"), "{table}");
    assert!(!table.contains("methods removed"), "{table}");
    assert!(
        table.contains("moved  main.game.Board.createOrientation(String, InputStream)"),
        "{table}"
    );
}

#[test]
fn a_class_that_moved_alone_renames_signatures_that_name_it() {
    // Only gui.GameGUI (and its nested KeyHandler) moves, to view.GameGUI;
    // game.Board.attach(Lgui/GameGUI;) stays in its package but its descriptor changes: the
    // same method, not removed + added.
    let dir = tempfile::tempdir().expect("tempdir");
    let before = game(None);
    let after: Vec<_> = before
        .iter()
        .map(|(package, class, method, descriptor)| {
            let package = if class.starts_with("GameGUI") {
                "view".to_string()
            } else {
                package.clone()
            };
            (
                package,
                class.clone(),
                method.clone(),
                descriptor.replace("Lgui/GameGUI", "Lview/GameGUI"),
            )
        })
        .collect();
    let (path_a, path_b) = (dir.path().join("a.hrec"), dir.path().join("b.hrec"));
    record(&path_a, "a", &before);
    record(&path_b, "b", &after);
    let a = highrise_report::summarize(&path_a).expect("A");
    let b = highrise_report::summarize(&path_b).expect("B");
    let comparison = highrise_report::compare(&a, &b);
    let structure = &comparison.structure;
    assert_eq!(structure.methods_added, Vec::<String>::new());
    assert_eq!(structure.methods_removed, Vec::<String>::new());
    assert_eq!(structure.methods_moved.len(), 4, "{structure:?}");
    let attach = comparison
        .methods
        .iter()
        .find(|m| m.method == "attach")
        .expect("attach");
    assert_eq!(attach.change, "same");
    let step = comparison
        .methods
        .iter()
        .find(|m| m.method == "step")
        .expect("step");
    assert_eq!(step.change, "same");
    assert_eq!(structure.packages_added, vec!["view"]);
    assert_eq!(structure.packages_removed, vec!["gui"]);
}
