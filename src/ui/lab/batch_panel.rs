//! Batch controls: import the dataset and its images, the import report, run / pause / resume
//! / cancel / retry failed, progress with rate and ETA, export and re-import of results.

use leptos::prelude::*;

use crate::lab::progress::RunProgress;
use crate::ui::lab::batch_run;
use crate::ui::lab::batch_state::{BatchState, BatchStatus};
use crate::ui::state::Settings;
use crate::ui::widgets::fields::NumberField;

fn files_of(ev: &leptos::ev::Event) -> Vec<web_sys::File> {
    let input: web_sys::HtmlInputElement = event_target(ev);
    let list = input.files();
    let out = (0..list.as_ref().map_or(0, |l| l.length()))
        .filter_map(|i| list.as_ref().and_then(|l| l.get(i)))
        .collect();
    input.set_value("");
    out
}

#[component]
pub fn BatchPanel() -> impl IntoView {
    let state = expect_context::<Settings>();
    let b = expect_context::<BatchState>();
    let status = move || b.status.get();
    view! {
        <fieldset class="batch">
            <legend>"Batch run"</legend>
            {move || b.resumable.get().map(|(_, text)| view! {
                <div class="resume-banner" role="alert">
                    <span>{text}</span>
                    <button class="primary" data-testid="resume-run-button" on:click=move |_| crate::ui::lab::stored_runs::resume(state, b)>
                        {move || if b.resumable_elsewhere.get() { "Watch it live" } else { "Resume" }}
                    </button>
                </div>
            })}
            <div class="field">
                <label for="dataset-input">"Dataset (.jsonl or .csv) with its images (.zip or image files)"</label>
                <input id="dataset-input" data-testid="dataset-input" type="file" multiple
                    accept=".jsonl,.ndjson,.json,.csv,.tsv,.zip,image/*"
                    on:change=move |ev| batch_run::import(state, b, files_of(&ev))/>
                <small class="hint">"One item per line: id, task, text, question, references, image, human_overall, human_<criterion>, group, chosen (see README). Nothing is sent before you press Run."</small>
                <small class="hint"><a data-testid="sample-dataset-link" href="sample-dataset.zip" download="sample-dataset.zip">"Download a sample dataset"</a>" (6 items, 3 images, human ratings; a .zip you can choose here as it is)."</small>
            </div>
            <p class="hint" role="status" data-testid="dataset-import-progress">{move || b.importing.get()}</p>
            <ul class="problems" data-testid="import-report">
                {move || {
                    let report = b.report.get();
                    let more = report.len().saturating_sub(50);
                    let mut shown: Vec<String> = report.into_iter().take(50).collect();
                    if more > 0 {
                        shown.push(format!("… and {more} more"));
                    }
                    shown.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()
                }}
            </ul>
            <p class="hint" data-testid="import-ready" data-ready=move || b.item_count.get() data-left-out=move || b.left_out.get()>
                {move || crate::batch::ready::ready_sentence(b.item_count.get(), b.left_out.get())}
            </p>
            {run_buttons(state, b)}
            {progress_view(b)}
            <p class="visually-hidden" aria-live="polite">{move || match status() {
                BatchStatus::Running => "Batch running.",
                BatchStatus::Paused => "Batch paused.",
                BatchStatus::Cancelled => "Batch cancelled.",
                BatchStatus::Finished => "Batch finished.",
                BatchStatus::Watching => "Another tab runs this batch; its results appear here as they arrive.",
                _ => "",
            }}</p>
            <p class="error" role="alert" data-testid="batch-message">{move || b.message.get()}</p>
            {move || b.reading.get().map(|(share, found)| view! {
                <p data-testid="results-import-progress" data-share=share data-found=found>
                    <progress max="1" value=share aria-label="Reading the results file"></progress>
                    {format!(" Reading the results file: {:.0} % ({found} results so far)\u{2026}", share * 100.0)}
                </p>
            })}
            {move || state.storage_error.get().map(|m| view! { <p class="error" role="alert" data-testid="storage-error">{m}</p> })}
            <div class="export-row row">
                <button data-testid="export-results-jsonl" disabled=move || b.results.with(Vec::is_empty)
                    on:click=move |_| batch_run::export(b, state.gamma.get_untracked(), false)>"Export JSONL"</button>
                <button data-testid="export-results-csv" disabled=move || b.results.with(Vec::is_empty)
                    on:click=move |_| batch_run::export(b, state.gamma.get_untracked(), true)>"Export CSV"</button>
                <label class="file-button">"Import results"
                    <input data-testid="results-input" type="file" accept=".jsonl,.csv"
                        on:change=move |ev| { if let Some(f) = files_of(&ev).into_iter().next() { crate::ui::lab::results_import::import_results(b, f) } }/>
                </label>
            </div>
        </fieldset>
    }
}

