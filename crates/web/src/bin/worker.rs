//! The worker's entry point: registers the lab reactor, which then answers the
//! page's messages.
//!
//! The threaded build (feature `threads`, `warplab_worker_mt`) first starts
//! rayon's pool on Web Workers and registers the reactor only once the pool is
//! up: gloo-worker holds the page's messages until the reactor is registered,
//! so no run can reach the pool before it exists.

use gloo_worker::Registrable;
use warplab_web::agent::LabReactor;

fn main() {
    console_error_panic_hook::set_once();
    #[cfg(all(feature = "threads", target_arch = "wasm32"))]
    wasm_bindgen_futures::spawn_local(async {
        warplab_web::threads::start_pool().await;
        LabReactor::registrar().register();
    });
    #[cfg(not(all(feature = "threads", target_arch = "wasm32")))]
    LabReactor::registrar().register();
}
