//! The γ slider, its named points, and a plot of this result's overall score against γ.

use leptos::prelude::*;

use super::state::AppState;
use crate::aggregate::{overall_curve, Scored, GAMMA_MIN};

/// The paper's named settings of γ (Section 3, Appendix A).
const NAMED_GAMMAS: [(f64, &str); 4] = [
    (0.01, "selective"),
    (0.5, "inverse-variance"),
    (0.75, "default"),
    (1.0, "uniform"),
];

const PLOT_W: f64 = 320.0;
const PLOT_H: f64 = 120.0;
const PAD: f64 = 28.0;

#[component]
pub fn GammaPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let gamma = state.gamma;
    let curve = Memo::new(move |_| {
        let scored: Vec<Scored> = state
            .criteria
            .iter()
            .filter_map(|c| c.with(|s| s.result().map(|r| r.scored())))
            .collect();
        overall_curve(&scored, 100)
    });
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
            <GammaPlot curve=curve gamma=gamma/>
        </div>
    }
}

/// SVG polyline of S(γ); clicking sets γ.
#[component]
fn GammaPlot(curve: Memo<Vec<(f64, f64)>>, gamma: RwSignal<f64>) -> impl IntoView {
    // Vertical range: the curve's own range, padded, so small movements are visible.
    let y_range = move || {
        curve.with(|c| {
            let lo = c.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
            let hi = c.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
            let pad = ((hi - lo) * 0.1).max(0.05);
            ((lo - pad).max(1.0), (hi + pad).min(5.0))
        })
    };
    let x = |g: f64| PAD + (g - GAMMA_MIN) / (1.0 - GAMMA_MIN) * (PLOT_W - 2.0 * PAD);
    let y = move |s: f64| {
        let (lo, hi) = y_range();
        PLOT_H - PAD / 2.0 - (s - lo) / (hi - lo).max(1e-9) * (PLOT_H - PAD)
    };
    let points = move || {
        curve.with(|c| {
            c.iter()
                .map(|&(g, s)| format!("{:.1},{:.1}", x(g), y(s)))
                .collect::<Vec<_>>()
                .join(" ")
        })
    };
    let current = move || {
        let g = gamma.get();
        let (_, s) = curve.with(|c| {
            c.iter()
                .copied()
                .min_by(|a, b| (a.0 - g).abs().total_cmp(&(b.0 - g).abs()))
                .unwrap_or((g, 0.0))
        });
        (x(g), y(s))
    };
    let on_click = move |ev: web_sys::MouseEvent| {
        let Some(target) = ev.current_target() else {
            return;
        };
        use wasm_bindgen::JsCast;
        let el: web_sys::Element = target.unchecked_into();
        let rect = el.get_bounding_client_rect();
        let fx = (ev.client_x() as f64 - rect.left()) / rect.width().max(1.0) * PLOT_W;
        let g = GAMMA_MIN + (fx - PAD) / (PLOT_W - 2.0 * PAD) * (1.0 - GAMMA_MIN);
        gamma.set((g.clamp(GAMMA_MIN, 1.0) * 100.0).round() / 100.0);
    };
    view! {
        <Show
            when=move || curve.with(|c| !c.is_empty())
            fallback=|| view! { <p class="hint">"The plot of the score against γ appears after a run."</p> }
        >
            <svg
                class="gamma-plot"
                data-testid="gamma-plot"
                viewBox=format!("0 0 {PLOT_W} {PLOT_H}")
                role="img"
                aria-label="Overall score as a function of γ; click to set γ"
                on:click=on_click
            >
                <line class="axis" x1=PAD y1=PLOT_H - PAD / 2.0 x2=PLOT_W - PAD y2=PLOT_H - PAD / 2.0/>
                <text class="tick" x=PAD y=PLOT_H - 2.0>"0.01"</text>
                <text class="tick" x=PLOT_W - PAD - 8.0 y=PLOT_H - 2.0>"1"</text>
                <text class="tick" x="2" y="12">{move || format!("{:.2}", y_range().1)}</text>
                <text class="tick" x="2" y=PLOT_H - PAD / 2.0>{move || format!("{:.2}", y_range().0)}</text>
                <polyline class="curve" points=points fill="none"/>
                <line class="cursor" x1=move || current().0 x2=move || current().0 y1="0" y2=PLOT_H - PAD / 2.0/>
                <circle class="dot" r="4" cx=move || current().0 cy=move || current().1/>
            </svg>
        </Show>
    }
}
