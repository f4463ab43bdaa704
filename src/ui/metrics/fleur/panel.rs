//! The FLEUR / RefFLEUR result: smoothed and printed score, how it was smoothed, the digit
//! distributions, and the explanation.

use leptos::prelude::*;

use crate::ui::widgets::doubt_notes::doubt_notes;

use crate::metrics::fleur::{PlaceDistribution, Scheme};
use crate::ui::state::{AppState, ExplainState};

fn scheme_text(s: Scheme) -> &'static str {
    match s {
        Scheme::PerDigit => "Smoothed over one digit per token (the paper's rule).",
        Scheme::MultiDigit => {
            "Extension of ours (fleur-multi-digit): the judge writes several digits per token \
             (as GPT-4o does), so the paper's per-digit rule cannot apply; each alternative at \
             the first decimal is read as the decimal it would print."
        }
        Scheme::Units => {
            "No decimals: a printed 1 scores 0.9·P(0) + P(1) at its step, a printed 0 scores \
             0.1·E[digit] there (the authors' code)."
        }
    }
}

fn place_bars(d: PlaceDistribution) -> impl IntoView {
    let label = format!(
        "{} (token {:?} at step {})",
        d.place.id(),
        d.token,
        d.step + 1
    );
    let bars = d
        .digits
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let title = format!("digit {i}: {:.2}%", p * 100.0);
            view! {
                <div class="bar" title=title>
                    <div class="bar-fill" style=format!("height:{:.1}%", p * 100.0)></div>
                    <span class="bar-label">{i}</span>
                </div>
            }
        })
        .collect_view();
    view! {
        <figure class="digits">
            // The bars are for the eye; a screen reader reads the same numbers as a table.
            <div class="bars" aria-hidden="true">{bars}</div>
            <p class="visually-hidden">{crate::ui::widgets::spoken::spoken(&d.digits, 0).replace("rating", "digit")}</p>
            <figcaption>{label}</figcaption>
        </figure>
    }
}

#[component]
pub fn FleurPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    // Shown for FLEUR and RefFLEUR: their name, paper and range.
    let info = move || *state.settings.metric.get().info();
    let result = move || state.results.fleur.result.with(|s| s.result().cloned());
    let value = move |f: fn(&crate::metrics::fleur::FleurResult) -> f64| {
        result().map(|r| f(&r).to_string()).unwrap_or_default()
    };
    let explanation = move || state.results.fleur.explanation.with(ExplainState::shown);
    let kept_note = move || {
        state
            .results
            .fleur
            .explanation
            .with(ExplainState::kept_note)
    };
    view! {
        <div class="overall" data-testid="overall-score" data-value=move || value(|r| r.smoothed.score)
            data-state=move || state.results.fleur.result.with(|s| s.id())
            data-doubt=move || result().map(|r| crate::answers::doubt::codes(&r.doubts)).unwrap_or_default()>
            <span class="overall-label">{move || format!("{} score", info().name)}</span>
            <span class="overall-value" aria-live="polite">
                {move || result().map(|r| format!("{:.4}", r.smoothed.score)).unwrap_or_else(|| "–".into())}
            </span>
            <span class="overall-range">{move || format!("on a {} scale", info().range)}</span>
            <span class="overall-count">{move || state.results.fleur.result.with(|s| s.label())}</span>
        </div>
        <section class="card fleur">
            <p data-testid="raw-score" data-value=move || value(|r| r.smoothed.raw)>
                {move || result().map(|r| format!(
                    "Printed score: {} · smoothed: {:.6}{}",
                    r.smoothed.printed,
                    r.smoothed.score,
                    if state.results.fleur.result.with(|s| s.is_cached()) { " · from cache" } else { "" },
                ))}
            </p>
            <p class="note-text" data-testid="fleur-scheme" data-value=move || result().map(|r| r.smoothed.scheme.id()).unwrap_or_default()>
                {move || result().map(|r| scheme_text(r.smoothed.scheme))}
            </p>
            {move || result().map(|r| doubt_notes(&r.doubts))}
            <div class="places">
                {move || result().map(|r| r.smoothed.places.into_iter().map(place_bars).collect_view())}
            </div>
            <p class="note-text" aria-live="polite">{move || state.results.fleur.result.with(|s| s.note())}</p>
            <p class="error" role="alert">{move || state.results.fleur.result.with(|s| s.error())}</p>
            <button
                data-testid="explain-button"
                disabled=move || result().is_none() || matches!(state.results.fleur.explanation.get(), ExplainState::Running)
                on:click=move |_| crate::ui::metrics::explain(state, None)
            >
                "Explain"
            </button>
            <p class="explanation" aria-live="polite" data-testid="explanation">{explanation}</p>
            <p class="note-text" role="status" data-testid="explain-note">{kept_note}</p>
        </section>
        <p class="cite">{move || format!("{}: {}. Range {}.", info().name, info().paper, info().range)}</p>
    }
}
