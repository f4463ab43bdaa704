//! Every candidate's overall score against γ on one chart, the γ values where their order
//! changes marked, the current γ as a cursor. Lines differ by dash pattern and carry their
//! label at the right end, so the legend does not rely on colour; a table gives the numbers.

use leptos::prelude::*;

use crate::aggregate::{overall_curve, Scored, GAMMA_MIN};
use crate::candidates::Flip;

const PLOT_W: f64 = 340.0;
const PLOT_H: f64 = 200.0;
const LEFT: f64 = 44.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 10.0;
const BOTTOM: f64 = 44.0;
const DASHES: [&str; 5] = ["none", "6 3", "2 3", "8 3 2 3", "1 2"];

fn x(g: f64) -> f64 {
    LEFT + (g - GAMMA_MIN) / (1.0 - GAMMA_MIN) * (PLOT_W - LEFT - RIGHT)
}

fn y(s: f64) -> f64 {
    TOP + (5.0 - s.clamp(1.0, 5.0)) / 4.0 * (PLOT_H - TOP - BOTTOM)
}

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
    let bottom = PLOT_H - BOTTOM;
    let name = move |i: usize| labels.with(|l| l.get(i).cloned().unwrap_or_default());
    let description = move || {
        let n = curves.with(|c| c.iter().filter(|c| !c.is_empty()).count());
        let k = flips.with(Vec::len);
        format!(
            "Overall score (1 to 5) of {n} candidates against γ (0.01 to 1); the order changes at {k} γ value{}, marked by vertical lines. The current γ is {:.2}.",
            if k == 1 { "" } else { "s" },
            gamma.get()
        )
    };
    view! {
        <figure class="candidates-figure">
            <svg class="gamma-plot candidates-plot" data-testid="candidates-plot"
                data-points=move || curves.with(|c| c.iter().map(Vec::len).sum::<usize>())
                viewBox=format!("0 0 {PLOT_W} {PLOT_H}") role="img" aria-label=description>
                {[1.0, 2.0, 3.0, 4.0, 5.0].iter().map(|&s| view! {
                    <line class="grid" x1=LEFT x2=PLOT_W - RIGHT y1=y(s) y2=y(s)/>
                    <text class="tick" x=LEFT - 6.0 y=y(s) + 4.0 text-anchor="end">{format!("{s}")}</text>
                }).collect_view()}
                {[0.01, 0.25, 0.5, 0.75, 1.0].iter().map(|&g| view! {
                    <line class="axis" x1=x(g) x2=x(g) y1=bottom y2=bottom + 4.0/>
                    <text class="tick" x=x(g) y=bottom + 16.0 text-anchor="middle">{format!("{g}")}</text>
                }).collect_view()}
                <line class="axis" x1=LEFT y1=bottom x2=PLOT_W - RIGHT y2=bottom/>
                <line class="axis" x1=LEFT y1=TOP x2=LEFT y2=bottom/>
                <text class="axis-title" x=(LEFT + PLOT_W - RIGHT) / 2.0 y=PLOT_H - 6.0 text-anchor="middle">"γ (weighting)"</text>
                <text class="axis-title" transform=format!("translate(12 {}) rotate(-90)", (TOP + bottom) / 2.0) text-anchor="middle">"Overall score (1–5)"</text>
                {move || flips.with(|f| f.iter().map(|f| view! {
                    <line class="flip" x1=x(f.gamma) x2=x(f.gamma) y1=TOP y2=bottom/>
                }).collect_view())}
                {move || curves.with(|c| c.iter().enumerate().filter(|(_, c)| !c.is_empty()).map(|(i, c)| {
                    let points = c.iter().map(|(g, s)| format!("{:.1},{:.1}", x(*g), y(*s))).collect::<Vec<_>>().join(" ");
                    let end = c.last().map_or(3.0, |p| p.1);
                    view! {
                        <polyline class="curve" fill="none" points=points stroke-dasharray=DASHES[i % DASHES.len()]/>
                        <text class="curve-label" x=PLOT_W - RIGHT + 4.0 y=y(end) + 4.0>{name(i)}</text>
                    }
                }).collect_view())}
                <line class="cursor" x1=move || x(gamma.get()) x2=move || x(gamma.get()) y1=TOP y2=bottom/>
            </svg>
            <figcaption class="hint">"Each line is one candidate (label at its right end, its own dash pattern); solid grey verticals mark where the order changes, the dashed one is the current γ."</figcaption>
            <details class="gamma-data">
                <summary>"The lines as a table"</summary>
                <div class="table-scroll">
                    <table class="gamma-table" data-testid="candidates-table">
                        <thead><tr><th scope="col">"γ"</th>{move || labels.get().into_iter().map(|l| view! { <th scope="col">{l}</th> }).collect_view()}</tr></thead>
                        <tbody>
                            {move || curves.with(|c| (0..=10).map(|k| {
                                let g = if k == 0 { GAMMA_MIN } else { k as f64 / 10.0 };
                                let cells = c.iter().map(|curve| {
                                    let s = curve.iter().min_by(|a, b| (a.0 - g).abs().total_cmp(&(b.0 - g).abs())).map(|p| p.1);
                                    view! { <td>{s.map(|s| format!("{s:.3}")).unwrap_or_else(|| "—".into())}</td> }
                                }).collect_view();
                                view! { <tr><td>{format!("{g:.2}")}</td>{cells}</tr> }
                            }).collect_view())}
                        </tbody>
                    </table>
                </div>
            </details>
        </figure>
    }
}
