//! The CUDA C source editor: CodeMirror (see `editor_js.rs`) with the
//! compile error marked, each line's figures in a gutter and the lines of a
//! hovered instruction highlighted; a plain text area where the editor
//! bundle cannot load.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use crate::authored::{KernelError, LineFigures};
use crate::editor_js::{self, EditorCallbacks, EditorHandle};

/// Properties of [`KernelEditor`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct KernelEditorProps {
    /// The source the page holds.
    pub source: AttrValue,
    /// The error to mark.
    #[prop_or_default]
    pub error: Option<Rc<KernelError>>,
    /// Each line's figures.
    #[prop_or_default]
    pub figures: Option<Rc<LineFigures>>,
    /// The lines to highlight (those of the hovered instruction).
    #[prop_or_default]
    pub linked: Option<u32>,
    /// The text was edited.
    pub on_change: Callback<String>,
    /// Ctrl/Cmd-Enter was pressed.
    pub on_run: Callback<()>,
    /// The pointer is over this line (`None`: over none).
    pub on_hover: Callback<Option<u32>>,
}

/// The page's callbacks as of the last render: the editor's JS closures,
/// made once, call whatever the props hold now.
#[derive(Default)]
struct Latest {
    change: Callback<String>,
    run: Callback<()>,
    hover: Callback<Option<u32>>,
}

/// The source editor.
#[component]
pub fn KernelEditor(props: &KernelEditorProps) -> Html {
    let host = use_node_ref();
    let editor = use_mut_ref(|| None::<EditorHandle>);
    let latest = use_mut_ref(Latest::default);
    *latest.borrow_mut() =
        Latest { change: props.on_change.clone(), run: props.on_run.clone(), hover: props.on_hover.clone() };
    // Set once the editor has loaded (marks are applied again then), or to
    // why it could not (the text area shows instead).
    let loaded = use_state(|| None::<Result<(), String>>);
    use_open_editor(&host, &editor, &latest, &loaded, &props.source);
    let ready = matches!(*loaded, Some(Ok(())));
    let source = props.source.clone();
    use_effect_with((source.clone(), ready), applied(&editor, move |h| h.set_text(&source)));
    let error = props.error.clone();
    use_effect_with((error.clone(), ready), applied(&editor, move |h| h.set_error(error.as_deref())));
    let figures = props.figures.clone();
    use_effect_with((figures.clone(), ready), applied(&editor, move |h| h.set_figures(figures.as_deref())));
    let linked: Vec<u32> = props.linked.into_iter().collect();
    use_effect_with((linked.clone(), ready), applied(&editor, move |h| h.set_linked(&linked)));
    html! {
        <div class="kernel-editor">
            <div class="kernel-editor-host" ref={host} hidden={matches!(*loaded, Some(Err(_)))} />
            if let Some(Err(why)) = &*loaded {
                { fallback(props, why) }
            }
        </div>
    }
}

/// An effect that applies `apply` to the editor, once it has loaded.
fn applied<D, F: Fn(&EditorHandle) + 'static>(
    editor: &Rc<RefCell<Option<EditorHandle>>>,
    apply: F,
) -> impl FnOnce(&D) + use<D, F> {
    let editor = Rc::clone(editor);
    move |_| {
        if let Some(handle) = editor.borrow().as_ref() {
            apply(handle);
        }
    }
}

/// Loads the editor into `host` once, and destroys it on unmount.
#[hook]
fn use_open_editor(
    host: &NodeRef,
    editor: &Rc<RefCell<Option<EditorHandle>>>,
    latest: &Rc<RefCell<Latest>>,
    loaded: &UseStateHandle<Option<Result<(), String>>>,
    source: &AttrValue,
) {
    let (host, editor, latest, loaded, source) =
        (host.clone(), editor.clone(), latest.clone(), loaded.clone(), source.clone());
    use_effect_with((), move |()| {
        let mounted = Rc::new(Cell::new(true));
        let still_mounted = Rc::clone(&mounted);
        let kept = Rc::clone(&editor);
        wasm_bindgen_futures::spawn_local(async move {
            let Some(parent) = host.cast::<web_sys::Element>() else { return };
            let opened = editor_js::open(&parent, &source, callbacks(&latest)).await;
            // An editor that loaded after the panel went away is dropped,
            // which destroys it.
            if !still_mounted.get() {
                return;
            }
            match opened {
                Ok(handle) => {
                    *kept.borrow_mut() = Some(handle);
                    loaded.set(Some(Ok(())));
                }
                Err(why) => {
                    gloo::console::warn!(format!("the kernel editor did not load: {why}"));
                    loaded.set(Some(Err(why)));
                }
            }
        });
        move || {
            mounted.set(false);
            editor.borrow_mut().take();
        }
    });
}

/// The editor's callbacks, each calling the page's latest.
fn callbacks(latest: &Rc<RefCell<Latest>>) -> EditorCallbacks {
    let (change, run, hover) = (Rc::clone(latest), Rc::clone(latest), Rc::clone(latest));
    EditorCallbacks {
        change: Box::new(move |text| change.borrow().change.emit(text)),
        run: Box::new(move || run.borrow().run.emit(())),
        hover: Box::new(move |line| hover.borrow().hover.emit(line)),
    }
}

/// A plain text area, where the editor bundle did not load: the source can
/// still be edited, compiled (Ctrl/Cmd-Enter) and shared.
fn fallback(props: &KernelEditorProps, why: &str) -> Html {
    let on_change = props.on_change.clone();
    let oninput = Callback::from(move |event: InputEvent| {
        on_change.emit(event.target_unchecked_into::<HtmlTextAreaElement>().value());
    });
    let on_run = props.on_run.clone();
    let onkeydown = Callback::from(move |event: KeyboardEvent| {
        if event.key() == "Enter" && (event.ctrl_key() || event.meta_key()) {
            event.prevent_default();
            on_run.emit(());
        }
    });
    html! {
        <>
            <p class="note">{ format!("The editor did not load ({why}); a plain text area stands in.") }</p>
            <textarea class="kernel-fallback" data-testid="kernel-source-fallback" spellcheck="false"
                aria-label="CUDA C source" value={props.source.clone()} {oninput} {onkeydown} />
        </>
    }
}
