//! Which method of run A is which method of run B, robust to package restructuring.
//!
//! A method of A and a method of B are the same method when their class, method name and
//! signature match and their package is the same (`same`) or another (`moved`). A signature
//! may itself name classes (a JVM descriptor `(Lgui/GameGUI;)V`), and when packages move those
//! names change too (`(Lmain/gui/GameGUI;)V`); so before pairing, A's signatures are spelled
//! in B's terms:
//!
//! 1. **Class moves.** A class of A that is not in B (same package and class name) and a
//!    class of B that is not in A, with the same class name and the same set of methods
//!    (names and signatures with package paths left out), is one class that moved; failing
//!    that, a class name found once among A's vanished and once among B's new classes, with
//!    a method in common.
//! 2. **Package moves.** A package of A that B no longer has, all of whose moved classes went
//!    to one package, moved there; a package inside it that no class showed (`gui.widgets`
//!    when `gui` → `main.gui`) moves with it.
//! 3. **Rewriting.** Each class named in a signature of A (a JVM descriptor's `Lpkg/Cls;`; a
//!    `::` path in other agents' free text, such as the Rust agent's `impl path::Trait`) is
//!    renamed by the class moves, else by the package moves. Python signatures name no types
//!    and stay as they are.
//! 4. **Pairing** by hashing, each pass over the methods left unpaired: the full key as sent,
//!    the full key with A's rewritten signature (`same`), then class + method + rewritten
//!    signature, then class + method + signature as sent (`moved`, or `same` where the
//!    package is equal). Identical keys (a buggy agent) pair k-th to k-th. Expected time is
//!    linear in the number of methods (plus a sort of each vanished class's methods).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use highrise_protocol::{JvmBase, JvmDescriptor, JvmType};
use serde::Serialize;

use crate::summary::MethodSummary;

/// What identifies a method across runs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct MethodKey {
    pub package: String,
    pub class: String,
    pub method: String,
    pub signature: Option<String>,
}

impl MethodKey {
    /// The key of a method definition.
    pub fn of_definition(definition: &highrise_protocol::MethodDef) -> Self {
        Self {
            package: definition.package.clone(),
            class: definition.class.clone(),
            method: definition.method.clone(),
            signature: definition.signature.clone(),
        }
    }

    pub(crate) fn of(method: &MethodSummary) -> Self {
        Self {
            package: method.package.clone(),
            class: method.class.clone(),
            method: method.method.clone(),
            signature: method.signature.clone(),
        }
    }
}

/// Index into A, index into B, verdict (`same`, `moved`, `removed`, `added`).
pub(crate) type Pair = (Option<usize>, Option<usize>, &'static str);

/// Where A's classes and packages went in B.
#[derive(Debug, Default)]
struct Moves<'a> {
    /// (package in A, class) → package in B.
    classes: FxMap<(&'a str, &'a str), &'a str>,
    /// package in A → package in B.
    packages: FxMap<&'a str, &'a str>,
}

