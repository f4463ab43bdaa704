//! One criterion's result: score, σ, weight, coverage, distribution bars, explanation.

use leptos::prelude::*;

use super::actions;
use super::state::{AppState, CriterionState, ExplainState};
use crate::criteria::Criterion;

/// Below this coverage the card warns that the number rests on little probability mass.
const LOW_COVERAGE: f64 = 0.5;

fn full(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

#[component]
pub fn CriterionCard(criterion: Criterion) -> impl IntoView {
    let state = expect_context::<AppState>();
    let slot = state.criterion(criterion);
    let explanation = state.explanation(criterion);
    let id = criterion.id();
    let result = move || slot.with(|s| s.result().cloned());
    let weight = move || {
        state
            .weighting
            .with(|(w, _)| w.get(criterion.index()).copied().flatten())
    };
    let error = move || {
        slot.with(|s| match s {
            CriterionState::Failed(m) => Some(m.clone()),
            _ => None,
        })
    };
    let bars = move || {
        result().map(|r| {
            r.distribution
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let label = format!("rating {}: {:.1}%", i + 1, p * 100.0);
                    view! {
                        <div class="bar" title=label.clone() aria-label=label>
                            <div class="bar-fill" style=format!("height:{:.1}%", p * 100.0)></div>
                            <span class="bar-label">{i + 1}</span>
                        </div>
                    }
                })
                .collect_view()
        })
    };
    let explanation_text = move || match explanation.get() {
        ExplainState::Idle => String::new(),
        ExplainState::Running => "Asking the judge why…".into(),
        ExplainState::Done(t) => t,
        ExplainState::Failed(m) => m,
    };
    view! {
        <article
            class="card"
            data-testid=format!("criterion-{id}")
            data-state=move || slot.with(|s| s.id())
            data-score=move || full(result().map(|r| r.score))
            data-sigma=move || full(result().map(|r| r.sigma))
            data-weight=move || full(weight())
            data-coverage=move || full(result().map(|r| r.coverage))
            aria-busy=move || slot.with(|s| matches!(s, CriterionState::Running)).to_string()
        >
            <header>
                <h3>{criterion.label()}</h3>
                <span class="badge">{move || slot.with(|s| match s {
                    CriterionState::Idle => "not run",
                    CriterionState::Running => "asking…",
                    CriterionState::Done(_) => "done",
                    CriterionState::Failed(_) => "failed",
                })}</span>
            </header>
            <p class="definition">
                {criterion.definition()}
                {if criterion.sees_image() { " Sees the image." } else { " Text only." }}
            </p>
            {move || result().map(|r| view! {
                <div class="numbers">
                    <span class="score" title="Smoothed score: expected rating">{format!("{:.2}", r.score)}</span>
                    <dl>
                        <dt>"σ"</dt><dd>{format!("{:.3}", r.sigma)}</dd>
                        <dt>"weight"</dt><dd>{move || weight().map(|w| format!("{:.1}%", w * 100.0)).unwrap_or_default()}</dd>
                        <dt>"coverage"</dt>
                        <dd class:warn=r.coverage < LOW_COVERAGE>{format!("{:.0}%", r.coverage * 100.0)}</dd>
                    </dl>
                </div>
                {(r.coverage < LOW_COVERAGE).then(|| view! {
                    <p class="warn-text">"Low coverage: the judge put little probability on ratings 1–5 here, so this score is not trustworthy."</p>
                })}
            })}
            <div class="bars" role="img" aria-label="Distribution over ratings 1 to 5">{bars}</div>
            <p class="error" role="alert">{error}</p>
            <button
                class="explain"
                data-testid=format!("explain-{id}")
                aria-label=format!("Explain the {} score", criterion.label())
                disabled=move || result().is_none() || matches!(explanation.get(), ExplainState::Running)
                on:click=move |_| actions::explain(state, criterion)
            >
                "Explain"
            </button>
            <p class="explanation" aria-live="polite" data-testid=format!("explanation-{id}")>{explanation_text}</p>
        </article>
    }
}
