//! The GPU configuration panel: choose a preset or open config files, and read
//! the config grouped by part of the GPU, with the options warplab keeps but
//! does not model.

use warplab_lab::{ConfigReport, KeptOption, presets};
use web_sys::{FileList, HtmlSelectElement};
use yew::prelude::*;

use crate::components::{DropZone, FilePicker, StatusLine};
use crate::state::Loadable;

/// Properties of [`ConfigPanel`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ConfigPanelProps {
    /// The config's state.
    pub state: Loadable<ConfigReport>,
    /// A preset was chosen (by name).
    pub on_preset: Callback<String>,
    /// Files were picked or dropped.
    pub on_files: Callback<Option<FileList>>,
}

/// Shows the current config, what is loading, and the last error.
#[component]
pub fn ConfigPanel(props: &ConfigPanelProps) -> Html {
    let on_select = {
        let on_preset = props.on_preset.clone();
        Callback::from(move |event: Event| on_preset.emit(event.target_unchecked_into::<HtmlSelectElement>().value()))
    };
    let label = props.state.current.as_ref().map(|r| r.label.clone()).unwrap_or_default();
    // The select shows the preset on screen; configs from files match no option.
    let selected = label.strip_prefix("preset ").unwrap_or("").to_owned();
    html! {
        <section class="panel config" data-testid="config">
            <DropZone on_files={props.on_files.clone()}>
                <h2>{ "GPU: " }<span data-testid="config-label">{ label }</span></h2>
                <div class="controls">
                    <select data-testid="preset-select" onchange={on_select} aria-label="Bundled GPU configuration">
                        <option value="" disabled=true selected={selected.is_empty()}>{ "from files" }</option>
                        { for presets().into_iter().map(|p| html! {
                            <option value={p.name.clone()} title={p.description.clone()} selected={p.name == selected}>
                                { &p.name }
                            </option>
                        }) }
                    </select>
                    <FilePicker label="Open config files…" testid="config-files" accept=".config,.icnt" on_files={props.on_files.clone()} />
                    <span class="hint">{ "or drop gpgpusim.config, trace.config and .icnt files here" }</span>
                </div>
                <StatusLine loading={props.state.loading.clone()} error={props.state.error.clone()} />
                { props.state.current.as_ref().map(report_view).unwrap_or_default() }
            </DropZone>
        </section>
    }
}

fn report_view(report: &ConfigReport) -> Html {
    let summary = &report.summary;
    html! {
        <>
            <p class="totals" data-testid="config-totals">
                <strong data-testid="config-sms">{ summary.n_sms }</strong>{ " SMs at " }
                { summary.core_clock_mhz }{ " MHz, " }{ summary.n_sub_partitions }{ " L2 slices on " }
                { summary.n_mem_channels }{ " memory channels" }
            </p>
            <div class="config-groups">
                { for report.view.groups.iter().map(|group| html! {
                    <table class="config-group">
                        <caption>{ &group.title }</caption>
                        <tbody>
                            { for group.rows.iter().map(|row| html! {
                                <tr title={row.option.clone()}><th>{ &row.label }</th><td>{ &row.value }</td></tr>
                            }) }
                        </tbody>
                    </table>
                }) }
            </div>
            { kept_list("Options GPGPU-Sim does not know", "unknown-options", &summary.unknown_options) }
            { kept_list("Options warplab keeps but does not model", "unmodelled-options", &summary.unmodelled_options) }
            if !report.diagnostics.is_empty() {
                <ul class="diagnostics">{ for report.diagnostics.iter().map(|d| html! { <li>{ d }</li> }) }</ul>
            }
        </>
    }
}

fn kept_list(title: &str, testid: &'static str, options: &[KeptOption]) -> Html {
    html! {
        <details class="kept-options" data-testid={testid}>
            <summary>{ format!("{title} ({})", options.len()) }</summary>
            <ul>
                { for options.iter().map(|o| html! {
                    <li><code>{ &o.name }</code>{ " " }{ o.value.clone().unwrap_or_default() }</li>
                }) }
            </ul>
        </details>
    }
}
