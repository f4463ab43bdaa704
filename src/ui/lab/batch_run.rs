//! Batch runs: import a dataset and its images, run the selected metric over every item with
//! pause, resume, cancel and retry-failed, keep every result in IndexedDB as it arrives, resume
//! after a reload, and export or re-import the results.

use std::rc::Rc;

use futures::future::join_all;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::answers::errors::{redact, JudgeError};
use crate::batch::{self, Item, ZipArchive};
use crate::lab::stored_run::{new_run_id, LiveMessage, StoredDataset, StoredRun};
use crate::lab::{io, ItemResult};
use crate::ui::lab::batch_items::{plan, prepared_image};
use crate::ui::lab::batch_state::{BatchState, BatchStatus, Images};
use crate::ui::run::runner::fetch_answer;
use crate::ui::state::Settings;
use crate::web::{batch_store, download, files, live, run_lock};

fn now() -> f64 {
    js_sys::Date::now()
}

/// The lock is held from a run's start until its status leaves `Running` (paused, cancelled,
/// finished, replaced); the device's other tabs are told the run stopped.
pub fn release_lock_when_stopped(b: BatchState) {
    // The run id is the one that was running, not whatever this tab holds by now.
    Effect::new(move |before: Option<(BatchStatus, Option<String>)>| {
        let now = b.status.get();
        if let Some((BatchStatus::Running, ran)) = before {
            if now != BatchStatus::Running {
                b.lock.set_value(None);
                if let Some(run) = ran {
                    live::post(&LiveMessage::Stopped {
                        run,
                        status: now.id().into(),
                    });
                }
                crate::ui::lab::run_records::refresh(b);
            }
        }
        (now, b.stored_run.get_value())
    });
}

/// Whether this tab holds the lock of its stored run, or could take it now (it is then kept).
/// A results file (not stored) needs no lock.
pub(crate) async fn take_lock(b: BatchState) -> bool {
    if b.lock.with_value(Option::is_some) {
        return true;
    }
    let Some(run) = b.stored_run.get_value() else {
        return true;
    };
    match run_lock::try_acquire(&run).await {
        Some(lock) => {
            b.lock.set_value(Some(lock));
            true
        }
        None => false,
    }
}

/// What this tab holds is being replaced: its run stops, requests in flight are aborted, and
/// answers that still arrive for them are dropped (`run_id`).
pub(crate) fn replace_run(b: BatchState) {
    b.run_id.update_value(|n| *n += 1);
    if let Some(c) = b.cancel.get_value() {
        c.abort();
    }
    b.claimed.set_value(Default::default());
    // Stored already under the old run's id; not for whatever this tab shows next.
    b.pending.set_value(Vec::new());
    if b.status.get_untracked() == BatchStatus::Running {
        b.status.set(BatchStatus::Cancelled);
    }
    // The old run's lock goes with it (the effect above drops it too, once it has told the
    // other tabs under the old run's id).
    b.lock.set_value(None);
}

/// A chosen ZIP: its name, the file, its bytes and its parsed directory.
type ChosenZip = (String, web_sys::File, (Vec<u8>, ZipArchive));

/// The chosen files sorted out: what could not be read, the dataset (name, text), the ZIP and
/// the loose image files.
async fn read_chosen(
    chosen: Vec<web_sys::File>,
) -> (
    Vec<String>,
    Option<(String, String)>,
    Option<ChosenZip>,
    Vec<web_sys::File>,
) {
    let mut report = Vec::new();
    let mut dataset = None;
    let mut zip = None;
    let mut loose = Vec::new();
    for f in chosen {
        let name = f.name();
        let lower = name.to_lowercase();
        if lower.ends_with(".zip") {
            match files::bytes(&f).await.and_then(|bytes| {
                ZipArchive::parse(&bytes)
                    .map(|a| (bytes, a))
                    .map_err(|e| format!("\u{201c}{name}\u{201d}: {e}"))
            }) {
                Ok(z) => zip = Some((name, f, z)),
                Err(e) => report.push(e),
            }
        } else if lower.ends_with(".jsonl")
            || lower.ends_with(".csv")
            || lower.ends_with(".json")
            || lower.ends_with(".tsv")
        {
            match files::text(&f).await {
                Ok(text) => dataset = Some((name, text)),
                Err(e) => report.push(format!("\u{201c}{name}\u{201d}: {e}")),
            }
        } else {
            loose.push(f);
        }
    }
    (report, dataset, zip, loose)
}

