//! The metric's overall score against the human rating, one dot per item, and the items where
//! the two disagree most, one click (or Enter) away from their details.

use leptos::prelude::*;

use crate::lab::compare::{disagreements, scatter, ScatterPoint};
use crate::scoring::plot_frame::PlotFrame;
use crate::ui::lab::batch_state::BatchState;
use crate::ui::state::Settings;

// Room for the tick labels and the rotated axis title beside them in every engine: at a left
// margin of 48, Firefox and WebKit drew "3.18" into "Metric score" (tests/e2e/test_browsers.py).
const FRAME: PlotFrame = PlotFrame::new(380.0, 260.0, [54.0, 14.0, 14.0, 46.0]);
/// Rows of the points table drawn at once.
const TABLE_ROWS: usize = 500;

/// Above this many items, a dot on the tenth of a pixel of one drawn already is not drawn again.
const ONE_SEGMENT_PER_ITEM_UP_TO: usize = 10_000;

/// Every item is one dot, all in a single `<path>` (a zero-length segment per item, drawn with
/// a round cap): one DOM node whatever the number of items, so 10,000 dots cost one string and
/// one paint, not 10,000 elements. Only the dots one can click (the five that disagree most and
/// the open item) are elements of their own. Beyond `ONE_SEGMENT_PER_ITEM_UP_TO` items, a dot
/// where one is drawn already (to the path's tenth of a pixel) is left out: the picture is the
/// same, and a million results (a few thousand places, as human ratings are few) no longer
/// make a path of sixteen megabytes.
fn dots_path(points: &[ScatterPoint], sx: impl Fn(f64) -> f64, sy: impl Fn(f64) -> f64) -> String {
    use std::fmt::Write;
    let every = points.len() <= ONE_SEGMENT_PER_ITEM_UP_TO;
    let mut seen = std::collections::HashSet::new();
    let mut d = String::new();
    for p in points {
        let (x, y) = (sx(p.human), sy(p.metric));
        if every || seen.insert(((x * 10.0).round() as i64, (y * 10.0).round() as i64)) {
            let _ = write!(d, "M{x:.1} {y:.1}h0");
        }
    }
    d
}

/// γ, but only once it has stopped moving for a moment: the scatter and the comparison
/// (O(n log n) over every item) follow it, so dragging the slider re-aggregates only what the
/// meta-evaluation needs.
pub(crate) fn settled_gamma(state: Settings) -> RwSignal<f64> {
    let settled = RwSignal::new(state.gamma.get_untracked());
    let pending = StoredValue::new(None::<leptos::leptos_dom::helpers::TimeoutHandle>);
    Effect::new(move |_| {
        let g = state.gamma.get();
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let h = set_timeout_with_handle(
            move || settled.set(g),
            std::time::Duration::from_millis(150),
        )
        .ok();
        pending.set_value(h);
    });
    settled
}

/// A range padded to whole steps, and its ticks: integers when the span is small, else five.
fn axis(values: impl Iterator<Item = f64>) -> (f64, f64, Vec<f64>) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    if !lo.is_finite() {
        return (0.0, 1.0, vec![0.0, 0.5, 1.0]);
    }
    if hi - lo >= 2.0 && hi - lo <= 10.0 {
        let (lo, hi) = (lo.floor(), hi.ceil());
        return (lo, hi, (lo as i64..=hi as i64).map(|v| v as f64).collect());
    }
    let span = (hi - lo).max(1e-9);
    let (lo, hi) = (lo - span * 0.05, hi + span * 0.05);
    let ticks = (0..5).map(|i| lo + (hi - lo) * i as f64 / 4.0).collect();
    (lo, hi, ticks)
}

fn label(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

#[component]
pub fn ScatterPlot(results: crate::ui::lab::batch_state::Used) -> impl IntoView {
    let state = expect_context::<Settings>();
    let b = expect_context::<BatchState>();
    let gamma = settled_gamma(state);
    let points = Memo::new(move |_| {
        let gamma = gamma.get();
        crate::web::timing::measure("hj-scatter", || results.with(|r| scatter(r, gamma)))
    });
    let worst = Memo::new(move |_| points.with(|p| disagreements(p, 5)));
    // The dots that are elements of their own: the five that disagree most, and the open item.
    let marked = Memo::new(move |_| {
        let selected = b.selected.get();
        let worst_ids: Vec<String> = worst.with(|w| w.iter().map(|(p, _)| p.id.clone()).collect());
        points.with(|p| {
            p.iter()
                .filter(|x| worst_ids.contains(&x.id) || selected.as_deref() == Some(x.id.as_str()))
                .cloned()
                .collect::<Vec<ScatterPoint>>()
        })
    });
    let open = move |id: String| {
        b.selected.set(Some(id));
        request_animation_frame(|| {
            use wasm_bindgen::JsCast;
            if let Some(el) = document()
                .get_element_by_id("result-detail-panel")
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = el.focus();
            }
        });
    };
    view! {
        <figure class="scatter" data-testid="scatter-plot" data-points=move || points.with(Vec::len) data-drawn=move || points.with(Vec::len)>
            <figcaption id="scatter-caption">
                "The metric's overall score (at the current γ) against the mean human rating, one dot per item with both, every item drawn; both axes span the data, not the whole scale. A dot far from the rising trend is an item where they disagree; the five that disagree most (by rank) are ringed and listed below. Hover a ringed dot for its item; click it, or its line below, to open it."
            </figcaption>
            {move || points.with(|all| scatter_svg(b, all, marked.get()))}
            <div class="disagree">
                <h4 id="disagree-title">"Where the metric and the humans disagree most"</h4>
                <ol data-testid="disagreements" aria-labelledby="disagree-title">
                    {move || worst.get().into_iter().map(|(p, gap)| {
                        let id = p.id.clone();
                        view! {
                            <li>
                                <button class="link" on:click=move |_| open(id.clone())>{p.id.clone()}</button>
                                {format!(" human {:.2} · metric {:.3} · rank gap {:.0} %", p.human, p.metric, gap * 100.0)}
                            </li>
                        }
                    }).collect_view()}
                </ol>
            </div>
            {points_table(points)}
        </figure>
    }
}

