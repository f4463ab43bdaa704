//! Two runs side by side: the results on this page against a second results file or a run
//! stored on this device (another metric, judge, prompt or γ), their agreement with humans, and
//! the items whose overall score changed most.

use leptos::prelude::*;

use crate::lab::compare::{compare, Comparison};
use crate::lab::uncertainty::{
    interval_attrs, p_text, verdict, with_interval, CompareBootstrap, Paired, PairedComparison,
    DEFAULT_RESAMPLES, DEFAULT_SEED,
};
use crate::lab::{io, ItemResult};
use crate::ui::lab::batch_state::BatchState;
use crate::ui::state::Settings;
use crate::web::files;

fn num(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.1}")).unwrap_or_else(|| "–".into())
}

fn score(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "–".into())
}

fn diff(a: Option<f64>, b: Option<f64>, digits: usize) -> String {
    match (a, b) {
        (Some(a), Some(b)) => format!("{:+.*}", digits, b - a),
        _ => "–".into(),
    }
}

/// Shown at most: the largest changes.
const CHANGES: usize = 20;

#[component]
pub fn ComparePanel() -> impl IntoView {
    let state = expect_context::<Settings>();
    let b = expect_context::<BatchState>();
    let other = RwSignal::new(None::<(String, Vec<ItemResult>)>);
    let problems = RwSignal::new(Vec::<String>::new());
    // Two runs are re-prepared for each γ: only once γ has settled.
    let gamma = crate::ui::lab::scatter_plot::settled_gamma(state);
    let comparison = Memo::new(move |_| {
        let gamma = gamma.get();
        other.with(|o| {
            o.as_ref()
                .map(|(name, rs)| (name.clone(), b.results.with(|a| compare(a, rs, gamma))))
        })
    });
    let paired = paired(b, other, gamma);
    let load = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|l| l.get(0)) else {
            return;
        };
        input.set_value("");
        leptos::task::spawn_local(async move {
            let name = file.name();
            match files::text(&file).await {
                Ok(text) => {
                    let (results, bad) = if name.to_lowercase().ends_with(".csv") {
                        io::from_csv_records(&crate::batch::dataset::csv_records(&text))
                    } else {
                        io::from_jsonl(&text)
                    };
                    problems.set(bad);
                    other.set(Some((name, results)));
                }
                Err(e) => problems.set(vec![e]),
            }
        });
    };
    let picked = RwSignal::new(String::new());
    let load_stored = move |_| {
        let id = picked.get_untracked();
        let Some(name) = b.runs.with_untracked(|runs| {
            runs.iter()
                .find(|(r, _)| r.id == id)
                .map(|(r, done)| format!("{} ({done} results)", r.dataset))
        }) else {
            return problems.set(vec!["Choose a stored run to compare with.".into()]);
        };
        leptos::task::spawn_local(async move {
            let results = crate::ui::lab::stored_runs::stored_results(&id).await;
            problems.set(Vec::new());
            other.set(Some((name, results)));
        });
    };
    view! {
        <section class="compare" aria-labelledby="compare-title">
            <h2 id="compare-title">"Compare two runs"</h2>
            <div class="field">
                <label for="lab-compare-input">"A second results file (.jsonl or .csv), compared with the results on this page"</label>
                <input id="lab-compare-input" data-testid="lab-compare-input" type="file" accept=".jsonl,.csv" on:change=load/>
            </div>
            <div class="field">
                <label for="compare-run-select">"…or a run stored on this device"</label>
                <div class="row">
                    <select id="compare-run-select" data-testid="compare-run-select"
                        on:change=move |ev| picked.set(event_target_value(&ev))>
                        <option value="">"Choose a stored run"</option>
                        {move || b.runs.get().into_iter().map(|(r, done)| view! {
                            <option value=r.id.clone() selected=picked.get_untracked() == r.id>{r.summary(done)}</option>
                        }).collect_view()}
                    </select>
                    <button data-testid="compare-run-button" on:click=load_stored>"Compare"</button>
                </div>
            </div>
            <ul class="problems">{move || problems.get().into_iter().take(20).map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
            {move || comparison.get().map(|(name, c): (String, Comparison)| comparison_view(b, name, c, gamma.get_untracked(), paired))}
        </section>
    }
}