/// Stores the dataset and its files under run `id`; on a refusal, the sentence that says what
/// was not kept and what that means.
async fn store_inputs(
    id: &str,
    name: &str,
    text: &str,
    files_to_keep: &[(String, web_sys::Blob)],
) -> Option<String> {
    let mut not_kept: Vec<String> = Vec::new();
    let mut refusal = None;
    let dataset = StoredDataset {
        name: name.to_string(),
        text: text.to_string(),
    };
    if let Err(e) = batch_store::put_dataset(id, &dataset).await {
        not_kept.push(format!("the dataset \u{201c}{name}\u{201d}"));
        refusal = Some(e);
    }
    for (n, blob) in files_to_keep {
        if let Err(e) = batch_store::put_file(id, n, blob).await {
            not_kept.push(format!("\u{201c}{n}\u{201d}"));
            refusal.get_or_insert(e);
        }
    }
    // Said now, not after a reload finds nothing to resume from.
    refusal.map(|why| {
        format!(
            "This browser did not store {} ({why}). The run works in this tab, but a \
             reload cannot resume it: keep the tab open.",
            not_kept.join(", ")
        )
    })
}

/// Reads the chosen files: one dataset (JSONL/CSV), plus a ZIP of images and/or image files.
pub fn import(state: Settings, b: BatchState, chosen: Vec<web_sys::File>) {
    spawn_local(async move {
        b.importing
            .set(Some("Reading the chosen files\u{2026}".into()));
        import_chosen(state, b, chosen).await;
        b.importing.set(None);
    });
}

async fn import_chosen(state: Settings, b: BatchState, chosen: Vec<web_sys::File>) {
    {
        let (mut report, dataset, zip, loose) = read_chosen(chosen).await;
        // A ZIP that holds the dataset file too (the sample dataset does) is enough on its own.
        let dataset = match (dataset, &zip) {
            (None, Some((zname, _, (bytes, archive)))) => {
                match dataset_in_zip(bytes, archive).await {
                    Ok(found) => found,
                    Err(e) => {
                        report.push(format!("\u{201c}{zname}\u{201d}: {e}"));
                        None
                    }
                }
            }
            (d, _) => d,
        };
        let Some((name, text)) = dataset else {
            report.insert(
                0,
                "Choose a dataset file (.jsonl or .csv), with its images as a .zip or as files."
                    .into(),
            );
            b.report.set(report);
            return;
        };
        let images = match &zip {
            Some((_, _, (bytes, archive))) => Images::Zip {
                bytes: Rc::new(bytes.clone()),
                archive: Rc::new(archive.clone()),
            },
            None if !loose.is_empty() => Images::Files(loose.clone()),
            None => Images::None,
        };
        let files_to_keep: Vec<(String, web_sys::Blob)> = match &zip {
            Some((zname, f, _)) => vec![(zname.clone(), f.clone().into())],
            None => loose.iter().map(|f| (f.name(), f.clone().into())).collect(),
        };
        // A new dataset is a new stored run, under its own id: no other run (in this tab or
        // another) is touched, and this tab's previous run stays stored, listed and reopenable.
        replace_run(b);
        let id = new_run_id(now(), js_sys::Math::random());
        let mut record = StoredRun {
            id: id.clone(),
            created_ms: now(),
            dataset: name.clone(),
            metric: String::new(),
            total: 0,
            files: files_to_keep.iter().map(|(n, _)| n.clone()).collect(),
            openai_batch: None,
        };
        b.importing.set(Some(
            "Keeping the dataset on this device, so a reload can resume the run\u{2026}".into(),
        ));
        if let Some(refused) = store_inputs(&id, &name, &text, &files_to_keep).await {
            report.insert(0, refused);
        }
        b.importing.set(Some(crate::batch::ready::checking_sentence(
            text.lines().count(),
        )));
        // Let the page show that before the check, which holds the tab for a moment on a
        // large dataset.
        crate::web::fetch::sleep(30, None).await;
        load_dataset(state, b, &name, &text, images, report);
        b.results.set(Vec::new());
        b.stored_run.set_value(Some(id));
        record.total = b.item_count.get_untracked();
        if let Err(e) = batch_store::put_run(&record).await {
            b.report.update(|r| {
                r.insert(
                    0,
                    format!(
                        "This browser did not store the run's record ({e}): a reload will not \
                         list it or offer to resume it."
                    ),
                )
            });
        }
        crate::ui::lab::run_records::refresh(b);
    }
}

