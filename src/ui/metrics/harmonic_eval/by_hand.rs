//! HarmonicEval set by hand (issue 44): five bars per criterion, each an `<input type=range>`
//! (drag, arrow keys) with a number field beside it (typing); presets; a short guided sequence
//! for a class. Every change goes through the criterion's ordinary result signal, so the cards,
//! the overall score, S(γ) and the weights chart follow with the code a model's result uses.
//! The arithmetic is the core's (`metrics::harmonic_eval::by_hand`). All of this but the two
//! buttons that open it lives in the `hand` chunk.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::state::RunContext;
use crate::metrics::harmonic_eval::by_hand::{self, Bars, Hand, Preset, STEPS};
use crate::metrics::harmonic_eval::{CriterionResult, Input};
use crate::providers::Backend;
use crate::scoring::criteria::Criterion;
use crate::scoring::weighting::Scored;
use crate::ui::lazy::{self, ChunkMissing, ChunkView};
use crate::ui::state::{AppState, ExplainState, Progress};

/// A criterion's slot for its bars: the result they give, or the sentence that refuses them.
fn progress(c: Criterion, bars: &Bars) -> Progress<CriterionResult> {
    match by_hand::result(c, bars) {
        Ok(result) => Progress::Done {
            result,
            cached: false,
        },
        Err(m) => Progress::Failed(m),
    }
}

/// Which result the bars edit: the one text's, or candidate `i`'s in a comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    Single,
    Candidate(usize),
}

/// Shows `hand` as the result: every criterion's slot from its bars (used when a by-hand file
/// is opened, too).
pub(crate) fn put_all(state: AppState, hand: Hand) {
    let he = state.results.harmonic_eval;
    for c in Criterion::ALL {
        he.criterion(c).set(progress(c, &hand.bars(c)));
        he.explanation(c).set(ExplainState::Idle);
    }
    he.hands.set(Some(vec![hand]));
}

/// Shows a comparison set by hand: each candidate's slots from its bars.
pub(crate) fn put_compared(state: AppState, hands: Vec<Hand>) {
    let compared = state.results.harmonic_eval.compared;
    compared.results.set(
        hands
            .iter()
            .map(|h| std::array::from_fn(|k| progress(Criterion::ALL[k], &h.0[k])))
            .collect(),
    );
    state.results.harmonic_eval.hands.set(Some(hands));
}

/// The bars of `target` (tracked).
fn hand_of(state: AppState, target: Target) -> Option<Hand> {
    let he = state.results.harmonic_eval;
    let i = match target {
        Target::Single => 0,
        Target::Candidate(i) => i,
    };
    he.hands
        .with(|h| h.as_ref().and_then(|h| h.get(i).copied()))
}

/// Every criterion of `target` as the weighting reads it (tracked).
fn scored_of(state: AppState, target: Target) -> Vec<(Criterion, Option<Scored>)> {
    let he = state.results.harmonic_eval;
    Criterion::ALL
        .iter()
        .map(|&c| {
            let scored = match target {
                Target::Single => he
                    .criterion(c)
                    .with(|s| s.result().map(CriterionResult::scored)),
                Target::Candidate(i) => he.compared.results.with(|r| {
                    r.get(i)
                        .and_then(|r| r[c.index()].result().map(CriterionResult::scored))
                }),
            };
            (c, scored)
        })
        .collect()
}

/// `target`'s weights at γ (tracked), aligned with `Criterion::ALL`.
fn weights_of(state: AppState, target: Target) -> Vec<Option<f64>> {
    match target {
        Target::Single => state
            .results
            .harmonic_eval
            .weighting
            .with(|(w, _)| w.clone()),
        // The core's alignment of weights with criteria, as for the one text.
        Target::Candidate(i) => state.results.harmonic_eval.compared.results.with(|r| {
            let Some(states) = r.get(i) else {
                return vec![None; 5];
            };
            let results: Vec<Option<&CriterionResult>> =
                states.iter().map(|s| s.result()).collect();
            crate::metrics::harmonic_eval::weigh(&results, state.settings.gamma.get()).0
        }),
    }
}

