//! The `tracing` path: a [`Layer`] that turns span enters and exits into highrise events, so a
//! program already instrumented with `#[tracing::instrument]` shows up unchanged.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Mutex;

use tracing::span::{Attributes, Id};
use tracing::{Metadata, Subscriber};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

use crate::callsite::{self, MethodInfo};

/// The tracing layer. Add it to a registry:
///
/// ```no_run
/// use tracing_subscriber::prelude::*;
///
/// let _agent = highrise_agent::init("my-service");
/// tracing_subscriber::registry().with(highrise_agent::layer()).init();
/// ```
///
/// How spans become methods (one method per span callsite):
/// - package = the span's target (its module path unless the span sets `target:`), with `::`
///   turned into `.`;
/// - class and method: a span named `Type::method` (`#[instrument(name = "Board::step")]`)
///   gives class `Type`, method `method`; any other name gives class = the module's last
///   segment (the span's own `impl` type cannot be seen from tracing's metadata) and method =
///   the name;
/// - file and line from the metadata.
///
/// Only spans are recorded, not events (log lines). The layer records nothing while no agent
/// runs or the runtime switch is off.
#[derive(Debug, Default, Clone, Copy)]
pub struct HighriseLayer {
    _private: (),
}

/// The tracing layer; see [`HighriseLayer`].
pub fn layer() -> HighriseLayer {
    HighriseLayer::default()
}

/// The method of a span callsite, from its metadata.
fn method_info(metadata: &'static Metadata<'static>) -> MethodInfo {
    let name = metadata.name();
    let (class, method) = match name.rsplit_once("::") {
        Some((class, method)) if !class.is_empty() && !method.is_empty() => {
            (Some(class.rsplit("::").next().unwrap_or(class)), method)
        }
        _ => (None, name),
    };
    MethodInfo {
        module_path: metadata.target(),
        class,
        method,
        signature: None,
        file: metadata.file(),
        line: metadata.line(),
    }
}

/// Callsite (metadata address) → method id, for the whole process.
static SPAN_METHODS: Mutex<Option<HashMap<usize, u32>>> = Mutex::new(None);

const CACHE_SLOTS: usize = 64;

thread_local! {
    /// A direct-mapped cache of metadata address → method id, so a span enter costs no lock.
    static CACHE: [Cell<(usize, u32)>; CACHE_SLOTS] =
        const { [const { Cell::new((0, 0)) }; CACHE_SLOTS] };
    /// The spans this thread entered and has not exited: (span id, method id). An exit finds
    /// its method here (usually on top) instead of looking the span up in the registry again.
    static ENTERED: RefCell<Vec<(u64, u32)>> = const { RefCell::new(Vec::new()) };
}

/// Records an enter and remembers the span on this thread.
#[inline]
fn enter_span(span_id: u64, method_id: u32) {
    let _ = ENTERED.try_with(|entered| {
        if let Ok(mut entered) = entered.try_borrow_mut() {
            entered.push((span_id, method_id));
        }
    });
    #[cfg(feature = "enable")]
    crate::thread::record(u64::from(method_id) << 1);
}

/// The method of an exiting span entered on this thread (forgetting it), if known.
#[inline]
fn exit_span(span_id: u64) -> Option<u32> {
    ENTERED
        .try_with(|entered| {
            let mut entered = entered.try_borrow_mut().ok()?;
            match entered.last() {
                Some(&(top, method_id)) if top == span_id => {
                    entered.pop();
                    Some(method_id)
                }
                _ => {
                    let position = entered.iter().rposition(|&(id, _)| id == span_id)?;
                    Some(entered.remove(position).1)
                }
            }
        })
        .ok()
        .flatten()
}

#[inline]
fn method_id(metadata: &'static Metadata<'static>) -> u32 {
    let key = std::ptr::from_ref(metadata) as usize;
    let slot = (key >> 4) % CACHE_SLOTS;
    CACHE
        .try_with(|cache| {
            let (cached_key, id) = cache[slot].get();
            if cached_key == key {
                return id;
            }
            let id = method_id_slow(key, metadata);
            cache[slot].set((key, id));
            id
        })
        .unwrap_or_else(|_| method_id_slow(key, metadata))
}

#[cold]
fn method_id_slow(key: usize, metadata: &'static Metadata<'static>) -> u32 {
    let mut methods = match SPAN_METHODS.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    };
    *methods
        .get_or_insert_with(HashMap::new)
        .entry(key)
        .or_insert_with(|| callsite::register_dynamic(method_info(metadata)))
}

impl<S> Layer<S> for HighriseLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, _id: &Id, _ctx: Context<'_, S>) {
        // Define the method when its first span is created, off the enter path.
        #[cfg(feature = "enable")]
        if crate::agent::active() {
            method_id(attrs.metadata());
        }
        let _ = attrs;
    }

    #[inline]
    fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
        #[cfg(feature = "enable")]
        if crate::agent::active() {
            if let Some(metadata) = ctx.metadata(id) {
                enter_span(id.into_u64(), method_id(metadata));
            }
        }
        let _ = (id, ctx);
    }

    #[inline]
    fn on_exit(&self, id: &Id, ctx: Context<'_, S>) {
        #[cfg(feature = "enable")]
        // Only spans whose enter was recorded on this thread: an exit without its enter (the
        // switch went on in between) would mean nothing to the viewer. Exits of spans entered
        // before the switch went off are still recorded, so no frame stays open.
        if let Some(method_id) = exit_span(id.into_u64()) {
            if crate::agent::RUNNING.load(std::sync::atomic::Ordering::Relaxed) {
                crate::thread::record((u64::from(method_id) << 1) | 1);
            }
        }
        let _ = (id, ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_names_with_a_type_give_the_class() {
        tracing::subscriber::with_default(tracing_subscriber::registry(), || {
            let span = tracing::info_span!("Board::step");
            let info = method_info(span.metadata().expect("enabled"));
            assert_eq!(info.class, Some("Board"));
            assert_eq!(info.method, "step");
            assert_eq!(info.package(), "highrise_agent.layer.tests");
            let span = tracing::info_span!("plain");
            let info = method_info(span.metadata().expect("enabled"));
            assert_eq!(info.class_name(), "tests");
            assert_eq!(info.method, "plain");
        });
    }
}
