//! The G-VEval result: the score, how it was read, ACCR's four bars, and the reasoning.

use leptos::prelude::*;

use crate::ui::widgets::doubt_notes::doubt_notes;

use crate::metrics::g_veval::{GvevalResult, Method, ACCR, INFO};
use crate::ui::state::AppState;

fn method_text(m: Method) -> &'static str {
    match m {
        Method::IntegerTokens => {
            "Expected value over the integer tokens after the final score's $, renormalised (the \
             authors' rule)."
        }
        Method::ChainedDigits => {
            "This model writes one digit per token: each digit position was smoothed and the \
             positions chained (our rule; the authors' code reads whole-number tokens only)."
        }
        Method::Parsed => "The printed integer: no usable token probabilities for it (unsmoothed).",
    }
}

#[component]
pub fn GvevalPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let result = move || state.results.g_veval.result.with(|s| s.result().cloned());
    let accr_bars = move || {
        result().and_then(|r: GvevalResult| r.accr).map(|readings| {
            ACCR.iter()
                .zip(readings)
                .map(|((name, letter), r)| {
                    let label = format!("{name} ({letter}): {:.2}", r.score);
                    view! {
                        <div class="accr-row" data-testid=format!("accr-{name}") data-value=r.score.to_string()>
                            <span class="accr-name">{label}</span>
                            <div class="accr-track"><div class="accr-fill" style=format!("width:{:.1}%", r.score)></div></div>
                        </div>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <div class="overall" data-testid="overall-score"
            data-value=move || result().map(|r| r.score.to_string()).unwrap_or_default()
            data-state=move || state.results.g_veval.result.with(|s| s.id())
            data-doubt=move || result().map(|r| crate::answers::doubt::codes(&r.doubts)).unwrap_or_default()>
            <span class="overall-label">
                {move || if result().is_some_and(|r| r.accr.is_some()) { "G-VEval ACCR mean" } else { "G-VEval score" }}
            </span>
            <span class="overall-value" aria-live="polite">
                {move || result().map(|r| format!("{:.2}", r.score)).unwrap_or_else(|| "–".into())}
            </span>
            <span class="overall-range">"on a 0–100 scale"</span>
            <span class="overall-count">{move || state.results.g_veval.result.with(|s| s.label())}</span>
        </div>
        <section class="card gveval">
            <p class="note-text" data-testid="g-veval-method" data-value=move || result().map(|r| r.method().id()).unwrap_or_default()>
                {move || result().map(|r| method_text(r.method()))}
            </p>
            {move || result().map(|r| doubt_notes(&r.doubts))}
            <div class="accr">{accr_bars}</div>
            <p class="note-text" aria-live="polite">{move || state.results.g_veval.result.with(|s| s.note())}</p>
            <p class="error" role="alert">{move || state.results.g_veval.result.with(|s| s.error())}</p>
            <h3>"Reasoning"</h3>
            <p class="explanation" data-testid="explanation">{move || result().map(|r| r.reasoning)}</p>
        </section>
        <p class="cite">{format!("{}: {}. Range {}.", INFO.name, INFO.paper, INFO.range)}</p>
    }
}