/// The first dataset file (.jsonl, .ndjson, .csv, .tsv) inside a ZIP, as (path, text).
async fn dataset_in_zip(
    bytes: &[u8],
    archive: &ZipArchive,
) -> Result<Option<(String, String)>, String> {
    let Some(entry) = archive.dataset_entry() else {
        return Ok(None);
    };
    let raw = entry.checked_raw(bytes)?;
    let data = if entry.deflated() {
        // Never more than the central directory stated (checked_raw bounded it).
        files::inflate_raw(raw, entry.uncompressed_size as usize).await?
    } else {
        raw.to_vec()
    };
    Ok(Some((entry.path.clone(), entry.text(data)?)))
}

/// Parses the dataset, checks every item's image, and makes the run ready.
pub(crate) fn load_dataset(
    state: Settings,
    b: BatchState,
    name: &str,
    text: &str,
    images: Images,
    report: Vec<String>,
) {
    let parsed = batch::parse(name, text);
    let needs_image = state.metric.get_untracked().needs_image_file();
    // Items whose image is missing are not ready (they are reported and left out), and the
    // report is in line order whichever check found what.
    let ready = batch::ready::readiness(parsed, needs_image, |img| has_image(&images, img), report);
    b.left_out.set(ready.left_out);
    b.item_count.set(ready.ready.len());
    b.items.set_value(Rc::new(ready.ready));
    let report = ready.report;
    b.images.set_value(images);
    b.dataset_file
        .set_value(Some((name.to_string(), text.to_string())));
    b.report.set(report);
    b.status.set(BatchStatus::Ready);
}

fn has_image(images: &Images, name: &str) -> bool {
    match images {
        Images::None => false,
        Images::Zip { archive, .. } => archive.find(name).is_ok(),
        Images::Files(f) => f
            .iter()
            .any(|f| batch::base_name(&f.name()) == batch::base_name(name)),
    }
}

/// Starts (or resumes) the run: items without a result are worked on, a few at a time, once
/// this tab holds the device's batch lock (another tab running refuses it with a sentence).
pub fn start(state: Settings, b: BatchState) {
    if b.item_count.get_untracked() == 0 {
        b.message.set(Some("Import a dataset first.".into()));
        return;
    }
    spawn_local(async move {
        if take_lock(b).await {
            begin(state, b);
        } else {
            b.message.set(Some(run_lock::BUSY.into()));
        }
    });
}

