//! Frame names as package, class and method, as the agents would name the function: shared
//! by every importer and by OTLP profiles (`highrise-otlp`). Start at [`frame_building`].

use std::collections::HashMap;

use highrise_protocol::{ClassKind, MethodDef};

/// A py-spy frame `name (file:line)`: the name and the file.
pub(crate) fn split_located(frame: &str) -> (&str, Option<&str>) {
    if let Some(open) = frame.rfind(" (") {
        if let Some(inner) = frame[open + 2..].strip_suffix(')') {
            let file = inner.rsplit_once(':').map_or(inner, |(file, _line)| file);
            if !file.is_empty() {
                return (&frame[..open], Some(file));
            }
        }
    }
    (frame, None)
}

/// A JVM class name as the Java agent names its classes: `java/lang/String` is `java.lang` ·
/// `String`; arrays by their element, `[B` is `byte[]`, `[[Ljava/lang/String;` `java.lang` ·
/// `String[][]`.
pub(crate) fn jvm_class(name: &str) -> (String, String, ClassKind) {
    let dims = name.bytes().take_while(|&b| b == b'[').count();
    let element = &name[dims..];
    let primitive = match element {
        "B" => Some("byte"),
        "C" => Some("char"),
        "D" => Some("double"),
        "F" => Some("float"),
        "I" => Some("int"),
        "J" => Some("long"),
        "S" => Some("short"),
        "Z" => Some("boolean"),
        _ => None,
    };
    let (package, simple) = match primitive.filter(|_| dims > 0) {
        Some(primitive) => (String::new(), primitive.to_owned()),
        None => {
            let internal = if dims > 0 {
                element.trim_start_matches('L').trim_end_matches(';')
            } else {
                element
            };
            let internal = internal.replace('.', "/");
            match internal.rsplit_once('/') {
                Some((package, simple)) => (package.replace('/', "."), simple.to_owned()),
                None => (String::new(), internal),
            }
        }
    };
    let kind = if dims > 0 {
        ClassKind::Array
    } else {
        ClassKind::Class
    };
    (package, format!("{simple}{}", "[]".repeat(dims)), kind)
}

/// A JavaScript script's module: `file:///app/node_modules/lodash/map.js` → `lodash.map`,
/// `node:internal/main/run_main_module` → `node.internal.main.run_main_module`, a script's own
/// file → its stem, `v8` for the engine's own entries.
pub(crate) fn js_module(url: &str) -> String {
    let path = url
        .strip_prefix("file://")
        .unwrap_or(url)
        .replace([':', '\\'], "/");
    if path.is_empty() {
        return "js".into();
    }
    let relative = match path.rsplit_once("node_modules/") {
        Some((_, rest)) => rest.to_owned(),
        None if path.starts_with('/') => path.rsplit('/').next().unwrap_or(&path).to_owned(),
        None => path,
    };
    ["js", "mjs", "cjs", "ts"]
        .iter()
        .find_map(|ext| relative.strip_suffix(&format!(".{ext}")))
        .unwrap_or(&relative)
        .replace('.', "_")
        .replace('/', ".")
}

/// Package, class and method of a frame, as the agents would name its function.
pub fn frame_method(name: &str, file: Option<&str>) -> (String, String, String) {
    let is_python = |f: &&str| {
        f.ends_with(".py") || f.ends_with(".pyw") || (f.starts_with('<') && f.ends_with('>'))
    };
    if let Some(url) = file.and_then(|f| f.strip_prefix("js:")) {
        let (class, method) = match name.rsplit_once('.') {
            Some((class, method)) if !class.is_empty() && !method.is_empty() => {
                (class.to_owned(), method.to_owned())
            }
            _ => ("<module>".to_owned(), name.to_owned()),
        };
        return (js_module(url), class, method);
    }
    if let Some(file) = file.filter(is_python) {
        let (class, method) = split_python_qualname(name);
        return (python_module(file), class, method);
    }
    if file.is_some_and(|f| f.ends_with(".go") || f.ends_with(".s")) && !name.contains("::") {
        return go_method(name);
    }
    if let Some(library) = file.and_then(|f| f.strip_prefix("lib:")) {
        // A native frame without symbols, under its binary: `/lib/x86_64-linux-gnu/libc.so.6`
        // → `libc`.
        let base = library.rsplit('/').next().unwrap_or(library);
        let stem = base.split(".so").next().unwrap_or(base);
        let stem = stem.rsplit_once('.').map_or(stem, |(stem, _)| stem);
        return (
            format!("native.{}", stem.replace('.', "_")),
            "<module>".into(),
            name.into(),
        );
    }
    // Java frames from async-profiler carry a kind suffix: `_[j]` (JIT), `_[i]`, `_[k]`, …
    let mut bare = name.trim();
    if let Some(open) = bare.rfind("_[") {
        if bare.ends_with(']') && bare.len() - open <= 6 {
            bare = &bare[..open];
        }
    }
    if bare.contains("::") {
        let parts: Vec<&str> = bare.split("::").collect();
        return match parts.as_slice() {
            [method] => ("native".into(), "<module>".into(), (*method).into()),
            [class, method] => ("native".into(), (*class).into(), (*method).into()),
            [package @ .., class, method] => (package.join("."), (*class).into(), (*method).into()),
            [] => ("native".into(), "<module>".into(), bare.into()),
        };
    }
    let dotted = bare.replace('/', ".");
    let looks_dotted = !dotted.contains(' ') && !dotted.starts_with('[') && dotted.contains('.');
    if looks_dotted {
        let parts: Vec<&str> = dotted.split('.').collect();
        if let [package @ .., class, method] = parts.as_slice() {
            if !class.is_empty() && !method.is_empty() {
                let package = if package.is_empty() {
                    "native".to_owned()
                } else {
                    package.join(".")
                };
                return (package, (*class).into(), (*method).into());
            }
        }
    }
    ("native".into(), "<module>".into(), bare.into())
}