/// One criterion's bars changed: only its slot is set again.
fn put(state: AppState, target: Target, c: Criterion, bars: Bars) {
    let he = state.results.harmonic_eval;
    let Some(hand) = hand_of_untracked(state, target) else {
        return;
    };
    if hand.bars(c) == bars {
        return;
    }
    let hand = hand.with_bars(c, bars);
    let i = match target {
        Target::Single => 0,
        Target::Candidate(i) => i,
    };
    he.hands.update(|h| {
        if let Some(slot) = h.as_mut().and_then(|h| h.get_mut(i)) {
            *slot = hand;
        }
    });
    match target {
        Target::Single => he.criterion(c).set(progress(c, &bars)),
        Target::Candidate(i) => {
            he.compared.results.update(|r| {
                if let Some(r) = r.get_mut(i) {
                    r[c.index()] = progress(c, &bars);
                }
            });
        }
    }
}

/// All five criteria of `target` at once (a step of the guided sequence).
fn put_hand(state: AppState, target: Target, hand: Hand) {
    for c in Criterion::ALL {
        put(state, target, c, hand.bars(c));
    }
}

fn hand_of_untracked(state: AppState, target: Target) -> Option<Hand> {
    untrack(|| hand_of(state, target))
}

fn set_bar(state: AppState, target: Target, c: Criterion, rating: usize, value: u8) {
    if let Some(hand) = hand_of_untracked(state, target) {
        put(state, target, c, hand.with_bar(c, rating, value).bars(c));
    }
}

/// "Change these ratings" on a comparison: every candidate's bars from its result.
fn begin_compared(state: AppState) {
    let compared = state.results.harmonic_eval.compared;
    let hands: Vec<Hand> = compared.results.with_untracked(|r| {
        r.iter()
            .map(|states| Hand::from_results(&std::array::from_fn(|k| states[k].result())))
            .collect()
    });
    compared.run.update_value(|r| {
        if let Some(r) = r {
            r.context.backend = Backend {
                model: by_hand::MODEL.into(),
                ..Backend::default()
            };
        }
    });
    put_compared(state, hands);
}

/// Starts a by-hand result: `fresh` from [`by_hand::START`] (the gallery's button), else from
/// the result shown ("Change these ratings"). The text, question and image on the page stay
/// with it, so the export and the share link describe them.
fn begin(state: AppState, fresh: bool) {
    let he = state.results.harmonic_eval;
    if !fresh && he.compared.has_run() {
        return begin_compared(state);
    }
    let hand = if fresh {
        by_hand::START
    } else {
        let states: Vec<Progress<CriterionResult>> =
            he.criteria.iter().map(|s| s.get_untracked()).collect();
        let shown: [Option<&CriterionResult>; 5] = std::array::from_fn(|i| states[i].result());
        Hand::from_results(&shown)
    };
    state.generation.update_value(|g| *g += 1);
    state.settings.form_problems.set(Vec::new());
    state
        .settings
        .metric
        .set(crate::metrics::Metric::HarmonicEval);
    state.reset_candidates();
    let input = Input {
        task: state.inputs.task.get_untracked(),
        text: state.inputs.text.get_untracked(),
        question: state.inputs.question.get_untracked(),
        image: state
            .inputs
            .image_view
            .get_untracked()
            .and_then(|v| v.sent()),
        fidelity: state.settings.fidelity_now(),
        criteria: Default::default(),
    };
    state.settings.chosen_criteria.set(Default::default());
    he.run.set_value(Some(RunContext {
        input,
        backend: Backend {
            model: by_hand::MODEL.into(),
            ..Backend::default()
        },
    }));
    put_all(state, hand);
    if fresh {
        // From the gallery, on a phone the results lie far below: bring the score (and the
        // bars under it) into view, and the keyboard's focus with it, as after a run.
        request_animation_frame(|| {
            let el = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id("overall-score"))
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
            if let Some(el) = el {
                el.scroll_into_view();
                let _ = el.focus();
            }
        });
    }
}

