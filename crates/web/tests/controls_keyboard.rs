//! The animation controls' keyboard shortcuts in a real browser: Space plays,
//! → steps a cycle, Shift+→ and ↓ step an event, keys typed into a field are
//! left alone, a handled key's default (scrolling) is prevented, and the
//! listener goes away with the controls.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use gloo::timers::future::sleep;
use warplab_web::animation::{AnimationControls, AnimationControlsProps, Speed};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{EventTarget, KeyboardEvent, KeyboardEventInit};
use yew::Callback;

wasm_bindgen_test_configure!(run_in_browser);

/// Presses `key` (with Shift or not) on `target`; returns whether the
/// page let the key's default happen.
fn press(target: &EventTarget, key: &str, shift: bool) -> bool {
    let init = KeyboardEventInit::new();
    init.set_key(key);
    init.set_shift_key(shift);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let event = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).expect("a keyboard event");
    target.dispatch_event(&event).expect("the event is dispatched")
}

#[wasm_bindgen_test]
async fn keys_play_and_step_while_the_controls_are_mounted() {
    let pressed = Rc::new(RefCell::new(Vec::<&'static str>::new()));
    let record = |name: &'static str| {
        let pressed = pressed.clone();
        Callback::from(move |()| pressed.borrow_mut().push(name))
    };
    let props = AnimationControlsProps {
        playing: false,
        running: true,
        finished: false,
        speed: Speed::CyclesPerSecond(1000),
        on_play: record("play"),
        on_pause: record("pause"),
        on_step_cycle: record("step-cycle"),
        on_step_event: record("step-event"),
        on_speed: Callback::noop(),
        on_seek: Callback::noop(),
        on_replay: record("replay"),
        replay: false,
    };
    let document = gloo::utils::document();
    let host = document.create_element("div").expect("a div");
    document.body().expect("a body").append_child(&host).expect("attached");
    let app = yew::Renderer::<AnimationControls>::with_root_and_props(host.clone(), props).render();
    sleep(Duration::from_millis(50)).await;
    let controls = host.query_selector("[data-testid=animation-controls]").ok().flatten().expect("the controls");
    let hint = controls.get_attribute("title").unwrap_or_default();
    assert!(hint.contains("Space") && hint.contains("Shift+→"), "{hint}");

    let body: EventTarget = document.body().expect("a body").into();
    assert!(!press(&body, " ", false), "Space does not scroll the page");
    press(&body, "ArrowRight", false);
    press(&body, "ArrowRight", true);
    press(&body, "ArrowDown", false);
    assert!(press(&body, "ArrowLeft", false), "other keys keep their default");
    assert_eq!(*pressed.borrow(), ["play", "step-cycle", "step-event", "step-event"]);

    // Typing in the seek field is typing, not a shortcut.
    let seek: EventTarget =
        host.query_selector("[data-testid=seek-input]").ok().flatten().expect("a field").unchecked_into();
    press(&seek, " ", false);
    press(&seek, "ArrowRight", false);
    assert_eq!(pressed.borrow().len(), 4);

    app.destroy();
    sleep(Duration::from_millis(50)).await;
    press(&body, " ", false);
    assert_eq!(pressed.borrow().len(), 4, "the listener left with the controls");
}
