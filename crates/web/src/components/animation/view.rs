//! The animation component: a header line (cycle, warp instructions, IPC so
//! far), the canvas with its hover tooltip, the colour legend and the IPC
//! timeline.
//!
//! The canvas is redrawn on the next animation frame after a new snapshot (or
//! a new width, or a new selection) arrives, never on other renders: hovering
//! re-renders the tooltip only. A newer snapshot that arrives before the frame
//! replaces the older one, so a burst of snapshots costs one draw.

use std::rc::Rc;

use gloo::render::{AnimationFrame, request_animation_frame};
use warplab_lab::{Snapshot, WarpState};
use web_sys::{Element, HtmlCanvasElement};
use yew::prelude::*;

use super::draw::{Frame, context_2d, draw};
use super::explain::{describe, grouped};
use super::layout::{Hit, Layout, LayoutInput};
use super::legend::Legend;
use super::timeline::IpcTimeline;
use super::width::use_element_width;
use crate::fetch::js_message;

/// Properties of [`Animation`].
#[derive(Debug, Clone, Properties)]
pub struct AnimationProps {
    /// The GPU at the cycle to show; `None` before a run.
    #[prop_or_default]
    pub snapshot: Option<Rc<Snapshot>>,
    /// The snapshot shown before it: issue bars show the rate between the two.
    #[prop_or_default]
    pub previous: Option<Rc<Snapshot>>,
    /// `(cycle, IPC so far)` points of the run, in cycle order.
    #[prop_or_default]
    pub timeline: Rc<Vec<(u64, f64)>>,
    /// The SM to outline.
    #[prop_or_default]
    pub selected_sm: Option<u32>,
    /// An SM was clicked.
    #[prop_or_default]
    pub on_select_sm: Callback<u32>,
    /// The cycle a finished run ended at, when the snapshot is an earlier
    /// frame of it (its last frame is an empty GPU).
    #[prop_or_default]
    pub ended_at: Option<u64>,
}

/// Widest the tooltip gets, in CSS pixels (`.animation-tooltip`'s
/// `max-width`); it is kept this far from the right edge so it never spills
/// off a phone's screen.
const TOOLTIP_WIDTH: f64 = 280.0;
/// The tooltip's offset from the pointer, clear of the cursor.
const TOOLTIP_OFFSET: f64 = 14.0;

impl PartialEq for AnimationProps {
    /// Snapshots compare by address: each one the worker sends is a new
    /// allocation, and comparing 5,000 warps on every render would be waste.
    fn eq(&self, other: &Self) -> bool {
        same(&self.snapshot, &other.snapshot)
            && same(&self.previous, &other.previous)
            && Rc::ptr_eq(&self.timeline, &other.timeline)
            && self.selected_sm == other.selected_sm
            && self.on_select_sm == other.on_select_sm
            && self.ended_at == other.ended_at
    }
}

/// The animated GPU.
#[component]
pub fn Animation(props: &AnimationProps) -> Html {
    let stage = use_node_ref();
    let canvas = use_node_ref();
    let width = use_element_width(stage.clone());
    let input = props.snapshot.as_deref().map(|snapshot| LayoutInput::of(snapshot, width));
    let layout = use_memo(input, |input| input.as_ref().filter(|input| input.width > 0.0).map(Layout::new));
    let hover = use_state_eq(|| None::<Pointer>);
    let device_pixel_ratio = web_sys::window().map_or(1.0, |window| window.device_pixel_ratio());
    use_redraw(
        canvas.clone(),
        Redraw {
            layout: layout.clone(),
            snapshot: props.snapshot.clone(),
            previous: props.previous.clone(),
            selected_sm: props.selected_sm,
            device_pixel_ratio,
        },
    );

    let handlers = PointerHandlers::new(&canvas, &layout, &hover, &props.on_select_sm);
    let tooltip = (*hover).zip(props.snapshot.as_deref()).map(|(pointer, snapshot)| {
        (describe(pointer.hit, snapshot, props.previous.as_deref()), tooltip_origin(&pointer, width))
    });
    let (tooltip_text, (left, top)) = tooltip.unwrap_or_default();
    // The canvas and the tooltip are always rendered, with a fixed shape: Yew
    // diffs unkeyed children from the end, so a child that comes and goes
    // would make it replace the canvas, and a new canvas is a blank one.
    let (css_width, css_height) = (*layout).as_ref().map_or((0.0, 0.0), |layout| (layout.width, layout.height));
    let label = format!(
        "{} SMs with their warp states, and the memory queues; point at a part for what it is",
        props.snapshot.as_ref().map_or(0, |snapshot| snapshot.sms.len())
    );
    let resident = props.snapshot.as_deref().map_or(0, resident_warps);
    html! {
        <section class="animation" data-testid="animation" data-resident-warps={resident.to_string()}>
            { header(props.snapshot.as_deref()) }
            { ended_note(props.snapshot.as_deref(), props.ended_at) }
            <div class="animation-stage" ref={stage}>
                <canvas ref={canvas} class="animation-canvas" data-testid="animation-canvas" role="img" aria-label={label}
                    width={(css_width * device_pixel_ratio).round().to_string()} height={(css_height * device_pixel_ratio).round().to_string()}
                    style={format!("width: {css_width}px")}
                    onmousemove={handlers.on_move} onpointerdown={handlers.on_press} onmouseleave={handlers.on_leave}
                    onclick={handlers.on_click} />
                <div class="animation-tooltip" role="tooltip" data-testid="animation-tooltip" hidden={tooltip_text.is_empty()}
                    style={format!("left: {left}px; top: {top}px")}>
                    { tooltip_text }
                </div>
            </div>
            <Legend />
            <IpcTimeline points={props.timeline.clone()} {width} />
        </section>
    }
}

