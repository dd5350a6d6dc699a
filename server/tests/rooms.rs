//! The server's rooms (docs/architecture.md, "Rooms"), checked from the code's own `use`
//! lines: a room imports only from rooms below it, and no two modules import each other,
//! directly or around a circle. The pure core (`server/core`) is checked the same way.
//!
//! What counts as an import: every `crate::a::b` and `super::x` path outside the tests
//! (`#[cfg(test)]` and what follows it) and comments, and a module's `use child::…` of its
//! own child; a brace group (`use super::{auth, feed}`) is each of its paths.
//! A `pub use child::X` that re-exports a child's item is a door, not an import: a path
//! through it is followed to the child that defines `X`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The server's rooms, bottom first: each may import only from those before it.
const SERVER_ROOMS: &[&str] = &[
    "blocking", "clock", "cards", "build", "config", "journal", "exit", "read", "writer", "net", "tools", "grpc", "web", "crate",
    "cli", "main",
];

/// The core's rooms, bottom first.
const CORE_ROOMS: &[&str] = &["planted", "config", "jornada", "random", "tournament", "state", "crate"];

/// One crate's modules: each module's path (`writer::batch`; `crate` for lib.rs) and the
/// text it imports with (tests cut off).
fn modules(source: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let mut stack = vec![source.to_path_buf()];
    while let Some(directory) = stack.pop() {
        for entry in std::fs::read_dir(&directory).expect("a source directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|extension| extension != "rs") {
                continue;
            }
            let relative: PathBuf = path.strip_prefix(source).expect("inside").with_extension("");
            let mut parts: Vec<String> = relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
            if parts.last().is_some_and(|last| last == "mod") {
                parts.pop();
            }
            let name = match parts.as_slice() {
                [only] if only == "lib" => "crate".to_owned(),
                _ => parts.join("::"),
            };
            let text = std::fs::read_to_string(&path).expect("a source file");
            let text = match text.find("#[cfg(test)]") {
                Some(at) => &text[..at],
                None => &text,
            };
            // Comments name modules without importing them (doc links).
            let text: String =
                text.lines().filter(|line| !line.trim_start().starts_with("//")).map(|line| format!("{line}\n")).collect();
            found.insert(name, text);
        }
    }
    found
}

/// The identifiers of a path that starts at `text` (`journal::mark::Mark` → three).
fn segments(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        out.push(rest[..end].to_owned());
        match rest[end..].strip_prefix("::") {
            Some(next) => rest = next,
            None => break,
        }
    }
    out
}

/// Every path that starts at `text`, a brace group expanded (`{auth, feed::Feed}` → two
/// paths; `a::{b, c::{d}}` → `a::b`, `a::c::d`).
fn paths(text: &str) -> Vec<Vec<String>> {
    let head = segments(text);
    let consumed: usize = head.iter().map(|segment| segment.len() + 2).sum();
    let rest = text.get(consumed..).unwrap_or("");
    let group = if head.is_empty() { text.strip_prefix('{') } else { rest.strip_prefix('{') };
    let Some(group) = group else { return vec![head] };
    let mut depth = 0usize;
    let mut items = Vec::new();
    let mut start = 0;
    for (at, character) in group.char_indices() {
        match character {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..at]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.into_iter().flat_map(|item| paths(item.trim())).map(|tail| head.iter().cloned().chain(tail).collect()).collect()
}

fn parent(module: &str) -> String {
    match module.rsplit_once("::") {
        Some((parent, _)) => parent.to_owned(),
        None => "crate".to_owned(),
    }
}

fn join(base: &str, segment: &str) -> String {
    if base == "crate" { segment.to_owned() } else { format!("{base}::{segment}") }
}

/// Each module's re-exports: the name it re-exports → the child module that defines it.
fn reexports(modules: &BTreeMap<String, String>) -> BTreeMap<(String, String), String> {
    let mut map = BTreeMap::new();
    for (module, text) in modules {
        for line in text.split(';') {
            let line = line.trim();
            let Some(rest) = line.strip_prefix("pub use ").or_else(|| line.strip_prefix("pub(crate) use ")) else { continue };
            let path = segments(rest);
            let Some(first) = path.first() else { continue };
            let child = join(module, first);
            if !modules.contains_key(&child) {
                continue;
            }
            let names: Vec<String> = match rest.split_once('{') {
                Some((_, list)) => list.trim_end_matches('}').split(',').filter_map(|name| segments(name.trim()).pop()).collect(),
                None => path.last().into_iter().cloned().collect(),
            };
            for name in names {
                map.insert((module.clone(), name), child.clone());
            }
        }
    }
    map
}

/// The module a path names: the longest prefix that is a module, followed through
/// re-exports.
fn resolve(
    modules: &BTreeMap<String, String>,
    doors: &BTreeMap<(String, String), String>,
    base: &str,
    path: &[String],
) -> String {
    let mut module = base.to_owned();
    for segment in path {
        let next = join(&module, segment);
        if modules.contains_key(&next) {
            module = next;
        } else if let Some(child) = doors.get(&(module.clone(), segment.clone())) {
            module = child.clone();
            break;
        } else {
            break;
        }
    }
    module
}

/// Who imports whom, module by module.
fn imports(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let doors = reexports(modules);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, text) in modules {
        let mut targets = BTreeSet::new();
        for (at, _) in text.match_indices("crate::") {
            // `pub(in crate::state)` is a visibility, not an import.
            if text[..at].ends_with("pub(in ") {
                continue;
            }
            for path in paths(&text[at + "crate::".len()..]) {
                targets.insert(resolve(modules, &doors, "crate", &path));
            }
        }
        for (at, _) in text.match_indices("super::") {
            if text[..at].ends_with("super::") {
                continue;
            }
            let mut base = parent(module);
            let mut rest = &text[at + "super::".len()..];
            while let Some(next) = rest.strip_prefix("super::") {
                base = parent(&base);
                rest = next;
            }
            for path in paths(rest) {
                targets.insert(resolve(modules, &doors, &base, &path));
            }
        }
        for line in text.split(';') {
            let line = line.trim();
            let Some(rest) = line.strip_prefix("use ") else { continue };
            let path = segments(rest);
            if path.first().is_some_and(|first| modules.contains_key(&join(module, first))) {
                targets.insert(resolve(modules, &doors, module, &path));
            }
        }
        targets.remove(module);
        edges.insert(module.clone(), targets);
    }
    edges
}

