//! Stored runs: the list of the device's runs (reopen, export, delete), resuming a run a reload
//! interrupted, and watching live a run that another tab is running (`web::live`), so that no
//! item is requested twice.

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::batch::ZipArchive;
use crate::lab::stored_run::{self, merge_stored, LiveMessage, StoredRun};
use crate::lab::{io, ItemResult};
use crate::ui::lab::batch_run::{
    flush, load_dataset, maybe_flush, record, replace_run, reset_progress, start, take_lock,
};
use crate::ui::lab::batch_state::{BatchState, BatchStatus, Images};
use crate::ui::state::Settings;
use crate::web::{batch_store, download, files, live, run_lock};
// The records' writes live in a leaf (`run_records`): the runs write through it, and this
// module, which resumes those runs, only reads the list again.
use crate::ui::lab::run_records::refresh;

/// On page load: the stored runs are listed, the newest one a reload interrupted is offered for
/// resuming, and results other tabs post are followed.
pub fn on_load(b: BatchState) {
    follow_other_tabs(b);
    spawn_local(async move {
        let mut runs = Vec::new();
        for run in batch_store::all_runs().await {
            let done = batch_store::result_count(&run.id).await;
            runs.push((run, done));
        }
        stored_run::newest_first(&mut runs);
        if let Some((run, done)) = runs.iter().find(|(r, d)| r.unfinished(*d)) {
            let metric = if run.metric.is_empty() {
                "batch"
            } else {
                &run.metric
            };
            // Free lock: a reload interrupted it. Held: another tab is running it now.
            let running_elsewhere = run_lock::try_acquire(&run.id).await.is_none();
            let how = if running_elsewhere {
                "is running in another tab"
            } else {
                "was interrupted"
            };
            b.resumable.set(Some((
                run.id.clone(),
                format!(
                    "A {metric} batch run of {} items {how} with {done} finished.",
                    run.total
                ),
            )));
            b.resumable_elsewhere.set(running_elsewhere);
        }
        b.runs.set(runs);
    });
}

/// Results and stops posted by the tab that runs the run this tab watches.
fn follow_other_tabs(b: BatchState) {
    live::listen(move |m: LiveMessage| {
        let mine = b.stored_run.with_value(|r| r.as_deref() == Some(m.run()));
        if !mine || b.status.get_untracked() != BatchStatus::Watching {
            if matches!(m, LiveMessage::Stopped { .. }) {
                refresh(b);
            }
            return;
        }
        match m {
            // Shown in batches, as in the running tab; an item already here counts once.
            LiveMessage::Result { result, .. } => {
                if !b.done_ids.with_value(|d| d.contains(&result.id)) {
                    record(b, *result);
                }
            }
            LiveMessage::Stopped { run, .. } => stop_watching(b, run),
        }
    });
}

/// The run ended in the other tab: what it stored is read back, and this tab may run the rest.
fn stop_watching(b: BatchState, run: String) {
    spawn_local(async move {
        let stored = stored_results(&run).await;
        if b.stored_run
            .with_value(|r| r.as_deref() != Some(run.as_str()))
        {
            return;
        }
        flush(b);
        b.results
            .update(|shown| *shown = merge_stored(shown, stored));
        let finished = b.results.with_untracked(Vec::len) >= b.item_count.get_untracked();
        b.status.set(if finished {
            BatchStatus::Finished
        } else {
            BatchStatus::Paused
        });
        b.message.set(Some(
            "The other tab stopped running this batch; what it finished is shown here.".into(),
        ));
        refresh(b);
    });
}

/// While watching, the run's lock is tried every second: free means the running tab stopped
/// or closed (a closed tab posts nothing).
fn watch_lock(b: BatchState, run: String) {
    spawn_local(async move {
        loop {
            crate::web::fetch::sleep(1000, None).await;
            let still = b.status.get_untracked() == BatchStatus::Watching
                && b.stored_run
                    .with_value(|r| r.as_deref() == Some(run.as_str()));
            if !still {
                return;
            }
            maybe_flush(b);
            if run_lock::try_acquire(&run).await.is_some() {
                return stop_watching(b, run);
            }
        }
    });
}

/// A stored run's results, read back (for comparing it with the results on the page).
pub async fn stored_results(run: &str) -> Vec<ItemResult> {
    batch_store::run_results(run)
        .await
        .iter()
        .filter_map(|j| serde_json::from_str(j).ok())
        .collect()
}

/// The images kept with a run.
async fn stored_images(run: &StoredRun) -> Images {
    let mut loose = Vec::new();
    for name in &run.files {
        let Some(blob) = batch_store::get_file(&run.id, name).await else {
            continue;
        };
        if name.to_lowercase().ends_with(".zip") {
            if let Ok(bytes) = files::bytes(&blob).await {
                if let Ok(archive) = ZipArchive::parse(&bytes) {
                    return Images::Zip {
                        bytes: Rc::new(bytes),
                        archive: Rc::new(archive),
                    };
                }
            }
        } else if let Ok(file) =
            web_sys::File::new_with_blob_sequence(&js_sys::Array::of1(&blob), name)
        {
            loose.push(file);
        }
    }
    if loose.is_empty() {
        Images::None
    } else {
        Images::Files(loose)
    }
}

