//! The kernel panel (issue 41): the CUDA C editor and, beside it, the SASS
//! listing of what compiled, with each line's and each instruction's figures
//! after a run. Shown while the workload is an authored kernel.

use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;

use crate::authored::stall_sampling;
use crate::components::{KernelEditor, SassListing};
use crate::kernel_state::KernelState;

/// Properties of [`KernelPanel`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct KernelPanelProps {
    /// The file's name.
    pub file: AttrValue,
    /// Its text as the page holds it.
    pub source: AttrValue,
    /// The listing, error and figures.
    pub kernel: KernelState,
    /// The worker is compiling.
    #[prop_or_default]
    pub compiling: bool,
    /// The text was edited.
    pub on_change: Callback<String>,
    /// Compile and run was asked for (the button or Ctrl/Cmd-Enter), with
    /// the editor's text at that moment.
    pub on_run: Callback<String>,
}

/// The editor's text as it last reported it, and the page's `source` it
/// started from. Yew renders an edit later (it yields to the browser every
/// 16 ms while a busy page renders), so a Ctrl+Enter or a click right after
/// a keystroke still holds the callbacks, and the source, of the render
/// before it: the text to compile is read from here instead.
#[derive(Default)]
struct EditorText {
    from_page: AttrValue,
    text: String,
}

/// The shared [`EditorText`], started again from the page's `source`
/// whenever that changes (an example or a link opened).
#[hook]
fn use_editor_text(source: &AttrValue) -> Rc<RefCell<EditorText>> {
    let text = use_mut_ref(EditorText::default);
    if text.borrow().from_page != *source {
        *text.borrow_mut() = EditorText { from_page: source.clone(), text: source.to_string() };
    }
    text
}

/// The editor and the listing, side by side on a wide screen.
#[component]
pub fn KernelPanel(props: &KernelPanelProps) -> Html {
    let hovered = use_state(|| None::<u32>);
    let on_hover = {
        let hovered = hovered.clone();
        Callback::from(move |line: Option<u32>| hovered.set(line))
    };
    let text = use_editor_text(&props.source);
    let on_change = {
        let (text, on_change) = (Rc::clone(&text), props.on_change.clone());
        Callback::from(move |edited: String| {
            text.borrow_mut().text.clone_from(&edited);
            on_change.emit(edited);
        })
    };
    let on_run = {
        let (text, on_run) = (Rc::clone(&text), props.on_run.clone());
        Callback::from(move |()| on_run.emit(text.borrow().text.clone()))
    };
    let kernel = &props.kernel;
    html! {
        <section class="panel kernel-panel" id="kernel-panel" data-testid="kernel-panel">
            <h2 title="A CUDA C kernel and its host code, compiled to SASS and run in the worker">
                { "Kernel: " }<span data-testid="kernel-file">{ props.file.clone() }</span>
            </h2>
            <div class="controls">
                <button class="button primary" data-testid="compile-run" disabled={props.compiling}
                    onclick={on_run.reform(|_: MouseEvent| ())}
                    title="Compile the file for the GPU, run it functionally, then simulate it (Ctrl+Enter or ⌘+Enter in the editor)">
                    { if props.compiling { "Compiling…" } else { "Compile and run" } }
                </button>
                <span class="hint">{ "Ctrl+Enter (⌘+Enter) in the editor compiles and runs; Tab indents, Esc then Tab leaves it." }</span>
            </div>
            if let Some(error) = &kernel.error {
                <p class="error kernel-error" role="alert" data-testid="kernel-error">{ &error.headline }</p>
            }
            <div class="kernel-columns">
                <div class="kernel-source">
                    <KernelEditor source={props.source.clone()} error={kernel.error.clone()}
                        figures={kernel.figures.clone().filter(|_| !kernel.edited)} linked={*hovered}
                        {on_change} {on_run} on_hover={on_hover.clone()} />
                    { legend(kernel) }
                </div>
                <div class="kernel-listing">
                    if let Some(authored) = &kernel.authored {
                        if kernel.edited {
                            <p class="note" data-testid="listing-stale">
                                { "The listing is of the source as last compiled: compile again to see the edit's." }
                            </p>
                        }
                        <SassListing authored={authored.clone()} figures={kernel.figures.clone()} hovered={*hovered}
                            {on_hover} />
                    } else {
                        <p class="note">{ "The SASS listing shows here once the file compiles." }</p>
                    }
                </div>
            </div>
        </section>
    }
}

/// What the gutter's two numbers are.
fn legend(kernel: &KernelState) -> Html {
    if kernel.figures.is_none() || kernel.edited {
        return Html::default();
    }
    html! {
        <p class="hint" data-testid="figures-legend">
            { format!("Beside each line: warp instructions issued, then warp-cycles warps waited there (memory, \
               dependence, barrier and structural stalls; hover a figure for each). {}", stall_sampling()) }
        </p>
    }
}
