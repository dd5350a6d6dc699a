//! Work that blocks a thread (an fsync, a snapshot's encoding, opening sled): off the
//! runtime's threads, on tokio's blocking pool; or, in the seeded simulation (`pozo-sim
//! vopr`), inline on the one thread, so that one seed is one order of events.

use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::future::BoxFuture;

static INLINE: AtomicBool = AtomicBool::new(false);

/// From now on, this process runs blocking work inline: the seeded simulation's, whose
/// runtime is one thread with a paused clock. Never for a controller that serves.
pub fn run_inline() {
    INLINE.store(true, Ordering::SeqCst);
}

/// Why blocking work gave no result: it panicked (the payload), or its task was cancelled.
pub enum Failed {
    Panicked(Box<dyn std::any::Any + Send>),
    Cancelled(String),
}

impl Failed {
    /// What it said.
    pub fn text(&self) -> String {
        match self {
            Failed::Panicked(payload) => payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|text| (*text).to_owned()))
                .unwrap_or_else(|| "a panic".to_owned()),
            Failed::Cancelled(text) => text.clone(),
        }
    }

    /// Goes on with the panic, if it was one.
    pub fn resume(self) -> ! {
        match self {
            Failed::Panicked(payload) => std::panic::resume_unwind(payload),
            Failed::Cancelled(text) => panic!("blocking work did not finish: {text}"),
        }
    }
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

/// Runs `work` where blocking work runs (see the module's documentation).
pub fn spawn<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> BoxFuture<'static, Result<T, Failed>> {
    if INLINE.load(Ordering::SeqCst) {
        return Box::pin(async move { std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).map_err(Failed::Panicked) });
    }
    let task = tokio::task::spawn_blocking(work);
    Box::pin(async move {
        task.await.map_err(|error| match error.try_into_panic() {
            Ok(payload) => Failed::Panicked(payload),
            Err(error) => Failed::Cancelled(error.to_string()),
        })
    })
}
