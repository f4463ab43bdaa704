//! "A view that teaches γ": each criterion's weight against γ as stacked bands, with σ per
//! criterion, a readout on hover and on keyboard focus, a table alternative and a short
//! glossary. The numbers come from `metrics::harmonic_eval::weights_view`.

use leptos::prelude::*;

use crate::aggregate::GAMMA_MIN;
use crate::criteria::Criterion;
use crate::metrics::harmonic_eval::weights_view::{band, weight_curve, WeightsAt, GLOSSARY, POINTS};
use crate::metrics::harmonic_eval::CriterionResult;
use crate::ui::state::AppState;

const W: f64 = 340.0;
const H: f64 = 200.0;
const L: f64 = 40.0;
const R: f64 = 8.0;
const T: f64 = 8.0;
const B: f64 = 34.0;

fn x(g: f64) -> f64 {
    L + (g - GAMMA_MIN) / (1.0 - GAMMA_MIN) * (W - L - R)
}

fn y(w: f64) -> f64 {
    T + (1.0 - w.clamp(0.0, 1.0)) * (H - T - B)
}

/// The closed outline of one band: along its top, back along its bottom.
fn outline(bands: &[(f64, f64, f64)]) -> String {
    let top = bands.iter().map(|&(g, _, hi)| format!("{:.1},{:.1}", x(g), y(hi)));
    let bottom = bands.iter().rev().map(|&(g, lo, _)| format!("{:.1},{:.1}", x(g), y(lo)));
    top.chain(bottom).collect::<Vec<_>>().join(" ")
}

/// What the readout says about criterion `c` at γ.
fn readout(c: Criterion, gamma: f64, weight: Option<f64>, sigma: Option<f64>) -> String {
    let sigma = sigma.map_or("σ unknown (printed rating)".to_string(), |s| format!("σ = {s:.2}"));
    match weight {
        Some(w) => format!("{}: weight {:.0} % at γ = {gamma:.2} ({sigma})", c.label(), w * 100.0),
        None => format!("{}: no score, no weight", c.label()),
    }
}

#[component]
pub fn WeightsChart() -> impl IntoView {
    let state = expect_context::<AppState>();
    let results = Memo::new(move |_| {
        state.criteria.iter().map(|s| s.with(|s| s.result().cloned())).collect::<Vec<Option<CriterionResult>>>()
    });
    let curve = Memo::new(move |_| {
        results.with(|r| weight_curve(&r.iter().map(Option::as_ref).collect::<Vec<_>>(), POINTS))
    });
    let focused = RwSignal::new(None::<Criterion>);
    let sigma_of = move |c: Criterion| results.with(|r| r[c.index()].as_ref().and_then(|r| r.sigma));
    let text = move || {
        let g = state.gamma.get();
        let weights = state.weighting.get().0;
        match focused.get() {
            Some(c) => readout(c, g, weights[c.index()], sigma_of(c)),
            None => "Point at or tab to a band to read its weight.".to_string(),
        }
    };
    view! {
        <Show when=move || curve.with(|c| !c.is_empty())>
        <section class="weights" aria-labelledby="weights-heading">
            <h3 id="weights-heading">"How γ shares the weight among the criteria"</h3>
            <svg class="weights-plot" data-testid="weights-plot" data-points=move || curve.with(Vec::len).to_string()
                viewBox=format!("0 0 {W} {H}") role="group" aria-label="Each criterion's weight (0 to 100 %) against γ (0.01 to 1), stacked">
                {move || curve.with(|c| Criterion::ALL.into_iter().map(|cr| {
                    let pts = outline(&band(c, cr.index()));
                    view! {
                        <polygon class=format!("band band-{}", cr.index()) points=pts tabindex="0"
                            role="img" aria-label=move || readout(cr, state.gamma.get(), state.weighting.get().0[cr.index()], sigma_of(cr))
                            on:mouseenter=move |_| focused.set(Some(cr)) on:focus=move |_| focused.set(Some(cr))/>
                    }
                }).collect_view())}
                {[0.01, 0.5, 0.75, 1.0].iter().map(|&g| view! {
                    <text class="tick" x=x(g) y=H - B + 16.0 text-anchor="middle">{format!("{g}")}</text>
                }).collect_view()}
                {[0.0, 0.5, 1.0].iter().map(|&w| view! {
                    <text class="tick" x=L - 6.0 y=y(w) + 4.0 text-anchor="end">{format!("{:.0}%", w * 100.0)}</text>
                }).collect_view()}
                <text class="axis-title" x=(L + W - R) / 2.0 y=H - 4.0 text-anchor="middle">"γ"</text>
                <line class="cursor" x1=move || x(state.gamma.get()) x2=move || x(state.gamma.get()) y1=T y2=H - B/>
            </svg>
            <p class="weights-readout" aria-live="polite" data-testid="weights-readout">{text}</p>
            <ul class="weights-legend">
                {Criterion::ALL.into_iter().map(|c| view! {
                    <li><span class=format!("swatch band-{}", c.index()) aria-hidden="true">{(c.index() + 1).to_string()}</span>
                        {move || format!("{}. {} · {}", c.index() + 1, c.label(),
                            sigma_of(c).map_or("σ unknown".into(), |s| format!("σ = {s:.2}")))}</li>
                }).collect_view()}
            </ul>
            <details class="weights-data">
                <summary>"The weights as a table"</summary>
                <table class="weights-table" data-testid="weights-table">
                    <thead><tr><th scope="col">"γ"</th>
                        {Criterion::ALL.into_iter().map(|c| view! { <th scope="col">{c.label()}</th> }).collect_view()}
                    </tr></thead>
                    <tbody>{move || curve.with(|c| c.iter().step_by(2).map(row).collect_view())}</tbody>
                </table>
            </details>
            <dl class="glossary">
                {GLOSSARY.iter().map(|(term, meaning)| view! { <dt>{*term}</dt><dd>{*meaning}</dd> }).collect_view()}
            </dl>
        </section>
        </Show>
    }
}

fn row(p: &WeightsAt) -> impl IntoView {
    let cells = p.weights.iter().map(|w| w.map(|w| format!("{:.0} %", w * 100.0)).unwrap_or_else(|| "–".into()));
    view! {
        <tr><td>{format!("{:.2}", p.gamma)}</td>{cells.map(|c| view! { <td>{c}</td> }).collect_view()}</tr>
    }
}
