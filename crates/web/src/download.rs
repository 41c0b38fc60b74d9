//! Saving what the page made (a config, a chart, a table) as a file: a
//! `blob:` URL clicked through an `<a download>`, released once the browser
//! has started the download. Failures are warned about in the console and
//! otherwise ignored: a download that does not start costs the user nothing.

use std::time::Duration;

use gloo::timers::callback::Timeout;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

use crate::fetch::js_message;

/// How long a download's `blob:` URL outlives the click that started it.
const REVOKE_AFTER: Duration = Duration::from_secs(10);

/// Saves `text` as a file called `name` of type `mime` (e.g. `text/csv`).
pub fn download_text(name: &str, mime: &str, text: &str) {
    warn_on_error(name, text_blob(mime, text).and_then(|blob| save(name, &blob)));
}

/// Saves `blob` as a file called `name`.
pub fn download_blob(name: &str, blob: &Blob) {
    warn_on_error(name, save(name, blob));
}

/// A blob holding `text`, of type `mime`.
pub fn text_blob(mime: &str, text: &str) -> Result<Blob, JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    Blob::new_with_str_sequence_and_options(&parts, &options)
}

/// The one place a failed download is reported: a console warning.
pub fn warn_on_error(name: &str, result: Result<(), JsValue>) {
    if let Err(error) = result {
        gloo::console::warn!(format!("downloading {name}: {}", js_message(&error)));
    }
}

fn save(name: &str, blob: &Blob) -> Result<(), JsValue> {
    let url = Url::create_object_url_with_blob(blob)?;
    let anchor: HtmlAnchorElement = gloo::utils::document().create_element("a")?.dyn_into()?;
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.click();
    Timeout::new(REVOKE_AFTER.as_millis() as u32, move || {
        // Nothing to do if the URL is already gone.
        let _ = Url::revoke_object_url(&url);
    })
    .forget();
    Ok(())
}
