//! The threaded worker build's pool (feature `threads`): rayon's global pool
//! on Web Workers sharing the worker's wasm memory, started before the lab
//! reactor takes its first message.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The most threads the pool gets: the SMs' phase of a cycle splits into
/// tasks of four SMs, so past eight threads the hand-overs cost more than
/// the split saves on the presets' 28 to 132 SMs.
const MAX_THREADS: usize = 8;

/// Starts rayon's global pool with as many threads as the host has cores (at
/// most [`MAX_THREADS`]) and tells the simulator it may use it. If the pool
/// cannot start, the worker goes on with every run on its own thread.
pub async fn start_pool() {
    let threads = host_cores().clamp(1, MAX_THREADS);
    if threads < 2 {
        return;
    }
    match JsFuture::from(wasm_bindgen_rayon::init_thread_pool(threads)).await {
        Ok(_) => warplab_lab::enable_web_pool(now_ms),
        Err(error) => gloo::console::warn!("warplab: no thread pool, simulating on one thread:", error),
    }
}

/// The threads of the running pool, which each run asks for, so it uses
/// all of them.
pub fn pool_threads() -> u32 {
    u32::try_from(rayon::current_num_threads()).unwrap_or(1)
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
