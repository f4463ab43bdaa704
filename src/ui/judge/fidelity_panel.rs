//! Fidelity: the published procedure ("paper", the default) or our named extensions, for the
//! selected metric; and HarmonicEval's criteria subset (the paper's Table 7 uses two).
//!
//! Design: the `fidelity-select` shows "paper" exactly when none of the metric's extensions is
//! on. Choosing "extended" switches every extension of the current metric on, choosing "paper"
//! switches them off; each checkbox switches one, and the select follows. Every visit starts at
//! "paper" (nothing is remembered), so a result is never extended by a forgotten setting.

use leptos::prelude::*;

use crate::metrics::fidelity::Extension;
use crate::ui::state::Settings;

#[component]
pub fn FidelityPanel(settings: Settings) -> impl IntoView {
    let state = settings;
    let own = move || -> Vec<Extension> {
        let metric = state.metric.get();
        Extension::SWITCHABLE
            .into_iter()
            .filter(|e| e.applies_to(metric))
            .collect()
    };
    let level = move || {
        let metric = state.metric.get();
        state.fidelity.with(|f| f.for_metric(metric).level())
    };
    let on_level = move |ev| {
        let extended = event_target_value(&ev) == "extended";
        let switch = own();
        state.fidelity.update(|f| {
            for e in switch {
                *f = f.clone().with(e, extended);
            }
        });
    };
    // What the metric always applies, with nothing to switch (FLEUR's multi-digit reading).
    // One such extension so far: a second one fails to compile here, to be shown too.
    const _: () = assert!(Extension::FIXED.len() == 1);
    let fixed = Extension::FIXED[0];
    view! {
        <fieldset class="fidelity">
            <legend>"Fidelity"</legend>
            <div class="field">
                <label for="fidelity-select">"Procedure"</label>
                <select id="fidelity-select" data-testid="fidelity-select"
                    disabled=move || own().is_empty()
                    on:change=on_level prop:value=level>
                    <option value="paper">"Paper: the published procedure"</option>
                    <option value="extended">"Extended: our additions (all on)"</option>
                </select>
            </div>
            {move || own().into_iter().map(|e| view! {
                <label class="check">
                    <input type="checkbox" data-testid=e.test_id()
                        prop:checked=move || state.fidelity.with(|f| f.has(e))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            state.fidelity.update(|f| *f = f.clone().with(e, on));
                        }/>
                    {e.label()}
                </label>
                <small class="hint">{e.reason()}</small>
            }).collect_view()}
            <Show when=move || fixed.applies_to(state.metric.get())>
                <small class="hint">{format!(
                    "Nothing to switch: {} {}",
                    fixed.reason(),
                    fixed.info().fixed.unwrap_or_default()
                )}</small>
            </Show>
            {crate::ui::metrics::own_settings(state)}
        </fieldset>
    }
}
