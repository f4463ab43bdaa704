//! The γ slider, its named points, and a plot of this result's overall score against γ.

use leptos::prelude::*;

use crate::scoring::gamma_axis::GAMMA_MIN;
use crate::scoring::gamma_axis::{self, GammaAxis};
use crate::scoring::plot_frame::PlotFrame;
use crate::ui::state::Settings;
use crate::ui::widgets::gamma_events::gamma_at_click;

/// The paper's named settings of γ (Section 3, Appendix A).
const NAMED_GAMMAS: [(f64, &str); 4] = [
    (0.01, "selective"),
    (0.5, "inverse-variance"),
    (0.75, "default"),
    (1.0, "uniform"),
];

/// Room for the y ticks and title on the left (44), and for the x ticks and title below (44).
const FRAME: PlotFrame = PlotFrame::new(340.0, 190.0, [44.0, 12.0, 10.0, 44.0]);
const AXIS: GammaAxis = FRAME.gamma_axis();

/// `no_plot`: the one-item page plots this result's score against γ; the lab, which has no
/// single result, sets it (no_plot) and plots agreement against γ in its meta-evaluation.
#[component]
pub fn GammaPanel(
    settings: Settings,
    /// The evaluator's overall score against γ, plotted unless `no_plot` (the lab has none).
    curve: Option<Memo<Vec<(f64, f64)>>>,
    #[prop(optional)] no_plot: bool,
) -> impl IntoView {
    let gamma = settings.gamma;
    view! {
        <div class="gamma">
            <label for="gamma-slider">
                "γ (weighting) = " <output data-testid="gamma-value">{move || format!("{:.2}", gamma.get())}</output>
            </label>
            <input
                id="gamma-slider"
                data-testid="gamma-slider"
                type="range"
                min=GAMMA_MIN.to_string()
                max="1"
                step="0.01"
                list="gamma-marks"
                aria-describedby="gamma-help"
                prop:value=move || format!("{:.2}", gamma.get())
                on:input=move |ev| {
                    if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                        gamma.set(v.clamp(GAMMA_MIN, 1.0));
                    }
                }
            />
            <datalist id="gamma-marks">
                {NAMED_GAMMAS.iter().map(|(g, name)| view! { <option value=g.to_string() label=*name></option> }).collect_view()}
            </datalist>
            <div class="gamma-marks" role="group" aria-label="Named settings of γ">
                {NAMED_GAMMAS
                    .iter()
                    .map(|&(g, name)| view! {
                        <button
                            class="mark"
                            class:active=move || (gamma.get() - g).abs() < 1e-9
                            on:click=move |_| gamma.set(g)
                        >
                            {format!("{name} {g}")}
                        </button>
                    })
                    .collect_view()}
            </div>
            <p id="gamma-help" class="hint">
                "γ = 1 averages the criteria; smaller γ gives more weight to criteria the judge is sure of (small σ). Moving it re-weights instantly, without asking the model again."
            </p>
            {curve.filter(|_| !no_plot).map(|curve| view! { <GammaPlot curve=curve gamma=gamma/> })}
        </div>
    }
}

