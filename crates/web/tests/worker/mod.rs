//! What the worker tests share: spawning the real worker from `test-dist/`
//! (see `tests/app.rs`) and awaiting its next output, logged.

use std::time::Duration;

use futures::StreamExt;
use gloo::timers::future::sleep;
use gloo_worker::Spawnable;
use gloo_worker::reactor::ReactorBridge;
use warplab_web::agent::{LabReactor, WorkerOutput};

/// The page's worker, as the app spawns it.
pub fn spawn() -> ReactorBridge<LabReactor> {
    LabReactor::spawner().as_module(true).with_loader(true).spawn("test-dist/worker.js")
}

/// The next output, or a panic naming what was awaited after 60 s (a scale
/// run simulates several GPUs).
pub async fn next(bridge: &mut ReactorBridge<LabReactor>, what: &str) -> WorkerOutput {
    let timeout = sleep(Duration::from_secs(60));
    futures::pin_mut!(timeout);
    match futures::future::select(bridge.next(), timeout).await {
        futures::future::Either::Left((Some(output), _)) => {
            wasm_bindgen_test::console_log!("{what}: {}", brief(&output));
            output
        }
        _ => panic!("no {what} from the worker"),
    }
}

/// An output in one line, for the log.
fn brief(output: &WorkerOutput) -> String {
    match output {
        WorkerOutput::RunUpdated(u) => format!("update {:?} at {} ({} events)", u.status, u.cycle, u.events.len()),
        other => format!("{other:?}").chars().take(80).collect(),
    }
}