fn begin(state: Settings, b: BatchState) {
    let metric = state.metric.get_untracked();
    b.metric.set_value(metric);
    b.message.set(None);
    let controller = web_sys::AbortController::new().ok();
    if let Some(old) = b.cancel.get_value() {
        old.abort();
    }
    b.cancel.set_value(controller);
    b.claimed.set_value(Default::default());
    reset_progress(b);
    b.started_ms.set_value(now());
    b.finished_at_start
        .set_value(b.results.with_untracked(Vec::len));
    b.status.set(BatchStatus::Running);
    let total = b.item_count.get_untracked();
    let stored = b.stored_run.get_value();
    spawn_local(async move {
        let Some(id) = stored else { return };
        let recorded = batch_store::update_run(&id, |r| {
            r.metric = metric.id().into();
            r.total = total;
        });
        if let Err(e) = recorded.await {
            b.message.set(Some(format!(
                "The run could not be recorded in this browser ({e}); a reload will not offer \
                 to resume it."
            )));
        }
    });
    let workers = untrack(|| state.provider.effective_concurrency()).clamp(1, 16) as usize;
    for _ in 0..workers {
        spawn_local(worker(state, b));
    }
    tick(b);
}

/// Keeps the rate and ETA moving while the run lasts, and shows results that waited long
/// enough.
fn tick(b: BatchState) {
    spawn_local(async move {
        while b.status.get_untracked() == BatchStatus::Running {
            b.now_ms.set(now());
            maybe_flush(b);
            crate::web::fetch::sleep(500, None).await;
        }
        flush(b);
        b.now_ms.set(now());
    });
}

/// Before a run (or a watch) starts: which items have results, from those shown.
pub(crate) fn reset_progress(b: BatchState) {
    flush(b);
    let done = b
        .results
        .with_untracked(|r| r.iter().map(|x| x.id.clone()).collect());
    b.done_ids.set_value(done);
    b.cursor.set_value(0);
    b.pacer.set_value(crate::lab::pace::Pacer::new(now()));
}

/// A finished result: recorded at once (never picked again), shown when the pacer says.
pub(crate) fn record(b: BatchState, result: ItemResult) {
    b.done_ids.update_value(|d| {
        d.insert(result.id.clone());
    });
    b.pending.update_value(|p| p.push(result));
    maybe_flush(b);
}

pub(crate) fn maybe_flush(b: BatchState) {
    let pending = b.pending.with_value(Vec::len);
    let stored = b.results.with_untracked(Vec::len);
    if b.pacer.with_value(|p| p.due(pending, stored, now())) {
        flush(b);
    }
}

/// Shows every waiting result, and times the recomputation that follows (the effects run
/// before the next task) for the pacer.
pub(crate) fn flush(b: BatchState) {
    let batch = b
        .pending
        .try_update_value(std::mem::take)
        .unwrap_or_default();
    if batch.is_empty() {
        return;
    }
    let t0 = now();
    b.pacer.update_value(|p| p.flushed(t0, 0.0));
    crate::web::timing::start("hj-flush");
    b.results.update(|r| r.extend(batch));
    spawn_local(async move {
        crate::web::fetch::sleep(0, None).await;
        crate::web::timing::end("hj-flush");
        let t1 = now();
        b.pacer.update_value(|p| p.flushed(t1, t1 - t0));
    });
}

pub fn pause(b: BatchState) {
    if b.status.get_untracked() == BatchStatus::Running {
        b.status.set(BatchStatus::Paused);
    }
}

/// Stops at once: requests in flight are aborted; finished items stay.
pub fn cancel(b: BatchState) {
    if let Some(c) = b.cancel.get_value() {
        c.abort();
    }
    b.status.set(BatchStatus::Cancelled);
}

/// Forgets the failed items' results and runs them again.
pub fn retry_failed(state: Settings, b: BatchState) {
    flush(b);
    b.results.update(|r| r.retain(|x| x.is_complete()));
    start(state, b);
}

/// The next item with no result that no worker holds. Items before the cursor all had one or
/// were held when passed, and an item once held ends with a result (or the run stops), so the
/// search resumes there: constant time per item, whatever the number stored.
fn next_item(b: BatchState) -> Option<Item> {
    let items = b.items.get_value();
    let start = b.cursor.get_value();
    let found = b.done_ids.with_value(|done| {
        b.claimed.with_value(|claimed| {
            items
                .iter()
                .enumerate()
                .skip(start)
                .find(|(_, i)| !done.contains(&i.id) && !claimed.contains(&i.id))
                .map(|(k, i)| (k, i.clone()))
        })
    });
    let (k, item) = found?;
    b.cursor.set_value(k + 1);
    b.claimed.update_value(|c| {
        c.insert(item.id.clone());
    });
    Some(item)
}

