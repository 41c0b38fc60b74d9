//! The threaded worker build's pool (feature `threads`): rayon's global pool
//! on Web Workers sharing the worker's wasm memory, started before the lab
//! reactor takes its first message.

use std::sync::atomic::{AtomicUsize, Ordering};

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::MAX_RUN_THREADS;

/// Starts rayon's global pool with one worker fewer than the host has cores
/// (the simulating thread runs a share of every phase itself; at most
/// [`MAX_RUN_THREADS`] in all) and tells the simulator it may use it. If the
/// pool cannot start, the worker goes on with every run on its own thread.
pub async fn start_pool() {
    let workers = host_cores().clamp(1, MAX_RUN_THREADS) - 1;
    if workers == 0 {
        return;
    }
    match JsFuture::from(wasm_bindgen_rayon::init_thread_pool(workers)).await {
        Ok(_) => {
            warplab_lab::enable_web_pool(now_ms);
            WORKERS.store(workers, Ordering::Relaxed);
        }
        Err(error) => gloo::console::warn!("warplab: no thread pool, simulating on one thread:", error),
    }
}

/// The pool's workers once it runs (0 before, or if it cannot start).
static WORKERS: AtomicUsize = AtomicUsize::new(0);

/// The threads a run uses: the pool's workers and the simulating thread.
pub fn pool_threads() -> u32 {
    u32::try_from(WORKERS.load(Ordering::Relaxed) + 1).unwrap_or(1)
}

/// The worker's global scope (this code only runs in a worker).
fn worker_scope() -> Option<web_sys::WorkerGlobalScope> {
    js_sys::global().dyn_into::<web_sys::WorkerGlobalScope>().ok()
}

/// The host's logical cores, as the worker's navigator reports them.
fn host_cores() -> usize {
    worker_scope().map_or(1, |scope| scope.navigator().hardware_concurrency() as usize)
}

/// `performance.now()` in the worker, in milliseconds.
fn now_ms() -> f64 {
    worker_scope().and_then(|scope| scope.performance()).map_or(0.0, |performance| performance.now())
}
