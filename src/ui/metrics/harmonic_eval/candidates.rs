//! HarmonicEval's several candidates (issue 21): judge them all in one run on the chosen
//! criteria, export the comparison, open one from a file or link, and hand it to the lab as
//! one best-of-N group (through `ui::run::candidates_run::send_to_lab_with`).

use leptos::prelude::*;

use super::state::{CandidatesRun, CriterionState, RunContext};
use crate::candidates::export::{comparison_json, Judged};
use crate::candidates::problems_with;
use crate::files::result_file::Comparison;
use crate::metrics::harmonic_eval::{self, CriterionResult, ExportInput, Input};
use crate::providers::{Backend, Image};
use crate::scoring::criteria::Criterion;
use crate::ui::run::candidates_run::send_to_lab_with;
use crate::ui::run::runner::{begin_run, send_one};
use crate::ui::state::{AppState, Progress};
use crate::web::download;

/// Says what stops the run, if anything (the form's problems); true when it can start.
fn ready(state: AppState, input: &Input, labels: &[String], texts: &[String]) -> bool {
    let mut found = problems_with(labels, texts, |text| {
        Input {
            text: text.to_string(),
            ..input.clone()
        }
        .problems()
    });
    let no_box = state
        .inputs
        .red_box
        .get_untracked()
        .filter(|b| b.is_usable())
        .is_none();
    if input.task.needs_box() && no_box {
        found.push("Drag a box on the image around the object the expression refers to.".into());
    }
    if state.has_video() {
        found.push(crate::metrics::Metric::VIDEO_REFUSAL.into());
    }
    let ok = found.is_empty();
    state.settings.form_problems.set(found);
    ok
}

/// Judges every candidate on the chosen criteria: 5 × N requests through the same limiter,
/// cache, retries and Cancel as one text; the image was prepared once and is shared.
pub fn evaluate(state: AppState) {
    state.results.harmonic_eval.hands.set(None);
    let c = state.candidates;
    let (labels, texts) = (c.labels.get_untracked(), c.texts.get_untracked());
    let input = super::run::input(state, texts.first().cloned().unwrap_or_default());
    if !ready(state, &input, &labels, &texts) {
        return;
    }
    let labels: Vec<String> = labels.iter().map(|l| l.trim().to_string()).collect();
    let backend = state.settings.provider.backend();
    state
        .results
        .harmonic_eval
        .compared
        .run
        .set_value(Some(CandidatesRun {
            labels: labels.clone(),
            texts: texts.clone(),
            context: RunContext {
                input: input.clone(),
                backend: backend.clone(),
            },
        }));
    c.run_labels.set(labels);
    state.clear_comparisons();
    c.lab_message.set(None);
    state.results.harmonic_eval.compared.results.set(vec![
        std::array::from_fn(|_| {
            CriterionState::Idle
        });
        texts.len()
    ]);
    let run = begin_run(state);
    for (i, text) in texts.into_iter().enumerate() {
        let own = Input {
            text,
            ..input.clone()
        };
        for criterion in Criterion::ALL {
            if !own.criteria.contains(criterion) {
                continue;
            }
            let k = criterion.index();
            let set = move |p: CriterionState| {
                state.results.harmonic_eval.compared.results.update(|r| {
                    if let Some(slot) = r.get_mut(i) {
                        slot[k] = p;
                    }
                })
            };
            match harmonic_eval::criterion_request(&backend, criterion, &own) {
                Ok(request) => {
                    let protocol = backend.protocol;
                    send_one(
                        state,
                        &run,
                        backend.clone(),
                        request,
                        None,
                        set,
                        move |done| harmonic_eval::interpret(done, protocol),
                    );
                }
                Err(e) => set(Progress::Failed(e.to_string())),
            }
        }
    }
}