/// A Go function's package, type and method: `github.com/u/p/store.(*DB).Get` →
/// `github.com.u.p.store` · `DB` · `Get`; `main.work` → `main` · `<module>` · `work`;
/// `main.work.func1` (a closure) → `main` · `work` · `func1`.
pub(crate) fn go_method(name: &str) -> (String, String, String) {
    let (dir, last) = match name.rfind('/') {
        Some(slash) => (&name[..=slash], &name[slash + 1..]),
        None => ("", name),
    };
    let (package, rest) = last.split_once('.').unwrap_or((last, ""));
    let package = format!("{dir}{package}").replace('/', ".");
    let (class, method) =
        if let Some((receiver, method)) = rest.strip_prefix('(').and_then(|r| r.split_once(").")) {
            (
                receiver.trim_start_matches('*').to_owned(),
                method.to_owned(),
            )
        } else if let Some((class, method)) = rest.split_once('.') {
            (class.to_owned(), method.to_owned())
        } else if rest.is_empty() {
            ("<module>".to_owned(), last.to_owned())
        } else {
            ("<module>".to_owned(), rest.to_owned())
        };
    (package, class, method)
}

/// A Python function's class and method from its qualified name, as the Python agent names
/// them: `Board.rotate` → `Board` · `rotate`; `run` → `<module>` · `run`; a nested function
/// keeps its enclosing function's name, `C.m.<locals>.helper` → `C` · `m.helper`.
pub(crate) fn split_python_qualname(qualname: &str) -> (String, String) {
    let parts: Vec<&str> = qualname.split('.').collect();
    let function = match parts.iter().position(|p| *p == "<locals>") {
        Some(locals) if locals > 0 => locals - 1,
        _ => parts.len() - 1,
    };
    let class = if function == 0 {
        "<module>".to_owned()
    } else {
        parts[..function].join(".")
    };
    let method = parts[function..]
        .iter()
        .filter(|p| **p != "<locals>")
        .copied()
        .collect::<Vec<_>>()
        .join(".");
    (class, method)
}

/// A Python file's module: after `site-packages/` or the standard library's directory, or the
/// whole of a relative path (py-spy shortens paths to their `sys.path` entry:
/// `sympy/core/cache.py` is `sympy.core.cache`); a script's own file is its stem;
/// `<frozen importlib._bootstrap>` is `importlib._bootstrap`.
pub(crate) fn python_module(file: &str) -> String {
    if let Some(inner) = file.strip_prefix('<').and_then(|f| f.strip_suffix('>')) {
        return inner.strip_prefix("frozen ").unwrap_or(inner).to_owned();
    }
    let path = file.replace('\\', "/");
    let after = |marker: &str| path.rsplit_once(marker).map(|(_, rest)| rest.to_owned());
    let absolute = path.starts_with('/') || path.get(1..3) == Some(":/");
    let relative = after("site-packages/")
        .or_else(|| after("dist-packages/"))
        .or_else(|| {
            // The standard library: …/lib/python3.12/json/decoder.py.
            let at = path.find("/lib/python")?;
            let rest = &path[at + "/lib/python".len()..];
            rest.split_once('/').map(|(_, rest)| rest.to_owned())
        })
        .unwrap_or_else(|| {
            if absolute {
                path.rsplit('/').next().unwrap_or(&path).to_owned()
            } else {
                path.trim_start_matches("./").to_owned()
            }
        });
    relative
        .trim_end_matches(".pyw")
        .trim_end_matches(".py")
        .trim_end_matches("/__init__")
        .replace('/', ".")
}

/// The building a frame stands for: package, class, method and source file, as the agents
/// would name its function ([`frame_method`]). A frame's `file` may say where the name came from:
/// `js:URL` (a JavaScript script), `lib:PATH` (a native binary without symbols).
pub fn frame_building(name: &str, file: Option<&str>) -> (String, String, String, Option<String>) {
    let (package, class, method) = frame_method(name, file);
    // A JavaScript frame's file is its script's URL; an unnamed native one's, its binary.
    let file = file
        .map(|f| {
            f.strip_prefix("js:")
                .or_else(|| f.strip_prefix("lib:"))
                .unwrap_or(f)
        })
        .filter(|f| !f.is_empty() && *f != "v8")
        .map(str::to_owned);
    (package, class, method, file)
}

/// Method `id`'s definition: the building `key` ([`frame_building`]) stands for.
pub fn building_definition(id: u32, key: &(String, String, String, Option<String>)) -> MethodDef {
    MethodDef {
        id,
        package: key.0.clone(),
        class: key.1.clone(),
        method: key.2.clone(),
        signature: None,
        file: key.3.clone(),
        line: None,
    }
}

/// Frames → methods: frames naming the same function (py-spy names each line) share one.
/// Returns each frame's method id and the methods' definitions.
pub(crate) fn methods_of(frames: &[(String, Option<String>)]) -> (Vec<u32>, Vec<MethodDef>) {
    let mut method_of_frame = Vec::with_capacity(frames.len());
    let mut methods: HashMap<(String, String, String, Option<String>), u32> = HashMap::new();
    let mut definitions = Vec::new();
    for (name, file) in frames {
        let key = frame_building(name, file.as_deref());
        let next = methods.len() as u32;
        let id = *methods.entry(key).or_insert_with_key(|key| {
            definitions.push(building_definition(next, key));
            next
        });
        method_of_frame.push(id);
    }
    (method_of_frame, definitions)
}