/// Where the pointer is over the canvas, in CSS pixels from its top left
/// corner, and what it is over.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Pointer {
    hit: Hit,
    x: f64,
    y: f64,
}

/// The canvas's pointer handlers: hovering sets the tooltip's pointer, and so
/// does pressing (a touch screen has no hover: a tap explains what it hit),
/// leaving clears it, clicking an SM's tile selects the SM.
struct PointerHandlers {
    on_move: Callback<MouseEvent>,
    on_press: Callback<PointerEvent>,
    on_leave: Callback<MouseEvent>,
    on_click: Callback<MouseEvent>,
}

impl PointerHandlers {
    fn new(
        canvas: &NodeRef,
        layout: &Rc<Option<Layout>>,
        hover: &UseStateHandle<Option<Pointer>>,
        on_select_sm: &Callback<u32>,
    ) -> Self {
        let on_move = {
            let (hover, canvas, layout) = (hover.clone(), canvas.clone(), layout.clone());
            Callback::from(move |event: MouseEvent| hover.set(pointer_at(&canvas, &layout, &event)))
        };
        let on_press = {
            let (hover, canvas, layout) = (hover.clone(), canvas.clone(), layout.clone());
            Callback::from(move |event: PointerEvent| hover.set(pointer_at(&canvas, &layout, &event)))
        };
        let on_leave = {
            let hover = hover.clone();
            Callback::from(move |_: MouseEvent| hover.set(None))
        };
        let on_click = {
            let (canvas, layout, on_select_sm) = (canvas.clone(), layout.clone(), on_select_sm.clone());
            Callback::from(move |event: MouseEvent| {
                let sm = pointer_at(&canvas, &layout, &event).and_then(|pointer| pointer.hit.sm());
                if let Some(sm) = sm.and_then(|sm| u32::try_from(sm).ok()) {
                    on_select_sm.emit(sm);
                }
            })
        };
        PointerHandlers { on_move, on_press, on_leave, on_click }
    }
}

/// What a frame needs; a change of any of it schedules a redraw.
#[derive(Debug, Clone)]
struct Redraw {
    layout: Rc<Option<Layout>>,
    snapshot: Option<Rc<Snapshot>>,
    previous: Option<Rc<Snapshot>>,
    selected_sm: Option<u32>,
    device_pixel_ratio: f64,
}

impl PartialEq for Redraw {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.layout, &other.layout)
            && same(&self.snapshot, &other.snapshot)
            && same(&self.previous, &other.previous)
            && self.selected_sm == other.selected_sm
            && self.device_pixel_ratio == other.device_pixel_ratio
    }
}

