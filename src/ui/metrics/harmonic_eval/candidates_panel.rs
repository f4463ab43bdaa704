//! The comparison of several candidates (issue 21): side by side per criterion with σ and the
//! winner, overall and rank at the current γ, the ranking, the γ values where it changes, the
//! human's pick and whether the metric agrees (and over which γ), Send to the lab.
//! Every number comes from `crate::candidates`; moving γ re-ranks without any request.

use leptos::prelude::*;

use super::candidates;
use super::candidates_plot::CandidatesPlot;
use crate::candidates::render::{
    comparison_table, flips_html, radios_html, ranking_html, Cell, Row,
};
use crate::candidates::{agreement_ranges, agrees, flip_points, ranges_text, scores_at};
use crate::metrics::harmonic_eval::weighting::Harmonic;
use crate::scoring::criteria::Criterion;
use crate::ui::state::AppState;

/// The pick, whether the metric agrees at the current γ, and the γ ranges where it does.
type Agreement = (usize, bool, Vec<(f64, f64)>);

#[component]
pub fn CandidatesPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let c = state.candidates;
    let gamma = state.settings.gamma;
    let labels = c.run_labels;
    let compared = state.results.harmonic_eval.compared;
    let scored = Memo::new(move |_| compared.scored());
    let flips = Memo::new(move |_| scored.with(|s| flip_points(&Harmonic, s)));
    let scores = Memo::new(move |_| scored.with(|s| scores_at(&Harmonic, s, gamma.get())));
    let on_pick = move |ev: leptos::ev::Event| {
        if let Ok(i) = event_target_value(&ev).parse::<usize>() {
            c.preferred.set(Some(i));
        }
    };
    let agreement = Memo::new(move |_| {
        let chosen = c.preferred.get()?;
        let now = scores.with(|s| agrees(s, chosen))?;
        let ranges = scored.with(|s| flips.with(|f| agreement_ranges(&Harmonic, s, f, chosen)));
        Some((chosen, now, ranges))
    });
    let table = move || {
        let rows: Vec<Row> = compared.results.with(|r| {
            Criterion::ALL
                .iter()
                .map(|cr| {
                    let k = cr.index();
                    let cells = r
                        .iter()
                        .map(|s| {
                            let res = s[k].result();
                            Cell {
                                state: s[k].id(),
                                score: res.map(|x| x.score),
                                sigma: res.and_then(|x| x.sigma),
                                note: s[k].label(),
                                error: s[k].error(),
                            }
                        })
                        .collect();
                    (cr.id(), cr.label(), cells)
                })
                .collect()
        });
        labels.with(|l| scores.with(|s| comparison_table(l, &rows, s, gamma.get())))
    };
    view! {
        <section class="card candidates-panel" aria-labelledby="candidates-heading" data-testid="candidates-panel">
            <h3 id="candidates-heading">"Candidates compared"</h3>
            <div inner_html=move || labels.with(|l| scores.with(|s| ranking_html(l, s, Some(gamma.get()))))></div>
            <div class="table-scroll" tabindex="0" role="region" aria-label="The candidates side by side" inner_html=table></div>
            <CandidatesPlot scored flips labels gamma/>
            <div inner_html=move || labels.with(|l| flips.with(|f| flips_html(l, f)))></div>
            <fieldset class="prefer">
                <legend>"Which do you prefer?"</legend>
                // One listener for all the radios; their markup changes only with a new run,
                // so the browser keeps the checked one (and the keyboard focus).
                <div class="prefer-options" on:change=on_pick inner_html=move || labels.with(|l| radios_html(l, c.preferred.get_untracked()))></div>
            </fieldset>
            <p class="agreement" data-testid="agreement" role="status"
                data-value=move || agreement.with(|a| match a { Some((_, true, _)) => "agree", Some((_, false, _)) => "disagree", None => "" })
                data-range=move || agreement.with(|a| a.as_ref().map(|a| ranges_text(&a.2)).unwrap_or_default())>
                {move || agreement.with(|a| agreement_sentence(a.as_ref(), gamma.get(), &labels.get()))}
            </p>
            <div class="export-row">
                <button data-testid="send-to-lab-button" on:click=move |_| candidates::send_to_lab(state) disabled=move || crate::ui::metrics::of(state.settings.metric.get()).running(state)>
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