/// The plot's markup: S(γ) on the full 1–5 scale (never zoomed, so small changes look small),
/// a cursor and a dot at `gamma`. Written as a string and set with `inner_html` (our numbers
/// only): as typed views the plot cost several KB of wasm.
fn plot_svg(curve: &[(f64, f64)], gamma: f64) -> String {
    let x = |g: f64| AXIS.x(g);
    let (left, top, bottom, view_box) = (FRAME.left, FRAME.top, FRAME.bottom_y(), FRAME.view_box());
    let y = |s: f64| top + (5.0 - s.clamp(1.0, 5.0)) / 4.0 * FRAME.inner_height();
    let s_at = curve
        .iter()
        .copied()
        .min_by(|a, b| (a.0 - gamma).abs().total_cmp(&(b.0 - gamma).abs()))
        .map_or(0.0, |p| p.1);
    let mut out = format!(
        "<svg class=\"gamma-plot\" data-testid=\"gamma-plot\" data-y-min=\"1\" data-y-max=\"5\" \
         viewBox=\"{view_box}\" role=\"img\" aria-label=\"Overall score (scale 1 to 5) against γ \
         (0.01 to 1); at γ = {gamma:.2} it is {s_at:.2}. Click to set γ, or use the slider.\">"
    );
    for s in [1.0, 2.0, 3.0, 4.0, 5.0] {
        out += &format!(
            "<line class=\"grid\" x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\"></line>\
             <text class=\"tick\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{s}</text>",
            FRAME.right_x(),
            left - 6.0,
            y(s) + 4.0,
            y = y(s)
        );
    }
    for g in gamma_axis::TICKS {
        out += &format!(
            "<line class=\"axis\" x1=\"{gx:.1}\" x2=\"{gx:.1}\" y1=\"{bottom}\" y2=\"{}\"></line>\
             <text class=\"tick\" x=\"{gx:.1}\" y=\"{}\" text-anchor=\"{}\">{g}</text>",
            bottom + 4.0,
            bottom + 16.0,
            gamma_axis::tick_anchor(g),
            gx = x(g)
        );
    }
    let points: Vec<String> = curve
        .iter()
        .map(|&(g, s)| format!("{:.1},{:.1}", x(g), y(s)))
        .collect();
    let (cx, cy) = (x(gamma), y(s_at));
    out += &format!(
        "<line class=\"axis\" x1=\"{left}\" y1=\"{bottom}\" x2=\"{r}\" y2=\"{bottom}\"></line>\
         <line class=\"axis\" x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{bottom}\"></line>\
         <text class=\"axis-title\" x=\"{mid}\" y=\"{}\" text-anchor=\"middle\">γ (weighting)</text>\
         <text class=\"axis-title\" transform=\"translate(12 {}) rotate(-90)\" text-anchor=\"middle\">Overall score (1–5)</text>\
         <polyline class=\"curve\" points=\"{}\" fill=\"none\"></polyline>\
         <line class=\"cursor\" x1=\"{cx:.1}\" x2=\"{cx:.1}\" y1=\"{top}\" y2=\"{bottom}\"></line>\
         <circle class=\"dot\" r=\"4\" cx=\"{cx:.1}\" cy=\"{cy:.1}\"></circle></svg>",
        FRAME.height - 6.0,
        (top + bottom) / 2.0,
        points.join(" "),
        r = FRAME.right_x(),
        mid = (left + FRAME.right_x()) / 2.0
    );
    out
}

/// The curve's table: γ = 0.01, 0.1, 0.2, …, 1, each the curve's nearest point.
fn table_rows(curve: &[(f64, f64)]) -> String {
    (0..=10)
        .map(|i| {
            let g = if i == 0 { GAMMA_MIN } else { i as f64 / 10.0 };
            let s = curve
                .iter()
                .min_by(|a, b| (a.0 - g).abs().total_cmp(&(b.0 - g).abs()))
                .map(|p| p.1);
            format!(
                "<tr><td>{g:.2}</td><td>{}</td></tr>",
                s.map(|s| format!("{s:.3}")).unwrap_or_default()
            )
        })
        .collect()
}

/// S(γ) as a plot (clicking sets γ) and as a table.
#[component]
fn GammaPlot(curve: Memo<Vec<(f64, f64)>>, gamma: RwSignal<f64>) -> impl IntoView {
    let on_click = move |ev: web_sys::MouseEvent| {
        // The box holds only the plot, whose width it takes: the same horizontal mapping.
        if let Some(g) = gamma_at_click(AXIS, &ev) {
            gamma.set(g);
        }
    };
    view! {
        <Show
            when=move || curve.with(|c| !c.is_empty())
            fallback=|| view! { <p class="hint">"The plot of the score against γ appears after a run."</p> }
        >
            <div class="gamma-plot-box" on:click=on_click
                inner_html=move || curve.with(|c| plot_svg(c, gamma.get()))></div>
            <details class="gamma-data">
                <summary>"The curve as a table"</summary>
                <table class="gamma-table" data-testid="gamma-table">
                    <thead><tr><th scope="col">"γ"</th><th scope="col">"Overall score"</th></tr></thead>
                    <tbody inner_html=move || curve.with(|c| table_rows(c))></tbody>
                </table>
            </details>
        </Show>
    }
}
