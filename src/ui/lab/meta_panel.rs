//! Meta-evaluation: agreement with human judgments (Kendall τ-b / τ-c, pairwise accuracy), a
//! table laid out like the HarmonicEval paper's Table 2 with its published numbers, and the γ
//! sweep (`sweep_plot.rs`) plotted from the stored distributions.

use leptos::prelude::*;

use crate::lab::analysis::{Agreement, MetaReport, Prepared, SweepPoint};
use crate::lab::uncertainty::{
    agreement_json, interval_attrs, sweep_band_bootstrap, with_interval, MetaBootstrap,
    MetaIntervals, DEFAULT_RESAMPLES, DEFAULT_SEED, INTERVAL_MEANING,
};
use crate::lab::ItemResult;
use crate::meta::bootstrap::Estimate;
use crate::meta::resample::Interval;
use crate::meta::RatingProtocol;
use crate::scoring::task::Task;
use crate::ui::lab::batch_state::{BatchState, Used};
use crate::ui::state::Settings;
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

/// A figure's cell: "53.0 [51.2, 54.8]", the interval's ends in `data-ci-low` / `-high`.
fn figure_cell(testid: String, value: Option<f64>, e: Option<Estimate>) -> impl IntoView {
    let interval = e.and_then(|e| e.interval);
    let (low, high) = interval_attrs(interval);
    view! {
        <td data-testid=testid data-value=attr(value) data-ci-low=low data-ci-high=high>{with_interval(value, interval)}</td>
    }
}

fn agreement_cells(id: String, a: Agreement, ci: Option<[Estimate; 2]>) -> impl IntoView {
    view! {
        {figure_cell(format!("meta-{id}-tau-b"), a.tau_b, ci.map(|c| c[0]))}
        {figure_cell(format!("meta-{id}-tau-c"), a.tau_c, ci.map(|c| c[1]))}
        <td>{a.n}</td>
    }
}

/// What the panel shows, recomputed as the results, the protocol or γ change.
#[derive(Clone, Copy)]
struct Analysis {
    /// The results that enter the comparison.
    used: Used,
    report: Memo<Option<MetaReport>>,
    sweep: Memo<Vec<SweepPoint>>,
    /// Table 2's row: accuracy per task in [`TABLE_TASKS`] order, and their mean.
    per_task: Memo<(Vec<Option<f64>>, Option<f64>)>,
    /// The report's intervals, for the γ and results they were drawn at (only once γ rests).
    intervals: Memo<Option<MetaIntervals>>,
    /// τ-b's interval across γ, at [`BAND_POINTS`] γ's.
    band: RwSignal<Vec<(f64, Interval)>>,
}

/// Items scored on fewer than all their criteria are left out unless the user keeps them
/// (`all_only`): their overall rests on whichever criteria happened to succeed. Only then are
/// the others copied.
fn used(b: BatchState, all_only: RwSignal<bool>) -> Used {
    let kept = Memo::new(move |_| {
        let keep_partial = !all_only.get();
        timing::measure("hj-used", || {
            b.results.with(|all| {
                let leave_out = !keep_partial && all.iter().any(ItemResult::is_partial);
                leave_out.then(|| {
                    all.iter()
                        .filter(|r| !r.is_partial())
                        .cloned()
                        .collect::<Vec<ItemResult>>()
                })
            })
        })
    });
    Used {
        all: b.results,
        kept,
    }
}

fn analysis(
    state: Settings,
    b: BatchState,
    all_only: RwSignal<bool>,
    protocol: RwSignal<RatingProtocol>,
) -> Analysis {
    // The γ-independent preparation is rebuilt when the results change and reused for every
    // γ, so moving the slider only re-aggregates and re-ranks.
    let used = used(b, all_only);
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
                                timing::measure("hj-prepare", || {
                                    Prepared::with_protocol(results, protocol.get_untracked())
                                }),
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
                criteria: timing::measure("hj-criteria", || p.criteria(results)),
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
    let intervals = intervals(state, used, version, with_prepared);
    let snapshot = snapshot(with_prepared);
    let sweep = sweep(b, version, snapshot);
    Analysis {
        used,
        report,
        sweep,
        per_task: per_task(report, prepared),
        intervals,
        band: band(sweep, version, snapshot),
    }
}

