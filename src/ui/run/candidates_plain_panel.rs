//! The comparison for metrics without γ (FLEUR / RefFLEUR, G-VEval, MAEV; issue 21): each
//! candidate's score with the judge's uncertainty where the metric gives one, its rank, the
//! ranking, the differences said against that uncertainty, the human's pick and whether the
//! metric agrees, Send to the lab. Entered only through [`PlainCandidatesPanel`].

use leptos::prelude::*;

use crate::candidates::plain::{summary, Part};
use crate::candidates::plain_render::{differences_html, plain_table, PlainCell};
use crate::candidates::render::{radios_html, ranking_html};
use crate::candidates::{agrees, differences};
use crate::ui::state::{AppState, Progress};

/// One candidate's cell from its requests' progress (MAEV: several trials).
fn cell(parts: &[Progress<Part>]) -> PlainCell {
    let read: Vec<&Part> = parts.iter().filter_map(Progress::result).collect();
    let (score, uncertainty) = summary(&read);
    let failed = parts.iter().filter(|p| p.id() == "error").count();
    let active = parts.iter().any(|p| p.is_active());
    let state = if active {
        "running"
    } else if !read.is_empty() {
        "done"
    } else if failed > 0 {
        "error"
    } else {
        "idle"
    };
    let note = match (active, parts.len()) {
        (true, _) => "asking…".to_string(),
        (false, n) if n > 1 && read.len() < n && !read.is_empty() => {
            format!("({} of {n} read)", read.len())
        }
        (false, _) if state == "error" => "failed".to_string(),
        _ => String::new(),
    };
    PlainCell {
        state,
        score,
        uncertainty,
        note,
        error: parts.iter().find_map(Progress::error),
    }
}

/// What the page says about the human's pick.
fn agreement_sentence(chosen: Option<usize>, now: Option<bool>, labels: &[String]) -> String {
    let Some(c) = chosen else {
        return "Mark the candidate you prefer to see whether the metric agrees.".into();
    };
    let name = labels.get(c).cloned().unwrap_or_default();
    match now {
        Some(true) => format!("The metric agrees with your pick, {name}: it ranks {name} first."),
        Some(false) => {
            format!("The metric disagrees with your pick, {name}: it does not rank {name} strictly first.")
        }
        None => format!(
            "Not every candidate has a score yet: whether the metric ranks {name} first cannot be said."
        ),
    }
}

#[component]
pub fn PlainCandidatesPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let c = state.candidates;
    let labels = c.run_labels;
    let cells = Memo::new(move |_| {
        c.plain
            .with(|p| p.iter().map(|x| cell(x)).collect::<Vec<_>>())
    });
    let scores = Memo::new(move |_| cells.with(|c| c.iter().map(|x| x.score).collect::<Vec<_>>()));
    let decimals = move || {
        c.plain_run
            .with_value(|r| r.as_ref().map_or(2, |r| r.base.decimals()))
    };
    let info = move || *state.settings.metric.get().info();
    let table =
        move || labels.with(|l| cells.with(|c| plain_table(l, c, decimals(), info().range)));
    let diffs = move || {
        cells.with(|c| {
            let s: Vec<Option<f64>> = c.iter().map(|x| x.score).collect();
            let u: Vec<Option<f64>> = c.iter().map(|x| x.uncertainty).collect();
            labels.with(|l| differences_html(l, &differences(&s, &u), decimals()))
        })
    };
    let agreement = Memo::new(move |_| {
        let chosen = c.preferred.get()?;
        scores.with(|s| agrees(s, chosen))
    });
    let on_pick = move |ev: leptos::ev::Event| {
        if let Ok(i) = event_target_value(&ev).parse::<usize>() {
            c.preferred.set(Some(i));
        }
    };
    view! {
        <section class="card candidates-panel" aria-labelledby="candidates-heading" data-testid="candidates-panel">
            <h3 id="candidates-heading">{move || format!("Candidates compared by {}", info().name)}</h3>
            <div inner_html=move || labels.with(|l| scores.with(|s| ranking_html(l, s, None)))></div>
            <div class="table-scroll" tabindex="0" role="region" aria-label="The candidates side by side" inner_html=table></div>
            <h4>"Differences down the ranking"</h4>
            <div inner_html=diffs></div>
            <p class="hint" data-testid="uncertainty-note">
                {move || c.plain_run.with_value(|r| r.as_ref().map(|r| r.base.uncertainty_note()))}
                " A difference counts as reliable only when it is larger than √(u₁² + u₂²), the two candidates' uncertainties combined."
            </p>
            <fieldset class="prefer">
                <legend>"Which do you prefer?"</legend>
                <div class="prefer-options" on:change=on_pick inner_html=move || labels.with(|l| radios_html(l, c.preferred.get_untracked()))></div>
            </fieldset>
            <p class="agreement" data-testid="agreement" role="status" data-range=""
                data-value=move || match agreement.get() { Some(true) => "agree", Some(false) => "disagree", None => "" }>
                {move || labels.with(|l| agreement_sentence(c.preferred.get(), agreement.get(), l))}
            </p>
            <div class="export-row">
                <button data-testid="send-to-lab-button" on:click=move |_| crate::ui::run::candidates_plain_run::send_to_lab(state) disabled=move || c.running()>
                    "Send to the lab"
                </button>
                <span role="status" data-testid="send-to-lab-message">{move || c.lab_message.get()}</span>
                <a href="lab/" data-testid="open-lab-link">"Open the lab"</a>
            </div>
            <p class="cite">{move || format!("{}: {}. Range {}.", info().name, info().paper, info().range)}</p>
        </section>
    }
}
