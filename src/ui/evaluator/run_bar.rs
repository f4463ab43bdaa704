//! Evaluate, Cancel, and "ask again" (bypass the cache), with what stops a run.

use leptos::prelude::*;

use crate::ui::run::runner;
use crate::ui::state::AppState;

#[component]
pub fn RunBar() -> impl IntoView {
    let state = expect_context::<AppState>();
    // The in-page judge's time per answer and time left, told by its transport.
    let timing = RwSignal::new(String::new());
    crate::web::in_browser::on_timing(move |line| {
        let _ = timing.try_set(line);
    });
    let running = move || crate::ui::metrics::of(state.settings.metric.get()).running(state);
    // While a run is going, the line names what the judge is on, where the metric can tell.
    let line = move || {
        let said = timing.get();
        let on = crate::ui::metrics::of(state.settings.metric.get()).asking(state);
        match on.filter(|_| !said.is_empty() && running()) {
            Some(on) => crate::providers::in_browser::meter::judging(on, &said),
            None => said,
        }
    };
    view! {
        <div class="run-bar">
            <button
                class="primary evaluate"
                id="evaluate-button"
                data-testid="evaluate-button"
                on:click=move |_| crate::ui::metrics::evaluate(state)
                disabled=running
                aria-busy=move || running().to_string()
            >
                {move || if running() { "Evaluating…" } else { "Evaluate" }}
            </button>
            <button
                data-testid="cancel-button"
                on:click=move |_| runner::cancel(state)
                disabled=move || !running()
            >
                "Cancel"
            </button>
            <label class="check">
                <input
                    type="checkbox"
                    data-testid="fresh-run-checkbox"
                    prop:checked=move || state.settings.provider.fresh_run.get()
                    on:change=move |ev| state.settings.provider.fresh_run.set(event_target_checked(&ev))
                />
                "Ask the model again (ignore cached answers)"
            </label>
        </div>
        <p class="hint" data-testid="judge-timing" role="status"
            hidden=move || timing.get().is_empty() || !crate::providers::preset(&state.settings.provider.preset.get()).in_page()>
            {line}
        </p>
        <span class="error" role="alert" data-testid="storage-error">
            {move || state.settings.storage_error.get()}
        </span>
        <ul class="problems" role="alert" data-testid="form-problems">
            {move || state.settings.form_problems.get().into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}
        </ul>
    }
}
