//! `highrise-guard`: panics caught at highrise's boundaries, the one home for them. A bug in
//! highrise met on one session's data fails that session with a message (ingest's
//! `SessionError::Crashed`) instead of killing its thread in silence, and every other session
//! and the process go on; the window drops one city's update, not the window; an importer
//! says a file could not be read rather than crashing the reader.
//!
//! Where to start: [`catch`] runs a closure and turns a panic into its message with the place it came from
//! (kept by a panic hook installed once, which then calls the hook that was there before, so
//! the usual "thread … panicked at …" line still reaches stderr).
//!
//! A test-only hook makes a session's processing panic on purpose: with
//! `HIGHRISE_TEST_PANIC_ON=NAME` in the environment, a method definition whose method name is
//! `NAME` panics inside the session's sink call (ingest), and `NAME` = `viewer:…` in the window
//! (see [`injected_panic`]). Nothing else reads it; without it nothing changes.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Once, OnceLock};

/// The environment variable of the test-only panic hook.
pub const TEST_PANIC_ENV: &str = "HIGHRISE_TEST_PANIC_ON";

thread_local! {
    /// Where the latest panic on this thread happened (`file:line:column`).
    static LAST_PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn install_location_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if let Some(location) = info.location() {
                let at = format!(
                    "{}:{}:{}",
                    location.file(),
                    location.line(),
                    location.column()
                );
                LAST_PANIC_AT.with(|last| *last.borrow_mut() = Some(at));
            }
            previous(info);
        }));
    });
}

/// The text of a panic's payload.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "panic with a non-text payload".to_string()
    }
}

/// Runs `work`; a panic in it comes back as `Err("MESSAGE at FILE:LINE:COLUMN")`.
///
/// The caller must treat whatever `work` touched as broken after an `Err` (it may be half
/// updated): a session stops feeding its sink, for example.
pub fn catch<T>(work: impl FnOnce() -> T) -> Result<T, String> {
    install_location_hook();
    panic::catch_unwind(AssertUnwindSafe(work)).map_err(|payload| {
        let message = panic_message(payload.as_ref());
        match LAST_PANIC_AT.with(|last| last.borrow_mut().take()) {
            Some(at) => format!("{message} at {at}"),
            None => message,
        }
    })
}

/// The method name of the test-only panic hook, if [`TEST_PANIC_ENV`] is set (read once).
pub fn injected_panic() -> Option<&'static str> {
    static NAME: OnceLock<Option<String>> = OnceLock::new();
    NAME.get_or_init(|| {
        std::env::var(TEST_PANIC_ENV)
            .ok()
            .filter(|name| !name.is_empty())
    })
    .as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caught_panic_says_what_and_where() {
        let caught = catch(|| -> u32 { panic!("boom {}", 7) });
        let message = caught.unwrap_err();
        assert!(message.starts_with("boom 7 at "), "{message}");
        assert!(message.contains("lib.rs:"), "{message}");
        assert_eq!(catch(|| 5), Ok(5));
    }
}
