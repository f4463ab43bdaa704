//! Candidates for the metrics without γ (FLEUR / RefFLEUR, G-VEval, MAEV; issue 21): judge them
//! all in one run through the same runner (limiter, cache, retries, Cancel; the image was
//! prepared once and is shared), export the comparison, hand it to the lab. What each metric
//! sends and reads is `crate::candidates::plain`.

use leptos::prelude::*;

use crate::candidates::export::{plain_comparison_json, PlainJudged};
use crate::candidates::plain::{summary, Base, Part};
use crate::candidates::problems_with;
use crate::ui::run::runner::{begin_run, send_one};
use crate::ui::state::candidates::PlainRun;
use crate::ui::state::{AppState, Progress};
use crate::web::download;

/// Judges every candidate with `base` (the form's input for the selected metric): one request
/// each (MAEV: one per trial), all at once within the provider's limit.
pub fn evaluate(state: AppState, base: Base) {
    let c = state.candidates;
    let (labels, texts) = (c.labels.get_untracked(), c.texts.get_untracked());
    let mut found = problems_with(&labels, &texts, |t| base.with_text(t).problems());
    if state.has_video() && !base.metric().judges_video() {
        found.push(crate::metrics::Metric::VIDEO_REFUSAL.into());
    }
    let ok = found.is_empty();
    state.settings.form_problems.set(found);
    if !ok {
        return;
    }
    let labels: Vec<String> = labels.iter().map(|l| l.trim().to_string()).collect();
    let backend = state.settings.provider.backend();
    let requests: Vec<_> = texts
        .iter()
        .map(|t| base.with_text(t).requests(&backend))
        .collect();
    state.clear_comparisons();
    c.run_labels.set(labels.clone());
    c.lab_message.set(None);
    c.plain.set(
        requests
            .iter()
            .map(|r| match r {
                Ok(v) => vec![Progress::Idle; v.len()],
                Err(e) => vec![Progress::Failed(e.to_string())],
            })
            .collect(),
    );
    c.plain_metric.set(Some(base.metric()));
    c.plain_run.set_value(Some(PlainRun {
        labels,
        texts: texts.clone(),
        base: base.clone(),
        backend: backend.clone(),
    }));
    let run = begin_run(state);
    for (i, reqs) in requests.into_iter().enumerate() {
        let Ok(reqs) = reqs else { continue };
        let own = base.with_text(&texts[i]);
        for (k, r) in reqs.into_iter().enumerate() {
            let set = move |p: Progress<Part>| {
                c.plain.update(|v| {
                    if let Some(slot) = v.get_mut(i).and_then(|parts| parts.get_mut(k)) {
                        *slot = p;
                    }
                })
            };
            let reader = own.clone();
            send_one(
                state,
                &run,
                backend.clone(),
                r.request,
                r.cache_tag,
                set,
                move |done| reader.read(done),
            );
        }
    }
}

/// The comparison as JSON: each candidate's score, uncertainty and own export, the ranking,
/// the differences, the pick; `None` before a run. No key in it.
fn comparison(state: AppState, group: Option<&str>) -> Option<String> {
    let c = state.candidates;
    let run = c.plain_run.get_value()?;
    let parts = c.plain.get_untracked();
    let singles: Vec<(Option<f64>, Option<f64>, String)> = run
        .texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let mine = parts.get(i).map(Vec::as_slice).unwrap_or_default();
            let read: Vec<&Part> = mine.iter().filter_map(Progress::result).collect();
            let (score, u) = summary(&read);
            let outcomes: Vec<Option<Result<&Part, String>>> = mine
                .iter()
                .map(|p| match p {
                    Progress::Done { result, .. } => Some(Ok(result)),
                    Progress::Failed(m) => Some(Err(m.clone())),
                    _ => None,
                })
                .collect();
            let single = run.base.with_text(text).export(&run.backend, &outcomes);
            (score, u, single)
        })
        .collect();
    let judged: Vec<PlainJudged<'_>> = run
        .labels
        .iter()
        .zip(&run.texts)
        .zip(singles)
        .map(
            |((label, text), (score, uncertainty, single))| PlainJudged {
                label,
                text,
                score,
                uncertainty,
                single,
            },
        )
        .collect();
    let chosen = c.preferred.get_untracked();
    Some(plain_comparison_json(
        run.base.metric().id(),
        &judged,
        chosen,
        group,
    ))
}

/// Saves the comparison of the chosen metric's candidates, if the page shows one (what a
/// metric without γ answers to `MetricUi::export_candidates`); false when it shows none.
pub fn export_shown(state: AppState) -> bool {
    let metric = state.settings.metric.get_untracked();
    let has = untrack(|| state.candidates.plain_shown(metric));
    if has {
        export(state);
    }
    has
}

/// Saves the comparison as a JSON file named after the metric.
pub fn export(state: AppState) {
    let name = state
        .candidates
        .plain_metric
        .get_untracked()
        .map_or("candidates", |m| m.id());
    let outcome = match comparison(state, None) {
        Some(json) => download::download_text(
            &format!("{}-candidates.json", name.replace('_', "-")),
            "application/json",
            &json,
        ),
        None => Err("Evaluate first: there is nothing to export yet.".into()),
    };
    state.export_error.set(outcome.err());
}

/// Adds the comparison to the lab's inbox as one best-of-N group.
pub fn send_to_lab(state: AppState) {
    crate::ui::run::candidates_run::send_to_lab_with(state, |group| comparison(state, Some(group)))
}