/// The report's intervals, drawn a slice at a time once γ has rested (moving γ redraws
/// nothing until it settles), tagged with the γ and results version they belong to.
fn intervals(
    state: Settings,
    used: Used,
    version: Memo<u64>,
    with_prepared: impl Fn(&mut dyn FnMut(&mut Prepared, &[ItemResult]) -> Option<MetaReport>) -> Option<MetaReport>
        + Copy
        + 'static,
) -> Memo<Option<MetaIntervals>> {
    let out = RwSignal::new(None::<(f64, u64, MetaIntervals)>);
    let gamma = crate::ui::lab::scatter_plot::settled_gamma(state);
    let rested = crate::ui::lab::slices::settled_version(version, RESULTS_REST_MS);
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        let (g, v) = (gamma.get(), rested.get());
        generation.update_value(|n| *n += 1);
        let mine = generation.get_value();
        // New results since (a running batch): the figures' items are gone; the next rest
        // starts again.
        let stale = move || generation.get_value() != mine || version.get_untracked() != v;
        leptos::task::spawn_local(async move {
            // In a task of its own, after whatever the change itself costs.
            crate::web::fetch::sleep(0, None).await;
            if stale() {
                return;
            }
            timing::start("hj-bootstrap");
            let mut boot = None;
            with_prepared(&mut |p, results| {
                boot = p
                    .has_judgments()
                    .then(|| MetaBootstrap::new(p, results, g, DEFAULT_RESAMPLES, DEFAULT_SEED));
                None
            });
            let Some(mut boot) = boot else {
                return out.set(None);
            };
            let done =
                crate::ui::lab::slices::in_slices(|| used.with(|r| boot.step(r, 1)), stale).await;
            timing::end("hj-bootstrap");
            if done {
                out.set(Some((g, v, boot.intervals())));
            }
        });
    });
    // Shown only beside the γ and results they were drawn for.
    Memo::new(move |_| {
        let (gamma, v) = (state.gamma.get(), version.get());
        out.with(|d| {
            d.as_ref()
                .filter(|(g, dv, _)| *g == gamma && *dv == v)
                .map(|d| d.2.clone())
        })
    })
}

/// Intervals are drawn once the results have not changed for this long (ms): during a batch
/// run the figures follow every new result, their intervals wait for the run to rest.
pub(crate) const RESULTS_REST_MS: u64 = 1000;

/// γ's at which the sweep's τ-b gets its interval: 0.01, then every 0.1 up to 1.
const BAND_POINTS: usize = 11;

/// The sweep's band: τ-b's interval at [`BAND_POINTS`] γ's, drawn a slice at a time once the
/// results have rested and their sweep is done (so the two do not share the main thread; the
/// band does not depend on the slider).
fn band(
    sweep: Memo<Vec<SweepPoint>>,
    version: Memo<u64>,
    prepared: Snapshot,
) -> RwSignal<Vec<(f64, Interval)>> {
    let out = RwSignal::new(Vec::new());
    let generation = StoredValue::new(0u64);
    let rested = crate::ui::lab::slices::settled_version(version, RESULTS_REST_MS);
    Effect::new(move |_| {
        sweep.track();
        let v = rested.get();
        generation.update_value(|n| *n += 1);
        let mine = generation.get_value();
        out.set(Vec::new());
        // Only for results at rest (not during a run), once their sweep is done.
        if v != version.get_untracked() {
            return;
        }
        leptos::task::spawn_local(async move {
            // After the report's own intervals: yield once first.
            crate::web::fetch::sleep(0, None).await;
            let Some(p) = prepared.run(()) else { return };
            let mut points = Vec::with_capacity(BAND_POINTS);
            timing::start("hj-band");
            for k in 0..BAND_POINTS {
                // Each γ's figure is built in a task of its own, not after the last slice.
                crate::web::fetch::sleep(0, None).await;
                let g = if k == 0 {
                    0.01
                } else {
                    k as f64 / (BAND_POINTS - 1) as f64
                };
                let mut boot = sweep_band_bootstrap(&p, g, DEFAULT_RESAMPLES, DEFAULT_SEED);
                let stale = move || generation.get_value() != mine || version.get_untracked() != v;
                if !crate::ui::lab::slices::in_slices(|| boot.step(1), stale).await {
                    return;
                }
                points.extend(boot.run()[0][0].interval.map(|i| (g, i)));
            }
            timing::end("hj-band");
            out.set(points);
        });
    });
    out
}

