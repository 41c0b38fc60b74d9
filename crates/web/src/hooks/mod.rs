//! Custom hooks of the page.

mod use_lab_worker;

pub use use_lab_worker::use_lab_worker;