impl Moves<'_> {
    /// The package `package` moved to, by itself or with its nearest moved ancestor.
    fn package(&self, package: &str) -> Option<Cow<'_, str>> {
        if let Some(to) = self.packages.get(package) {
            return Some(Cow::Borrowed(to));
        }
        let mut prefix = package;
        while let Some((parent, _)) = prefix.rsplit_once('.') {
            if let Some(to) = self.packages.get(parent) {
                let rest = &package[parent.len()..];
                return Some(Cow::Owned(format!("{to}{rest}")));
            }
            prefix = parent;
        }
        None
    }

    /// The package B has class `class` of A's package `package` in, when it moved (a nested
    /// class moves with its outer class).
    fn class(&self, package: &str, class: &str) -> Option<Cow<'_, str>> {
        let outer = class.split('$').next().unwrap_or(class);
        match self
            .classes
            .get(&(package, class))
            .or_else(|| self.classes.get(&(package, outer)))
        {
            Some(to) => Some(Cow::Borrowed(to)),
            None => self.package(package),
        }
    }

    /// `signature` with the classes it names spelled as in B; `None` when nothing changed.
    /// `renamed` remembers each JVM class name's new spelling (`None`: unchanged).
    fn rewrite<'s>(
        &self,
        signature: &'s str,
        renamed: &mut FxMap<&'s str, Option<String>>,
    ) -> Option<String> {
        if let Some(descriptor) = JvmDescriptor::parse(signature) {
            return self.rewrite_jvm(&descriptor, signature.len(), renamed);
        }
        if signature.starts_with('(') {
            return None; // a parameter list (Python): no types
        }
        self.rewrite_paths(signature)
    }

    /// A JVM class name (`gui/GameGUI$Keys`) as B has it, when it moved.
    fn rename_jvm_class(&self, name: &str) -> Option<String> {
        let (internal, class) = name.rsplit_once('/').unwrap_or(("", name));
        let package = internal.replace('/', ".");
        let to = self.class(&package, class).filter(|to| **to != *package)?;
        let mut out = to.replace('.', "/");
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(class);
        Some(out)
    }

    fn rewrite_jvm<'s>(
        &self,
        descriptor: &JvmDescriptor<'s>,
        length: usize,
        renamed: &mut FxMap<&'s str, Option<String>>,
    ) -> Option<String> {
        let mut changed = false;
        let mut out = String::with_capacity(length + 16);
        out.push('(');
        let mut push = |out: &mut String, field: &JvmType<'s>| {
            for _ in 0..field.dimensions {
                out.push('[');
            }
            match field.base {
                JvmBase::Primitive(code) => out.push(char::from(code)),
                JvmBase::Object(name) => {
                    out.push('L');
                    let new_name = renamed
                        .entry(name)
                        .or_insert_with(|| self.rename_jvm_class(name));
                    match new_name {
                        Some(new_name) => {
                            changed = true;
                            out.push_str(new_name);
                        }
                        None => out.push_str(name),
                    }
                    out.push(';');
                }
            }
        };
        for parameter in &descriptor.parameters {
            push(&mut out, parameter);
        }
        out.push(')');
        match &descriptor.returns {
            Some(returns) => push(&mut out, returns),
            None => out.push('V'),
        }
        changed.then_some(out)
    }

    /// Free text: each `a::b::Name` path whose module moved is renamed.
    fn rewrite_paths(&self, text: &str) -> Option<String> {
        map_paths(text, |module, name| {
            let to = self.package(&module.replace("::", "."))?;
            Some(if to.is_empty() {
                name.to_string()
            } else {
                format!("{}::{name}", to.replace('.', "::"))
            })
        })
    }
}

/// `text` with each `a::b::Name` path replaced by `rename(module, name)` where that gives
/// something; `None` when nothing changed.
fn map_paths(text: &str, mut rename: impl FnMut(&str, &str) -> Option<String>) -> Option<String> {
    if !text.contains("::") {
        return None;
    }
    let is_path = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let mut out = String::with_capacity(text.len() + 8);
    let mut changed = false;
    let mut rest = text;
    while !rest.is_empty() {
        let start = rest.find(is_path).unwrap_or(rest.len());
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest.find(|c: char| !is_path(c)).unwrap_or(rest.len());
        let token = &rest[..end];
        rest = &rest[end..];
        let renamed = token.rsplit_once("::").and_then(|(module, name)| {
            let well_formed = !name.is_empty()
                && !name.contains(':')
                && module
                    .split("::")
                    .all(|s| !s.is_empty() && !s.contains(':'));
            well_formed.then(|| rename(module, name)).flatten()
        });
        match renamed {
            Some(renamed) if renamed != token => {
                changed = true;
                out.push_str(&renamed);
            }
            _ => out.push_str(token),
        }
    }
    changed.then_some(out)
}

/// A hash of a method's name and signature with package paths left out, what stays when its
/// class moves: `(Lgui/GameGUI;)V` and `(Lmain/gui/GameGUI;)V` hash alike, as do
/// `impl a::Trait` and `impl b::a::Trait`. Of each path-like run of the text (letters,
/// digits, `_ $ / :`) only what follows the last `/` or `:` counts; no allocation.
fn method_print(method: &str, signature: Option<&str>) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(method.as_bytes());
    hasher.write_u8(0xff);
    let Some(signature) = signature else {
        return hasher.finish();
    };
    hasher.write_u8(0xfe);
    let bytes = signature.as_bytes();
    let in_path = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'/' | b':');
    let mut i = 0;
    while i < bytes.len() {
        if in_path(bytes[i]) {
            let start = i;
            while i < bytes.len() && in_path(bytes[i]) {
                i += 1;
            }
            let run = &bytes[start..i];
            let kept = run
                .iter()
                .rposition(|&b| b == b'/' || b == b':')
                .map_or(run, |at| &run[at + 1..]);
            hasher.write(kept);
            hasher.write_u8(0xff);
        } else {
            hasher.write_u8(bytes[i]);
            i += 1;
        }
    }
    hasher.finish()
}

