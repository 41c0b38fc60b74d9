//! The page's entry point: mounts [`warplab_web::App`] on the document body.

use warplab_web::{App, AppProps};

fn main() {
    console_error_panic_hook::set_once();
    // The worker and the samples sit next to index.html; the relative base keeps
    // the app working under any sub-path.
    yew::Renderer::<App>::with_props(AppProps { asset_base: "./".into() }).render();
}
