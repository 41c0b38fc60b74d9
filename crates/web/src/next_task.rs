//! The run worker's wait between two full-speed slices: back to the event
//! loop, so the page's messages come in, and on to the next slice as soon as
//! none did.
//!
//! A zero-delay timer is not that. Browsers clamp a timer set from inside a
//! timer's callback more than five deep to 4 ms (the HTML standard's timer
//! nesting rule), and slices awaited one after another are such a chain: a
//! Chromium trace of the default page showed a 4-ms gap after each slice of
//! about 30 ms, an eighth of the run worker's time spent idle. A message
//! posted to a channel of the worker's own is a task like the page's
//! messages, with no clamp: messages already waiting are still taken first.

use std::time::Duration;

use gloo::timers::future::sleep;
use js_sys::Promise;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use web_sys::MessageChannel;

/// Waits `delay`, or when it is zero, for the event loop's next task.
pub async fn after(delay: Duration) {
    if delay.is_zero() {
        next_task().await;
    } else {
        sleep(delay).await;
    }
}

/// Resolves in a task of its own, queued behind the tasks already waiting.
/// Where a `MessageChannel` cannot be made, a zero-delay timer does it.
pub async fn next_task() {
    if through_channel().await.is_err() {
        sleep(Duration::ZERO).await;
    }
}

async fn through_channel() -> Result<(), JsValue> {
    let channel = MessageChannel::new()?;
    let (receiver, sender) = (channel.port1(), channel.port2());
    // Setting `onmessage` starts the port.
    let arrived = Promise::new(&mut |resolve, _| receiver.set_onmessage(Some(&resolve)));
    sender.post_message(&JsValue::NULL)?;
    JsFuture::from(arrived).await?;
    receiver.close();
    sender.close();
    Ok(())
}

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use futures::future::{Either, select};
    use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

    use super::*;

    wasm_bindgen_test_configure!(run_in_browser);

    /// Tasks awaited one after another while a 100-ms timer runs: with the
    /// timer clamp a chain of zero-delay timers gets at most about 30 (five
    /// at once, then one every 4 ms: 28 measured), the channel's tasks
    /// hundreds even while a CI run shares the host (577 measured; a 20-ms
    /// window with a bound of 40 failed beside one).
    #[wasm_bindgen_test]
    async fn tasks_awaited_in_a_chain_are_not_clamped_like_timers() {
        let timer = sleep(Duration::from_millis(100));
        futures::pin_mut!(timer);
        let mut tasks = 0u32;
        loop {
            let task = next_task();
            futures::pin_mut!(task);
            match select(task, timer.as_mut()).await {
                Either::Left(((), _)) => tasks += 1,
                Either::Right(_) => break,
            }
        }
        assert!(tasks > 60, "{tasks} tasks in 100 ms");
    }
}