/// The plot itself: axes, every dot in one path, and the clickable marked dots.
fn scatter_svg(b: BatchState, all: &[ScatterPoint], pts: Vec<ScatterPoint>) -> AnyView {
    if all.is_empty() {
        return view! { <p class="hint">"No item has both a score and a human overall rating."</p> }.into_any();
    }
    let (xl, xh, xt) = axis(all.iter().map(|p| p.human));
    let (yl, yh, yt) = axis(all.iter().map(|p| p.metric));
    let (left, top, right, bottom) = (FRAME.left, FRAME.top, FRAME.right_x(), FRAME.bottom_y());
    let sx = move |v: f64| left + (v - xl) / (xh - xl) * FRAME.inner_width();
    let sy = move |v: f64| top + (yh - v) / (yh - yl) * FRAME.inner_height();
    let selected = b.selected.get();
    let dots = dots_path(all, sx, sy);
    view! {
        <svg viewBox=FRAME.view_box() role="img" aria-labelledby="scatter-caption">
            {yt.iter().map(|&v| view! {
                <line class="grid" x1=left x2=right y1=sy(v) y2=sy(v)/>
                <text class="tick" x=left - 6.0 y=sy(v) + 4.0 text-anchor="end">{label(v)}</text>
            }).collect_view()}
            {xt.iter().map(|&v| view! {
                <line class="axis" x1=sx(v) x2=sx(v) y1=bottom y2=bottom + 5.0/>
                <text class="tick" x=sx(v) y=bottom + 18.0 text-anchor="middle">{label(v)}</text>
            }).collect_view()}
            <line class="axis" x1=left x2=right y1=bottom y2=bottom/>
            <line class="axis" x1=left x2=left y1=top y2=bottom/>
            <text class="axis-title" x=(left + right) / 2.0 y=FRAME.height - 6.0 text-anchor="middle">"Human rating (mean)"</text>
            <text class="axis-title" transform=format!("translate(13 {}) rotate(-90)", (top + bottom) / 2.0) text-anchor="middle">"Metric score"</text>
            <path class="dots" data-testid="scatter-dots" data-count=all.len() d=dots/>
            {pts.iter().map(|p| {
                let on = selected.as_deref() == Some(p.id.as_str());
                let id = p.id.clone();
                view! {
                    <circle class="dot" class:selected=on r=if on { 6.0 } else { 4.0 } cx=sx(p.human) cy=sy(p.metric)
                        on:click=move |_| b.selected.set(Some(id.clone()))>
                        <title>{format!("{}: human {:.2}, metric {:.3}", p.id, p.human, p.metric)}</title>
                    </circle>
                }
            }).collect_view()}
        </svg>
    }.into_any()
}

/// The points as a table (the first `TABLE_ROWS`), for reading without the plot.
fn points_table(points: Memo<Vec<ScatterPoint>>) -> impl IntoView {
    view! {
        <details class="sweep-data">
            <summary>"The points as a table"</summary>
            <div class="table-scroll" tabindex="0" role="region" aria-label="The scatter plot's points as a table">
                <table class="meta-table" data-testid="scatter-table">
                    <thead><tr><th scope="col">"Item"</th><th scope="col">"Human rating (mean)"</th><th scope="col">"Metric score"</th></tr></thead>
                    <tbody>
                        {move || points.with(|p| p.iter().take(TABLE_ROWS).map(|p| view! {
                            <tr><th scope="row">{p.id.clone()}</th><td>{format!("{:.2}", p.human)}</td><td>{format!("{:.3}", p.metric)}</td></tr>
                        }).collect_view())}
                    </tbody>
                </table>
            </div>
            {move || points.with(|p| (p.len() > TABLE_ROWS).then(|| view! {
                <p class="hint">{format!("The first {TABLE_ROWS} of {} points; the results export holds them all.", p.len())}</p>
            }))}
        </details>
    }
}
