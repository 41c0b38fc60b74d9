//! The GPU animation: a canvas with every SM's warp slots coloured by state,
//! grouped by CTA, each scheduler's issue rate, the L1 MSHRs and miss queue,
//! and the memory side's queues (request crossbar, L2 slices, DRAM channels,
//! reply crossbar), with a tooltip explaining whatever the pointer is over;
//! and the controls that play, step and seek a run.
//!
//! Central design decision: where things sit is a pure function
//! ([`Layout::new`]) of the canvas width and the GPU's shape, so drawing and
//! hit-testing share it and it is tested natively; the numbers a bar shows
//! and the tooltip states come from one place ([`measure`]), and the words
//! from one table ([`Term`]).

mod controls;
mod draw;
mod explain;
mod glyph;
mod layout;
mod legend;
pub mod measure;
mod timeline;
mod view;
mod width;

pub use crate::palette::warp_colour;
pub use controls::{AnimationControls, AnimationControlsProps, Speed};
pub use draw::{Frame, context_2d, draw};
pub use explain::{Term, describe};
pub use glyph::Glyph;
pub use layout::{CtaMark, Hit, Layout, LayoutInput, Rect, Strip, Tile};
#[cfg(test)]
pub(crate) use legend::legend_concepts;
pub use view::{Animation, AnimationProps};
