//! Batch runs: import a dataset and its images, run the selected metric over every item with
//! pause, resume, cancel and retry-failed, keep every result in IndexedDB as it arrives, resume
//! after a reload, and export or re-import the results.

use std::rc::Rc;

use futures::future::join_all;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsValue;

use crate::ui::runner::fetch_answer;
use crate::ui::batch_items::{plan, prepared_image};
use crate::ui::batch_state::{BatchState, BatchStatus, Images};
use crate::ui::state::AppState;
use crate::batch::{self, Item, Method, ZipArchive};
use crate::errors::{redact, JudgeError};
use crate::lab::{io, ItemResult};
use crate::metrics::Metric;
use crate::web::{batch_store, download, files, run_lock};

fn now() -> f64 {
    js_sys::Date::now()
}

/// The lock is held from a run's start until its status leaves `Running` (paused, cancelled,
/// finished, replaced).
pub fn release_lock_when_stopped(b: BatchState) {
    Effect::new(move |before: Option<BatchStatus>| {
        let now = b.status.get();
        if before == Some(BatchStatus::Running) && now != BatchStatus::Running {
            b.lock.set_value(None);
        }
        now
    });
}

/// Whether this tab holds the device's batch lock, or could take it now (it is then kept).
async fn take_lock(b: BatchState) -> bool {
    if b.lock.with_value(Option::is_some) {
        return true;
    }
    match run_lock::try_acquire().await {
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
    if b.status.get_untracked() == BatchStatus::Running {
        b.status.set(BatchStatus::Cancelled);
    }
}

/// Reads the chosen files: one dataset (JSONL/CSV), plus a ZIP of images and/or image files.
pub fn import(state: AppState, b: BatchState, chosen: Vec<web_sys::File>) {
    spawn_local(async move {
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
        // A new dataset replaces the stored run: never while another tab runs it.
        let mine = b.lock.with_value(Option::is_some);
        let guard = if mine {
            None
        } else {
            match run_lock::try_acquire().await {
                Some(lock) => Some(lock),
                None => {
                    report.insert(0, run_lock::BUSY.into());
                    b.report.set(report);
                    return;
                }
            }
        };
        replace_run(b);
        batch_store::clear().await;
        let mut not_kept: Vec<String> = Vec::new();
        let mut refusal = None;
        let dataset = batch_store::object(&[
            ("name", name.as_str().into()),
            ("text", text.as_str().into()),
        ]);
        if let Err(e) = batch_store::put_meta("dataset", &dataset).await {
            not_kept.push(format!("the dataset \u{201c}{name}\u{201d}"));
            refusal = Some(e);
        }
        for (n, blob) in &files_to_keep {
            if let Err(e) = batch_store::put_meta(&format!("file:{n}"), blob).await {
                not_kept.push(format!("\u{201c}{n}\u{201d}"));
                refusal.get_or_insert(e);
            }
        }
        if let Some(why) = refusal {
            // Said now, not after a reload finds nothing to resume from.
            report.insert(
                0,
                format!(
                    "This browser did not store {} ({why}). The run works in this tab, but a \
                     reload cannot resume it: keep the tab open, or free some storage and \
                     choose the files again.",
                    not_kept.join(", ")
                ),
            );
        }
        load_dataset(state, b, &name, &text, images, report);
        b.results.set(Vec::new());
        drop(guard);
    });
}

/// The first dataset file (.jsonl, .ndjson, .csv, .tsv) inside a ZIP, as (path, text).
async fn dataset_in_zip(
    bytes: &[u8],
    archive: &ZipArchive,
) -> Result<Option<(String, String)>, String> {
    let Some(entry) = archive.entries().iter().find(|e| {
        let lower = e.path.to_lowercase();
        !lower.starts_with("__macosx/")
            && [".jsonl", ".ndjson", ".csv", ".tsv"]
                .iter()
                .any(|x| lower.ends_with(x))
    }) else {
        return Ok(None);
    };
    entry
        .check_size()
        .map_err(|e| format!("{}: {e}", entry.path))?;
    let raw = entry
        .raw(bytes)
        .ok_or("The ZIP entry lies outside the archive.")?;
    let data = match entry.method {
        // Never more than the central directory stated (checked to be within the limit).
        Method::Deflate => files::inflate_raw(raw, entry.uncompressed_size as usize).await?,
        _ => raw.to_vec(),
    };
    entry
        .verify(&data)
        .map_err(|e| format!("{}: {e}", entry.path))?;
    let text = String::from_utf8(data).map_err(|_| format!("{} is not UTF-8 text.", entry.path))?;
    Ok(Some((entry.path.clone(), text)))
}

/// Parses the dataset, checks every item's image, and makes the run ready.
fn load_dataset(
    state: AppState,
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
pub fn start(state: AppState, b: BatchState) {
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

fn begin(state: AppState, b: BatchState) {
    let metric = state.metric.get_untracked();
    b.metric.set_value(metric);
    b.message.set(None);
    let controller = web_sys::AbortController::new().ok();
    if let Some(old) = b.cancel.get_value() {
        old.abort();
    }
    b.cancel.set_value(controller);
    b.claimed.set_value(Default::default());
    b.started_ms.set_value(now());
    b.finished_at_start
        .set_value(b.results.with_untracked(Vec::len));
    b.status.set(BatchStatus::Running);
    let total = b.item_count.get_untracked();
    spawn_local(async move {
        let run = batch_store::object(&[
            ("metric", metric.id().into()),
            ("total", JsValue::from(total as f64)),
        ]);
        if let Err(e) = batch_store::put_meta("run", &run).await {
            b.message.set(Some(format!(
                "The run could not be recorded in this browser ({e}); a reload will not offer \
                 to resume it."
            )));
        }
    });
    let workers = untrack(|| state.effective_concurrency()).clamp(1, 16) as usize;
    for _ in 0..workers {
        spawn_local(worker(state, b));
    }
    tick(b);
}

/// Keeps the rate and ETA moving while the run lasts.
fn tick(b: BatchState) {
    spawn_local(async move {
        while b.status.get_untracked() == BatchStatus::Running {
            b.now_ms.set(now());
            crate::web::fetch::sleep(500, None).await;
        }
        b.now_ms.set(now());
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
pub fn retry_failed(state: AppState, b: BatchState) {
    b.results.update(|r| r.retain(|x| x.is_complete()));
    start(state, b);
}

fn next_item(b: BatchState) -> Option<Item> {
    let items = b.items.get_value();
    let done: std::collections::HashSet<String> = b
        .results
        .with_untracked(|r| r.iter().map(|x| x.id.clone()).collect());
    let next = b.claimed.try_update_value(|claimed| {
        let found = items
            .iter()
            .find(|i| !done.contains(&i.id) && !claimed.contains(&i.id))
            .cloned();
        if let Some(i) = &found {
            claimed.insert(i.id.clone());
        }
        found
    });
    next.flatten()
}

async fn worker(state: AppState, b: BatchState) {
    loop {
        if b.status.get_untracked() != BatchStatus::Running {
            return;
        }
        let run = b.run_id.get_value();
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
        b.results.update(|r| r.push(result));
        b.claimed.update_value(|c| {
            c.remove(&item.id);
        });
        if let Ok(json) = json {
            if let Err(e) = batch_store::put_result(&item.id, &json).await {
                b.message.set(Some(format!(
                    "This browser did not store the result of \u{201c}{}\u{201d} ({e}); it is \
                     on screen: export the results before reloading.",
                    item.id
                )));
            }
        }
    }
    // The last worker to find nothing left finishes the run.
    let all = b.results.with_untracked(Vec::len) >= b.item_count.get_untracked();
    if all && b.status.get_untracked() == BatchStatus::Running {
        b.status.set(BatchStatus::Finished);
    }
}

/// Runs one item; `None` when the run was cancelled meanwhile (nothing is recorded).
async fn process(state: AppState, b: BatchState, item: &Item) -> Option<ItemResult> {
    let metric = b.metric.get_value();
    let backend = state.backend();
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
    Some(plan.read(backend.protocol, result, answers, say))
}

/// On page load: a run that a reload interrupted is offered for resuming.
pub fn check_resumable(b: BatchState) {
    spawn_local(async move {
        let Some(run) = batch_store::get_meta("run").await else {
            return;
        };
        let total = js_sys::Reflect::get(&run, &"total".into())
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0) as usize;
        let metric = js_sys::Reflect::get(&run, &"metric".into())
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default();
        let done = batch_store::all_results().await.len();
        if total > 0 && done < total {
            b.resumable.set(Some(format!(
                "A {metric} batch run of {total} items was interrupted with {done} finished."
            )));
        }
    });
}

/// Restores the interrupted run (dataset, images, finished results) and runs what is left.
pub fn resume(state: AppState, b: BatchState) {
    spawn_local(async move {
        // Another tab running this stored run would have it asked twice.
        if !take_lock(b).await {
            b.message.set(Some(run_lock::BUSY.into()));
            return;
        }
        let dataset = batch_store::get_meta("dataset").await;
        let field = |k: &str| {
            dataset
                .as_ref()
                .and_then(|d| js_sys::Reflect::get(d, &k.into()).ok())
                .and_then(|v| v.as_string())
        };
        let (Some(name), Some(text)) = (field("name"), field("text")) else {
            b.message.set(Some(
                "The interrupted run's dataset could not be read back.".into(),
            ));
            b.lock.set_value(None);
            return;
        };
        if let Some(run) = batch_store::get_meta("run").await {
            if let Some(m) = js_sys::Reflect::get(&run, &"metric".into())
                .ok()
                .and_then(|v| v.as_string())
                .and_then(|id| Metric::from_id(&id))
            {
                state.metric.set(m);
            }
        }
        let mut images = Images::None;
        let mut loose = Vec::new();
        for key in batch_store::file_keys().await {
            let Some(blob) = batch_store::get_meta(&format!("file:{key}")).await else {
                continue;
            };
            let blob: web_sys::Blob = wasm_bindgen::JsCast::unchecked_into(blob);
            if key.to_lowercase().ends_with(".zip") {
                if let Ok(bytes) = files::bytes(&blob).await {
                    if let Ok(archive) = ZipArchive::parse(&bytes) {
                        images = Images::Zip {
                            bytes: Rc::new(bytes),
                            archive: Rc::new(archive),
                        };
                    }
                }
            } else if let Ok(file) =
                web_sys::File::new_with_blob_sequence(&js_sys::Array::of1(&blob), &key)
            {
                loose.push(file);
            }
        }
        if matches!(images, Images::None) && !loose.is_empty() {
            images = Images::Files(loose);
        }
        let results: Vec<ItemResult> = batch_store::all_results()
            .await
            .iter()
            .filter_map(|j| serde_json::from_str(j).ok())
            .collect();
        load_dataset(state, b, &name, &text, images, Vec::new());
        b.results.set(results);
        b.resumable.set(None);
        // A run handed to OpenAI's Batch API is polled again, not resent.
        if let Some(batch_id) = batch_store::get_meta("openai_batch")
            .await
            .and_then(|v| v.as_string())
        {
            b.metric.set_value(state.metric.get_untracked());
            b.status.set(BatchStatus::Running);
            crate::ui::openai_batch_run::poll(state, b, batch_id).await;
            return;
        }
        start(state, b);
    });
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

/// Loads a results file exported earlier: analysis without calling any model.
pub fn import_results(b: BatchState, file: web_sys::File) {
    spawn_local(async move {
        let name = file.name();
        let text = match files::text(&file).await {
            Ok(t) => t,
            Err(e) => return b.message.set(Some(e)),
        };
        let (results, problems) = if name.to_lowercase().ends_with(".csv") {
            io::from_csv_records(&batch::dataset::csv_records(&text))
        } else {
            io::from_jsonl(&text)
        };
        replace_run(b);
        b.report.set(problems);
        b.message.set(Some(format!(
            "Loaded {} results from \u{201c}{name}\u{201d}.",
            results.len()
        )));
        b.item_count.set(results.len());
        b.left_out.set(0);
        b.items.set_value(Rc::new(Vec::new()));
        b.results.set(results);
        b.status.set(BatchStatus::Finished);
    });
}
