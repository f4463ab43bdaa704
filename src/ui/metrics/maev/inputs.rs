//! MAEV's own inputs: the caption standing in for the image (with the "caption the image"
//! helper), the reference answer, trials, threshold, seed, and the few-shot pool editor.

use leptos::prelude::*;

use crate::metrics::maev::Example;
use crate::ui::metrics::maev::run as maev_run;
use crate::ui::state::{AppState, ExplainState};
use crate::ui::widgets::fields::{NumberField, TextArea};

#[component]
pub fn MaevInputs() -> impl IntoView {
    let state = expect_context::<AppState>();
    let captioning = move || match state.results.maev.captioning.get() {
        ExplainState::Running => Some("Asking the model to describe the image…".to_string()),
        ExplainState::Failed(m) => Some(m),
        _ => None,
    };
    view! {
        <TextArea id="caption-input" label="Image caption (stands in for the image: the judge is text-only)" what="image caption" value=state.results.maev.caption rows=3/>
        <div class="row">
            <button
                data-testid="caption-image-button"
                disabled=move || state.inputs.image_view.with(|v| v.is_none()) || matches!(state.results.maev.captioning.get(), ExplainState::Running)
                on:click=move |_| maev_run::caption_image(state)
            >
                "Caption the image with the chosen model"
            </button>
            <span class="hint" role="status">{captioning}</span>
        </div>
        <TextArea id="reference-answer-input" label="Reference answer (ground truth)" what="reference answer" value=state.results.maev.reference rows=3/>
        <div class="field-row">
            <NumberField id="trials-input" label="Trials" value=state.metric_settings.maev.trials min=1 max=50/>
            <div class="field">
                <label for="threshold-input">"Threshold (mean ≥ it: accurate)"</label>
                <input
                    id="threshold-input"
                    data-testid="threshold-input"
                    type="number"
                    min="0.05"
                    max="1.95"
                    step="0.05"
                    prop:value=move || state.metric_settings.maev.threshold.get().to_string()
                    on:change=move |ev| {
                        if let Ok(v) = event_target_value(&ev).trim().parse::<f64>() {
                            if v > 0.0 && v < 2.0 {
                                state.metric_settings.maev.threshold.set(v);
                            }
                        }
                    }
                />
            </div>
            <NumberField id="seed-input" label="Seed (same seed, same examples)" value=state.metric_settings.maev.seed min=0 max=4_000_000_000/>
        </div>
        <ExamplesEditor/>
    }
}

/// The few-shot pool: the paper's examples plus the user's, each removable.
#[component]
fn ExamplesEditor() -> impl IntoView {
    let state = expect_context::<AppState>();
    let pool = state.metric_settings.maev.pool;
    let draft: [RwSignal<String>; 5] = std::array::from_fn(|_| RwSignal::new(String::new()));
    let draft_score = RwSignal::new(0u8);
    let problem = RwSignal::new(None::<String>);
    let add = move |_| {
        let [q, c, r, a, e] = draft.map(|s| s.get_untracked().trim().to_string());
        if [&q, &c, &r, &a, &e].iter().any(|v| v.is_empty()) {
            problem.set(Some("Fill in all five fields of the example.".into()));
            return;
        }
        pool.update(|p| {
            p.push(Example {
                question: q,
                caption: c,
                reference: r,
                assistant: a,
                evidence: e,
                score: draft_score.get_untracked(),
            })
        });
        draft.iter().for_each(|s| s.set(String::new()));
        problem.set(None);
    };
    let labels = [
        "Question",
        "Image caption",
        "Reference answer",
        "Assistant answer",
        "Evaluation evidence",
    ];
    view! {
        <details class="examples">
            <summary data-testid="examples-summary">{move || {
                let (z, t) = pool.with(|p| (p.iter().filter(|e| e.score == 0).count(), p.iter().filter(|e| e.score == 2).count()));
                format!("Few-shot examples: {z} with score 0, {t} with score 2")
            }}</summary>
            <ol class="example-list">
                {move || pool.get().into_iter().enumerate().map(|(i, e)| view! {
                    <li data-testid=format!("example-{i}")>
                        <span class="badge">{format!("score {}", e.score)}</span>
                        " " {e.question.clone()} " → " {e.assistant.clone()}
                        <button class="link" on:click=move |_| pool.update(|p| { if i < p.len() { p.remove(i); } })>"Remove"</button>
                    </li>
                }).collect_view()}
            </ol>
            <button class="link" on:click=move |_| pool.set(crate::metrics::maev::default_pool())>"Restore the paper's examples"</button>
            <fieldset class="example-draft">
                <legend>"Add an example"</legend>
                {labels.into_iter().zip(draft).map(|(label, sig)| view! {
                    <label>{label}<input type="text" prop:value=move || sig.get() on:input=move |ev| sig.set(event_target_value(&ev))/></label>
                }).collect_view()}
                <label>"Score"
                    <select prop:value=move || draft_score.get().to_string() on:change=move |ev| draft_score.set(if event_target_value(&ev) == "2" { 2 } else { 0 })>
                        <option value="0">"0 (hallucination)"</option>
                        <option value="2">"2 (accurate)"</option>
                    </select>
                </label>
                <button on:click=add>"Add"</button>
                <p class="error" role="alert">{move || problem.get()}</p>
            </fieldset>
        </details>
    }
}
