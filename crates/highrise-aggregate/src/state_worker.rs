//! A thread that owns one piece of the aggregator's state and applies requests to it in
//! order: the plumbing shared by [`crate::contexts::worker`] and [`crate::memory::worker`].
//! Written on `std`'s channels: this crate depends on no runtime.

use std::sync::mpsc::{sync_channel, Sender, SyncSender, TrySendError};
use std::thread::JoinHandle;

/// The state's thread and the channel to it.
pub(crate) struct WorkerThread<R> {
    requests: Option<SyncSender<R>>,
    thread: Option<JoinHandle<()>>,
}

impl<R: Send + 'static> WorkerThread<R> {
    /// Starts thread `name` owning `state`, applying each request with `handle`; at most
    /// `queued` requests wait. Gives `state` back when no thread can be made.
    pub(crate) fn start<S: Send + 'static>(
        name: &str,
        state: Box<S>,
        queued: usize,
        mut handle: impl FnMut(&mut S, R) + Send + 'static,
    ) -> Result<Self, Box<S>> {
        let (requests, incoming) = sync_channel::<R>(queued);
        // The state is sent once the thread exists (a failed spawn would drop it otherwise).
        let (start, started) = sync_channel::<Box<S>>(1);
        let spawned = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                let Ok(mut state) = started.recv() else {
                    return;
                };
                for request in incoming {
                    handle(&mut state, request);
                }
            });
        let Ok(thread) = spawned else {
            return Err(state);
        };
        let _ = start.send(state);
        Ok(Self {
            requests: Some(requests),
            thread: Some(thread),
        })
    }

    /// Sends a request, waiting while the queue is full (nothing when the thread is gone).
    pub(crate) fn send(&self, request: R) {
        if let Some(requests) = &self.requests {
            match requests.try_send(request) {
                Ok(()) | Err(TrySendError::Disconnected(_)) => {}
                Err(TrySendError::Full(request)) => {
                    let _ = requests.send(request);
                }
            }
        }
    }

    /// Asks the thread and waits for its answer; `None` when the thread is gone.
    pub(crate) fn ask<T>(&self, request: impl FnOnce(Sender<T>) -> R) -> Option<T> {
        let (reply, answer) = std::sync::mpsc::channel();
        self.requests.as_ref()?.send(request(reply)).ok()?;
        answer.recv().ok()
    }
}

impl<R> Drop for WorkerThread<R> {
    fn drop(&mut self) {
        // Closing the channel ends the thread once it has applied what is queued.
        self.requests = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