/// Whether two optional shared values are the same allocation (or both absent).
fn same<T>(a: &Option<Rc<T>>, b: &Option<Rc<T>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Rc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// Draws `redraw` on the next animation frame whenever it changes.
#[hook]
fn use_redraw(canvas: NodeRef, redraw: Redraw) {
    // The pending frame's handle: replacing it cancels a frame not drawn yet,
    // and dropping it on unmount cancels the last one.
    let pending = use_mut_ref(|| None::<AnimationFrame>);
    use_effect_with(redraw, move |redraw| {
        let redraw = redraw.clone();
        let frame = request_animation_frame(move |_| {
            if let Err(message) = paint(&canvas, &redraw) {
                gloo::console::warn!(format!("animation: {message}"));
            }
        });
        *pending.borrow_mut() = Some(frame);
    });
}

fn paint(canvas: &NodeRef, redraw: &Redraw) -> Result<(), String> {
    let (Some(layout), Some(snapshot)) = ((*redraw.layout).as_ref(), redraw.snapshot.as_deref()) else {
        return Ok(());
    };
    let canvas = canvas.cast::<HtmlCanvasElement>().ok_or("the canvas is not mounted")?;
    let context = context_2d(&canvas)?;
    let scale = redraw.device_pixel_ratio;
    // Layout coordinates are CSS pixels; the canvas has one pixel per device pixel.
    context.set_transform(scale, 0.0, 0.0, scale, 0.0, 0.0).map_err(|e| js_message(&e))?;
    let selected_sm = redraw.selected_sm.and_then(|sm| usize::try_from(sm).ok());
    let frame = Frame { snapshot, previous: redraw.previous.as_deref(), selected_sm };
    draw(&context, layout, &frame).map_err(|e| js_message(&e))
}

/// The pointer's place on the canvas and what lies there.
fn pointer_at(canvas: &NodeRef, layout: &Option<Layout>, event: &MouseEvent) -> Option<Pointer> {
    let layout = layout.as_ref()?;
    let bounds = canvas.cast::<Element>()?.get_bounding_client_rect();
    let x = f64::from(event.client_x()) - bounds.left();
    let y = f64::from(event.client_y()) - bounds.top();
    // CSS may have shrunk the canvas below its layout width for a moment
    // (it keeps its aspect ratio), so hit-test in layout coordinates.
    let scale = if bounds.width() > 0.0 { layout.width / bounds.width() } else { 1.0 };
    layout.hit(x * scale, y * scale).map(|hit| Pointer { hit, x, y })
}

/// The tooltip's top left corner: below and right of the pointer, kept
/// within the stage's width.
fn tooltip_origin(pointer: &Pointer, stage_width: f64) -> (f64, f64) {
    let left = (pointer.x + TOOLTIP_OFFSET).min(stage_width - TOOLTIP_WIDTH).max(0.0);
    (left.round(), (pointer.y + TOOLTIP_OFFSET).round())
}

fn header(snapshot: Option<&Snapshot>) -> Html {
    let Some(snapshot) = snapshot else {
        return html! { <p class="hint animation-header">{ "No run yet: start a simulation and the GPU appears here, cycle by cycle." }</p> };
    };
    let mshrs_in_use = snapshot.sms.iter().map(|sm| u64::from(sm.mshrs_in_use)).sum();
    let mshrs = snapshot.sms.iter().map(|sm| u64::from(sm.mshrs)).sum();
    html! {
        <p class="animation-header" data-testid="animation-header">
            { "Cycle " }<strong data-testid="animation-cycle">{ grouped(snapshot.cycle) }</strong>
            { " · " }<strong data-testid="animation-warp-insts">{ grouped(snapshot.warp_insts) }</strong>{ " warp instructions · IPC so far " }
            // Before its first cycle a run has no IPC yet, not an IPC of 0.
            <strong data-testid="animation-ipc">
                { if snapshot.cycle == 0 { "–".to_owned() } else { format!("{:.2}", snapshot.ipc()) } }
            </strong>
            <span title={crate::glossary::MSHR}>
                { " · L1 MSHRs in use " }<strong data-testid="animation-mshrs">{ grouped(mshrs_in_use) }</strong>
                { format!(" of {}", grouped(mshrs)) }
            </span>
        </p>
    }
}

/// Warps resident on every SM (any state but an empty slot).
fn resident_warps(snapshot: &Snapshot) -> usize {
    snapshot.sms.iter().flat_map(|sm| &sm.warps).filter(|warp| warp.state != WarpState::Empty).count()
}

/// Under a finished run's header: which frame is shown, since the header's
/// cycle is not where the run ended.
fn ended_note(snapshot: Option<&Snapshot>, ended_at: Option<u64>) -> Html {
    let Some((shown, ended)) = snapshot.map(|s| s.cycle).zip(ended_at).filter(|(shown, ended)| shown < ended) else {
        return html! {};
    };
    html! {
        <p class="hint" data-testid="animation-ended-note">
            { format!(
                "The run ended at cycle {}, every SM empty; shown is cycle {}, when half its work was done. \
                 Replay plays it again from the start.",
                grouped(ended),
                grouped(shown)
            ) }
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tooltip_stays_on_the_stage() {
        let at = |x, y| Pointer { hit: Hit::Sm(0), x, y };
        assert_eq!(tooltip_origin(&at(10.0, 20.0), 1100.0), (24.0, 34.0));
        assert_eq!(tooltip_origin(&at(1000.0, 20.0), 1100.0), (820.0, 34.0), "pulled in from the right edge");
        assert_eq!(tooltip_origin(&at(300.0, 5.0), 200.0), (0.0, 19.0), "a stage narrower than the tooltip");
    }
}
