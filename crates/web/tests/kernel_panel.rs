//! The kernel panel compiles the text the editor holds when Ctrl+Enter or
//! the button is pressed, even when the page has not rendered the edit yet:
//! Yew yields to the browser every 16 ms while a busy page renders, so a
//! key pressed right after a keystroke can come before the render that
//! would hand the panel the edited source.

#[allow(dead_code, reason = "the panel draws no figures for `common::values` to read")]
mod common;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use gloo::timers::future::sleep;

use warplab_web::{KernelPanel, KernelState};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, HtmlElement, HtmlTextAreaElement, InputEvent, KeyboardEvent, KeyboardEventInit};
use yew::prelude::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The panel with the page's source held in a state the test can set, as
/// the page sets it when an example or a link opens. Edits are not fed
/// back into it: the page's render of an edit is what may come late.
#[derive(Properties, PartialEq)]
struct HostProps {
    compiled: Rc<RefCell<Vec<String>>>,
    set_source: Rc<RefCell<Option<UseStateHandle<AttrValue>>>>,
}

#[component]
fn Host(props: &HostProps) -> Html {
    let source = use_state(|| AttrValue::from("int a;"));
    *props.set_source.borrow_mut() = Some(source.clone());
    let compiled = Rc::clone(&props.compiled);
    let on_run = Callback::from(move |text: String| compiled.borrow_mut().push(text));
    html! {
        <KernelPanel file="k.cu" source={(*source).clone()} kernel={KernelState::default()} on_change={Callback::noop()}
            {on_run} />
    }
}

/// The one element under `host` that matches `selector`.
fn only(host: &Element, selector: &str) -> Element {
    let mut found = common::all(host, selector);
    assert_eq!(found.len(), 1, "{selector}");
    found.remove(0)
}

/// Types `text` into the text area, as an edit does.
fn type_into(area: &HtmlTextAreaElement, text: &str) {
    area.set_value(text);
    let event = InputEvent::new("input").expect("an input event");
    area.dispatch_event(&event).expect("dispatched");
}

/// Presses Ctrl+Enter on `target`.
fn ctrl_enter(target: &Element) {
    let init = KeyboardEventInit::new();
    init.set_key("Enter");
    init.set_ctrl_key(true);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let event = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).expect("a keyboard event");
    target.dispatch_event(&event).expect("dispatched");
}

#[wasm_bindgen_test]
async fn compile_takes_the_text_typed_just_before_with_no_render_between() {
    let compiled = Rc::new(RefCell::new(Vec::new()));
    let set_source = Rc::new(RefCell::new(None));
    let props = HostProps { compiled: Rc::clone(&compiled), set_source: Rc::clone(&set_source) };
    // The component tests have no editor bundle: the plain text area stands in.
    let host = common::mount::<Host>(props, "[data-testid=kernel-source-fallback]").await;
    assert_eq!(common::text(&host, "[data-testid=kernel-file]").as_deref(), Some("k.cu"));
    let area: HtmlTextAreaElement = only(&host, "[data-testid=kernel-source-fallback]").unchecked_into();
    let button: HtmlElement = only(&host, "[data-testid=compile-run]").unchecked_into();

    // Each edit is followed at once, in the same task, by a run: Yew cannot render in between.
    type_into(&area, "int b;");
    ctrl_enter(&area);
    type_into(&area, "int c;");
    button.click();
    assert_eq!(*compiled.borrow(), ["int b;", "int c;"]);

    // The page opens another source: that is what runs until the next edit.
    set_source.borrow().as_ref().expect("rendered").set(AttrValue::from("int d;"));
    sleep(Duration::from_millis(50)).await;
    button.click();
    type_into(&area, "int e;");
    ctrl_enter(&area);
    assert_eq!(*compiled.borrow(), ["int b;", "int c;", "int d;", "int e;"]);
}
