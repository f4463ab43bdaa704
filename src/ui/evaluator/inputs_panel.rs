//! Task, the text to judge, and the question for VQA / VDU.

use leptos::prelude::*;

use crate::inputs::text_checks::{addresses_the_judge, INSTRUCTION_WARNING};
use crate::scoring::task::Task;
use crate::ui::metrics as metric_ui;
use crate::ui::run::image_actions;
use crate::ui::state::AppState;
use crate::ui::widgets::fields::{PasteLimit, TextArea};

#[component]
pub fn InputsPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let task = state.inputs.task;
    let on_task = move |ev| {
        if let Some(t) = Task::from_id(&event_target_value(&ev)) {
            task.set(t);
            // The REG box is drawn into the pixels only for REG: re-encode what is sent.
            image_actions::refresh_encoded_image(state);
        }
    };
    let metric = move || metric_ui::of(state.settings.metric.get());
    let noun = move || metric().text_noun(state);
    let addresses_judge = move || state.inputs.text.with(|t| addresses_the_judge(t));
    let limit = PasteLimit::new();
    view! {
        <div class="field" class:hidden=move || !state.settings.weighs_criteria()>
            <label for="task-select">"Task"</label>
            <select id="task-select" data-testid="task-select" on:change=on_task prop:value=move || task.get().id()>
                {Task::ALL.iter().map(|t| view! { <option value=t.id()>{t.label()}</option> }).collect_view()}
            </select>
        </div>
        <TextArea
            id="question-input"
            label="Question"
            what="question"
            value=state.inputs.question
            rows=2
            placeholder="The question the model answered"
            hidden=Signal::derive(move || !metric().asks_question(state))
        />
        <div class="field text-field" class:hidden=move || state.candidates.active()>
            <label for="text-input">{move || format!("The {} to judge", noun())}</label>
            <textarea
                id="text-input"
                data-testid="text-input"
                dir="auto"
                rows="4"
                placeholder=move || format!("Paste the {} the model wrote", noun())
                prop:value=move || state.inputs.text.get()
                on:input=move |ev| {
                    limit.clear();
                    state.inputs.text.set(event_target_value(&ev))
                }
                on:paste=limit.on_paste(move || noun().to_string())
                on:drop=limit.on_drop(move || noun().to_string())
            ></textarea>
            {limit.view("text-input")}
            <p class="warn-text" role="status" data-testid="instruction-warning" hidden=move || !addresses_judge()>
                {INSTRUCTION_WARNING}
            </p>
        </div>
        {crate::ui::metrics::own_inputs(state)}
        <TextArea
            id="references-input"
            label="Reference captions (one per line)"
            what="list of references"
            value=state.inputs.references
            rows=4
            placeholder="A brown dog runs on the grass.\nA dog playing in a park."
            hidden=Signal::derive(move || !metric().wants_references(state))
        />
    }
}