/// Run, pause, cancel, retry failed; and OpenAI's Batch API where the backend is OpenAI.
fn run_buttons(state: Settings, b: BatchState) -> impl IntoView {
    let status = move || b.status.get();
    view! {
        <div class="run-bar">
            <button class="primary" data-testid="run-batch-button"
                disabled=move || matches!(status(), BatchStatus::Running | BatchStatus::Empty | BatchStatus::Watching)
                on:click=move |_| batch_run::start(state, b)>
                {move || if matches!(status(), BatchStatus::Paused | BatchStatus::Cancelled) { "Resume" } else { "Run" }}
            </button>
            <button data-testid="pause-batch-button" disabled=move || status() != BatchStatus::Running on:click=move |_| batch_run::pause(b)>"Pause"</button>
            <button data-testid="cancel-batch-button" disabled=move || !matches!(status(), BatchStatus::Running | BatchStatus::Paused) on:click=move |_| batch_run::cancel(b)>"Cancel"</button>
            <button data-testid="retry-failed-button" disabled=move || matches!(status(), BatchStatus::Running | BatchStatus::Watching) || b.counts().1 == 0 on:click=move |_| batch_run::retry_failed(state, b)>"Retry failed"</button>
        </div>
        // Only OpenAI itself has the Files and Batch endpoints: llama-server, Ollama, vLLM and
        // other Chat Completions servers answer them with 404.
        <Show when=move || state.provider.preset.get() == "openai">
            <div class="row openai-batch">
                <button data-testid="submit-openai-batch-button"
                    disabled=move || matches!(status(), BatchStatus::Running | BatchStatus::Empty | BatchStatus::Watching)
                    on:click=move |_| crate::ui::lab::openai_batch_run::submit(state, b)>
                    "Submit through OpenAI's Batch API (half price, within 24 h)"
                </button>
                <NumberField id="batch-poll-input" label="Check every (s)" value=b.poll_s min=1 max=3600/>
            </div>
        </Show>
    }
}

/// Progress: done, failed, remaining, rate and time left.
fn progress_view(b: BatchState) -> impl IntoView {
    let status = move || b.status.get();
    let progress = move || {
        let (done, failed, partial) = b.counts();
        RunProgress {
            total: b.item_count.get(),
            done,
            failed,
            partial,
            before: b.finished_at_start.get_value(),
            elapsed_secs: (b.now_ms.get() - b.started_ms.get_value()).max(1.0) / 1000.0,
        }
    };
    move || {
        let p = progress();
        let fraction = if p.total > 0 {
            (p.done + p.failed) as f64 / p.total as f64
        } else {
            0.0
        };
        let line = format!(
            "{} · {}",
            p.line(status() == BatchStatus::Running),
            status().id()
        );
        view! {
            <div class="batch-progress" data-testid="batch-progress" data-done=p.done data-failed=p.failed data-partial=p.partial data-total=p.total data-status=status().id()>
                <progress max="1" value=fraction aria-labelledby="batch-progress-text"></progress>
                <span id="batch-progress-text">{line}</span>
            </div>
        }
    }
}
