//! The bridge to the CodeMirror editor (`crates/web/editor/src/editor.js`,
//! bundled into `dist/editor.js` by `cargo xtask dist`).
//!
//! The bundle is loaded lazily through `window.warplabEditor` (index.html's
//! `() => import("./editor.js")`), looked up at run time rather than
//! imported by wasm-bindgen: a page without a kernel never downloads it, and
//! where it is missing (the component tests, a failed download) the
//! editor says so and the kernel panel falls back to a plain text area.
//! Every call goes through [`EditorHandle::call`], which logs a JS error and
//! goes on.

use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::authored::{Figures, KernelError, LineFigures, compact, stall_sampling};
use crate::fetch::js_message;

/// What the editor tells the page.
pub struct EditorCallbacks {
    /// The text after an edit.
    pub change: Box<dyn Fn(String)>,
    /// Ctrl/Cmd-Enter: compile and run.
    pub run: Box<dyn Fn()>,
    /// The line under the pointer (`None` when it leaves).
    pub hover: Box<dyn Fn(Option<u32>)>,
}

/// A live editor; destroyed when dropped.
pub struct EditorHandle {
    handle: JsValue,
    // Kept alive while the editor can call them.
    _change: Closure<dyn Fn(String)>,
    _run: Closure<dyn Fn()>,
    _hover: Closure<dyn Fn(u32)>,
}

/// Loads the bundle (once; the browser caches the module) and makes an
/// editor in `parent` holding `text`.
///
/// # Errors
/// The bundle is missing or failed to load, or `create` threw.
pub async fn open(parent: &web_sys::Element, text: &str, callbacks: EditorCallbacks) -> Result<EditorHandle, String> {
    let window = web_sys::window().ok_or("no window")?;
    let loader = Reflect::get(&window, &"warplabEditor".into()).map_err(|e| js_message(&e))?;
    let loader = loader.dyn_into::<Function>().map_err(|_| "the page has no editor loader (window.warplabEditor)")?;
    let promise = loader.call0(&JsValue::NULL).map_err(|e| js_message(&e))?;
    let promise = promise.dyn_into::<Promise>().map_err(|_| "the editor loader did not return a promise")?;
    let module = JsFuture::from(promise).await.map_err(|e| js_message(&e))?;
    let create = Reflect::get(&module, &"create".into()).map_err(|e| js_message(&e))?;
    let create = create.dyn_into::<Function>().map_err(|_| "the editor bundle has no create()")?;
    let EditorCallbacks { change, run, hover } = callbacks;
    let change = Closure::<dyn Fn(String)>::new(change);
    let run = Closure::<dyn Fn()>::new(run);
    let hover = Closure::<dyn Fn(u32)>::new(move |line: u32| hover((line > 0).then_some(line)));
    let functions = object(&[
        ("change", change.as_ref().clone()),
        ("run", run.as_ref().clone()),
        ("hover", hover.as_ref().clone()),
    ]);
    let handle = create.call3(&JsValue::NULL, parent, &text.into(), &functions).map_err(|e| js_message(&e))?;
    Ok(EditorHandle { handle, _change: change, _run: run, _hover: hover })
}

impl EditorHandle {
    /// Replaces the text (unless it is the same) without reporting an edit.
    pub fn set_text(&self, text: &str) {
        self.call("setText", &[text.into()]);
    }

    /// Marks `error`, or clears the mark.
    pub fn set_error(&self, error: Option<&KernelError>) {
        let args = match error {
            Some(e) => [e.line.into(), e.from.into(), e.to.into(), e.headline.as_str().into()],
            None => [0.into(), 0.into(), 0.into(), "".into()],
        };
        self.call("setError", &args);
    }

    /// Shows each line's figures, or none.
    pub fn set_figures(&self, figures: Option<&LineFigures>) {
        let lines = Array::new();
        for (&line, counted) in figures.map(|f| &f.by_line).into_iter().flatten() {
            lines.push(&figure_object(line, counted));
        }
        self.call("setFigures", &[lines.into()]);
    }

    /// Highlights `lines`.
    pub fn set_linked(&self, lines: &[u32]) {
        let array: Array = lines.iter().map(|&line| JsValue::from(line)).collect();
        self.call("setLinked", &[array.into()]);
    }

    /// Calls the handle's `method` with `args`; a JS error is logged and
    /// the page goes on (a mark not drawn is no reason to stop).
    fn call(&self, method: &str, args: &[JsValue]) {
        let result = Reflect::get(&self.handle, &method.into())
            .and_then(|f| f.dyn_into::<Function>())
            .and_then(|f| f.apply(&self.handle, &args.iter().collect::<Array>()));
        if let Err(error) = result {
            gloo::console::warn!(format!("the kernel editor's {method}: {}", js_message(&error)));
        }
    }
}

impl Drop for EditorHandle {
    fn drop(&mut self) {
        self.call("destroy", &[]);
    }
}

/// A line's figures as the editor's gutter shows them: issued and stalled
/// counts, with every reason in the hover text.
fn figure_object(line: u32, counted: &Figures) -> JsValue {
    let text = format!("{} {}", compact(counted.issued), compact(counted.stalled()));
    let title = format!(
        "Line {line}: {} warp instructions issued; warps waited here {} warp-cycles: memory {}, dependence {}, \
         barrier {}, structural {}; shared-memory bank conflicts held the LD/ST unit {} cycles. {}",
        counted.issued,
        counted.stalled(),
        counted.memory,
        counted.dependence,
        counted.barrier,
        counted.structural,
        counted.bank_conflicts,
        stall_sampling()
    );
    object(&[
        ("line", line.into()),
        ("text", text.into()),
        ("title", title.into()),
        ("issued", (counted.issued as f64).into()),
        ("stalled", (counted.stalled() as f64).into()),
        ("memory", (counted.memory as f64).into()),
        ("bank_conflicts", (counted.bank_conflicts as f64).into()),
    ])
    .into()
}

/// A plain object with these fields.
fn object(fields: &[(&str, JsValue)]) -> Object {
    let object = Object::new();
    for (name, value) in fields {
        // Setting a field of a fresh plain object cannot fail.
        let _ = Reflect::set(&object, &(*name).into(), value);
    }
    object
}
