//! Two runs side by side: the results on this page against a second results file or a run
//! stored on this device (another metric, judge, prompt or γ), their agreement with humans, and
//! the items whose overall score changed most.

use leptos::prelude::*;

use crate::ui::batch_state::BatchState;
use crate::ui::state::Settings;
use crate::lab::compare::{compare, Comparison};
use crate::lab::{io, ItemResult};
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
    let gamma = crate::ui::scatter_plot::settled_gamma(state);
    let comparison = Memo::new(move |_| {
        let gamma = gamma.get();
        other.with(|o| {
            o.as_ref()
                .map(|(name, rs)| (name.clone(), b.results.with(|a| compare(a, rs, gamma))))
        })
    });
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
            let results = crate::ui::stored_runs::stored_results(&id).await;
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
            {move || comparison.get().map(|(name, c): (String, Comparison)| comparison_view(b, name, c, gamma.get_untracked()))}
        </section>
    }
}

/// The two runs' agreement with humans side by side, and the items whose score changed most.
fn comparison_view(b: BatchState, name: String, c: Comparison, gamma: f64) -> impl IntoView {
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
                    <tr data-testid="compare-tau-b"><th scope="row">"τ-b ×100"</th><td>{num(c.a.tau_b)}</td><td>{num(c.b.tau_b)}</td><td>{diff(c.a.tau_b, c.b.tau_b, 1)}</td></tr>
                    <tr><th scope="row">"τ-c ×100"</th><td>{num(c.a.tau_c)}</td><td>{num(c.b.tau_c)}</td><td>{diff(c.a.tau_c, c.b.tau_c, 1)}</td></tr>
                    <tr data-testid="compare-accuracy"><th scope="row">"Pairwise accuracy (%)"</th><td>{num(c.a.pairwise)}</td><td>{num(c.b.pairwise)}</td><td>{diff(c.a.pairwise, c.b.pairwise, 1)}</td></tr>
                </tbody>
            </table>
        </div>
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
