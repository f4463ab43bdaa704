//! The comparison of several candidates (issue 21): side by side per criterion with σ and the
//! winner, overall and rank at the current γ, the ranking, the γ values where it changes, the
//! human's pick and whether the metric agrees (and over which γ), Send to the lab.
//! Every number comes from `crate::candidates`; moving γ re-ranks without any request.

use leptos::prelude::*;

use crate::candidates::{
    agreement_ranges, agrees, flip_points, flip_sentence, order, ranges_text, ranks, scores_at,
    winner,
};
use crate::criteria::Criterion;
use crate::ui::candidates_plot::CandidatesPlot;
use crate::ui::candidates_run;
use crate::ui::state::AppState;

/// The pick, whether the metric agrees at the current γ, and the γ ranges where it does.
type Agreement = (usize, bool, Vec<(f64, f64)>);

fn fmt(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.2}")).unwrap_or_else(|| "—".into())
}

#[component]
pub fn CandidatesPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let c = state.candidates;
    let gamma = state.gamma;
    let labels = c.run_labels;
    let scored = Memo::new(move |_| c.scored());
    let flips = Memo::new(move |_| scored.with(|s| flip_points(s)));
    let scores = Memo::new(move |_| scored.with(|s| scores_at(s, gamma.get())));
    let name = move |i: usize| labels.with(|l| l.get(i).cloned().unwrap_or_default());
    let ordered = move || {
        scores.with(|s| {
            order(s)
                .into_iter()
                .filter(|&i| s[i].is_some())
                .map(name)
                .collect::<Vec<_>>()
        })
    };
    let agreement = Memo::new(move |_| {
        let chosen = c.preferred.get()?;
        let now = scores.with(|s| agrees(s, chosen))?;
        let ranges = scored.with(|s| flips.with(|f| agreement_ranges(s, f, chosen)));
        Some((chosen, now, ranges))
    });
    let n = Memo::new(move |_| c.results.with(Vec::len));
    let criterion_row = move |cr: Criterion| {
        let k = cr.index();
        let cell = move |i: usize| {
            c.results.with(|r| {
                let Some(state) = r.get(i).map(|s| &s[k]) else {
                    return String::new();
                };
                match state.result() {
                    Some(res) => format!(
                        "{:.2}{}",
                        res.score,
                        res.sigma
                            .map(|s| format!(" ± {s:.2}"))
                            .unwrap_or_else(|| " (printed)".into())
                    ),
                    None => state.label().to_string(),
                }
            })
        };
        let best = move || {
            let col: Vec<Option<f64>> = c
                .results
                .with(|r| r.iter().map(|s| s[k].result().map(|x| x.score)).collect());
            winner(&col).map(name).unwrap_or_else(|| "tie".into())
        };
        view! {
            <tr>
                <th scope="row">{cr.label()}</th>
                {move || (0..n.get()).map(|i| view! {
                    <td data-testid=format!("candidate-{i}-{}", cr.id())
                        data-state=move || c.results.with(|r| r.get(i).map_or("idle", |s| s[k].id()))>
                        {move || cell(i)}
                    </td>
                }).collect_view()}
                <td data-testid=format!("candidates-best-{}", cr.id())>{best}</td>
            </tr>
        }
    };
    view! {
        <section class="card candidates-panel" aria-labelledby="candidates-heading" data-testid="candidates-panel">
            <h3 id="candidates-heading">"Candidates compared"</h3>
            <p class="ranking" data-testid="ranking" data-order=move || ordered().join(",")>
                {move || format!("Ranking at γ = {:.2}: {}", gamma.get(), ordered().join(" › "))}
            </p>
            <div class="table-scroll">
                <table class="candidates-table">
                    <caption class="visually-hidden">"Each candidate's criterion scores (mean ± σ), overall score and rank at the current γ"</caption>
                    <thead><tr>
                        <th scope="col">"Criterion"</th>
                        {move || (0..n.get()).map(|i| view! { <th scope="col">{move || name(i)}</th> }).collect_view()}
                        <th scope="col">"Best"</th>
                    </tr></thead>
                    <tbody>{Criterion::ALL.into_iter().map(criterion_row).collect_view()}</tbody>
                    <tfoot>
                        <tr>
                            <th scope="row">{move || format!("Overall at γ = {:.2}", gamma.get())}</th>
                            {move || (0..n.get()).map(|i| view! {
                                <td data-testid=format!("candidate-result-{i}")
                                    data-overall=move || scores.with(|s| s.get(i).copied().flatten().map(|v| v.to_string()).unwrap_or_default())
                                    data-rank=move || scores.with(|s| ranks(s).get(i).copied().flatten().map(|r| r.to_string()).unwrap_or_default())>
                                    {move || scores.with(|s| fmt(s.get(i).copied().flatten()))}
                                    " "<span class="rank">{move || scores.with(|s| ranks(s).get(i).copied().flatten().map(|r| format!("(#{r})")).unwrap_or_default())}</span>
                                </td>
                            }).collect_view()}
                            <td>{move || ordered().first().cloned().unwrap_or_default()}</td>
                        </tr>
                    </tfoot>
                </table>
            </div>
            <CandidatesPlot scored flips labels gamma/>
            <ul class="flip-points" data-testid="flip-points"
                data-values=move || flips.with(|f| f.iter().map(|f| format!("{:.4}", f.gamma)).collect::<Vec<_>>().join(","))>
                {move || {
                    let l = labels.get();
                    let f = flips.get();
                    if f.is_empty() {
                        view! { <li>"The order is the same at every γ from 0.01 to 1."</li> }.into_any()
                    } else {
                        f.iter().map(|f| view! { <li>{flip_sentence(f, &l)}" (as γ rises)"</li> }).collect_view().into_any()
                    }
                }}
            </ul>
            <fieldset class="prefer">
                <legend>"Which do you prefer?"</legend>
                {move || (0..n.get()).map(|i| view! {
                    <label class="check">
                        <input type="radio" name="prefer" data-testid=format!("prefer-{i}")
                            prop:checked=move || c.preferred.get() == Some(i)
                            on:change=move |_| c.preferred.set(Some(i))/>
                        {move || name(i)}
                    </label>
                }).collect_view()}
            </fieldset>
            <p class="agreement" data-testid="agreement" role="status"
                data-value=move || agreement.with(|a| match a { Some((_, true, _)) => "agree", Some((_, false, _)) => "disagree", None => "" })
                data-range=move || agreement.with(|a| a.as_ref().map(|a| ranges_text(&a.2)).unwrap_or_default())>
                {move || agreement.with(|a| agreement_sentence(a.as_ref(), gamma.get(), &labels.get()))}
            </p>
            <div class="export-row">
                <button data-testid="send-to-lab-button" on:click=move |_| candidates_run::send_to_lab(state) disabled=move || state.running()>
                    "Send to the lab"
                </button>
                <span role="status" data-testid="send-to-lab-message">{move || c.lab_message.get()}</span>
                <a href="lab/" data-testid="open-lab-link">"Open the lab"</a>
            </div>
        </section>
    }
}

/// What the page says about the human's pick.
fn agreement_sentence(a: Option<&Agreement>, gamma: f64, labels: &[String]) -> String {
    let Some((chosen, now, ranges)) = a else {
        return "Mark the candidate you prefer to see whether the metric agrees.".into();
    };
    let name = labels.get(*chosen).cloned().unwrap_or_default();
    let verb = if *now { "agrees" } else { "disagrees" };
    let over = if ranges.is_empty() {
        "at no γ from 0.01 to 1".to_string()
    } else {
        let r: Vec<String> = ranges
            .iter()
            .map(|(a, b)| format!("{a:.2}–{b:.2}"))
            .collect();
        format!("for γ in {}", r.join(" and "))
    };
    format!(
        "At γ = {gamma:.2} the metric {verb} with your pick, {name}; it ranks {name} first {over}."
    )
}
