//! The worker's entry point: registers the lab reactor, which then answers the
//! page's messages.

use gloo_worker::Registrable;
use warplab_web::agent::LabReactor;

fn main() {
    console_error_panic_hook::set_once();
    LabReactor::registrar().register();
}
