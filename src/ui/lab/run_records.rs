//! The stored runs' records as a run writes them: its results, the OpenAI batch it was handed
//! to, and the list of runs. A leaf: `batch_run` and `openai_batch_run` write through it, and
//! `stored_runs` (which resumes their runs) lists the runs again through it.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::lab::stored_run;
use crate::ui::lab::batch_state::BatchState;
use crate::web::batch_store;

/// Stores one result of this tab's run (a results file is not stored: nothing to do).
pub async fn put_result(b: BatchState, item: &str, json: &str) -> Result<(), String> {
    match b.stored_run.get_value() {
        Some(run) => batch_store::put_result(&run, item, json).await,
        None => Ok(()),
    }
}

/// Records (or forgets) the OpenAI batch this tab's run was handed to, in the run's record.
pub async fn set_openai_batch(b: BatchState, batch: Option<String>) -> Result<(), String> {
    let Some(run) = b.stored_run.get_value() else {
        return Err("the results file loaded here is not a stored run".into());
    };
    batch_store::update_run(&run, |r| r.openai_batch = batch).await
}

/// Reads the list of stored runs (with their result counts) into `b.runs`.
pub fn refresh(b: BatchState) {
    spawn_local(async move {
        let mut runs = Vec::new();
        for run in batch_store::all_runs().await {
            let done = batch_store::result_count(&run.id).await;
            runs.push((run, done));
        }
        stored_run::newest_first(&mut runs);
        b.runs.set(runs);
    });
}