/// Calls `f` with the last run's candidates as the core wants them.
fn with_judged<R>(
    state: AppState,
    f: impl FnOnce(&CandidatesRun, &[Judged<'_, CriterionResult>]) -> R,
) -> Option<R> {
    let run = state.results.harmonic_eval.compared.run.get_value()?;
    let results = state.results.harmonic_eval.compared.results.get_untracked();
    let judged: Vec<Judged<'_, CriterionResult>> = run
        .labels
        .iter()
        .zip(&run.texts)
        .zip(&results)
        .map(|((label, text), states)| Judged {
            label,
            text,
            criteria: std::array::from_fn(|k| match &states[k] {
                Progress::Done { result, .. } => Some(Ok(result)),
                Progress::Failed(m) => Some(Err(m.clone())),
                _ => None,
            }),
        })
        .collect();
    Some(f(&run, &judged))
}

/// The comparison as JSON: every candidate's own export, the ranking at γ, the flips, the
/// human's pick and the agreement; compact and named as a group for the lab. No key in it.
fn comparison(state: AppState, group: Option<&str>) -> Option<String> {
    let gamma = state.settings.gamma.get_untracked();
    let chosen = state.candidates.preferred.get_untracked();
    let hands = state.results.harmonic_eval.hands.get_untracked();
    with_judged(state, |run, judged| {
        let ctx = &run.context;
        let question = if ctx.input.task.needs_question() {
            ctx.input.question.as_str()
        } else {
            ""
        };
        let singles: Vec<String> = judged
            .iter()
            .enumerate()
            .map(|(i, j)| {
                let json = harmonic_eval::export_json(&ExportInput {
                    gamma,
                    task: ctx.input.task,
                    text: j.text,
                    question,
                    backend: &ctx.backend,
                    results: j.criteria.clone(),
                    fidelity: &ctx.input.fidelity,
                    criteria: ctx.input.criteria,
                });
                // Set by hand: each candidate's result carries its bars and says so.
                match hands.as_ref().and_then(|h| h.get(i)) {
                    Some(h) => harmonic_eval::by_hand::mark(&json, h),
                    None => json,
                }
            })
            .collect();
        comparison_json(
            harmonic_eval::INFO.id,
            &harmonic_eval::weighting::Harmonic,
            gamma,
            judged,
            &singles,
            chosen,
            group,
        )
    })
}

/// The comparison as a share link carries it: with the image's thumbnail; `None` before a run.
pub fn comparison_for_link(state: AppState, image: Option<&str>) -> Option<String> {
    let json = comparison(state, None)?;
    Some(crate::files::result_file::with_extras(
        &json,
        image,
        &Default::default(),
        None,
    ))
}

/// Shows a comparison read from a share link or a file as if it had just run: the candidates,
/// their criteria, the pick and γ; no request is sent.
pub fn open(state: AppState, c: Comparison, image: Option<Image>, backend: Backend) {
    let Some(first) = c.candidates.first() else {
        return;
    };
    state.results.harmonic_eval.hands.set(None);
    let cs = state.candidates;
    let texts: Vec<String> = c.candidates.iter().map(|h| h.text.clone()).collect();
    state.inputs.task.set(first.task);
    state.inputs.question.set(first.question.clone());
    state.settings.chosen_criteria.set(first.criteria_set);
    state.inputs.text.set(first.text.clone());
    state.settings.gamma.set(c.gamma);
    state.clear_comparisons();
    cs.lab_message.set(None);
    cs.labels.set(c.labels.clone());
    cs.texts.set(texts.clone());
    state
        .results
        .harmonic_eval
        .compared
        .run
        .set_value(Some(CandidatesRun {
            labels: c.labels.clone(),
            texts,
            context: RunContext {
                input: Input {
                    task: first.task,
                    text: first.text.clone(),
                    question: first.question.clone(),
                    image,
                    fidelity: first.fidelity.clone(),
                    criteria: first.criteria_set,
                },
                backend,
            },
        }));
    cs.preferred.set(c.chosen);
    state.results.harmonic_eval.compared.results.set(
        c.candidates
            .iter()
            .map(|h| {
                std::array::from_fn(|k| match &h.results[k] {
                    Some(Ok(result)) => Progress::Done {
                        result: result.clone(),
                        cached: false,
                    },
                    Some(Err(m)) => Progress::Failed(m.clone()),
                    None => Progress::Idle,
                })
            })
            .collect(),
    );
    cs.run_labels.set(c.labels);
    // A comparison set by hand opens with every candidate's bars.
    let hands: Option<Vec<_>> = c.candidates.iter().map(|h| h.by_hand).collect();
    if let Some(hands) = hands {
        super::by_hand::put_compared(state, hands);
    }
}

/// Saves the comparison as a JSON file.
pub fn export(state: AppState) {
    let outcome = match comparison(state, None) {
        Some(json) => {
            let first = state
                .results
                .harmonic_eval
                .compared
                .run
                .with_value(|r| r.as_ref().and_then(|r| r.texts.first().cloned()));
            let name = crate::files::export_name::export_name(
                "harmonic_eval-candidates",
                &first.unwrap_or_default(),
                download::local_now(),
            );
            download::download_text(&name, "application/json", &json)
        }
        None => Err("Evaluate first: there is nothing to export yet.".into()),
    };
    state.export_error.set(outcome.err());
}

/// Adds the comparison to the lab's inbox as one best-of-N group (`group`, `chosen`); the lab
/// loads it when it opens, on this device.
pub fn send_to_lab(state: AppState) {
    send_to_lab_with(state, |group| comparison(state, Some(group)))
}
