//! Meta-evaluation: agreement with human judgments (Kendall τ-b / τ-c, pairwise accuracy), a
//! table laid out like the HarmonicEval paper's Table 2 with its published numbers, and the γ
//! sweep plotted from the stored distributions (a click or the arrow keys set γ).

use leptos::prelude::*;

use crate::ui::batch_state::BatchState;
use crate::ui::state::AppState;
use crate::lab::analysis::{Agreement, MetaReport, Prepared, SweepPoint};
use crate::lab::ItemResult;
use crate::meta::RatingProtocol;
use crate::task::Task;
use crate::web::timing;

/// HarmonicEval paper, Table 2: accuracy (%) on MMHE, per task REG, VQA, VDU, IC and average.
const PUBLISHED: [(&str, [f64; 5]); 3] = [
    ("FLEUR", [62.9, 76.4, 60.9, 73.9, 68.5]),
    ("GPT-FLEUR", [60.1, 75.0, 76.5, 76.0, 71.9]),
    ("HarmonicEval", [66.6, 76.4, 73.4, 77.0, 73.4]),
];
const TABLE_TASKS: [Task; 4] = [Task::Reg, Task::Vqa, Task::Vdu, Task::Ic];

fn pct(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.1}")).unwrap_or_else(|| "–".into())
}

