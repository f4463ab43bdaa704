//! The candidate texts (issue 21): "Add a candidate", and per candidate a label and a text.
//! With one text nothing of this shows but the button.

use leptos::prelude::*;

use crate::ui::run::candidates_run;
use crate::ui::state::AppState;
use crate::ui::widgets::fields::PasteLimit;

/// The labelled texts, in the candidates' chunk: fetched when a second text is added.
#[leptos::wasm_split::wasm_split(candidates, wasm_split_path = ::leptos::wasm_split, fallible)]
fn fieldset_view() -> crate::ui::lazy::ChunkView {
    Ok(fieldset().into_any())
}

fn fieldset() -> impl IntoView {
    let state = expect_context::<AppState>();
    let c = state.candidates;
    // A memo: typing a label must not redraw the rows (the field would lose focus).
    let count = Memo::new(move |_| c.labels.with(Vec::len));
    let noun = move || crate::ui::metrics::of(state.settings.metric.get()).text_noun(state);
    let row = move |i: usize| {
        let label_id = format!("candidate-label-{i}");
        let text_id = format!("candidate-text-{i}");
        let limit = PasteLimit::new();
        view! {
            <li class="candidate-input">
                <div class="candidate-head">
                    <label for=label_id.clone()>{format!("Label of candidate {}", i + 1)}</label>
                    <input
                        id=label_id.clone()
                        data-testid=label_id
                        class="candidate-label"
                        maxlength="12"
                        prop:value=move || c.labels.with(|l| l.get(i).cloned().unwrap_or_default())
                        on:input=move |ev| c.labels.update(|l| if let Some(s) = l.get_mut(i) { *s = event_target_value(&ev) })
                    />
                    <button type="button" data-testid=format!("remove-candidate-{i}")
                        on:click=move |_| candidates_run::remove(state, i)>
                        {move || format!("Remove {}", c.labels.with(|l| l.get(i).cloned().unwrap_or_default()))}
                    </button>
                </div>
                <label for=text_id.clone() class="visually-hidden">{move || format!("Candidate {} {}", i + 1, noun())}</label>
                <textarea
                    id=text_id.clone()
                    data-testid=text_id.clone()
                    dir="auto"
                    rows="3"
                    placeholder=move || format!("Paste a {} to compare", noun())
                    prop:value=move || c.texts.with(|t| t.get(i).cloned().unwrap_or_default())
                    on:input=move |ev| {
                        limit.clear();
                        candidates_run::set_text(state, i, event_target_value(&ev))
                    }
                    on:paste=limit.on_paste(move || noun().to_string())
                    on:drop=limit.on_drop(move || noun().to_string())
                ></textarea>
                {limit.view(&text_id)}
            </li>
        }
    };
    view! {
        <fieldset class="candidates-fieldset">
            <legend>{move || format!("Candidates ({}), judged together on the same image", count.get())}</legend>
            <ol class="candidate-list">
                {move || (0..count.get()).map(row).collect_view()}
            </ol>
        </fieldset>
    }
}

#[component]
pub fn CandidatesInputs() -> impl IntoView {
    let state = expect_context::<AppState>();
    // "Opened from …" describes the opened result; with another candidate it is no longer
    // what the page shows.
    let opened = use_context::<crate::ui::evaluator::open_result::OpenedView>();
    let c = state.candidates;
    let count = Memo::new(move |_| c.labels.with(Vec::len));
    view! {
            <div class="candidates-inputs">
                <Show when=move || c.active()>
                    {crate::ui::lazy::chunk("candidates' texts", fieldset_view)}
                </Show>
                <button
                    type="button"
                    data-testid="add-candidate-button"
                    on:click=move |_| {
                        if let Some(v) = opened { v.0.set(None) }
                        candidates_run::add(state)
                    }
                    disabled=move || { count.get() >= crate::candidates::MAX_CANDIDATES || crate::ui::metrics::of(state.settings.metric.get()).running(state) }
                >
                    "Add a candidate"
                </button>
            </div>
    }
}
