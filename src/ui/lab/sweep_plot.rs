//! The γ sweep: τ-b and pairwise accuracy of the overall score across γ, two small multiples
//! sharing the γ axis (τ-b on −100…100 above, pairwise accuracy on 0…100 % below, each with its
//! own ticks, so neither scale borrows the other's). A click, or the arrow keys when the plot
//! has focus, sets γ; hovering or focusing reads the values out; a table holds the numbers.

use leptos::prelude::*;

use crate::lab::analysis::{best_gamma, SweepPoint};
use crate::meta::resample::Interval;
use crate::scoring::gamma_axis::GAMMA_MIN;
use crate::scoring::gamma_axis::{self, GammaAxis};
use crate::ui::state::Settings;
use crate::ui::widgets::gamma_events::{gamma_at_click, gamma_key};

const W: f64 = 380.0;
const AXIS: GammaAxis = GammaAxis {
    width: W,
    left: 48.0,
    right: 14.0,
};
const LEFT: f64 = AXIS.left;
const PANEL_H: f64 = 110.0;
const TAU_TOP: f64 = 30.0;
const ACC_TOP: f64 = TAU_TOP + PANEL_H + 42.0;
const H: f64 = ACC_TOP + PANEL_H + 50.0;

fn sx(g: f64) -> f64 {
    AXIS.x(g)
}

/// y of `v` in a panel whose top is `top` and whose scale runs `lo`…`hi`.
fn sy(v: f64, top: f64, lo: f64, hi: f64) -> f64 {
    top + PANEL_H - (v.clamp(lo, hi) - lo) / (hi - lo) * PANEL_H
}

fn pct(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.1}")).unwrap_or_else(|| "–".into())
}

fn readout(p: &SweepPoint) -> String {
    format!(
        "γ = {:.2}: τ-b {}, pairwise accuracy {}",
        p.gamma,
        p.tau_b
            .map(|v| format!("{v:.1}"))
            .unwrap_or_else(|| "–".into()),
        p.pairwise
            .map(|v| format!("{v:.1} %"))
            .unwrap_or_else(|| "–".into()),
    )
}