async fn worker(state: Settings, b: BatchState) {
    loop {
        if b.status.get_untracked() != BatchStatus::Running {
            return;
        }
        let run = b.run_id.get_value();
        let stored = b.stored_run.get_value();
        let Some(item) = next_item(b) else { break };
        let result = process(state, b, &item).await;
        let Some(result) = result else { return }; // cancelled
        if b.run_id.get_value() != run {
            return; // the dataset was replaced meanwhile: this answer belongs to no one now
        }
        let json = serde_json::to_string(&result);
        // Recorded before the claim is released and before the storage write awaits: in the
        // other order another worker could claim the item meanwhile and run it twice (found by
        // the dying-server test, where failures come back at once).
        let live = stored.clone().map(|run| LiveMessage::Result {
            run,
            result: Box::new(result.clone()),
        });
        record(b, result);
        b.claimed.update_value(|c| {
            c.remove(&item.id);
        });
        if let (Ok(json), Some(run)) = (json, stored) {
            let kept = batch_store::put_result(&run, &item.id, &json).await;
            // Told once stored, so a watching tab that reads storage later finds it too.
            if let Some(m) = live {
                live::post(&m);
            }
            if let Err(e) = kept {
                b.message.set(Some(format!(
                    "This browser did not store the result of \u{201c}{}\u{201d} ({e}); it is \
                     on screen: export the results before reloading.",
                    item.id
                )));
            }
        }
    }
    // The last worker to find nothing left finishes the run.
    let all = b.done_ids.with_value(|d| d.len()) >= b.item_count.get_untracked();
    if all && b.status.get_untracked() == BatchStatus::Running {
        flush(b);
        b.status.set(BatchStatus::Finished);
    }
}

/// Runs one item; `None` when the run was cancelled meanwhile (nothing is recorded).
async fn process(state: Settings, b: BatchState, item: &Item) -> Option<ItemResult> {
    let metric = b.metric.get_value();
    let backend = state.provider.backend();
    let cancel = b.cancel.get_value().map(|c| c.signal());
    let plan = plan(state, metric);
    let mut result = plan.blank_result(item);
    let key = backend.api_key.clone();
    let say = |e: JudgeError| redact(&e.to_string(), &key);
    let image = if plan.sends_image() {
        match prepared_image(&b.images.get_value(), item, state.max_side.get_untracked()).await {
            Ok(i) => i,
            Err(e) => {
                result.error = Some(e);
                return Some(result);
            }
        }
    } else {
        None
    };
    let requests = match plan.requests(&backend, item, image) {
        Ok(r) => r,
        Err(e) => {
            result.error = Some(say(e));
            return Some(result);
        }
    };
    // The same transport (cache, limiter, retries, Cancel) as the one-item page's requests.
    let answers = join_all(requests.iter().map(|(_, r)| {
        let answer = fetch_answer(
            state,
            cancel.clone(),
            backend.protocol,
            r.clone(),
            None,
            Box::new(|_| {}),
        );
        async move { answer.await.map(|a| a.completion) }
    }))
    .await;
    if cancel.as_ref().is_some_and(|c| c.aborted()) {
        return None;
    }
    let answers = requests
        .into_iter()
        .map(|(slot, _)| slot)
        .zip(answers)
        .collect();
    Some(plan.read(&backend, item, result, answers, say))
}

pub fn export(b: BatchState, gamma: f64, csv: bool) {
    let results = b.results.get_untracked();
    let (name, mime, text) = if csv {
        ("results.csv", "text/csv", io::to_csv(&results, gamma))
    } else {
        (
            "results.jsonl",
            "application/jsonl",
            io::to_jsonl(&results, gamma),
        )
    };
    if let Err(e) = download::download_text(name, mime, &text) {
        b.message.set(Some(e));
    }
}
