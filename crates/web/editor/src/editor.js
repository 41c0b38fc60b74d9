// warplab's kernel editor: CodeMirror 6 set up for the CUDA C subset, with
// the marks the page puts on it (the compile error, each line's figures,
// the lines a hovered SASS instruction comes from). esbuild bundles this
// file and its packages into dist/editor.js; the page imports it lazily
// (index.html's `warplabEditor`) the first time the editor shows, so pages
// without a kernel never download it.
//
// The Rust side (crates/web/src/editor_js.rs) calls `create` and then only
// the methods of the handle it returns; everything CodeMirror stays here.

import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { cpp } from "@codemirror/lang-cpp";
import { bracketMatching, defaultHighlightStyle, indentOnInput, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { EditorState, Prec, RangeSet, StateEffect, StateField } from "@codemirror/state";
import {
  Decoration,
  EditorView,
  GutterMarker,
  gutter,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";

// The figures of each line, as the page sends them: line number -> {text, title, issued, stalled}.
const setFigures = StateEffect.define();
// The lines to highlight (those of a hovered instruction), and the error's line.
const setLinked = StateEffect.define();
const setErrorLine = StateEffect.define();

const figuresField = StateField.define({
  create: () => new Map(),
  update: (value, tr) => {
    for (const effect of tr.effects) if (effect.is(setFigures)) value = effect.value;
    return value;
  },
});

class FigureMarker extends GutterMarker {
  constructor(line, figure) {
    super();
    this.line = line;
    this.figure = figure;
  }
  eq(other) {
    return other.line === this.line && other.figure === this.figure;
  }
  toDOM() {
    const span = document.createElement("span");
    span.className = "cm-figure";
    span.textContent = this.figure.text;
    span.title = this.figure.title;
    span.dataset.line = String(this.line);
    span.dataset.issued = String(this.figure.issued);
    span.dataset.stalled = String(this.figure.stalled);
    span.dataset.memory = String(this.figure.memory);
    return span;
  }
}

// A gutter of its own, left of the line numbers: what ran on each line.
const figuresGutter = gutter({
  class: "cm-figures-gutter",
  lineMarker(view, block) {
    const line = view.state.doc.lineAt(block.from).number;
    const figure = view.state.field(figuresField).get(line);
    return figure ? new FigureMarker(line, figure) : null;
  },
  lineMarkerChange: (update) => update.transactions.some((tr) => tr.effects.some((e) => e.is(setFigures))),
  initialSpacer: () => new FigureMarker(0, { text: "99.9k 9.9M", title: "", issued: 0, stalled: 0, memory: 0 }),
});

// Line decorations: lines linked to a hovered instruction, and the error's line.
function lineClassField(effectType, className) {
  return StateField.define({
    create: () => Decoration.none,
    update(value, tr) {
      value = value.map(tr.changes);
      for (const effect of tr.effects) {
        if (!effect.is(effectType)) continue;
        const doc = tr.state.doc;
        const ranges = effect.value
          .filter((n) => n >= 1 && n <= doc.lines)
          .sort((a, b) => a - b)
          .map((n) => Decoration.line({ class: className, attributes: { "data-line": String(n) } }).range(doc.line(n).from));
        value = RangeSet.of(ranges);
      }
      return value;
    },
    provide: (field) => EditorView.decorations.from(field),
  });
}

const linkedField = lineClassField(setLinked, "cm-linked");
const errorLineField = lineClassField(setErrorLine, "cm-errorLine");

// Creates the editor in `parent` holding `doc`. `callbacks` has change(text)
// (the text after each edit), run() (Ctrl/Cmd-Enter) and hover(line) (the
// line under the pointer, 0 when it leaves).
export function create(parent, doc, callbacks) {
  let quiet = false;
  let hovered = 0;
  const hover = (line) => {
    if (line !== hovered) {
      hovered = line;
      callbacks.hover(line);
    }
  };
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        figuresField,
        figuresGutter,
        lineNumbers(),
        lintGutter(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        history(),
        indentOnInput(),
        bracketMatching(),
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        // Long lines wrap rather than scroll: the editor shares the width with the listing, and a phone's is narrow.
        EditorView.lineWrapping,
        cpp(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        linkedField,
        errorLineField,
        // Before the default keymap, whose Mod-Enter inserts a blank line.
        Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => (callbacks.run(), true) }])),
        // Tab indents (Escape, then Tab, leaves the editor, as CodeMirror documents).
        keymap.of([indentWithTab, ...defaultKeymap, ...historyKeymap]),
        EditorView.contentAttributes.of({ "aria-label": "CUDA C source", "data-testid": "kernel-source" }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !quiet) callbacks.change(update.state.doc.toString());
        }),
        EditorView.domEventHandlers({
          mousemove(event, view) {
            const pos = view.posAtCoords({ x: event.clientX, y: event.clientY });
            hover(pos === null ? 0 : view.state.doc.lineAt(pos).number);
          },
          mouseleave() {
            hover(0);
          },
        }),
      ],
    }),
  });

  return {
    // The editor's text.
    text: () => view.state.doc.toString(),
    // Replaces the text (an example or a link opened) without echoing it as an edit.
    setText(text) {
      if (text === view.state.doc.toString()) return;
      quiet = true;
      try {
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      } finally {
        quiet = false;
      }
    },
    // Marks the error at `line`, columns `from..to` (UTF-16 units), or clears it (line 0).
    setError(line, from, to, message) {
      const doc = view.state.doc;
      if (line < 1 || line > doc.lines) {
        view.dispatch(setDiagnostics(view.state, []), { effects: setErrorLine.of([]) });
        return;
      }
      const at = doc.line(line);
      const start = at.from + Math.min(from, at.length);
      const end = Math.max(start, at.from + Math.min(to, at.length));
      const diagnostic = { from: start, to: end, severity: "error", message };
      // Scrolled into view: an error past the editor's height (a long file,
      // or a link opened on one) would otherwise be marked out of sight.
      const scroll = EditorView.scrollIntoView(start, { y: "nearest" });
      view.dispatch(setDiagnostics(view.state, [diagnostic]), { effects: [setErrorLine.of([line]), scroll] });
    },
    // Shows each line's figures: an array of {line, text, title, issued, stalled, memory}.
    setFigures(figures) {
      const byLine = new Map();
      for (const figure of figures) byLine.set(figure.line, figure);
      view.dispatch({ effects: setFigures.of(byLine) });
    },
    // Highlights these lines (those of the hovered instruction).
    setLinked(lines) {
      view.dispatch({ effects: setLinked.of(Array.from(lines)) });
    },
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}