/// Resumes the interrupted run offered on load.
pub fn resume(state: Settings, b: BatchState) {
    if let Some((id, _)) = b.resumable.get_untracked() {
        reopen(state, b, id, true);
    }
}

/// Loads stored run `id` into this tab (dataset, images, finished results). If another tab
/// runs it, it is watched live; else, with `run`, what is left of it is run here.
pub fn reopen(state: Settings, b: BatchState, id: String, run: bool) {
    spawn_local(async move {
        let (Some(record), Some(dataset)) = (
            batch_store::get_run(&id).await,
            batch_store::get_dataset(&id).await,
        ) else {
            b.message.set(Some(
                "That run's dataset could not be read back from this browser's storage.".into(),
            ));
            return;
        };
        replace_run(b);
        if let Some(m) = crate::metrics::Metric::from_id(&record.metric) {
            state.metric.set(m);
        }
        let images = stored_images(&record).await;
        load_dataset(state, b, &dataset.name, &dataset.text, images, Vec::new());
        b.results.set(stored_results(&id).await);
        b.stored_run.set_value(Some(id.clone()));
        b.metric.set_value(state.metric.get_untracked());
        b.resumable.set(None);
        b.message.set(None);
        if !take_lock(b).await {
            reset_progress(b);
            b.status.set(BatchStatus::Watching);
            b.message.set(Some(run_lock::BUSY.into()));
            watch_lock(b, id);
            return;
        }
        let done = b.results.with_untracked(Vec::len);
        // A run handed to OpenAI's Batch API is polled again, not resent.
        if let Some(batch_id) = record.openai_batch {
            b.status.set(BatchStatus::Running);
            crate::ui::lab::openai_batch_run::poll(state, b, batch_id).await;
            return;
        }
        if run && record.unfinished(done) {
            start(state, b);
            return;
        }
        b.lock.set_value(None);
        b.status.set(if record.unfinished(done) {
            BatchStatus::Paused
        } else {
            BatchStatus::Finished
        });
    });
}

/// Downloads a stored run's results (JSONL) without opening it.
pub fn export(b: BatchState, id: String, gamma: f64) {
    spawn_local(async move {
        let results = stored_results(&id).await;
        let text = io::to_jsonl(&results, gamma);
        if let Err(e) = download::download_text(&format!("{id}.jsonl"), "application/jsonl", &text)
        {
            b.message.set(Some(e));
        }
    });
}

/// Deletes a stored run, unless a tab (this one or another) is running it.
pub fn delete(b: BatchState, id: String) {
    spawn_local(async move {
        let here = b
            .stored_run
            .with_value(|r| r.as_deref() == Some(id.as_str()));
        let running_here = here
            && matches!(
                b.status.get_untracked(),
                BatchStatus::Running | BatchStatus::Watching
            );
        let lock = if running_here {
            None
        } else {
            run_lock::try_acquire(&id).await
        };
        let Some(lock) = lock else {
            b.message.set(Some(
                "That run is running (here or in another tab): pause or cancel it before \
                 deleting it."
                    .into(),
            ));
            return;
        };
        if let Err(e) = batch_store::delete_run(&id).await {
            b.message
                .set(Some(format!("That run could not be deleted ({e}).")));
        }
        drop(lock);
        if here {
            replace_run(b);
            b.stored_run.set_value(None);
            b.items.set_value(Rc::new(Vec::new()));
            b.item_count.set(0);
            b.left_out.set(0);
            b.results.set(Vec::new());
            b.report.set(Vec::new());
            b.status.set(BatchStatus::Empty);
        }
        if b.resumable
            .with_untracked(|r| r.as_ref().is_some_and(|(r, _)| *r == id))
        {
            b.resumable.set(None);
        }
        refresh(b);
    });
}

/// The list of stored runs, newest first, each with Open, Export and Delete.
#[component]
pub fn StoredRunsPanel() -> impl IntoView {
    let state = expect_context::<Settings>();
    let b = expect_context::<BatchState>();
    view! {
        <details class="stored-runs" data-testid="stored-runs">
            <summary>{move || format!("Stored runs on this device ({})", b.runs.with(Vec::len))}</summary>
            <ul class="stored-run-list">
                {move || b.runs.get().into_iter().map(|(run, done)| {
                    let id = run.id.clone();
                    let (open_id, export_id, delete_id) = (id.clone(), id.clone(), id.clone());
                    let label = run.summary(done);
                    let current = move || b.stored_run.with_value(|r| r.as_deref() == Some(id.as_str()));
                    view! {
                        <li data-testid="stored-run" data-run=run.id.clone() data-dataset=run.dataset.clone()
                            data-done=done data-total=run.total aria-current=move || current().then_some("true")>
                            <span>{label}</span>
                            <span class="row">
                                <button data-testid="open-run-button" aria-label=format!("Open {}", run.dataset) on:click=move |_| reopen(state, b, open_id.clone(), false)>"Open"</button>
                                <button data-testid="export-run-button" aria-label=format!("Export {}", run.dataset) on:click=move |_| export(b, export_id.clone(), state.gamma.get_untracked())>"Export"</button>
                                <button data-testid="delete-run-button" aria-label=format!("Delete {}", run.dataset) on:click=move |_| delete(b, delete_id.clone())>"Delete"</button>
                            </span>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </details>
    }
}