/// Opening the by-hand result, in the `hand` chunk.
#[leptos::wasm_split::wasm_split(hand, wasm_split_path = ::leptos::wasm_split, fallible)]
fn begin_loaded(state: AppState, fresh: bool) -> Result<(), ChunkMissing> {
    begin(state, fresh);
    Ok(())
}

/// "Set the ratings yourself" (`fresh`) and "Change these ratings": fetches the chunk, then
/// starts. A chunk that cannot be fetched is said in the form's problems.
pub(crate) fn start(state: AppState, fresh: bool) {
    lazy::act(
        state.settings.form_problems,
        "setting the ratings by hand",
        crate::ui::lazy::CHUNK_WAIT_MS,
        begin_loaded(state, fresh),
    );
}

/// The panel, in the `hand` chunk.
#[leptos::wasm_split::wasm_split(hand, wasm_split_path = ::leptos::wasm_split, fallible)]
pub(crate) fn hand_view() -> ChunkView {
    Ok(view! { <HandPanel/> }.into_any())
}

fn number_of(ev: &leptos::ev::Event) -> Option<(web_sys::HtmlInputElement, Option<u8>)> {
    let input: web_sys::HtmlInputElement = ev.target()?.dyn_into().ok()?;
    let v = input
        .value()
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite());
    Some((
        input,
        v.map(|v| v.round().clamp(0.0, f64::from(by_hand::MAX_BAR)) as u8),
    ))
}

/// The sentence on which criterion carries the weight at this γ, and why.
fn sentence(state: AppState, target: Target) -> Option<String> {
    by_hand::weight_sentence(
        &scored_of(state, target),
        &weights_of(state, target),
        state.settings.gamma.get(),
    )
}

#[component]
fn HandPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let he = state.results.harmonic_eval;
    let step = RwSignal::new(None::<usize>);
    // In a comparison, the candidate whose bars are shown.
    let editing = RwSignal::new(0usize);
    let target = Signal::derive(move || {
        if he.compared.has_run() {
            Target::Candidate(editing.get())
        } else {
            Target::Single
        }
    });
    let go = move |i: usize| {
        let s = STEPS[i];
        step.set(Some(i));
        state.settings.gamma.set(s.gamma);
        put_hand(state, target.get_untracked(), s.hand);
    };
    let leave = move |_| {
        he.hands.set(None);
        he.run.set_value(None);
        for c in Criterion::ALL {
            he.criterion(c).set(Progress::Idle);
        }
        he.compared.clear();
    };
    let labels = move || {
        he.compared
            .run
            .with_value(|r| r.as_ref().map(|r| r.labels.clone()).unwrap_or_default())
    };
    view! {
        <section class="hand" data-testid="hand-panel" aria-labelledby="hand-heading">
            <header class="hand-top">
                <h2 id="hand-heading">"Ratings set by hand"</h2>
                <button type="button" class="hand-leave" data-testid="hand-leave" on:click=leave>"Leave"</button>
            </header>
            <p class="hand-said" data-testid="hand-note">
                <strong>{by_hand::SAID}</strong>
                " Each bar is a weight from 0 to 100; a criterion's five are normalised into its rating probabilities."
            </p>
            <Show when=move || matches!(target.get(), Target::Candidate(_))>
                <div class="hand-steps" role="group" aria-label="The candidate whose bars are shown">
                    <span>"Candidate:"</span>
                    {move || labels().into_iter().enumerate().map(|(i, l)| view! {
                        <button type="button" data-testid=format!("hand-candidate-{i}")
                            aria-pressed=move || (editing.get() == i).to_string()
                            on:click=move |_| editing.set(i)>{l}</button>
                    }).collect_view()}
                </div>
            </Show>
            <div class="hand-steps" role="group" aria-label="Steps for a class">
                <span>"For a class:"</span>
                {STEPS.iter().enumerate().map(|(i, s)| view! {
                    <button type="button" data-testid=format!("hand-step-{}", i + 1)
                        aria-pressed=move || (step.get() == Some(i)).to_string()
                        on:click=move |_| go(i)>{format!("{}. {}", i + 1, s.title)}</button>
                }).collect_view()}
            </div>
            <p class="hand-lesson" data-testid="hand-lesson" class:hidden=move || step.get().is_none()>
                {move || step.get().map(|i| STEPS[i].sentence)}
            </p>
            <p class="hand-sentence" data-testid="hand-sentence" aria-live="polite">{move || sentence(state, target.get())}</p>
            <div class="hand-rows">
                {Criterion::ALL.into_iter().map(|c| view! { <CriterionBars criterion=c target/> }).collect_view()}
            </div>
        </section>
    }
}

