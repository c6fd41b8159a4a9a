#!/usr/bin/env python3
"""Lists each crate's module imports, file by file, and fails on a cycle between files.

A file imports another when its code (comments left out) names a path into it: `use crate::a::b`,
`crate::a::X` anywhere, a re-export from lib.rs (`crate::X` where lib.rs has `pub use a::X`),
`super::` and `self::` paths, or a child module by its bare name from its parent. A file's
`#[cfg(test)]` modules are left out: tests may reach across; the code they test may not.

Usage: scripts/check-module-cycles.py [--list] [CRATE_DIR...]   (default: every crates/*)
Exit status 1 when some crate has a cycle that is not in KNOWN, or a known one took in another
file; each cycle is printed with the imports that make it.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Cycles that were there when this check came, by crate: the files of each (paths under src/).
# They may shrink or go; a cycle with a file not listed here fails, as does one in another crate.
KNOWN = {
    "highrise-agent": [{"alloc.rs", "thread.rs"}, {"agent.rs", "sender.rs"}],
    "highrise-layout": [{"full_layout.rs", "hit.rs", "idmap.rs", "plan.rs", "relayout.rs"}],
    # Bevy plugins share each other's components and resources.
    "highrise-viewer": [
        {"viewer/camera.rs", "viewer/city/cities.rs", "viewer/city/floors.rs", "viewer/city/mod.rs",
         "viewer/city/model.rs", "viewer/city/palette.rs", "viewer/city/systems.rs", "viewer/compare.rs",
         "viewer/hover.rs", "viewer/instancing.rs", "viewer/landscape.rs", "viewer/offscreen.rs"},
        {"viewer/ui/diagram.rs", "viewer/ui/predict.rs"},
        {"viewer/ui/alerts.rs", "viewer/ui/mod.rs", "viewer/ui/names.rs", "viewer/ui/panel.rs",
         "viewer/ui/search.rs", "viewer/ui/sites.rs", "viewer/ui/timeline.rs", "viewer/ui/tooltip.rs"},
    ],
}


def strip_comments_and_strings(text):
    """The code without comments, string and char literals (kept as empty quotes)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            out.append('""')
            i = n if end < 0 else end + 1 + len(hashes)
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            out.append('""')
            i += 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]) or text.startswith("'\\u{", i):
            end = text.find("'", i + 2)
            out.append("' '")
            i = end + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def without_tests(code):
    """The code without its `#[cfg(test)] mod name { ... }` blocks."""
    while True:
        found = re.search(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", code)
        if not found:
            return code
        depth, i = 1, found.end()
        while i < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        code = code[:found.start()] + code[i:]


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e'] (aliases and `self` kept simple)."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", tree))
    brace = tree.find("{")
    if brace < 0:
        return [tree]
    prefix, inner = tree[:brace], tree[brace + 1:tree.rfind("}")]
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(inner):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:k])
            start = k + 1
    parts.append(inner[start:])
    paths = []
    for part in filter(None, parts):
        for path in expand_use(part):
            paths.append(prefix.rstrip(":") if path == "self" else prefix + path)
    return paths


def modules_of(src):
    """{module path (tuple): file} for a crate's src folder."""
    modules = {}
    for path in sorted(src.rglob("*.rs")):
        rel = path.relative_to(src).with_suffix("").parts
        if rel in (("lib",), ("main",)):
            key = ()
        elif rel[-1] == "mod":
            key = rel[:-1]
        else:
            key = rel
        if "bin" in rel[:1] or "tests" in rel[:1]:
            continue
        modules[key] = path
    return modules


def resolve(path, modules, reexports):
    """The module file a `crate::...` path (a tuple of names after `crate`) lands in."""
    for k in range(len(path), 0, -1):
        if path[:k] in modules:
            return path[:k]
    if path and path[0] in reexports:
        return reexports[path[0]]
    return None


def crate_edges(crate_dir):
    src = crate_dir / "src"
    modules = modules_of(src)
    if () not in modules:
        return modules, {}
    codes = {key: without_tests(strip_comments_and_strings(path.read_text())) for key, path in modules.items()}
    # lib.rs re-exports: `pub use a::b::X;` makes crate::X land in a::b.
    reexports = {}
    for tree in re.findall(r"pub(?:\([^)]*\))?\s+use\s+([^;]+);", codes[()]):
        for path in expand_use(tree):
            names = tuple(path.split("::"))
            if names[0] in ("crate", "self"):
                names = names[1:]
            target = resolve(names[:-1], modules, {})
            if target:
                reexports[names[-1]] = target
    edges = {key: {} for key in modules if key != ()}
    for key, code in codes.items():
        if key == ():
            continue
        found = []
        for tree in re.findall(r"\buse\s+([^;]+);", code):
            found += expand_use(tree)
        found += re.findall(r"\bcrate(?:::\w+)+", code)
        # super:: (and super::super::) from this file's module; `use super::…` groups expanded.
        # (Test modules, where `super` is the file itself, are already left out.)
        supers = [p for tree in re.findall(r"\buse\s+(super::[^;]+);", code) for p in expand_use(tree)]
        supers += re.findall(r"\bsuper(?:::\w+)+", code)
        for path in supers:
            parts, base = path.split("::"), key
            while parts and parts[0] == "super":
                parts, base = parts[1:], base[:-1]
            found.append("::".join(("crate",) + base + tuple(parts)))
        for path in found:
            names = path.split("::")
            if names[0] == "crate":
                names = tuple(names[1:])
            elif names[0] == "self":
                names = key + tuple(names[1:])
            elif key + (names[0],) in modules:
                # A child module by its bare name (from mod.rs, or a `name.rs` beside `name/`).
                names = key + tuple(names)
            else:
                continue
            target = resolve(names, modules, reexports)
            if target is not None and target != () and target != key:
                edges[key].setdefault(target, path)
    return modules, edges


def cycles(edges):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main(argv):
    listing = "--list" in argv
    dirs = [pathlib.Path(a).resolve() for a in argv if a != "--list"] or sorted((ROOT / "crates").iterdir())
    failed = False
    for crate_dir in dirs:
        if not (crate_dir / "src").is_dir():
            continue
        modules, edges = crate_edges(crate_dir)
        name = crate_dir.name
        if listing:
            print(f"{name}:")
            for key in sorted(edges):
                targets = ", ".join("::".join(t) for t in sorted(edges[key]))
                print(f"  {'::'.join(key)} -> {targets or '(nothing)'}")
        for component in cycles(edges):
            files = {str(modules[v].relative_to(crate_dir / "src")) for v in component}
            if any(files <= known for known in KNOWN.get(name, [])):
                print(f"{name}: a known cycle between {len(component)} files: {', '.join(sorted(files))}")
                continue
            failed = True
            print(f"{name}: a cycle between {len(component)} files:")
            members = set(component)
            for v in component:
                for w, path in sorted(edges[v].items()):
                    if w in members:
                        shown = modules[v].relative_to(crate_dir.parent.parent) if ROOT in modules[v].parents else modules[v]
                        print(f"  {shown} uses {'::'.join(w)} ({path})")
    if not failed:
        print(f"no new module cycle in {len(dirs)} crates")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