/// The paired comparison on the items both runs share: its figures at once, then its
/// intervals and p-values, drawn a slice at a time once γ has rested.
fn paired(
    b: BatchState,
    other: RwSignal<Option<(String, Vec<ItemResult>)>>,
    gamma: RwSignal<f64>,
) -> RwSignal<Option<PairedComparison>> {
    let out = RwSignal::new(None);
    let generation = StoredValue::new(0u64);
    // This page's results at rest: not restarted at every new result of a running batch.
    let changes = Memo::new(move |n: Option<&u64>| {
        b.results.track();
        n.map_or(0, |n| n + 1)
    });
    let rested = crate::ui::lab::slices::settled_version(
        changes,
        crate::ui::lab::meta_panel::RESULTS_REST_MS,
    );
    Effect::new(move |_| {
        let g = gamma.get();
        other.track();
        let c0 = rested.get();
        generation.update_value(|n| *n += 1);
        let mine = generation.get_value();
        // New results since (a running batch): positions may have moved; the next rest starts
        // again.
        let stale = move || generation.get_value() != mine || changes.get_untracked() != c0;
        leptos::task::spawn_local(async move {
            // In a task of its own, after whatever the change itself costs.
            crate::web::fetch::sleep(0, None).await;
            if stale() {
                return;
            }
            crate::web::timing::start("hj-compare");
            let boot = other.with_untracked(|o| {
                let (_, theirs) = o.as_ref()?;
                Some(b.results.with_untracked(|ours| {
                    CompareBootstrap::new(ours, theirs, g, DEFAULT_RESAMPLES, DEFAULT_SEED)
                }))
            });
            let Some(mut boot) = boot else {
                return out.set(None);
            };
            // Both runs as they were when it began: a change of either makes this one stale.
            let mut step = || {
                other.with_untracked(|o| {
                    let theirs = o.as_ref().map_or(&[][..], |(_, t)| &t[..]);
                    b.results.with_untracked(|ours| boot.step(ours, theirs, 1))
                })
            };
            let done = crate::ui::lab::slices::in_slices(&mut step, stale).await;
            crate::web::timing::end("hj-compare");
            if done {
                out.set(Some(boot.result()));
            }
        });
    });
    out
}

/// A difference's cell: "+2.1 [0.4, 3.8], p = 0.012", with the numbers in data attributes.
fn diff_row(testid: &'static str, label: &'static str, p: Paired) -> impl IntoView {
    let d = p.diff;
    let (low, high) = interval_attrs(d.interval);
    let text = match (d.value, d.interval, d.p) {
        (Some(v), Some(i), Some(pv)) => {
            format!("{v:+.1} [{:.1}, {:.1}], p = {}", i.low, i.high, p_text(pv))
        }
        (Some(v), _, _) => format!("{v:+.1} (drawing the interval…)"),
        _ => "–".into(),
    };
    view! {
        <tr data-testid=testid data-diff=d.value.map(|v| v.to_string()).unwrap_or_default()
            data-ci-low=low data-ci-high=high data-p=d.p.map(|v| v.to_string()).unwrap_or_default()>
            <th scope="row">{label}</th><td>{num(p.a)}</td><td>{num(p.b)}</td><td>{text}</td>
        </tr>
    }
}

/// The paired comparison: each run on the shared items, the differences, the verdicts, and
/// the two judges against each other.
fn paired_view(name: String, c: PairedComparison) -> impl IntoView {
    let other = format!("\u{201c}{name}\u{201d}");
    let sentences = [
        verdict("This page's run", &other, "τ points", &c.tau_b.diff),
        if c.pairs > 0 {
            verdict(
                "This page's run",
                &other,
                "accuracy points",
                &c.accuracy.diff,
            )
        } else {
            String::new()
        },
    ];
    view! {
        <h3 id="compare-paired-title">"On the items both runs share"</h3>
        <p class="hint" data-testid="compare-shared" data-common=c.common data-tau-n=c.tau_n data-pairs=c.pairs>{format!(
            "Only the {} items in both runs count: {} (item, rating) pairs scored by both enter τ, {} best-of-N pairs the accuracy. \
             Differences are {} minus this page; 95 % paired bootstrap intervals (1,000 resamples of the shared items, whole groups where there are groups) and a paired permutation test's p-value.",
            c.common, c.tau_n, c.pairs, other
        )}</p>
        <div class="table-scroll" tabindex="0" role="region" aria-labelledby="compare-paired-title">
            <table class="meta-table" data-testid="compare-paired-table">
                <thead><tr><th scope="col">"Measure"</th><th scope="col">"This page"</th><th scope="col">{other.clone()}</th><th scope="col">"Difference [95 % interval], p"</th></tr></thead>
                <tbody>
                    {diff_row("compare-tau-b", "τ-b ×100", c.tau_b)}
                    {diff_row("compare-tau-c", "τ-c ×100", c.tau_c)}
                    {diff_row("compare-accuracy", "Pairwise accuracy (%)", c.accuracy)}
                </tbody>
            </table>
        </div>
        {sentences.into_iter().filter(|s| !s.is_empty()).map(|s| view! { <p data-testid="compare-verdict">{s}</p> }).collect_view()}
        {judge_table(c)}
    }
}

