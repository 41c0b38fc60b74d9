//! Fetching static files from the page or from the worker, and turning the
//! JavaScript errors that can come back into messages.

use js_sys::{Promise, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, Response, Url, Window, WorkerGlobalScope};

/// Fetches `url` as a `Blob`: the body is not read into memory, so a trace of
/// any size can then be streamed with [`crate::blob_reader::BlobReader`].
/// `blob:` URLs of files the page opened work too.
///
/// # Errors
/// A network failure or a response that is not 2xx, as a message naming the URL.
pub async fn fetch_blob(url: &str) -> Result<Blob, String> {
    let response = fetch_ok(url).await?;
    let blob = response.blob().map_err(|e| format!("{url}: {}", js_message(&e)))?;
    let blob = JsFuture::from(blob).await.map_err(|e| format!("{url}: {}", js_message(&e)))?;
    blob.dyn_into().map_err(|e| format!("{url}: {}", js_message(&e)))
}

/// Fetches `url` and returns its body. Pass absolute URLs from the worker: its
/// own location can be a `blob:` URL (test runners wrap workers that way),
/// against which relative URLs do not resolve.
///
/// # Errors
/// A network failure or a response that is not 2xx, as a message naming the URL.
pub async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let response = fetch_ok(url).await?;
    let body = response.array_buffer().map_err(|e| format!("{url}: {}", js_message(&e)))?;
    let buffer = JsFuture::from(body).await.map_err(|e| format!("{url}: {}", js_message(&e)))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// A fetch whose response is 2xx.
async fn fetch_ok(url: &str) -> Result<Response, String> {
    let response = JsFuture::from(start_fetch(url)?).await.map_err(|e| format!("{url}: {}", js_message(&e)))?;
    let response: Response = response.dyn_into().map_err(|e| format!("{url}: {}", js_message(&e)))?;
    if !response.ok() {
        // A blob: URL has no status text; say which file is gone.
        return Err(format!("{url}: HTTP {} {}", response.status(), response.status_text()).trim_end().to_owned());
    }
    Ok(response)
}

/// Resolves `relative` against the page's own URL, so the app works under any
/// sub-path; the worker is then handed absolute URLs only.
///
/// # Errors
/// Outside a page (no window), or a URL that does not parse.
pub fn page_url(relative: &str) -> Result<String, String> {
    let window = web_sys::window().ok_or("resolving a URL needs the page's window")?;
    let base = window.location().href().map_err(|e| js_message(&e))?;
    Url::new_with_base(relative, &base).map(|url| url.href()).map_err(|e| format!("{relative}: {}", js_message(&e)))
}

/// `fetch` lives on the window in the page and on the global scope in a worker.
fn start_fetch(url: &str) -> Result<Promise, String> {
    let global = js_sys::global();
    if let Some(scope) = global.dyn_ref::<WorkerGlobalScope>() {
        Ok(scope.fetch_with_str(url))
    } else if let Some(window) = global.dyn_ref::<Window>() {
        Ok(window.fetch_with_str(url))
    } else {
        Err(format!("{url}: this JavaScript context has no fetch"))
    }
}

/// The one place a JavaScript error becomes a Rust message: an `Error`'s
/// message, a thrown string, or the value's debug form.
pub fn js_message(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}
