//! A method's source, one click from its building: the user's editor command line for
//! `file:line`, where the file an agent named is on this machine, and the lines around the
//! method. Plain functions (no engine); `ui/source.rs` is the menu and the window.
//!
//! Agents name files differently: Python sends the absolute path, Rust `file!()` (relative to
//! the workspace it was built in), Java the class's `SourceFile` (`Board.java`, found under
//! the package's directories of a source root).

use std::path::{Path, PathBuf};

/// The editor the user asked for: `$HIGHRISE_EDITOR`, else `$VISUAL`, else `$EDITOR`.
pub fn editor_from_env() -> Option<String> {
    ["HIGHRISE_EDITOR", "VISUAL", "EDITOR"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .map(|value| value.trim().to_string())
        .find(|value| !value.is_empty())
}

/// The command line that opens `file` at `line` in `editor` (a command with arguments, split as
/// a shell would). `{file}` and `{line}` in it are replaced (`myeditor --goto {file}:{line}`);
/// otherwise the usual form of known editors: `code -g file:line` (VS Code and its kin),
/// `file:line` (Sublime Text, Zed, Helix), `--line N file` (JetBrains IDEs, Kate), `+N file`
/// (vi, Vim, Neovim, Emacs, nano, micro, gedit and the rest). `None` when `editor` is empty or
/// unbalanced quotes make it unreadable.
pub fn editor_command(editor: &str, file: &Path, line: Option<u32>) -> Option<Vec<String>> {
    let mut words = shlex::split(editor)?;
    if words.is_empty() {
        return None;
    }
    let file = file.display().to_string();
    let line = line.filter(|&line| line > 0);
    if words
        .iter()
        .any(|word| word.contains("{file}") || word.contains("{line}"))
    {
        let line = line.unwrap_or(1).to_string();
        for word in &mut words {
            *word = word.replace("{file}", &file).replace("{line}", &line);
        }
        return Some(words);
    }
    let Some(line) = line else {
        words.push(file);
        return Some(words);
    };
    let program = Path::new(&words[0])
        .file_name()
        .map(|name| name.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let program = program.trim_end_matches(".exe");
    match program {
        "code" | "code-insiders" | "codium" | "vscodium" | "cursor" => {
            words.extend(["-g".to_string(), format!("{file}:{line}")]);
        }
        "subl" | "sublime_text" | "zed" | "hx" | "helix" => words.push(format!("{file}:{line}")),
        "idea" | "idea.sh" | "pycharm" | "pycharm.sh" | "clion" | "clion.sh" | "rustrover"
        | "goland" | "webstorm" | "kate" => {
            words.extend(["--line".to_string(), line.to_string(), file]);
        }
        _ => words.extend([format!("+{line}"), file]),
    }
    Some(words)
}

/// Where the file an agent named for a method of `package` is on this machine: itself when it
/// exists (an absolute path, or relative to the current directory), else under each of `roots`,
/// directly or below the package's directories (`main/game/Board.java` for package `main.game`,
/// as Java names sources).
pub fn find_source(file: &str, package: &str, roots: &[PathBuf]) -> Option<PathBuf> {
    let named = Path::new(file);
    if named.is_file() {
        return Some(named.to_path_buf());
    }
    if named.is_absolute() {
        return None;
    }
    let package_dir: PathBuf = package.split('.').filter(|part| !part.is_empty()).collect();
    roots.iter().find_map(|root| {
        [root.join(named), root.join(&package_dir).join(named)]
            .into_iter()
            .find(|candidate| candidate.is_file())
    })
}

/// Where to look for relative source files: the current directory and its usual source
/// folders (`src`, `src/main/java`, `src/main/kotlin`).
pub fn default_roots() -> Vec<PathBuf> {
    let Ok(cwd) = std::env::current_dir() else {
        return Vec::new();
    };
    ["", "src", "src/main/java", "src/main/kotlin"]
        .iter()
        .map(|sub| cwd.join(sub))
        .collect()
}

/// Lines `line - before ..= line + after` of `path` (1-based numbers), as far as the file goes.
pub fn source_lines(
    path: &Path,
    line: u32,
    before: u32,
    after: u32,
) -> std::io::Result<Vec<(u32, String)>> {
    let text = std::fs::read_to_string(path)?;
    let first = line.saturating_sub(before).max(1);
    let last = line.saturating_add(after);
    Ok(text
        .lines()
        .enumerate()
        .map(|(index, text)| (index as u32 + 1, text))
        .filter(|(number, _)| (first..=last).contains(number))
        .map(|(number, text)| (number, text.to_string()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(editor: &str, line: Option<u32>) -> Vec<String> {
        editor_command(editor, Path::new("/src/game/board.py"), line).expect("a command")
    }

    #[test]
    fn editors_get_their_own_file_and_line_forms() {
        assert_eq!(
            command("code", Some(42)),
            ["code", "-g", "/src/game/board.py:42"]
        );
        assert_eq!(
            command("/usr/bin/code --wait", Some(42)),
            ["/usr/bin/code", "--wait", "-g", "/src/game/board.py:42"]
        );
        assert_eq!(command("vim", Some(7)), ["vim", "+7", "/src/game/board.py"]);
        assert_eq!(
            command("emacsclient -n", Some(7)),
            ["emacsclient", "-n", "+7", "/src/game/board.py"]
        );
        assert_eq!(command("subl", Some(3)), ["subl", "/src/game/board.py:3"]);
        assert_eq!(command("hx", Some(3)), ["hx", "/src/game/board.py:3"]);
        assert_eq!(
            command("idea", Some(9)),
            ["idea", "--line", "9", "/src/game/board.py"]
        );
        // No line known: the file alone.
        assert_eq!(command("vim", None), ["vim", "/src/game/board.py"]);
        assert_eq!(command("code", Some(0)), ["code", "/src/game/board.py"]);
    }

    #[test]
    fn placeholders_and_quotes() {
        assert_eq!(
            command("'my editor' --goto {file}:{line}", Some(12)),
            ["my editor", "--goto", "/src/game/board.py:12"]
        );
        assert_eq!(command("ed {file}", None), ["ed", "/src/game/board.py"]);
        assert_eq!(editor_command("", Path::new("f"), Some(1)), None);
        assert_eq!(
            editor_command("vim 'unclosed", Path::new("f"), Some(1)),
            None
        );
    }

    #[test]
    fn sources_are_found_as_each_agent_names_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let java = dir.path().join("src/main/java/main/game");
        std::fs::create_dir_all(&java).expect("dirs");
        std::fs::write(
            java.join("Board.java"),
            "class Board {\n  void step() {}\n}\n",
        )
        .expect("writes");
        let rust = dir.path().join("crates/demo/src");
        std::fs::create_dir_all(&rust).expect("dirs");
        std::fs::write(rust.join("lib.rs"), "fn a() {}\n").expect("writes");
        let roots = vec![dir.path().to_path_buf(), dir.path().join("src/main/java")];
        // Java: the source file's name under the package's directories.
        assert_eq!(
            find_source("Board.java", "main.game", &roots),
            Some(java.join("Board.java"))
        );
        // Rust: relative to the workspace.
        assert_eq!(
            find_source("crates/demo/src/lib.rs", "demo", &roots),
            Some(rust.join("lib.rs"))
        );
        // Python: absolute.
        let absolute = rust.join("lib.rs").display().to_string();
        assert_eq!(find_source(&absolute, "x", &[]), Some(rust.join("lib.rs")));
        assert_eq!(find_source("/nowhere/x.py", "x", &roots), None);
        assert_eq!(find_source("Gone.java", "main.game", &roots), None);
        let lines = source_lines(&java.join("Board.java"), 2, 5, 1).expect("reads");
        assert_eq!(
            lines,
            vec![
                (1, "class Board {".to_string()),
                (2, "  void step() {}".to_string()),
                (3, "}".to_string())
            ]
        );
    }
}