pub(crate) type ClassMethods<'a> = FxMap<(&'a str, &'a str), Vec<usize>>;

fn classes_of(keys: &[MethodKey]) -> ClassMethods<'_> {
    let mut classes: ClassMethods<'_> = FxMap::default();
    for (i, key) in keys.iter().enumerate() {
        classes
            .entry((key.package.as_str(), key.class.as_str()))
            .or_default()
            .push(i);
    }
    classes
}

/// A class's methods, packages left out ([`method_print`]), sorted and deduplicated.
fn class_print(keys: &[MethodKey], methods: &[usize]) -> Vec<u64> {
    let mut print: Vec<u64> = methods
        .iter()
        .map(|&i| method_print(&keys[i].method, keys[i].signature.as_deref()))
        .collect();
    print.sort_unstable();
    print.dedup();
    print
}

/// Whether two sorted prints share a method.
fn share_a_method(x: &[u64], y: &[u64]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

/// Steps 1 and 2: where A's classes and packages went.
fn moves<'a>(
    a: &'a [MethodKey],
    b: &'a [MethodKey],
    classes_a: &ClassMethods<'a>,
    classes_b: &ClassMethods<'a>,
) -> Moves<'a> {
    let vanished: Vec<((&str, &str), Vec<u64>)> = classes_a
        .iter()
        .filter(|(class, _)| !classes_b.contains_key(*class))
        .map(|(&class, methods)| (class, class_print(a, methods)))
        .collect();
    let appeared: Vec<((&str, &str), Vec<u64>)> = classes_b
        .iter()
        .filter(|(class, _)| !classes_a.contains_key(*class))
        .map(|(&class, methods)| (class, class_print(b, methods)))
        .collect();
    let mut result = Moves::default();
    if vanished.is_empty() || appeared.is_empty() {
        return result;
    }
    // Same class name and same methods, found once on each side.
    /// Indices into `vanished` and `appeared`.
    type Sides = (Vec<usize>, Vec<usize>);
    let mut by_print: FxMap<(&str, &[u64]), Sides> = FxMap::default();
    for (i, ((_, class), print)) in vanished.iter().enumerate() {
        by_print.entry((*class, print)).or_default().0.push(i);
    }
    for (j, ((_, class), print)) in appeared.iter().enumerate() {
        if let Some(entry) = by_print.get_mut(&(*class, print.as_slice())) {
            entry.1.push(j);
        }
    }
    let mut paired_a = vec![false; vanished.len()];
    let mut paired_b = vec![false; appeared.len()];
    for (from, to) in by_print.values() {
        if let ([i], [j]) = (from.as_slice(), to.as_slice()) {
            let ((from_package, class), _) = vanished[*i];
            result
                .classes
                .insert((from_package, class), appeared[*j].0 .0);
            paired_a[*i] = true;
            paired_b[*j] = true;
        }
    }
    // Otherwise the same class name, once on each side, with a method in common.
    let mut by_name: FxMap<&str, Sides> = FxMap::default();
    for (i, ((_, class), _)) in vanished.iter().enumerate() {
        if !paired_a[i] {
            by_name.entry(class).or_default().0.push(i);
        }
    }
    for (j, ((_, class), _)) in appeared.iter().enumerate() {
        if !paired_b[j] {
            if let Some(entry) = by_name.get_mut(class) {
                entry.1.push(j);
            }
        }
    }
    for (from, to) in by_name.values() {
        if let ([i], [j]) = (from.as_slice(), to.as_slice()) {
            if share_a_method(&vanished[*i].1, &appeared[*j].1) {
                let ((from_package, class), _) = vanished[*i];
                result
                    .classes
                    .insert((from_package, class), appeared[*j].0 .0);
            }
        }
    }
    // Packages B no longer has whose moved classes all went to one package.
    let packages_b: FxSet<&str> = b.iter().map(|key| key.package.as_str()).collect();
    let mut votes: FxMap<&str, Option<&str>> = FxMap::default();
    for (&(from, _), &to) in &result.classes {
        votes
            .entry(from)
            .and_modify(|vote| {
                if *vote != Some(to) {
                    *vote = None;
                }
            })
            .or_insert(Some(to));
    }
    result.packages = votes
        .into_iter()
        .filter(|(from, _)| !packages_b.contains(from))
        .filter_map(|(from, to)| Some((from, to?)))
        .collect();
    result
}

