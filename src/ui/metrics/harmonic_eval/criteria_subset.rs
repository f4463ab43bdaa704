//! HarmonicEval's own setting in the fidelity panel: which criteria a run requests and weighs.

use leptos::prelude::*;

use crate::metrics::harmonic_eval::CriterionSet;
use crate::scoring::criteria::Criterion;
use crate::ui::state::Settings;

/// Which HarmonicEval criteria are requested and aggregated.
#[component]
pub(crate) fn CriteriaSubset(settings: Settings) -> impl IntoView {
    let state = settings;
    view! {
        <div class="field" data-testid="criteria-subset" role="group" aria-label="Criteria">
            <span class="label">"Criteria requested and aggregated"</span>
            {Criterion::ALL.into_iter().map(|c| view! {
                <label class="check">
                    <input type="checkbox" value=c.id()
                        prop:checked=move || state.chosen_criteria.with(|s| s.contains(c))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            state.chosen_criteria.update(|s| *s = s.with(c, on));
                        }/>
                    {c.label()}
                </label>
            }).collect_view()}
            <div class="run-bar">
                <button type="button" data-testid="criteria-all"
                    on:click=move |_| state.chosen_criteria.set(CriterionSet::default())>"All five (the paper's main setting)"</button>
                <button type="button" data-testid="criteria-table7"
                    on:click=move |_| state.chosen_criteria.set(CriterionSet::table7())>"Table 7: correctness + completeness"</button>
            </div>
            <small class="hint">"The paper's Table 7 uses \u{201c}only the correctness and comprehensiveness prompts\u{201d}; reading \u{201c}comprehensiveness\u{201d} as Completeness is ours."</small>
        </div>
    }
}
