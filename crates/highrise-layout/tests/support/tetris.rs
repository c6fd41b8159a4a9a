//! A Tetris-sized program like the paper's case study: 8 packages, 24 classes.

use highrise_layout::MethodSpec;

/// (package, class, methods)
const TETRIS: &[(&str, &str, &[&str])] = &[
    (
        "main",
        "Tetris",
        &["main", "start", "stop", "pause", "resume", "getScore"],
    ),
    ("main", "Settings", &["load", "save", "get", "set"]),
    (
        "main.game",
        "Board",
        &[
            "clear",
            "clearLines",
            "collides",
            "drop",
            "getCell",
            "isFull",
            "lock",
            "reset",
            "rowFull",
            "shiftDown",
            "spawn",
            "tick",
        ],
    ),
    (
        "main.game",
        "GameLoop",
        &["run", "step", "sleep", "update", "render"],
    ),
    (
        "main.game",
        "Score",
        &["add", "get", "level", "reset", "lines"],
    ),
    ("main.game", "Timer", &["elapsed", "reset", "start"]),
    (
        "main.game.pieces",
        "Piece",
        &[
            "rotateLeft",
            "rotateRight",
            "moveLeft",
            "moveRight",
            "moveDown",
            "cells",
            "color",
            "copy",
        ],
    ),
    ("main.game.pieces", "IPiece", &["shape", "spawnOffset"]),
    ("main.game.pieces", "JPiece", &["shape"]),
    ("main.game.pieces", "LPiece", &["shape"]),
    (
        "main.game.pieces",
        "OPiece",
        &["shape", "rotateLeft", "rotateRight"],
    ),
    ("main.game.pieces", "SPiece", &["shape"]),
    ("main.game.pieces", "TPiece", &["shape"]),
    ("main.game.pieces", "ZPiece", &["shape"]),
    (
        "main.game.pieces",
        "PieceFactory",
        &["next", "random", "preview"],
    ),
    (
        "main.gui",
        "Window",
        &[
            "paint",
            "repaint",
            "keyPressed",
            "keyReleased",
            "open",
            "close",
            "resize",
        ],
    ),
    (
        "main.gui",
        "BoardView",
        &["paint", "paintCell", "paintGhost", "paintGrid"],
    ),
    ("main.gui", "ScoreView", &["paint", "update"]),
    (
        "main.gui.menu",
        "MainMenu",
        &["show", "hide", "select", "paint"],
    ),
    ("main.gui.menu", "OptionsMenu", &["show", "hide", "toggle"]),
    (
        "main.ai",
        "Ai",
        &["bestMove", "evaluate", "holes", "bumpiness", "height"],
    ),
    ("main.ai", "Move", &["apply", "score"]),
    (
        "org.ini4j",
        "Ini",
        &[
            "load", "store", "get", "put", "remove", "keySet", "sections", "parse", "write",
            "escape", "unescape", "comment", "fetch", "add",
        ],
    ),
    ("org.ini4j", "Profile", &["get", "put", "section"]),
];

/// The program, ids in declaration order.
pub fn tetris() -> Vec<MethodSpec> {
    let mut out = Vec::new();
    for (package, class, methods) in TETRIS {
        for m in *methods {
            out.push(MethodSpec::new(out.len() as u32, *package, *class, *m));
        }
    }
    out
}

/// The same program before the paper's case-2 refactoring ("made all packages subpackages"):
/// the game, gui and ai packages were top-level, and `Tetris` sat in the default package.
pub fn tetris_before_refactoring() -> Vec<MethodSpec> {
    tetris()
        .into_iter()
        .map(|mut m| {
            if m.package == "main" && m.class == "Tetris" {
                m.package = String::new();
            } else if let Some(rest) = m.package.strip_prefix("main.") {
                m.package = rest.to_owned();
            }
            m
        })
        .filter(|m| !(m.class == "Move" || (m.class == "Ai" && m.method == "bumpiness")))
        .collect()
}