/// A circle of imports, if there is one.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|on| on == node) {
            let mut found = path[start..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, edges, done, path) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|node| visit(node, edges, &mut done, &mut Vec::new()))
}

/// The imports that go up the rooms' order: `(from, to)`.
fn upward(edges: &BTreeMap<String, BTreeSet<String>>, rooms: &[&str]) -> Vec<(String, String)> {
    let room = |module: &str| module.split("::").next().unwrap_or(module).to_owned();
    let rank = |module: &str| rooms.iter().position(|room_name| *room_name == room(module));
    let mut wrong = Vec::new();
    for (from, targets) in edges {
        for to in targets {
            if room(from) == room(to) {
                continue;
            }
            match (rank(from), rank(to)) {
                (Some(a), Some(b)) if b < a => {}
                _ => wrong.push((from.clone(), to.clone())),
            }
        }
    }
    wrong
}

fn check(source: &str, rooms: &[&str]) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(source);
    let modules = modules(&source);
    assert!(modules.len() > 3, "{}: the modules were found", source.display());
    let edges = imports(&modules);
    assert!(edges.values().any(|targets| !targets.is_empty()), "imports were found");
    let unknown: Vec<&String> =
        modules.keys().filter(|module| !rooms.contains(&module.split("::").next().unwrap_or(module))).collect();
    assert!(unknown.is_empty(), "{}: modules in no room of the list: {unknown:?}", source.display());
    if let Some(found) = circle(&edges) {
        panic!("{}: these modules import each other: {}", source.display(), found.join(" -> "));
    }
    let wrong = upward(&edges, rooms);
    assert!(wrong.is_empty(), "{}: imports that go up the rooms' order {rooms:?}: {wrong:?}", source.display());
}

#[test]
fn the_server_s_rooms_import_only_downwards_and_no_modules_import_each_other() {
    check("src", SERVER_ROOMS);
}

#[test]
fn the_pure_core_s_rooms_import_only_downwards_and_no_modules_import_each_other() {
    check("core/src", CORE_ROOMS);
}

#[test]
fn the_check_finds_a_circle_and_an_upward_import() {
    // The checker itself: two modules that import each other, one of them from a room above.
    let modules: BTreeMap<String, String> = [
        ("crate".to_owned(), "mod a; mod b;".to_owned()),
        ("a".to_owned(), "use crate::b::Thing;".to_owned()),
        ("b".to_owned(), "use crate::a::Other;".to_owned()),
    ]
    .into();
    let edges = imports(&modules);
    assert_eq!(circle(&edges), Some(vec!["a".to_owned(), "b".to_owned(), "a".to_owned()]));
    assert_eq!(upward(&edges, &["a", "b", "crate"]), vec![("a".to_owned(), "b".to_owned())]);
}

#[test]
fn the_check_finds_a_circle_through_a_brace_group_of_modules() {
    // `use super::{a, b}` imports the sibling modules a and b, not their parent.
    let modules: BTreeMap<String, String> = [
        ("crate".to_owned(), "mod web;".to_owned()),
        ("web".to_owned(), "mod auth; mod context; mod feed;".to_owned()),
        ("web::context".to_owned(), "use super::{auth, feed::{self, Feed}};".to_owned()),
        ("web::auth".to_owned(), "use super::context::Web;".to_owned()),
        ("web::feed".to_owned(), String::new()),
    ]
    .into();
    let edges = imports(&modules);
    assert_eq!(edges["web::context"], BTreeSet::from(["web::auth".to_owned(), "web::feed".to_owned()]));
    assert!(circle(&edges).is_some_and(|found| found.contains(&"web::auth".to_owned())));
}