/// A's signatures spelled in B's terms (step 3): a signature that names classes which moved
/// between the runs names them where B has them; every other signature is as sent. What
/// the pairing compares, and what the viewer's aligned plan is built from, so both treat a
/// restructured method as moved.
pub fn a_signatures_as_in_b(a: &[MethodKey], b: &[MethodKey]) -> Vec<Option<String>> {
    rewrites(a, b, &classes_of(a), &classes_of(b))
        .into_iter()
        .zip(a)
        .map(|(rewritten, key)| rewritten.or_else(|| key.signature.clone()))
        .collect()
}

/// Per method of A, its signature in B's terms where that differs from the one sent.
fn rewrites<'a>(
    a: &'a [MethodKey],
    b: &'a [MethodKey],
    classes_a: &ClassMethods<'a>,
    classes_b: &ClassMethods<'a>,
) -> Vec<Option<String>> {
    let moves = moves(a, b, classes_a, classes_b);
    if moves.classes.is_empty() && moves.packages.is_empty() {
        return vec![None; a.len()];
    }
    let mut renamed = FxMap::default();
    a.iter()
        .map(|key| moves.rewrite(key.signature.as_deref()?, &mut renamed))
        .collect()
}

const NONE: usize = usize::MAX;

/// B's unpaired methods by the hash of a key, each key's methods in B's order, taken
/// without allocating per key: `heads` holds a hash's first method, `next` chains the rest.
/// Keys are compared only on a hash hit, so a lookup touches the names once.
struct Unpaired {
    heads: FxMap<u64, usize>,
    next: Vec<usize>,
}

impl Unpaired {
    fn new(paired_b: &[bool], hash_b: impl Fn(usize) -> u64) -> Self {
        let mut heads = FxMap::with_capacity_and_hasher(paired_b.len(), Default::default());
        let mut next = vec![NONE; paired_b.len()];
        for j in (0..paired_b.len()).rev().filter(|&j| !paired_b[j]) {
            next[j] = heads.insert(hash_b(j), j).unwrap_or(NONE);
        }
        Self { heads, next }
    }

    /// The first unpaired method of B whose key hashes to `hash` and `is_match`es, now paired.
    fn take(&mut self, hash: u64, is_match: impl Fn(usize) -> bool) -> Option<usize> {
        let head = self.heads.get_mut(&hash)?;
        let mut previous = NONE;
        let mut j = *head;
        while j != NONE {
            if is_match(j) {
                if previous == NONE {
                    *head = self.next[j];
                } else {
                    self.next[previous] = self.next[j];
                }
                return Some(j);
            }
            previous = j;
            j = self.next[j];
        }
        None
    }
}

/// Hashes of a method's parts, computed once: (package, class, method, signature).
fn part_hashes(key: &MethodKey) -> [u64; 4] {
    [
        hash_str(&key.package),
        hash_str(&key.class),
        hash_str(&key.method),
        hash_signature(key.signature.as_deref()),
    ]
}

fn hash_str(text: &str) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(text.as_bytes());
    hasher.write_u8(0xff);
    hasher.finish()
}

fn hash_signature(signature: Option<&str>) -> u64 {
    signature.map_or(0x9e37_79b9_7f4a_7c15, hash_str)
}

fn combine(parts: &[u64]) -> u64 {
    let mut hasher = FxHasher::default();
    for &part in parts {
        hasher.write_u64(part);
    }
    hasher.finish()
}