/// Judge against judge: how well the two runs' scores agree with each other.
fn judge_table(c: PairedComparison) -> impl IntoView {
    view! {
        <h3 id="judge-agreement-title">"Judge against judge"</h3>
        <p class="hint">"How well the two runs' scores agree with each other on the shared items: Kendall τ-b ×100 and Krippendorff's α (interval level; 1 = the same scores, 0 = chance), each with its 95 % bootstrap interval."</p>
        <div class="table-scroll" tabindex="0" role="region" aria-labelledby="judge-agreement-title">
            <table class="meta-table" data-testid="judge-agreement">
                <thead><tr><th scope="col">"Score"</th><th scope="col">"τ-b ×100"</th><th scope="col">"α"</th><th scope="col">"n"</th></tr></thead>
                <tbody>
                    {c.judges.into_iter().map(|j| {
                        let alpha = match (j.alpha.value, j.alpha.interval) {
                            (Some(a), Some(i)) => format!("{a:.3} [{:.3}, {:.3}]", i.low, i.high),
                            (Some(a), None) => format!("{a:.3}"),
                            _ => "–".into(),
                        };
                        view! {
                            <tr data-testid=format!("judge-agreement-{}", j.id)
                                data-tau-b=j.tau_b.value.map(|v| v.to_string()).unwrap_or_default()
                                data-alpha=j.alpha.value.map(|v| v.to_string()).unwrap_or_default()>
                                <th scope="row">{j.label}</th>
                                <td>{with_interval(j.tau_b.value, j.tau_b.interval)}</td>
                                <td>{alpha}</td>
                                <td>{j.n}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// The two runs' agreement with humans side by side, and the items whose score changed most.
fn comparison_view(
    b: BatchState,
    name: String,
    c: Comparison,
    gamma: f64,
    paired: RwSignal<Option<PairedComparison>>,
) -> impl IntoView {
    let paired_name = name.clone();
    view! {
        <p class="hint">{format!(
            "{} items in both; {} only on this page; {} only in \u{201c}{name}\u{201d}. Agreement of the overall score at γ = {:.2}.",
            c.common, c.only_a, c.only_b, gamma
        )}</p>
        <div class="table-scroll" tabindex="0" role="region" aria-label="The two runs side by side">
            <table class="meta-table" data-testid="compare-table">
                <thead><tr><th scope="col">"Measure"</th><th scope="col">"This page"</th><th scope="col">{format!("\u{201c}{name}\u{201d}")}</th><th scope="col">"Difference"</th></tr></thead>
                <tbody>
                    <tr><th scope="row">"Items (scored)"</th><td>{format!("{} ({})", c.a.items, c.a.scored)}</td><td>{format!("{} ({})", c.b.items, c.b.scored)}</td><td>{format!("{:+}", c.b.scored as i64 - c.a.scored as i64)}</td></tr>
                    <tr data-testid="compare-run-tau-b"><th scope="row">"τ-b ×100"</th><td>{num(c.a.tau_b)}</td><td>{num(c.b.tau_b)}</td><td>{diff(c.a.tau_b, c.b.tau_b, 1)}</td></tr>
                    <tr><th scope="row">"τ-c ×100"</th><td>{num(c.a.tau_c)}</td><td>{num(c.b.tau_c)}</td><td>{diff(c.a.tau_c, c.b.tau_c, 1)}</td></tr>
                    <tr data-testid="compare-run-accuracy"><th scope="row">"Pairwise accuracy (%)"</th><td>{num(c.a.pairwise)}</td><td>{num(c.b.pairwise)}</td><td>{diff(c.a.pairwise, c.b.pairwise, 1)}</td></tr>
                </tbody>
            </table>
        </div>
        {move || paired.get().map(|p| paired_view(paired_name.clone(), p))}
        <h3 id="compare-changes-title">{format!("Items whose score changed most ({} changed)", c.changed.len())}</h3>
        <div class="table-scroll" tabindex="0" role="region" aria-labelledby="compare-changes-title">
            <table class="meta-table" data-testid="compare-changes" data-changed=c.changed.len()>
                <thead><tr><th scope="col">"Item"</th><th scope="col">"This page"</th><th scope="col">"Other"</th><th scope="col">"Change"</th></tr></thead>
                <tbody>
                    {c.changed.iter().take(CHANGES).map(|x| {
                        let id = x.id.clone();
                        view! {
                            <tr data-testid=format!("compare-{}", x.id)>
                                <th scope="row"><button class="link" on:click=move |_| b.selected.set(Some(id.clone()))>{x.id.clone()}</button></th>
                                <td>{score(x.a)}</td><td>{score(x.b)}</td><td>{diff(x.a, x.b, 3)}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}
