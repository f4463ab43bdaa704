//! Every candidate's overall score against γ on one chart (markup from
//! `crate::candidates::render`), the γ values where their order changes marked, the current γ
//! as a cursor, and the numbers as a table.

use leptos::prelude::*;

use crate::aggregate::{overall_curve, Scored};
use crate::candidates::render::{curves_table, plot_svg};
use crate::candidates::Flip;

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
    view! {
        <figure class="candidates-figure">
            <div inner_html=svg></div>
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