fn attr(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn agreement_cells(id: String, a: Agreement) -> impl IntoView {
    view! {
        <td data-testid=format!("meta-{id}-tau-b") data-value=attr(a.tau_b)>{pct(a.tau_b)}</td>
        <td data-testid=format!("meta-{id}-tau-c") data-value=attr(a.tau_c)>{pct(a.tau_c)}</td>
        <td>{a.n}</td>
    }
}

#[component]
pub fn MetaPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let b = expect_context::<BatchState>();
    // The γ-independent preparation is rebuilt when the results change and reused for every
    // γ, so moving the slider only re-aggregates and re-ranks.
    // Items scored on fewer than all their criteria are left out unless the user keeps them:
    // their overall rests on whichever criteria happened to succeed.
    let all_only = RwSignal::new(true);
    let used = Memo::new(move |_| {
        let keep_partial = !all_only.get();
        b.results.with(|all| {
            all.iter()
                .filter(|r| keep_partial || !r.is_partial())
                .cloned()
                .collect::<Vec<ItemResult>>()
        })
    });
    let counts = move || {
        let partial = b
            .results
            .with(|r| r.iter().filter(|x| x.is_partial()).count());
        (used.with(Vec::len), b.results.with(Vec::len), partial)
    };
    // How several human ratings per item enter τ: CLIPScore's repeated ratings (default) or
    // G-VEval's averaged rating.
    let protocol = RwSignal::new(RatingProtocol::Repeated);
    let changes = StoredValue::new(0u64);
    let version = Memo::new(move |_| {
        used.track();
        protocol.track();
        changes.update_value(|n| *n += 1);
        changes.get_value()
    });
    let prepared = StoredValue::new_local(None::<(u64, Prepared)>);
    // Runs `f` on the preparation for the current results, building it on their first use.
    let with_prepared =
        move |f: &mut dyn FnMut(&mut Prepared, &[ItemResult]) -> Option<MetaReport>| {
            let v = version.get();
            used.with(|results| {
                prepared
                    .try_update_value(|slot| {
                        if slot.as_ref().map(|(k, _)| *k) != Some(v) {
                            *slot = Some((
                                v,
                                Prepared::with_protocol(results, protocol.get_untracked()),
                            ));
                        }
                        f(&mut slot.as_mut()?.1, results)
                    })
                    .flatten()
            })
        };
    // Per-criterion τ does not depend on γ: computed once per set of results.
    let criteria = Memo::new(move |_| {
        with_prepared(&mut |p, results| {
            Some(MetaReport {
                overall: Agreement::default(),
                criteria: p.criteria(results),
                pairwise: None,
                pairwise_counts: Default::default(),
                skipped_groups: 0,
            })
        })
        .map(|r| r.criteria)
        .unwrap_or_default()
    });
    // What a γ change redoes: the overall scores, their τ and the pairwise accuracy.
    let report = Memo::new(move |_| {
        let gamma = state.gamma.get();
        let criteria = criteria.get();
        with_prepared(&mut |p, results| {
            if !p.has_judgments() {
                return None;
            }
            let (overall, counts) =
                timing::measure("hj-reaggregate", || p.overall_at(results, gamma));
            Some(MetaReport {
                overall,
                criteria: criteria.clone(),
                pairwise: counts.accuracy().map(|a| 100.0 * a),
                pairwise_counts: counts,
                skipped_groups: p.skipped_groups(),
            })
        })
    });
    let sweep = Memo::new(move |_| {
        version.track();
        used.with(|results| {
            let mut p = Prepared::with_protocol(results, protocol.get_untracked());
            if p.has_judgments() {
                timing::measure("hj-sweep", || p.sweep(results, 100))
            } else {
                Vec::new()
            }
        })
    });
    // The Table-2 row: per-task accuracy from the same overall scores (read after `report`).
    let per_task = Memo::new(move |_| {
        report.track();
        let tasks: Vec<Option<f64>> = prepared.with_value(|slot| {
            let p = slot.as_ref().map(|(_, p)| p);
            TABLE_TASKS
                .iter()
                .map(|t| p.and_then(|p| p.task_accuracy(t.id())))
                .collect()
        });
        let known: Vec<f64> = tasks.iter().flatten().copied().collect();
        let avg = (!known.is_empty()).then(|| known.iter().sum::<f64>() / known.len() as f64);
        (tasks, avg)
    });
    view! {
        <section class="meta" aria-label="Meta-evaluation">
            <h2>"Agreement with human judgments"</h2>
            <p class="hint" data-testid="meta-items" data-used=move || counts().0 data-partial=move || counts().2>
                {move || {
                    let (used_n, all_n, partial) = counts();
                    format!("Uses {used_n} of {all_n} items (failed items have no score to compare).{}",
                        if partial > 0 && all_only.get() { format!(" {partial} scored on fewer than all criteria are left out.") } else { String::new() })
                }}
            </p>
            <label class="check">
                <input type="checkbox" data-testid="meta-all-criteria-checkbox"
                    prop:checked=move || all_only.get()
                    on:change=move |ev| all_only.set(event_target_checked(&ev))/>
                "Only items scored on every criterion"
            </label>
            <div class="field">
                <label for="rating-protocol-select">"Several ratings per item"</label>
                <select id="rating-protocol-select" data-testid="rating-protocol-select"
                    prop:value=move || protocol.get().id()
                    on:change=move |ev| protocol.set(RatingProtocol::from_id(&event_target_value(&ev)))>
                    {RatingProtocol::ALL.iter().map(|p| view! { <option value=p.id()>{p.label()}</option> }).collect_view()}
                </select>
                <small class="hint">"FLEUR's Flickr8k-Expert figures use the first, G-VEval's (61.5 / 59.7) the second."</small>
            </div>
            {move || match report.get() {
                None => view! { <p class="hint" data-testid="meta-empty">"No human judgments in these results (human_overall, human_<criterion>, or group + chosen)."</p> }.into_any(),
                Some(r) => view! {
                    <div class="table-scroll" tabindex="0" role="region" aria-label="Agreement with human judgments">
                    <table class="meta-table">
                        <thead><tr><th scope="col">"Score"</th><th scope="col">"τ-b ×100"</th><th scope="col">"τ-c ×100"</th><th scope="col">"n"</th></tr></thead>
                        <tbody>
                            <tr><th>{move || format!("Overall (γ = {:.2})", state.gamma.get())}</th>{agreement_cells("overall".into(), r.overall)}</tr>
                            {r.criteria.iter().map(|(c, a)| view! { <tr><th>{c.label()}</th>{agreement_cells(c.id().into(), *a)}</tr> }).collect_view()}
                        </tbody>
                    </table>
                    </div>
                    <p data-testid="meta-pairwise-accuracy" data-value=attr(r.pairwise)>
                        {format!(
                            "Pairwise accuracy: {} % over {} pairs from best-of-N groups ({} ties, counted wrong){}",
                            pct(r.pairwise), r.pairwise_counts.pairs, r.pairwise_counts.ties,
                            if r.skipped_groups > 0 {
                                format!("; {} groups without a single choice left out", r.skipped_groups)
                            } else {
                                String::new()
                            }
                        )}
                    </p>
                }.into_any(),
            }}
            <h3 id="table2-title">"Accuracy (%) by task, as in the HarmonicEval paper's Table 2"</h3>
            <div class="table-scroll" tabindex="0" role="region" aria-labelledby="table2-title">
            <table class="meta-table">
                <thead><tr><th scope="col">"Method"</th><th scope="col">"REG"</th><th scope="col">"VQA"</th><th scope="col">"VDU"</th><th scope="col">"IC"</th><th scope="col">"Avg."</th></tr></thead>
                <tbody>
                    {PUBLISHED.iter().map(|(name, v)| view! {
                        <tr><th>{format!("{name} (published)")}</th>{v.iter().map(|x| view! { <td>{format!("{x:.1}")}</td> }).collect_view()}</tr>
                    }).collect_view()}
                    <tr data-testid="meta-this-run"><th>"This run"</th>
                        {move || {
                            let (tasks, avg) = per_task.get();
                            tasks.into_iter().chain(std::iter::once(avg)).map(|v| view! { <td>{pct(v)}</td> }).collect_view()
                        }}
                    </tr>
                </tbody>
            </table>
            </div>
            <h3>"Agreement against γ"</h3>
            <SweepPlot points=sweep/>
            <h3>"Metric against humans, item by item"</h3>
            <crate::ui::scatter_plot::ScatterPlot results=used/>
        </section>
    }
}

