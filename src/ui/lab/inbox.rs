//! Comparisons sent from the evaluator ("Send to the lab", issue 21) wait in `localStorage`
//! as results JSONL; the lab loads them when it opens, like an imported results file, so the
//! best-of-N groups give pairwise accuracy and the γ sweep without asking a model again.

use leptos::prelude::*;

use crate::candidates::export::inbox_records;
use crate::candidates::export::INBOX_KEY;
use crate::ui::lab::batch_run::replace_run;
use crate::ui::lab::batch_state::{BatchState, BatchStatus};
use crate::ui::state::Settings;
use crate::web::storage;

/// Loads and empties the inbox, if anything waits in it; the lab's metric becomes the
/// comparisons' (FLEUR's scores are read as FLEUR's).
pub fn load(state: Settings, b: BatchState) {
    let Some(text) = storage::take_setting(INBOX_KEY) else {
        return;
    };
    let (results, problems) = inbox_records(&text);
    if results.is_empty() && problems.is_empty() {
        return;
    }
    let groups: std::collections::BTreeSet<&str> =
        results.iter().filter_map(|r| r.group.as_deref()).collect();
    replace_run(b);
    let metric = results
        .first()
        .and_then(|r| crate::metrics::Metric::from_id(&r.metric));
    if let Some(m) = metric {
        state.metric.set(m);
        b.metric.set_value(m);
    }
    b.message.set(Some(format!(
        "Loaded {} candidates in {} comparison{} sent from the evaluator.",
        results.len(),
        groups.len(),
        if groups.len() == 1 { "" } else { "s" }
    )));
    b.report.set(problems);
    b.item_count.set(results.len());
    b.left_out.set(0);
    b.items.set_value(std::rc::Rc::new(Vec::new()));
    b.results.set(results);
    b.status.set(BatchStatus::Finished);
}
