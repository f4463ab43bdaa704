//! "A view that teaches γ": each criterion's weight against γ as stacked bands, with σ per
//! criterion, a readout on hover and on keyboard focus, a table alternative and a short
//! glossary. The numbers come from `metrics::harmonic_eval::weights_view`.
//!
//! The SVG, the table and the glossary are written as markup strings (our own numbers and
//! labels only, no user text) and set with `inner_html`: as typed Leptos views the chart cost
//! about 9 KB gzip of wasm; one string builder costs a fraction of that. The readout listens on
//! the container (events bubble from the bands, which carry `data-k`).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::metrics::harmonic_eval::weights_view::{
    band, weight_curve, WeightsAt, GLOSSARY, POINTS,
};
use crate::scoring::criteria::Criterion;
use crate::scoring::plot_frame::PlotFrame;
use crate::ui::state::AppState;

// Room under the plot (bottom: 40) for the γ ticks and, below them, the axis title.
const FRAME: PlotFrame = PlotFrame::new(340.0, 206.0, [40.0, 8.0, 8.0, 40.0]);

fn x(g: f64) -> f64 {
    FRAME.gamma_axis().x(g)
}

fn y(w: f64) -> f64 {
    FRAME.top + (1.0 - w.clamp(0.0, 1.0)) * FRAME.inner_height()
}

/// The closed outline of one band: along its top, back along its bottom.
fn outline(bands: &[(f64, f64, f64)]) -> String {
    let top = bands
        .iter()
        .map(|&(g, _, hi)| format!("{:.1},{:.1}", x(g), y(hi)));
    let bottom = bands
        .iter()
        .rev()
        .map(|&(g, lo, _)| format!("{:.1},{:.1}", x(g), y(lo)));
    top.chain(bottom).collect::<Vec<_>>().join(" ")
}

fn sigma_text(sigma: Option<f64>) -> String {
    sigma.map_or("σ unknown (printed rating)".to_string(), |s| {
        format!("σ = {s:.2}")
    })
}

/// What the readout says about criterion `c` at γ.
fn readout(c: Criterion, gamma: f64, weight: Option<f64>, sigma: Option<f64>) -> String {
    match weight {
        Some(w) => format!(
            "{}: weight {:.0} % at γ = {gamma:.2} ({})",
            c.label(),
            w * 100.0,
            sigma_text(sigma)
        ),
        None => format!("{}: no score, no weight", c.label()),
    }
}

/// The chart's markup (bands, ticks, cursor at `gamma`).
fn svg(curve: &[WeightsAt], sigmas: &[Option<f64>; 5], gamma: f64) -> String {
    let mut s = format!(
        "<svg class=\"weights-plot\" data-testid=\"weights-plot\" data-points=\"{}\" viewBox=\"{}\" role=\"group\" \
         aria-label=\"Each criterion's weight (0 to 100 %) against γ (0.01 to 1), stacked\">",
        curve.len(),
        FRAME.view_box()
    );
    let at = |k: usize| {
        curve
            .iter()
            .min_by(|a, b| (a.gamma - gamma).abs().total_cmp(&(b.gamma - gamma).abs()))
            .and_then(|p| p.weights[k])
    };
    for c in Criterion::ALL {
        let k = c.index();
        s += &format!(
            "<polygon class=\"band band-{k}\" data-k=\"{k}\" tabindex=\"0\" role=\"img\" aria-label=\"{}\" points=\"{}\"></polygon>",
            readout(c, gamma, at(k), sigmas[k]),
            outline(&band(curve, k))
        );
    }
    for g in [0.01, 0.5, 0.75, 1.0] {
        s += &format!(
            "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{}\">{g}</text>",
            x(g),
            FRAME.bottom_y() + 16.0,
            crate::scoring::gamma_axis::tick_anchor(g)
        );
    }
    for w in [0.0, 0.5, 1.0] {
        s += &format!(
            "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{:.0}%</text>",
            FRAME.left - 6.0,
            y(w) + 4.0,
            w * 100.0
        );
    }
    let cx = x(gamma);
    s += &format!(
        "<text class=\"axis-title\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">γ</text>\
         <line class=\"cursor\" x1=\"{cx:.1}\" x2=\"{cx:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"></line></svg>",
        (FRAME.left + FRAME.right_x()) / 2.0,
        FRAME.height - 4.0,
        FRAME.top,
        FRAME.bottom_y()
    );
    s
}

