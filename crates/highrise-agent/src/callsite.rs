//! Method definitions: what a call site is called, and the process-wide registry that gives
//! each call site a dense method id the first time it runs.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// Everything the viewer is told about one method. All `'static`: call sites are statics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MethodInfo {
    /// Rust module path (`my_game::board`); becomes the dot-separated package.
    pub module_path: &'static str,
    /// The class (type) name; `None` = the module's last segment.
    pub class: Option<&'static str>,
    /// The method name.
    pub method: &'static str,
    /// Optional signature (`impl Display` for trait impls).
    pub signature: Option<&'static str>,
    /// Source file and line, when known.
    pub file: Option<&'static str>,
    pub line: Option<u32>,
}

impl MethodInfo {
    /// Dot-separated package: the module path with `::` replaced by `.`.
    pub fn package(&self) -> String {
        self.module_path.replace("::", ".")
    }

    /// The class name (the module's last segment when none was given).
    pub fn class_name(&self) -> &'static str {
        self.class.unwrap_or_else(|| {
            self.module_path
                .rsplit("::")
                .next()
                .unwrap_or(self.module_path)
        })
    }
}

/// Not assigned yet.
pub(crate) const UNASSIGNED: u32 = u32::MAX;

/// One instrumented call site: a `static` per `#[profile]` function and per `scope!`.
///
/// Its method id is assigned on first use and never changes for the life of the process.
#[derive(Debug)]
pub struct Callsite {
    id: AtomicU32,
    info: MethodInfo,
}

impl Callsite {
    /// A call site that has not run yet.
    pub const fn new(info: MethodInfo) -> Self {
        Self {
            id: AtomicU32::new(UNASSIGNED),
            info,
        }
    }

    /// The method id, registering the call site on first use.
    #[inline(always)]
    pub fn id(&'static self) -> u32 {
        // Acquire pairs with the Release in `register`: whoever sees the id also sees the
        // registry entry, and so does the sender that later reads this thread's events.
        let id = self.id.load(Ordering::Acquire);
        if id != UNASSIGNED {
            return id;
        }
        self.register()
    }

    #[cold]
    #[inline(never)]
    fn register(&'static self) -> u32 {
        let mut methods = registry();
        let id = self.id.load(Ordering::Acquire);
        if id != UNASSIGNED {
            return id;
        }
        let id = push(&mut methods, self.info);
        self.id.store(id, Ordering::Release);
        id
    }

    /// What this call site reports.
    pub fn info(&self) -> &MethodInfo {
        &self.info
    }
}

/// All methods known to the process, indexed by id.
static METHODS: Mutex<Vec<MethodInfo>> = Mutex::new(Vec::new());

/// `METHODS.len()`, readable without the lock.
static METHOD_COUNT: AtomicU32 = AtomicU32::new(0);

fn registry() -> std::sync::MutexGuard<'static, Vec<MethodInfo>> {
    // A panic while holding this lock cannot leave the Vec inconsistent (push is atomic from
    // our point of view), so a poisoned lock is still good.
    match METHODS.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Methods past [`crate::MAX_METHODS`] all share the last id rather than break the protocol.
fn push(methods: &mut Vec<MethodInfo>, info: MethodInfo) -> u32 {
    let id = methods.len() as u32;
    if id >= MAX_METHODS {
        return MAX_METHODS - 1;
    }
    // Growing the registry is the agent's allocation, not the program's.
    crate::alloc::agents_own(|| methods.push(info));
    METHOD_COUNT.store(id + 1, Ordering::Release);
    id
}

/// The protocol's limit on method ids (`highrise_protocol::MAX_METHOD_ID`).
pub(crate) const MAX_METHODS: u32 = 1 << 24;

/// Registers a method that is not a `Callsite` static (the tracing layer's callsites).
pub(crate) fn register_dynamic(info: MethodInfo) -> u32 {
    push(&mut registry(), info)
}

/// How many methods exist; ids below this are defined.
pub(crate) fn method_count() -> u32 {
    METHOD_COUNT.load(Ordering::Acquire)
}

/// Copies the definitions `from..` (up to the current count).
pub(crate) fn methods_from(from: u32) -> Vec<(u32, MethodInfo)> {
    let methods = registry();
    methods
        .iter()
        .enumerate()
        .skip(from as usize)
        .map(|(id, info)| (id as u32, *info))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_and_class_follow_the_module_path() {
        let info = MethodInfo {
            module_path: "game::board",
            class: None,
            method: "step",
            signature: None,
            file: Some("board.rs"),
            line: Some(3),
        };
        assert_eq!(info.package(), "game.board");
        assert_eq!(info.class_name(), "board");
        let info = MethodInfo {
            class: Some("Board"),
            ..info
        };
        assert_eq!(info.class_name(), "Board");
        let root = MethodInfo {
            module_path: "game",
            ..info
        };
        assert_eq!(root.package(), "game");
    }

    #[test]
    fn a_callsite_gets_one_id_forever() {
        static SITE: Callsite = Callsite::new(MethodInfo {
            module_path: "t",
            class: None,
            method: "m",
            signature: None,
            file: None,
            line: None,
        });
        let first = SITE.id();
        assert_eq!(SITE.id(), first);
        assert!(method_count() > first);
        let defs = methods_from(first);
        assert_eq!(defs[0].0, first);
        assert_eq!(defs[0].1.method, "m");
    }
}