/// τ and accuracy across γ for the results the analysis uses. At 100k results the 100 points
/// take about a second of main thread, more than half of all the lab did per showing of new
/// results (issue 17.5), so they are computed a point at a time in slices of at most
/// `SLICE_MS`, yielding to the page between slices, over a snapshot of the analysis's own
/// preparation; and a new sweep starts no sooner than `PACE` times the last one's main-thread
/// time after it, so sweeping takes at most a fifth of the thread whatever the number stored.
/// The points are those of `Prepared::sweep` (tested natively); a sweep begun for a dataset
/// since replaced is dropped.
const SLICE_MS: f64 = 30.0;
const PACE: f64 = 4.0;

fn sweep(b: BatchState, version: Memo<u64>, prepared: Snapshot) -> Memo<Vec<SweepPoint>> {
    let out = RwSignal::new(Vec::new());
    let wanted = StoredValue::new(None::<u64>);
    let busy = StoredValue::new(false);
    Effect::new(move |_| {
        wanted.set_value(Some(version.get()));
        if !busy.get_value() {
            busy.set_value(true);
            leptos::task::spawn_local(async move {
                let mut last = None;
                while let Some(v) = wanted.get_value().filter(|v| Some(*v) != last) {
                    last = Some(v);
                    let run = b.run_id.get_value();
                    let (points, cost_ms) = sweep_in_slices(prepared).await;
                    if b.run_id.get_value() == run {
                        out.set(points);
                    }
                    crate::web::fetch::sleep((PACE * cost_ms) as u32, None).await;
                }
                busy.set_value(false);
            });
        }
    });
    Memo::new(move |_| out.get())
}

/// A copy of the analysis's preparation (built if the results changed), for the sweep.
fn snapshot(
    with_prepared: impl Fn(&mut dyn FnMut(&mut Prepared, &[ItemResult]) -> Option<MetaReport>) -> Option<MetaReport>
        + Copy
        + Send
        + Sync
        + 'static,
) -> Snapshot {
    Callback::new(move |()| {
        let mut copy = None;
        with_prepared(&mut |p, _| {
            copy = p.has_judgments().then(|| p.clone());
            None
        });
        copy
    })
}

/// Gives a copy of the analysis's preparation for the current results (None: no judgments).
type Snapshot = Callback<(), Option<Prepared>>;

/// One sweep, a slice at a time; with the main-thread time it took (ms).
async fn sweep_in_slices(prepared: Snapshot) -> (Vec<SweepPoint>, f64) {
    let now = || js_sys::Date::now();
    let mut start = now();
    let Some(mut p) = prepared.run(()) else {
        return (Vec::new(), now() - start);
    };
    let (mut points, mut cost) = (Vec::with_capacity(100), 0.0);
    timing::start("hj-sweep");
    for k in 0..100 {
        points.push(p.sweep_point(k, 100));
        if now() - start >= SLICE_MS {
            cost += now() - start;
            crate::web::fetch::sleep(0, None).await;
            start = now();
        }
    }
    timing::end("hj-sweep");
    (points, cost + now() - start)
}

/// The Table-2 row: per-task accuracy from the same overall scores (read after `report`).
fn per_task(
    report: Memo<Option<MetaReport>>,
    prepared: StoredValue<Option<(u64, Prepared)>, LocalStorage>,
) -> Memo<(Vec<Option<f64>>, Option<f64>)> {
    Memo::new(move |_| {
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
    })
}