#[component]
fn CriterionBars(criterion: Criterion, target: Signal<Target>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let he = state.results.harmonic_eval;
    let id = criterion.id();
    let label = criterion.label();
    let bars = move || {
        hand_of(state, target.get())
            .map(|h| h.bars(criterion))
            .unwrap_or_default()
    };
    let result = move || {
        scored_of(state, target.get())[criterion.index()]
            .1
            .map(|s| (s.score, s.sigma))
    };
    let weight = move || weights_of(state, target.get())[criterion.index()];
    let refused = move || match target.get() {
        Target::Single => he.criterion(criterion).with(|s| s.error()),
        Target::Candidate(i) => he
            .compared
            .results
            .with(|r| r.get(i).and_then(|r| r[criterion.index()].error())),
    };
    let on_preset = move |ev: leptos::ev::Event| {
        let Some(select) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
        else {
            return;
        };
        if let Some(p) = Preset::from_id(&select.value()) {
            put(state, target.get_untracked(), criterion, p.bars());
        }
        // The menu is an action, not a state: it shows its prompt again.
        select.set_value("");
    };
    view! {
        <div class="hand-row" data-testid=format!("hand-row-{id}") role="group" aria-labelledby=format!("hand-name-{id}")>
            <div class="hand-head">
                <strong id=format!("hand-name-{id}")>{label}</strong>
                <span class="hand-score" data-testid=format!("hand-score-{id}")>
                    {move || result().map(|(s, sigma)| format!("{s:.2} (σ {:.2})", sigma.unwrap_or_default())).unwrap_or_else(|| "no score".into())}
                </span>
                <span class="hand-weight" data-testid=format!("hand-weight-{id}")>
                    {move || weight().map(|w| format!("weight {}", by_hand::percent(w))).unwrap_or_default()}
                </span>
            </div>
            <div class="hand-bars">
                {(1..=5usize).map(|k| {
                    let value = move || bars()[k - 1].to_string();
                    let name = format!("{label}, rating {k}");
                    view! {
                        <div class="hand-bar">
                            <input type="range" class="hand-range" min="0" max="100" step="1"
                                data-testid=format!("hand-{id}-{k}")
                                aria-label=format!("{name}: weight from 0 to 100")
                                prop:value=value
                                on:input=move |ev| if let Some((_, Some(v))) = number_of(&ev) { set_bar(state, target.get_untracked(), criterion, k, v) }/>
                            <input type="number" class="hand-typed" min="0" max="100" step="1" inputmode="numeric"
                                data-testid=format!("hand-{id}-{k}-typed")
                                aria-label=format!("{name}: type a weight")
                                prop:value=value
                                on:input=move |ev| if let Some((_, Some(v))) = number_of(&ev) { set_bar(state, target.get_untracked(), criterion, k, v) }
                                on:change=move |ev| if let Some((input, _)) = number_of(&ev) { input.set_value(&value()) }/>
                            <span class="hand-k" aria-hidden="true">{k}</span>
                        </div>
                    }
                }).collect_view()}
            </div>
            <select class="hand-preset" data-testid=format!("hand-preset-{id}") aria-label=format!("Preset for {label}") on:change=on_preset>
                <option value="" selected>"Preset…"</option>
                {Preset::ALL.into_iter().map(|p| view! { <option value=p.id()>{p.label()}</option> }).collect_view()}
            </select>
            <p class="error hand-refused" role="alert" data-testid=format!("hand-refused-{id}")>{refused}</p>
        </div>
    }
}