/// The legend, the table (every other point) and the glossary.
fn details(curve: &[WeightsAt], sigmas: &[Option<f64>; 5]) -> String {
    let mut s = String::from("<ul class=\"weights-legend\">");
    for c in Criterion::ALL {
        let k = c.index();
        s += &format!(
            "<li><span class=\"swatch band-{k}\" aria-hidden=\"true\">{n}</span>{n}. {} · {}</li>",
            c.label(),
            sigma_text(sigmas[k]),
            n = k + 1
        );
    }
    s += "</ul><details class=\"weights-data\"><summary>The weights as a table</summary>\
          <table class=\"weights-table\" data-testid=\"weights-table\"><thead><tr><th scope=\"col\">γ</th>";
    for c in Criterion::ALL {
        s += &format!("<th scope=\"col\">{}</th>", c.label());
    }
    s += "</tr></thead><tbody>";
    for p in curve.iter().step_by(2) {
        s += &format!("<tr><td>{:.2}</td>", p.gamma);
        for w in &p.weights {
            s += &w.map_or("<td>–</td>".to_string(), |w| {
                format!("<td>{:.0} %</td>", w * 100.0)
            });
        }
        s += "</tr>";
    }
    s += "</tbody></table></details><dl class=\"glossary\">";
    for (term, meaning) in GLOSSARY {
        s += &format!("<dt>{term}</dt><dd>{meaning}</dd>");
    }
    s + "</dl>"
}

/// The criterion whose band an event came from.
fn band_of(ev: &web_sys::Event) -> Option<Criterion> {
    let el: web_sys::Element = ev.target()?.dyn_into().ok()?;
    let k: usize = el.get_attribute("data-k")?.parse().ok()?;
    Criterion::ALL.get(k).copied()
}

#[component]
pub fn WeightsChart() -> impl IntoView {
    let state = expect_context::<AppState>();
    let data = Memo::new(move |_| {
        let results: Vec<_> = state
            .results
            .harmonic_eval
            .criteria
            .iter()
            .map(|s| s.with(|s| s.result().cloned()))
            .collect();
        let refs: Vec<_> = results.iter().map(Option::as_ref).collect();
        let sigmas: [Option<f64>; 5] =
            std::array::from_fn(|i| results[i].as_ref().and_then(|r| r.sigma));
        (weight_curve(&refs, POINTS), sigmas)
    });
    let focused = RwSignal::new(None::<Criterion>);
    let text = move || match focused.get() {
        Some(c) => readout(
            c,
            state.settings.gamma.get(),
            state.results.harmonic_eval.weighting.get().0[c.index()],
            data.with(|d| d.1[c.index()]),
        ),
        None => "Point at or tab to a band to read its weight.".to_string(),
    };
    let pick = move |ev: &web_sys::Event| {
        if let Some(c) = band_of(ev) {
            focused.set(Some(c));
        }
    };
    view! {
        <Show when=move || data.with(|d| !d.0.is_empty())>
            <section class="weights" aria-labelledby="weights-heading">
                <h3 id="weights-heading">"How γ shares the weight among the criteria"</h3>
                <div class="weights-chart" on:mouseover=move |ev: web_sys::MouseEvent| pick(ev.as_ref())
                    on:focusin=move |ev: web_sys::FocusEvent| pick(ev.as_ref())
                    inner_html=move || data.with(|d| svg(&d.0, &d.1, state.settings.gamma.get()))></div>
                <p class="weights-readout" aria-live="polite" data-testid="weights-readout">{text}</p>
                <div inner_html=move || data.with(|d| details(&d.0, &d.1))></div>
            </section>
        </Show>
    }
}
