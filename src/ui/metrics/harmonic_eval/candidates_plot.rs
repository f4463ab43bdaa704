//! Every candidate's overall score against γ on one chart (markup from
//! `crate::candidates::render`), the γ values where their order changes marked, the current γ
//! as a cursor, and the numbers as a table.

use leptos::prelude::*;

use crate::candidates::render::{curves_table, plot_svg, readout, AXIS};
use crate::candidates::Flip;
use crate::metrics::harmonic_eval::weighting::{overall_curve, Harmonic};
use crate::scoring::gamma_axis::key_step;
use crate::scoring::weighting::Scored;
use crate::ui::widgets::gamma_events::gamma_at_click;

#[component]
pub fn CandidatesPlot(
    scored: Memo<Vec<Vec<Scored>>>,
    flips: Memo<Vec<Flip>>,
    labels: RwSignal<Vec<String>>,
    gamma: RwSignal<f64>,
) -> impl IntoView {
    let curves = Memo::new(move |_| {
        scored.with(|s| s.iter().map(|c| overall_curve(c, 100)).collect::<Vec<_>>())
    });
    let svg =
        move || labels.with(|l| curves.with(|c| flips.with(|f| plot_svg(l, c, f, gamma.get()))));
    let table = move || labels.with(|l| curves.with(|c| curves_table(l, c)));
    // The γ the reader points at (pointer or keys), apart from the page's γ: reading the chart
    // never re-ranks anything.
    let pointed = RwSignal::new(None::<f64>);
    let text = move || {
        match pointed.get() {
        Some(g) => labels.with(|l| scored.with(|s| readout(&Harmonic, l, s, g))),
        None => "Point at the chart, or focus it and use the arrow keys, to read every candidate's score at that γ.".to_string(),
    }
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        if let Some(next) = key_step(
            &ev.key(),
            pointed
                .get_untracked()
                .unwrap_or_else(|| gamma.get_untracked()),
        ) {
            ev.prevent_default();
            pointed.set(Some(next));
        }
    };
    view! {
        <figure class="candidates-figure">
            <div tabindex="0" role="group" aria-label="The candidates' scores against γ: the arrow keys move the readout along γ"
                aria-describedby="candidates-readout"
                on:mousemove=move |ev: web_sys::MouseEvent| if let Some(g) = gamma_at_click(AXIS, &ev) { pointed.set(Some(g)) }
                on:keydown=on_key
                inner_html=svg></div>
            <p id="candidates-readout" class="hint" aria-live="polite" data-testid="candidates-readout">{text}</p>
            <figcaption class="hint">
                "Each line is one candidate (label at its right end, its own dash pattern); solid verticals mark where the order changes, the dashed one is the current γ."
            </figcaption>
            <details class="gamma-data">
                <summary>"The lines as a table"</summary>
                <div class="table-scroll" tabindex="0" role="region" aria-label="The candidates' lines as a table" inner_html=table></div>
            </details>
        </figure>
    }
}
