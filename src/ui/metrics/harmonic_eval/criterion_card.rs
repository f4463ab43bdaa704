//! One criterion's result: score, σ, weight, coverage, distribution bars, explanation.

use leptos::prelude::*;

use crate::answers::doubt::{self, LOW_COVERAGE};
use crate::metrics::harmonic_eval::CriterionResult;
use crate::scoring::criteria::Criterion;
use crate::ui::state::{AppState, ExplainState};
use crate::ui::widgets::doubt_notes::doubt_notes;

fn full(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

#[component]
pub fn CriterionCard(criterion: Criterion) -> impl IntoView {
    let state = expect_context::<AppState>();
    let slot = state.results.harmonic_eval.criterion(criterion);
    let explanation = state.results.harmonic_eval.explanation(criterion);
    let id = criterion.id();
    let result = move || slot.with(|s| s.result().cloned());
    let weight = move || {
        state
            .results
            .harmonic_eval
            .weighting
            .with(|(w, _)| w.get(criterion.index()).copied().flatten())
    };
    let error = move || slot.with(|s| s.error());
    let note = move || slot.with(|s| s.note());
    let cached = move || slot.with(|s| s.is_cached());
    let distribution_bars = move || result().map(|r| bars(&r.distribution));
    let explanation_text = move || explanation.with(ExplainState::shown);
    let kept_note = move || explanation.with(ExplainState::kept_note);
    view! {
        <article
            class="card"
            data-testid=format!("criterion-{id}")
            data-state=move || slot.with(|s| s.id())
            data-score=move || full(result().map(|r| r.score))
            data-sigma=move || full(result().and_then(|r| r.sigma))
            data-weight=move || full(weight())
            data-coverage=move || full(result().and_then(|r| r.coverage))
            data-smoothed=move || result().map(|r| r.is_smoothed().to_string()).unwrap_or_default()
            data-cached=move || cached().to_string()
            data-doubt=move || result().map(|r| doubt::codes(&r.doubts)).unwrap_or_default()
            aria-busy=move || slot.with(|s| s.is_active()).to_string()
        >
            <header>
                <h3>{criterion.label()}</h3>
                <span class="badge">{move || if state.results.harmonic_eval.by_hand() { "set by hand".to_string() } else { slot.with(|s| s.label()).to_string() }}</span>
            </header>
            <p class="definition">
                {criterion.definition()}
                {if criterion.sees_image() { " Sees the image." } else { " Text only." }}
            </p>
            {move || result().map(|r| numbers(state, criterion, r))}
            // The bars are for the eye; a screen reader reads the same numbers as a table.
            <div class="bars" aria-hidden="true">{distribution_bars}</div>
            <p class="visually-hidden" data-testid=format!("distribution-text-{}", criterion.id())>
                {move || result().map(|r| crate::ui::widgets::spoken::spoken(&r.distribution, 1))}
            </p>
            <p class="note-text" aria-live="polite">{note}</p>
            // A failure every criterion shares is announced once, above the cards.
            <p class="error" role=move || super::shared_failure::shared(state).is_none().then_some("alert")>{error}</p>
            <button
                class="explain"
                data-testid=format!("explain-{id}")
                aria-label=format!("Explain the {} score", criterion.label())
                // No model gave a result set by hand: there is nobody to ask why.
                disabled=move || result().is_none() || state.results.harmonic_eval.by_hand() || matches!(explanation.get(), ExplainState::Running)
                on:click=move |_| crate::ui::metrics::explain(state, Some(criterion))
            >
                "Explain"
            </button>
            <p class="explanation" aria-live="polite" data-testid=format!("explanation-{id}")>{explanation_text}</p>
            <p class="note-text" role="status" data-testid=format!("explain-note-{id}")>{kept_note}</p>
        </article>
    }
}

/// One bar per rating, as tall as its probability.
fn bars(distribution: &[f64]) -> impl IntoView {
    distribution
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let label = format!("rating {}: {:.1}%", i + 1, p * 100.0);
            view! {
                <div class="bar" title=label>
                    <div class="bar-fill" style=format!("height:{:.1}%", p * 100.0)></div>
                    <span class="bar-label">{i + 1}</span>
                </div>
            }
        })
        .collect_view()
}

/// The score, σ, weight, coverage and tokens, and the notes on doubts and smoothing.
fn numbers(state: AppState, criterion: Criterion, r: CriterionResult) -> impl IntoView {
    let weight = move || {
        state
            .results
            .harmonic_eval
            .weighting
            .with(|(w, _)| w.get(criterion.index()).copied().flatten())
    };
    let low = r.coverage.is_some_and(|c| c < LOW_COVERAGE);
    let (title, sigma, coverage) = match (r.sigma, r.coverage) {
        (Some(s), Some(c)) => (
            "Smoothed score: expected rating",
            format!("{s:.3}"),
            format!("{:.0}%", c * 100.0),
        ),
        _ => (
            "Printed rating: no probabilities from this provider",
            "–".to_string(),
            "–".to_string(),
        ),
    };
    view! {
        <div class="numbers">
            <span class="score" class:doubtful=!r.doubts.is_empty() title=title>{format!("{:.2}", r.score)}</span>
            {(!r.doubts.is_empty()).then(|| view! { <span class="doubt-mark" title="Doubtful: see the note below">"doubtful"</span> })}
            <dl>
                <dt>"σ"</dt><dd>{sigma}</dd>
                <dt>"weight"</dt><dd>{move || weight().map(|w| format!("{:.1}%", w * 100.0)).unwrap_or_default()}</dd>
                <dt>"coverage"</dt><dd class:warn=low>{coverage}</dd>
                {r.usage.map(|u| view! {
                    <dt>"tokens"</dt>
                    <dd title="Reported by the provider: input / output">{format!("{} / {}", u.prompt_tokens, u.completion_tokens)}</dd>
                })}
            </dl>
        </div>
        {doubt_notes(&r.doubts)}
        {(!r.is_smoothed()).then(|| view! {
            <p class="note-text">"Unsmoothed: this provider gives no token probabilities, so this is the printed rating. It keeps a fixed 1/n weight whatever γ is."</p>
        })}
    }
}