// The sweep is two small multiples sharing the γ axis: τ-b on −100…100 above, pairwise accuracy
// on 0…100 % below, each with its own ticks, so neither scale borrows the other's.
const W: f64 = 380.0;
const LEFT: f64 = 48.0;
const RIGHT: f64 = 14.0;
const PANEL_H: f64 = 110.0;
const TAU_TOP: f64 = 30.0;
const ACC_TOP: f64 = TAU_TOP + PANEL_H + 42.0;
const H: f64 = ACC_TOP + PANEL_H + 50.0;
const G_MIN: f64 = 0.01;

fn sx(g: f64) -> f64 {
    LEFT + (g - G_MIN) / (1.0 - G_MIN) * (W - LEFT - RIGHT)
}

/// y of `v` in a panel whose top is `top` and whose scale runs `lo`…`hi`.
fn sy(v: f64, top: f64, lo: f64, hi: f64) -> f64 {
    top + PANEL_H - (v.clamp(lo, hi) - lo) / (hi - lo) * PANEL_H
}

/// The γ with the highest τ-b (the first of equals), else the highest pairwise accuracy.
fn best(points: &[SweepPoint]) -> Option<(f64, &'static str, f64)> {
    let pick = |f: fn(&SweepPoint) -> Option<f64>| {
        points
            .iter()
            .filter_map(|p| f(p).map(|v| (p.gamma, v)))
            .fold(None, |acc: Option<(f64, f64)>, (g, v)| match acc {
                Some((_, bv)) if bv >= v => acc,
                _ => Some((g, v)),
            })
    };
    pick(|p| p.tau_b)
        .map(|(g, v)| (g, "τ-b", v))
        .or_else(|| pick(|p| p.pairwise).map(|(g, v)| (g, "accuracy", v)))
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

/// τ-b and pairwise accuracy of the overall score across γ. A click, or the arrow keys when the
/// plot has focus, sets γ; hovering or focusing reads the values out; a table holds the numbers.
#[component]
fn SweepPlot(points: Memo<Vec<SweepPoint>>) -> impl IntoView {
    let state = expect_context::<AppState>();
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
    let gamma_at = move |ev: &leptos::ev::MouseEvent| {
        let target: web_sys::Element = event_target(ev);
        let rect = target
            .closest("svg")
            .ok()
            .flatten()
            .map(|s| s.get_bounding_client_rect())?;
        let fx = (ev.client_x() as f64 - rect.left()) / rect.width().max(1.0) * W;
        let g = ((fx - LEFT) / (W - LEFT - RIGHT) * (1.0 - G_MIN) + G_MIN).clamp(G_MIN, 1.0);
        Some((g * 100.0).round() / 100.0)
    };
    let set_gamma = move |g: f64| {
        state
            .gamma
            .set(((g.clamp(G_MIN, 1.0)) * 100.0).round() / 100.0)
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let g = state.gamma.get_untracked();
        let next = match ev.key().as_str() {
            "ArrowLeft" | "ArrowDown" => g - 0.01,
            "ArrowRight" | "ArrowUp" => g + 0.01,
            "PageDown" => g - 0.1,
            "PageUp" => g + 0.1,
            "Home" => G_MIN,
            "End" => 1.0,
            _ => return,
        };
        ev.prevent_default();
        hover.set(None);
        set_gamma(next);
    };
    let best_point = Memo::new(move |_| points.with(|p| best(p)));
    // What the readout shows: the hovered γ, else the current γ.
    let shown = move || nearest(hover.get().unwrap_or_else(|| state.gamma.get()));
    let value_text = move || {
        nearest(state.gamma.get())
            .map(|p| readout(&p))
            .unwrap_or_default()
    };
    let y_ticks = |top: f64, lo: f64, hi: f64, ticks: &'static [f64], unit: &'static str| {
        ticks
            .iter()
            .map(move |&t| {
                let y = sy(t, top, lo, hi);
                view! {
                    <line class="grid" x1=LEFT x2=W - RIGHT y1=y y2=y/>
                    <text class="tick" x=LEFT - 6.0 y=y + 4.0 text-anchor="end">{format!("{t}{unit}")}</text>
                }
            })
            .collect_view()
    };
    let x_ticks = |top: f64, labels: bool| {
        [0.01, 0.25, 0.5, 0.75, 1.0]
            .iter()
            .map(move |&g| {
                let x = sx(g);
                view! {
                    <line class="axis" x1=x x2=x y1=top + PANEL_H y2=top + PANEL_H + 5.0/>
                    {labels.then(|| view! { <text class="tick" x=x y=top + PANEL_H + 19.0 text-anchor="middle">{format!("{g}")}</text> })}
                }
            })
            .collect_view()
    };
    view! {
        <figure class="sweep" data-testid="gamma-sweep" data-points=move || points.with(Vec::len)>
            <figcaption id="sweep-caption">
                "Agreement with humans against γ (small γ trusts the criteria the judge is sure of; 1 is the plain mean). Above: Kendall τ-b ×100 of the overall score (scale −100…100, solid line). Below: pairwise accuracy over best-of-N groups (0…100 %, dashed line with dots). The dashed vertical line is the current γ; "
                <span class="best-mark-legend">"◆"</span>" marks the best γ. Click the plot, or focus it and use the arrow keys (Page Up/Down: 0.1), to set γ."
            </figcaption>
            {move || best_point.get().map(|(g, what, v)| view! {
                <p class="sweep-best" data-testid="sweep-best-gamma" data-value=format!("{g:.2}")>
                    {format!("Best γ = {g:.2} ({what} {v:.1}{})", if what == "accuracy" { " %" } else { "" })}
                    " "
                    <button class="link" on:click=move |_| set_gamma(g)>"Set γ to it"</button>
                </p>
            })}
            <svg viewBox=format!("0 0 {W} {H}") tabindex="0" role="slider"
                aria-label="γ on the agreement sweep"
                aria-describedby="sweep-caption"
                aria-valuemin="0.01" aria-valuemax="1"
                aria-valuenow=move || format!("{:.2}", state.gamma.get())
                aria-valuetext=value_text
                on:click=move |ev| { if let Some(g) = gamma_at(&ev) { set_gamma(g) } }
                on:mousemove=move |ev| hover.set(gamma_at(&ev))
                on:mouseleave=move |_| hover.set(None)
                on:focus=move |_| focused.set(true)
                on:blur=move |_| focused.set(false)
                on:keydown=on_key>
                // τ-b panel
                <text class="panel-title" x=LEFT y=TAU_TOP - 12.0>"Kendall τ-b ×100 (overall score)"</text>
                {y_ticks(TAU_TOP, -100.0, 100.0, &[-100.0, -50.0, 0.0, 50.0, 100.0], "")}
                <line class="axis" x1=LEFT x2=LEFT y1=TAU_TOP y2=TAU_TOP + PANEL_H/>
                <line class="axis" x1=LEFT x2=W - RIGHT y1=TAU_TOP + PANEL_H y2=TAU_TOP + PANEL_H/>
                {x_ticks(TAU_TOP, false)}
                <polyline class="sweep-tau" fill="none" points=move || path(|s| s.tau_b, TAU_TOP, -100.0, 100.0)/>
                // Accuracy panel
                <text class="panel-title" x=LEFT y=ACC_TOP - 12.0>"Pairwise accuracy (%)"</text>
                {y_ticks(ACC_TOP, 0.0, 100.0, &[0.0, 25.0, 50.0, 75.0, 100.0], "")}
                <line class="axis" x1=LEFT x2=LEFT y1=ACC_TOP y2=ACC_TOP + PANEL_H/>
                <line class="axis" x1=LEFT x2=W - RIGHT y1=ACC_TOP + PANEL_H y2=ACC_TOP + PANEL_H/>
                {x_ticks(ACC_TOP, true)}
                <polyline class="sweep-acc" fill="none" points=move || path(|s| s.pairwise, ACC_TOP, 0.0, 100.0)/>
                {move || points.with(|p| p.iter().step_by(11).filter_map(|s| s.pairwise.map(|v| view! {
                    <circle class="sweep-acc-dot" r="2.5" cx=sx(s.gamma) cy=sy(v, ACC_TOP, 0.0, 100.0)/>
                })).collect_view())}
                {move || points.with(|p| p.iter().all(|s| s.pairwise.is_none())).then(|| view! {
                    <text class="tick" x=LEFT + 10.0 y=ACC_TOP + PANEL_H / 2.0>"No best-of-N groups: no accuracy"</text>
                })}
                <text class="axis-title" x=(LEFT + W - RIGHT) / 2.0 y=H - 8.0 text-anchor="middle">"γ (weighting)"</text>
                // The current γ in both panels, and the best one.
                <line class="gamma-marker" x1=move || sx(state.gamma.get()) x2=move || sx(state.gamma.get()) y1=TAU_TOP y2=ACC_TOP + PANEL_H/>
                {move || best_point.get().map(|(g, what, v)| {
                    let (top, lo, hi) = if what == "accuracy" { (ACC_TOP, 0.0, 100.0) } else { (TAU_TOP, -100.0, 100.0) };
                    let (cx, cy) = (sx(g), sy(v, top, lo, hi));
                    let flip = cx > W - 90.0;
                    let (lx, anchor) = if flip { (cx - 8.0, "end") } else { (cx + 8.0, "start") };
                    view! {
                        <path class="best-mark" d=format!("M{cx:.1},{:.1} l5,5 l-5,5 l-5,-5 z", cy - 5.0)/>
                        <text class="tick best-label" x=lx y=cy - 8.0 text-anchor=anchor>{format!("best γ {g:.2}")}</text>
                    }
                })}
                {move || hover.get().map(|g| view! { <line class="hover-marker" x1=sx(g) x2=sx(g) y1=TAU_TOP y2=ACC_TOP + PANEL_H/> })}
            </svg>
            <p class="sweep-readout" data-testid="sweep-readout" class:active=move || focused.get() || hover.get().is_some()>
                {move || shown().map(|p| readout(&p)).unwrap_or_else(|| "The sweep appears once the results carry human judgments.".into())}
            </p>
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
        </figure>
    }
}