/// The band of τ-b's 95 % intervals: along the upper ends, back along the lower ones.
fn band_path(band: &[(f64, Interval)]) -> String {
    let at = |g: f64, v: f64| format!("{:.1},{:.1}", sx(g), sy(v, TAU_TOP, -100.0, 100.0));
    band.iter()
        .map(|(g, i)| at(*g, i.high))
        .chain(band.iter().rev().map(|(g, i)| at(*g, i.low)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// "Best γ = 0.40 (τ-b 61.2)", with a button that sets it.
fn best_line(
    g: f64,
    what: &'static str,
    v: f64,
    set_gamma: impl Fn(f64) + 'static,
) -> impl IntoView {
    view! {
        <p class="sweep-best" data-testid="sweep-best-gamma" data-value=format!("{g:.2}")>
            {format!("Best γ = {g:.2} ({what} {v:.1}{})", if what == "accuracy" { " %" } else { "" })}
            " "
            <button class="link" on:click=move |_| set_gamma(g)>"Set γ to it"</button>
        </p>
    }
}

fn band_view(band: RwSignal<Vec<(f64, Interval)>>) -> impl IntoView {
    view! {
        <polygon class="sweep-band" data-testid="sweep-band" data-points=move || band.with(Vec::len)
            points=move || band.with(|b| band_path(b))/>
    }
}

#[component]
pub fn SweepPlot(
    points: Memo<Vec<SweepPoint>>,
    /// τ-b's 95 % interval at a few γ's, drawn as a band behind the line.
    band: RwSignal<Vec<(f64, Interval)>>,
) -> impl IntoView {
    let state = expect_context::<Settings>();
    let hover = RwSignal::new(None::<f64>);
    let focused = RwSignal::new(false);
    let nearest = move |g: f64| {
        points.with(|p| {
            p.iter()
                .min_by(|a, b| (a.gamma - g).abs().total_cmp(&(b.gamma - g).abs()))
                .cloned()
        })
    };
    let path = move |pick: fn(&SweepPoint) -> Option<f64>, top: f64, lo: f64, hi: f64| {
        points.with(|p| {
            p.iter()
                .filter_map(|s| {
                    pick(s).map(|v| format!("{:.1},{:.1}", sx(s.gamma), sy(v, top, lo, hi)))
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
    };
    let set_gamma = move |g: f64| state.gamma.set(gamma_axis::snap(g));
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if gamma_key(&ev, state.gamma) {
            hover.set(None);
        }
    };
    let best_point = Memo::new(move |_| points.with(|p| best_gamma(p)));
    // What the readout shows: the hovered γ, else the current γ.
    let shown = move || nearest(hover.get().unwrap_or_else(|| state.gamma.get()));
    let value_text = move || {
        nearest(state.gamma.get())
            .map(|p| readout(&p))
            .unwrap_or_default()
    };
    view! {
        <figure class="sweep" data-testid="gamma-sweep" data-points=move || points.with(Vec::len)>
            {caption()}
            {move || best_point.get().map(|(g, what, v)| best_line(g, what, v, set_gamma))}
            <svg viewBox=format!("0 0 {W} {H}") tabindex="0" role="slider"
                aria-label="γ on the agreement sweep"
                aria-describedby="sweep-caption"
                aria-valuemin=GAMMA_MIN.to_string() aria-valuemax="1"
                aria-valuenow=move || format!("{:.2}", state.gamma.get())
                aria-valuetext=value_text
                on:click=move |ev| { if let Some(g) = gamma_at_click(AXIS, &ev) { set_gamma(g) } }
                on:mousemove=move |ev| hover.set(gamma_at_click(AXIS, &ev))
                on:mouseleave=move |_| hover.set(None)
                on:focus=move |_| focused.set(true)
                on:blur=move |_| focused.set(false)
                on:keydown=on_key>
                {panel("Kendall τ-b ×100 (overall score)", TAU_TOP, -100.0, false)}
                {band_view(band)}
                <polyline class="sweep-tau" fill="none" points=move || path(|s| s.tau_b, TAU_TOP, -100.0, 100.0)/>
                {panel("Pairwise accuracy (%)", ACC_TOP, 0.0, true)}
                <polyline class="sweep-acc" fill="none" points=move || path(|s| s.pairwise, ACC_TOP, 0.0, 100.0)/>
                {move || points.with(|p| p.iter().step_by(11).filter_map(|s| s.pairwise.map(|v| view! {
                    <circle class="sweep-acc-dot" r="2.5" cx=sx(s.gamma) cy=sy(v, ACC_TOP, 0.0, 100.0)/>
                })).collect_view())}
                {move || points.with(|p| p.iter().all(|s| s.pairwise.is_none())).then(|| view! {
                    <text class="tick" x=LEFT + 10.0 y=ACC_TOP + PANEL_H / 2.0>"No best-of-N groups: no accuracy"</text>
                })}
                <text class="axis-title" x=(LEFT + W - AXIS.right) / 2.0 y=H - 8.0 text-anchor="middle">"γ (weighting)"</text>
                // The current γ in both panels, and the best one.
                <line class="gamma-marker" x1=move || sx(state.gamma.get()) x2=move || sx(state.gamma.get()) y1=TAU_TOP y2=ACC_TOP + PANEL_H/>
                {move || best_point.get().map(|(g, what, v)| best_mark(g, what, v))}
                {move || hover.get().map(|g| view! { <line class="hover-marker" x1=sx(g) x2=sx(g) y1=TAU_TOP y2=ACC_TOP + PANEL_H/> })}
            </svg>
            <p class="sweep-readout" data-testid="sweep-readout" class:active=move || focused.get() || hover.get().is_some()>
                {move || shown().map(|p| readout(&p)).unwrap_or_else(|| "The sweep appears once the results carry human judgments.".into())}
            </p>
            <SweepTable points/>
        </figure>
    }
}

/// What the plot shows and how to set γ on it.
fn caption() -> impl IntoView {
    view! {
        <figcaption id="sweep-caption">
            "Agreement with humans against γ (small γ trusts the criteria the judge is sure of; 1 is the plain mean). Above: Kendall τ-b ×100 of the overall score (scale −100…100, solid line; the shaded band is its 95 % bootstrap interval at γ = 0.01, 0.1, …, 1). Below: pairwise accuracy over best-of-N groups (0…100 %, dashed line with dots). The dashed vertical line is the current γ; "
            <span class="best-mark-legend">"◆"</span>" marks the best γ. Click the plot, or focus it and use the arrow keys (Page Up/Down: 0.1), to set γ."
        </figcaption>
    }
}

/// One panel's frame: its title, y ticks from `lo` to 100 in five steps, its axes, and the γ
/// ticks (labelled under the lower panel only).
fn panel(title: &'static str, top: f64, lo: f64, labels: bool) -> impl IntoView {
    let hi = 100.0;
    let right = W - AXIS.right;
    let bottom = top + PANEL_H;
    let y_ticks = (0..5)
        .map(|i| {
            let t = lo + (hi - lo) * i as f64 / 4.0;
            let y = sy(t, top, lo, hi);
            view! {
                <line class="grid" x1=LEFT x2=right y1=y y2=y/>
                <text class="tick" x=LEFT - 6.0 y=y + 4.0 text-anchor="end">{format!("{t}")}</text>
            }
        })
        .collect_view();
    let x_ticks = gamma_axis::TICKS
        .iter()
        .map(|&g| {
            let x = sx(g);
            view! {
                <line class="axis" x1=x x2=x y1=bottom y2=bottom + 5.0/>
                {labels.then(|| view! { <text class="tick" x=x y=bottom + 19.0 text-anchor=gamma_axis::tick_anchor(g)>{format!("{g}")}</text> })}
            }
        })
        .collect_view();
    view! {
        <text class="panel-title" x=LEFT y=top - 12.0>{title}</text>
        {y_ticks}
        <line class="axis" x1=LEFT x2=LEFT y1=top y2=bottom/>
        <line class="axis" x1=LEFT x2=right y1=bottom y2=bottom/>
        {x_ticks}
    }
}

/// The best γ's diamond and label, in the panel of the measure it is best on.
fn best_mark(g: f64, what: &'static str, v: f64) -> impl IntoView {
    let (top, lo, hi) = if what == "accuracy" {
        (ACC_TOP, 0.0, 100.0)
    } else {
        (TAU_TOP, -100.0, 100.0)
    };
    let (cx, cy) = (sx(g), sy(v, top, lo, hi));
    let flip = cx > W - 90.0;
    let (lx, anchor) = if flip {
        (cx - 8.0, "end")
    } else {
        (cx + 8.0, "start")
    };
    // Above the diamond, unless that would lift it out of the panel into its title (a best
    // value near the top of the scale): then below it.
    let ly = if cy - 20.0 < top { cy + 18.0 } else { cy - 8.0 };
    view! {
        <path class="best-mark" d=format!("M{cx:.1},{:.1} l5,5 l-5,5 l-5,-5 z", cy - 5.0)/>
        <text class="tick best-label" x=lx y=ly text-anchor=anchor>{format!("best γ {g:.2}")}</text>
    }
}

/// The sweep's numbers, for reading without the plot.
#[component]
fn SweepTable(points: Memo<Vec<SweepPoint>>) -> impl IntoView {
    view! {
        <details class="sweep-data">
            <summary>"The sweep as a table"</summary>
            <div class="table-scroll" tabindex="0" role="region" aria-label="The sweep as a table">
                <table class="meta-table" data-testid="sweep-table">
                    <thead><tr><th scope="col">"γ"</th><th scope="col">"τ-b ×100"</th><th scope="col">"τ-c ×100"</th><th scope="col">"Pairwise accuracy (%)"</th></tr></thead>
                    <tbody>
                        {move || points.get().into_iter().map(|p| view! {
                            <tr><td>{format!("{:.2}", p.gamma)}</td><td>{pct(p.tau_b)}</td><td>{pct(p.tau_c)}</td><td>{pct(p.pairwise)}</td></tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        </details>
    }
}