/// How the methods of two runs pair up (step 4): every method of A in A's order (`same`,
/// `moved` or `removed`), then B's unpaired methods in B's order (`added`).
#[cfg(test)]
fn pair_up(a: &[MethodKey], b: &[MethodKey]) -> Vec<Pair> {
    pair_up_with_classes(a, b).pairs
}

/// Pairs, and each run's methods by (package, class).
#[derive(Debug)]
pub(crate) struct Paired<'a> {
    pub pairs: Vec<Pair>,
    pub classes_a: ClassMethods<'a>,
    pub classes_b: ClassMethods<'a>,
}

/// [`pair_up`], keeping the classes it found.
pub(crate) fn pair_up_with_classes<'a>(a: &'a [MethodKey], b: &'a [MethodKey]) -> Paired<'a> {
    let (classes_a, classes_b) = (classes_of(a), classes_of(b));
    let rewritten = rewrites(a, b, &classes_a, &classes_b);
    let hashes_a: Vec<[u64; 4]> = a.iter().map(part_hashes).collect();
    let hashes_b: Vec<[u64; 4]> = b.iter().map(part_hashes).collect();
    let rewritten_hash = |i: usize| {
        rewritten[i]
            .as_deref()
            .map_or(hashes_a[i][3], |signature| hash_signature(Some(signature)))
    };
    let mut paired_a: Vec<Option<(usize, &'static str)>> = vec![None; a.len()];
    let mut paired_b = vec![false; b.len()];
    let verdict = |i: usize, j: usize| {
        if a[i].package == b[j].package {
            "same"
        } else {
            "moved"
        }
    };
    let same_name = |i: usize, j: usize| a[i].class == b[j].class && a[i].method == b[j].method;
    // Each index serves two passes: A's signatures as sent, then as rewritten (only where
    // that differs), all of A through the first before any through the second.
    let mut by_full = Unpaired::new(&paired_b, |j| combine(&hashes_b[j]));
    for (i, key) in a.iter().enumerate() {
        let found = by_full.take(combine(&hashes_a[i]), |j| {
            key.package == b[j].package && same_name(i, j) && key.signature == b[j].signature
        });
        if let Some(j) = found {
            paired_a[i] = Some((j, verdict(i, j)));
            paired_b[j] = true;
        }
    }
    for (i, key) in a.iter().enumerate() {
        if let (None, Some(signature)) = (paired_a[i], &rewritten[i]) {
            let [package, class, method, _] = hashes_a[i];
            let found = by_full.take(combine(&[package, class, method, rewritten_hash(i)]), |j| {
                key.package == b[j].package
                    && same_name(i, j)
                    && b[j].signature.as_deref() == Some(signature.as_str())
            });
            if let Some(j) = found {
                paired_a[i] = Some((j, verdict(i, j)));
                paired_b[j] = true;
            }
        }
    }
    drop(by_full);
    if paired_a.iter().any(Option::is_none) && paired_b.iter().any(|paired| !paired) {
        let short = |[_, class, method, signature]: [u64; 4]| combine(&[class, method, signature]);
        let mut by_short = Unpaired::new(&paired_b, |j| short(hashes_b[j]));
        for (i, key) in a.iter().enumerate() {
            if paired_a[i].is_some() {
                continue;
            }
            let [package, class, method, _] = hashes_a[i];
            let signature = rewritten[i].as_deref().or(key.signature.as_deref());
            let hash = short([package, class, method, rewritten_hash(i)]);
            let found = by_short.take(hash, |j| {
                same_name(i, j) && b[j].signature.as_deref() == signature
            });
            if let Some(j) = found {
                paired_a[i] = Some((j, verdict(i, j)));
                paired_b[j] = true;
            }
        }
        for (i, key) in a.iter().enumerate() {
            if paired_a[i].is_some() || rewritten[i].is_none() {
                continue;
            }
            let found = by_short.take(short(hashes_a[i]), |j| {
                same_name(i, j) && b[j].signature == key.signature
            });
            if let Some(j) = found {
                paired_a[i] = Some((j, verdict(i, j)));
                paired_b[j] = true;
            }
        }
    }
    let mut pairs: Vec<Pair> = paired_a
        .iter()
        .enumerate()
        .map(|(i, paired)| match paired {
            Some((j, verdict)) => (Some(i), Some(*j), *verdict),
            None => (Some(i), None, "removed"),
        })
        .collect();
    pairs.extend(
        paired_b
            .iter()
            .enumerate()
            .filter(|(_, paired)| !**paired)
            .map(|(j, _)| (None, Some(j), "added")),
    );
    Paired {
        pairs,
        classes_a,
        classes_b,
    }
}

/// Hash maps and sets keyed by our own names: the Fx hash (as rustc and highrise-layout use),
/// several times faster than SipHash on short strings; recordings are not adversarial input.
pub(crate) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
pub(crate) type FxSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;

/// The Fx hash: a rotate, xor and multiply per 8 bytes.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

impl FxHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, value: u8) {
        self.add(u64::from(value));
    }

    fn write_u32(&mut self, value: u32) {
        self.add(u64::from(value));
    }

    fn write_u64(&mut self, value: u64) {
        self.add(value);
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(package: &str, class: &str, method: &str, signature: Option<&str>) -> MethodKey {
        MethodKey {
            package: package.into(),
            class: class.into(),
            method: method.into(),
            signature: signature.map(str::to_string),
        }
    }

    #[test]
    fn signatures_follow_moved_classes_and_packages() {
        let a = vec![
            key("gui", "GameGUI", "draw", Some("(Lgame/Board;)V")),
            key("game", "Board", "rotate", Some("(I)V")),
            key("game", "Board", "attach", Some("(Lgui/GameGUI$Keys;)V")),
            key("game", "Board", "widget", Some("(Lgui/widgets/Button;)V")),
            key("game", "Board", "list", Some("(Ljava/util/List;)V")),
            key("game", "Board", "fmt", Some("impl gui::Paint")),
            key("py", "lexer", "lex", Some("(self, text)")),
        ];
        let b: Vec<MethodKey> = a
            .iter()
            .map(|k| MethodKey {
                package: format!("main.{}", k.package),
                ..k.clone()
            })
            .collect();
        let rewritten = a_signatures_as_in_b(&a, &b);
        assert_eq!(
            rewritten,
            vec![
                Some("(Lmain/game/Board;)V".to_string()),
                Some("(I)V".to_string()),
                Some("(Lmain/gui/GameGUI$Keys;)V".to_string()),
                Some("(Lmain/gui/widgets/Button;)V".to_string()),
                Some("(Ljava/util/List;)V".to_string()),
                Some("impl main::gui::Paint".to_string()),
                Some("(self, text)".to_string()),
            ]
        );
    }

    #[test]
    fn method_prints_leave_packages_out() {
        let print = |signature| method_print("draw", Some(signature));
        assert_eq!(
            print("(Lgui/GameGUI;[[I)V"),
            print("(Lmain/gui/GameGUI;[[I)V")
        );
        assert_ne!(print("(Lgui/GameGUI;[[I)V"), print("(Lgui/GameGUI;[I)V"));
        assert_ne!(print("(Lgui/GameGUI;)V"), print("(Lgui/Board;)V"));
        assert_eq!(
            print("impl std::fmt::Display"),
            print("impl core::fmt::Display")
        );
        assert_eq!(print("(self, text)"), print("(self, text)"));
        assert_ne!(print("(self, text)"), print("(self, stack)"));
        assert_ne!(method_print("draw", None), method_print("paint", None));
        assert_ne!(method_print("draw", None), print(""));
    }

    #[test]
    fn a_lone_class_rename_of_package_is_a_move_and_overloads_pair_in_order() {
        let a = vec![
            key("x", "C", "f", Some("(I)V")),
            key("x", "C", "f", Some("(I)V")),
            key("x", "D", "g", None),
        ];
        let b = vec![
            key("x", "D", "g", None),
            key("y", "C", "f", Some("(I)V")),
            key("y", "C", "f", Some("(I)V")),
            key("y", "E", "h", None),
        ];
        assert_eq!(
            pair_up(&a, &b),
            vec![
                (Some(0), Some(1), "moved"),
                (Some(1), Some(2), "moved"),
                (Some(2), Some(0), "same"),
                (None, Some(3), "added"),
            ]
        );
    }
}