#[component]
pub fn MetaPanel() -> impl IntoView {
    let state = expect_context::<Settings>();
    let b = expect_context::<BatchState>();
    let all_only = RwSignal::new(true);
    // How several human ratings per item enter τ: CLIPScore's repeated ratings (default) or
    // G-VEval's averaged rating.
    let protocol = RwSignal::new(RatingProtocol::Repeated);
    let a = analysis(state, b, all_only, protocol);
    let counts = move || {
        let partial = b
            .results
            .with(|r| r.iter().filter(|x| x.is_partial()).count());
        (
            a.used.with(<[ItemResult]>::len),
            b.results.with(Vec::len),
            partial,
        )
    };
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
            <AgreementTable report=a.report intervals=a.intervals gamma=state.gamma.into()/>
            <Table2 per_task=a.per_task/>
            <h3>"Agreement against γ"</h3>
            <crate::ui::lab::sweep_plot::SweepPlot points=a.sweep band=a.band/>
            <h3>"Metric against humans, item by item"</h3>
            <crate::ui::lab::scatter_plot::ScatterPlot results=a.used/>
        </section>
    }
}

/// Saves the figures with their intervals (`agreement_json`).
fn export_agreement(report: &MetaReport, intervals: Option<&MetaIntervals>, gamma: f64) {
    let text = agreement_json(report, intervals, gamma);
    if let Err(e) = crate::web::download::download_text("agreement.json", "application/json", &text)
    {
        leptos::logging::warn!("{e}");
    }
}

/// τ-b and τ-c of the overall score and of each criterion, and the pairwise accuracy, each
/// with its interval once drawn.
#[component]
fn AgreementTable(
    report: Memo<Option<MetaReport>>,
    intervals: Memo<Option<MetaIntervals>>,
    gamma: Signal<f64>,
) -> impl IntoView {
    let state = expect_context::<Settings>();
    view! {
    {move || match report.get() {
        None => view! { <p class="hint" data-testid="meta-empty">"No human judgments in these results (human_overall, human_<criterion>, or group + chosen)."</p> }.into_any(),
        Some(r) => view! {
            <div class="table-scroll" tabindex="0" role="region" aria-label="Agreement with human judgments">
            <table class="meta-table">
                <thead><tr><th scope="col">"Score"</th><th scope="col">"τ-b ×100"</th><th scope="col">"τ-c ×100"</th><th scope="col">"n"</th></tr></thead>
                <tbody>
                    <tr><th>{move || format!("Overall (γ = {:.2})", state.gamma.get())}</th>{move || agreement_cells("overall".into(), r.overall, intervals.get().map(|i| i.overall))}</tr>
                    {r.criteria.iter().map(|(c, a)| {
                        let (c, a) = (*c, *a);
                        let ci = move || intervals.get().and_then(|i| i.criteria.iter().find(|x| x.0 == c).map(|x| x.1));
                        view! { <tr><th>{c.label()}</th>{move || agreement_cells(c.id().into(), a, ci())}</tr> }
                    }).collect_view()}
                </tbody>
            </table>
            </div>
            <p class="hint" data-testid="meta-interval-meaning">
                {move || if intervals.with(Option::is_some) { INTERVAL_MEANING } else { "Drawing the 95 % intervals (1,000 resamples)…" }}
            </p>
            {move || {
                let ci = intervals.get().and_then(|i| i.pairwise.interval);
                let (low, high) = interval_attrs(ci);
                view! {
            <p data-testid="meta-pairwise-accuracy" data-value=attr(r.pairwise) data-ci-low=low data-ci-high=high>
                {format!(
                    "Pairwise accuracy: {} % over {} pairs from best-of-N groups ({} ties, counted wrong){}",
                    with_interval(r.pairwise, ci), r.pairwise_counts.pairs, r.pairwise_counts.ties,
                    if r.skipped_groups > 0 {
                        format!("; {} groups without a single choice left out", r.skipped_groups)
                    } else {
                        String::new()
                    }
                )}
            </p>
                }
            }}
            <button data-testid="export-agreement" on:click=move |_| {
                if let Some(r) = report.get_untracked() {
                    export_agreement(&r, intervals.get_untracked().as_ref(), gamma.get_untracked());
                }
            }>"Export agreement (JSON)"</button>
        }.into_any(),
    }}
    }
}

/// Accuracy by task beside the HarmonicEval paper's published Table 2.
#[component]
fn Table2(per_task: Memo<(Vec<Option<f64>>, Option<f64>)>) -> impl IntoView {
    view! {
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
    }
}
