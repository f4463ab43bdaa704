//! The MAEV result: the mean over trials, the verdict, and every trial's examples, evidence and
//! score (or why it could not be read).

use leptos::prelude::*;

use crate::ui::widgets::doubt_notes::doubt_notes;

use crate::metrics::maev::{aggregate, ScoreSource, INFO};
use crate::ui::state::AppState;

#[component]
pub fn MaevPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let summary = Memo::new(move |_| {
        let scores: Vec<f64> = state.results.maev.results.with(|rows| {
            rows.iter()
                .filter_map(|(_, p)| p.result().map(|r| r.score))
                .collect()
        });
        aggregate(&scores, state.metric_settings.maev.threshold.get())
    });
    let counts = move || {
        state.results.maev.results.with(|rows| {
            let read = rows.iter().filter(|(_, p)| p.result().is_some()).count();
            let failed = rows.iter().filter(|(_, p)| p.error().is_some()).count();
            (read, failed, rows.len())
        })
    };
    let rows = move || {
        let pool = state.metric_settings.maev.pool.get();
        let run_pool = state
            .results
            .maev
            .run
            .with_value(|r| r.as_ref().map(|r| r.input.pool.clone()))
            .unwrap_or(pool);
        state.results.maev.results.get().into_iter().enumerate().map(|(i, ((zero, two), p))| {
            let name = |k: usize| run_pool.get(k).map(|e| format!("“{}”", e.question)).unwrap_or_default();
            let score = p.result().map(|r| r.score.to_string()).unwrap_or_default();
            let source = p.result().map(|r| match r.source {
                ScoreSource::Probabilities => "expected score from the score token's probabilities (our extension)",
                ScoreSource::Printed => "printed score (the paper's reading)",
            });
            view! {
                <li class="trial" data-testid=format!("trial-{i}") data-state=p.id() data-score=score
                    data-doubt=p.result().map(|r| crate::answers::doubt::codes(&r.doubts)).unwrap_or_default()>
                    <div><strong>{format!("Trial {}", i + 1)}</strong> " · " {p.label()}
                        {p.result().map(|r| format!(" · score {:.3} (printed {})", r.score, r.printed))}</div>
                    <div class="hint">{format!("Examples: {} (score 0), {} (score 2)", name(zero), name(two))}</div>
                    <div class="hint">{source}</div>
                    {p.result().map(|r| doubt_notes(&r.doubts))}
                    <p class="evidence">{p.result().map(|r| r.evidence.clone())}</p>
                    <p class="note-text">{p.note()}</p>
                    <p class="error" role="alert">{p.error()}</p>
                </li>
            }
        }).collect_view()
    };
    view! {
        <div class="overall" data-testid="overall-score" data-value=move || summary.get().map(|s| s.0.to_string()).unwrap_or_default()
            data-doubt=move || {
                let mut all: Vec<crate::answers::doubt::Doubt> = state.results.maev.results.with(|rows| {
                    rows.iter().filter_map(|(_, p)| p.result()).flat_map(|r| r.doubts.clone()).collect()
                });
                crate::scoring::small_sort::sort_by_key(&mut all, |d| *d);
                all.dedup();
                crate::answers::doubt::codes(&all)
            }>
            <span class="overall-label">"MAEV mean accuracy score"</span>
            <span class="overall-value" aria-live="polite">
                {move || summary.get().map(|s| format!("{:.3}", s.0)).unwrap_or_else(|| "–".into())}
            </span>
            <span class="overall-range">"on a 0–2 scale"</span>
            <span class="overall-count">{move || {
                let (read, failed, total) = counts();
                if total == 0 { String::new() } else { format!("{read} of {total} trials read, {failed} failed") }
            }}</span>
        </div>
        <p class="verdict" data-testid="verdict" data-value=move || summary.get().map(|s| s.1.id()).unwrap_or_default()>
            {move || summary.get().map(|(_, v)| format!(
                "Verdict: {} (threshold {})",
                match v { crate::metrics::maev::Verdict::Accurate => "accurate", _ => "hallucination" },
                state.metric_settings.maev.threshold.get()
            ))}
        </p>
        <ol class="trials">{rows}</ol>
        <p class="cite">{format!("{}: {}. Range {}.", INFO.name, INFO.paper, INFO.range)}</p>
    }
}
