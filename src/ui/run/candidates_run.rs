//! What the candidates' buttons do for every metric (issue 21): add and remove a candidate,
//! set its text, and hand a comparison to the lab as one best-of-N group. Judging and exporting
//! them is each metric's (HarmonicEval's `ui/metrics/harmonic_eval/candidates.rs`, the others'
//! `candidates_plain_run.rs`).

use leptos::prelude::*;

use crate::candidates::default_label;
use crate::candidates::export::{append_to_inbox, INBOX_KEY};
use crate::candidates::MAX_CANDIDATES;
use crate::ui::state::AppState;
use crate::web::storage;

/// Adds a candidate; the first click turns the one text into candidates A and B.
pub fn add(state: AppState) {
    let c = state.candidates;
    let n = c.labels.with_untracked(Vec::len);
    if n >= MAX_CANDIDATES {
        return;
    }
    if n == 0 {
        c.texts
            .set(vec![state.inputs.text.get_untracked(), String::new()]);
        c.labels.set(vec![default_label(0), default_label(1)]);
    } else {
        c.texts.update(|t| t.push(String::new()));
        c.labels.update(|l| l.push(default_label(n)));
    }
}

/// Removes candidate `i`; with one left the page is the one-text page again, with its text.
pub fn remove(state: AppState, i: usize) {
    let c = state.candidates;
    c.texts.update(|t| {
        if i < t.len() {
            t.remove(i);
        }
    });
    c.labels.update(|l| {
        if i < l.len() {
            l.remove(i);
        }
    });
    if c.labels.with_untracked(Vec::len) <= 1 {
        let text = c
            .texts
            .with_untracked(|t| t.first().cloned())
            .unwrap_or_default();
        state.inputs.text.set(text);
        c.labels.set(Vec::new());
        c.texts.set(Vec::new());
        state.clear_comparisons();
    }
}

/// Sets candidate `i`'s text (candidate A's is also the page's text, which the cost estimate
/// and the instruction warning read).
pub fn set_text(state: AppState, i: usize, text: String) {
    if i == 0 {
        state.inputs.text.set(text.clone());
    }
    state.candidates.texts.update(|t| {
        if let Some(slot) = t.get_mut(i) {
            *slot = text;
        }
    });
}

/// Adds the comparison `make` gives (given the group's name) to the lab's inbox as one
/// best-of-N group; the lab loads it when it opens, on this device.
pub fn send_to_lab_with(state: AppState, make: impl FnOnce(&str) -> Option<String>) {
    let c = state.candidates;
    let group = format!("cmp-{}", js_sys::Date::now() as u64);
    let Some(line) = make(&group) else {
        return c
            .lab_message
            .set(Some("Evaluate first: there is nothing to send yet.".into()));
    };
    let inbox = append_to_inbox(storage::load_setting(INBOX_KEY).as_deref(), &line);
    let n = c.run_labels.with_untracked(Vec::len);
    let pick = if c.preferred.get_untracked().is_some() {
        ", with your pick"
    } else {
        ", no pick marked: the lab counts no pairs for it"
    };
    c.lab_message.set(Some(match storage::save_setting(INBOX_KEY, &inbox) {
        Ok(()) => format!(
            "Sent to the lab as group \u{201c}{group}\u{201d} ({n} candidates{pick}). Open the lab to see it."
        ),
        Err(e) => e,
    }));
}
