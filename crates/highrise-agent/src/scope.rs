//! The direct scope API: what `#[profile]` and [`scope!`](crate::scope) expand to.

use std::marker::PhantomData;

use crate::callsite::Callsite;

/// Marks "no enter was recorded": the guard's drop records nothing.
const INERT: u32 = u32::MAX;

/// An open scope; dropping it records the exit. Not `Send`: a scope ends on the thread that
/// opened it.
#[derive(Debug)]
#[must_use = "the scope ends when this guard is dropped"]
pub struct ScopeGuard {
    method_id: u32,
    _not_send: PhantomData<*const ()>,
}

impl ScopeGuard {
    /// A guard that records nothing.
    #[inline(always)]
    pub const fn inert() -> Self {
        Self {
            method_id: INERT,
            _not_send: PhantomData,
        }
    }
}

/// Records an enter of `callsite`'s method on this thread; the guard records the exit.
#[inline(always)]
pub fn enter(callsite: &'static Callsite) -> ScopeGuard {
    #[cfg(feature = "enable")]
    if crate::agent::active() {
        let method_id = callsite.id();
        crate::thread::record(u64::from(method_id) << 1);
        return ScopeGuard {
            method_id,
            _not_send: PhantomData,
        };
    }
    let _ = callsite;
    ScopeGuard::inert()
}

impl Drop for ScopeGuard {
    #[inline(always)]
    fn drop(&mut self) {
        #[cfg(feature = "enable")]
        if self.method_id != INERT {
            crate::thread::record((u64::from(self.method_id) << 1) | 1);
        }
    }
}

/// Marks the rest of the enclosing block as a method of its own, named `name`: package = the
/// module path, class = the module's last segment.
///
/// ```
/// fn load_level() {
///     highrise_agent::scope!("parse_tiles");
///     // ... measured until the end of the block
/// }
/// ```
///
/// The name must be a string literal: the call site is a `static`, registered on first use.
/// With the `enable` feature off this expands to nothing.
#[cfg(feature = "enable")]
#[macro_export]
macro_rules! scope {
    ($name:literal) => {
        $crate::__scope_as!(::core::module_path!(), ::core::option::Option::None, $name);
    };
}

/// What [`scope!`](crate::scope) and [`phase!`](crate::phase) expand to: the rest of the
/// enclosing block as method `$name` of package `$module_path` and class `$class`, through a
/// call site `static` registered on first use. Not for direct use.
#[doc(hidden)]
#[cfg(feature = "enable")]
#[macro_export]
macro_rules! __scope_as {
    ($module_path:expr, $class:expr, $name:literal) => {
        let _highrise_scope = {
            static CALLSITE: $crate::__private::Callsite =
                $crate::__private::Callsite::new($crate::__private::MethodInfo {
                    module_path: $module_path,
                    class: $class,
                    method: $name,
                    signature: ::core::option::Option::None,
                    file: ::core::option::Option::Some(::core::file!()),
                    line: ::core::option::Option::Some(::core::line!()),
                });
            $crate::__private::enter(&CALLSITE)
        };
    };
}

/// Marks the rest of the enclosing block as a method of its own (compiled out: the `enable`
/// feature is off).
#[cfg(not(feature = "enable"))]
#[macro_export]
macro_rules! scope {
    ($name:literal) => {};
}

/// Marks the rest of the enclosing block as a *phase* of the program named `name`, for
/// `highrise classes` and `highrise predict --phase NAME` (Murphy & Saenko 1998's phases of a
/// component's run): a frame of the method `highrise.phase.NAME` on this thread until the block
/// ends, as [`scope!`](crate::scope) makes one for a block of the program's own.
///
/// ```
/// fn compile(text: &str) {
///     {
///         highrise_agent::phase!("parse");
///         // ... the parse phase
///     }
///     highrise_agent::phase!("resolve");
///     // ... the resolve phase, to the end of the function
/// }
/// ```
#[cfg(feature = "enable")]
#[macro_export]
macro_rules! phase {
    ($name:literal) => {
        $crate::__scope_as!(
            $crate::__private::PHASE_MARK_PACKAGE,
            ::core::option::Option::Some($crate::__private::PHASE_MARK_CLASS),
            $name
        );
    };
}

/// Marks a phase (compiled out: the `enable` feature is off).
#[cfg(not(feature = "enable"))]
#[macro_export]
macro_rules! phase {
    ($name:literal) => {};
}
