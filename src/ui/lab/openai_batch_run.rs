//! Handing a batch run to OpenAI's Batch API: the pending items' requests go up as one JSONL
//! file, a batch is created and polled, and its output is read into the same results store as
//! an in-browser run (at half the price, within 24 hours). The batch id is kept in IndexedDB so
//! a reload keeps polling the same batch.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::answers::errors::{redact, JudgeError};
use crate::batch::openai_batch::{self, BatchInfo};
use crate::batch::plan::{self as batch_plan, Plan, Saving};
use crate::batch::reading::{self, PlannedRequests};
use crate::lab::ItemResult;
use crate::providers::{Backend, HttpRequest};
use crate::ui::lab::batch_items::{plan, prepared_image};
use crate::ui::lab::batch_state::{BatchState, BatchStatus};
use crate::ui::lab::run_records;
use crate::ui::state::Settings;
use crate::web::{fetch, files};

const CALL_TIMEOUT_MS: u32 = 120_000;

async fn call(req: &HttpRequest) -> Result<fetch::RawResponse, JudgeError> {
    fetch::send(req, CALL_TIMEOUT_MS, None).await
}

/// Builds, uploads and submits the pending items, then polls until the batch ends; only once
/// this tab holds the stored run's lock, as a direct run does. Without it, a second tab that
/// had the same run open could submit its items again (issue 17.2's lock, missing here).
pub fn submit(state: Settings, b: BatchState) {
    spawn_local(async move {
        if crate::ui::lab::batch_run::take_lock(b).await {
            submit_locked(state, b);
        } else {
            b.message.set(Some(crate::web::run_lock::BUSY.into()));
        }
    });
}

fn submit_locked(state: Settings, b: BatchState) {
    let metric = state.metric.get_untracked();
    b.metric.set_value(metric);
    let backend = state.provider.backend();
    let plan = plan(state, metric);
    b.status.set(BatchStatus::Running);
    b.message.set(Some("Preparing the batch file…".into()));
    spawn_local(async move {
        let key = backend.api_key.clone();
        let fail = move |e: String| {
            b.message.set(Some(redact(&e, &key)));
            b.status.set(BatchStatus::Ready);
        };
        let (lines, broken) = pending_lines(state, b, &plan, &backend).await;
        store_results(b, broken).await;
        if lines.is_empty() {
            b.status.set(BatchStatus::Finished);
            b.message.set(Some("Nothing left to submit.".into()));
            return;
        }
        let jsonl = match openai_batch::input_jsonl(&lines) {
            Ok(j) => j,
            Err(e) => return fail(e.to_string()),
        };
        // Upload the file (multipart: the browser writes the body).
        let plan = match openai_batch::upload_request(&backend) {
            Ok(p) => p,
            Err(e) => return fail(e.to_string()),
        };
        let Ok(form) = web_sys::FormData::new() else {
            return fail("The browser refused a form.".into());
        };
        let blob = match files::blob(jsonl.as_bytes(), "application/jsonl") {
            Ok(b) => b,
            Err(e) => return fail(e),
        };
        let _ = form.append_with_str("purpose", plan.purpose);
        let _ = form.append_with_blob_and_filename("file", &blob, plan.file_name);
        b.message
            .set(Some(format!("Uploading {} requests…", lines.len())));
        let file_id = match fetch::send_form(&plan.url, &plan.headers, &form, CALL_TIMEOUT_MS)
            .await
            .and_then(|r| openai_batch::read_file_object(r.status, &r.body))
        {
            Ok(id) => id,
            Err(e) => return fail(format!("Uploading the batch file failed: {e}")),
        };
        let created = match openai_batch::create_request(&backend, &file_id) {
            Ok(req) => call(&req)
                .await
                .and_then(|r| openai_batch::read_batch(r.status, &r.body)),
            Err(e) => Err(e),
        };
        let info = match created {
            Ok(i) => i,
            Err(e) => return fail(format!("Creating the batch failed: {e}")),
        };
        if let Err(e) = run_records::set_openai_batch(b, Some(info.id.clone())).await {
            b.report.update(|r| {
                r.insert(
                    0,
                    format!(
                        "The batch id {} could not be stored in this browser ({e}): note it, a \
                         reload will not find the batch again.",
                        info.id
                    ),
                )
            });
        }
        poll(state, b, info.id).await;
    });
}

/// Polls the batch until it ends, then reads its output into the results.
pub async fn poll(state: Settings, b: BatchState, batch_id: String) {
    let backend = state.provider.backend();
    let metric = b.metric.get_value();
    let Some(info) = wait_for_end(b, &backend, &batch_id).await else {
        return; // cancelled or paused: the batch id stays stored for later
    };
    if info.output_file_id.is_none() && info.error_file_id.is_none() {
        let why = info.errors.join("; ");
        b.message.set(Some(format!(
            "The OpenAI batch ended {} without output. {why}",
            info.status.id()
        )));
        b.status.set(BatchStatus::Ready);
        forget_batch(b).await;
        return;
    }
    let Some(body) = download_answers(b, &backend, &info).await else {
        return;
    };
    // Read every answer against the requests planned for the items without a result (the
    // core's reader, as `hj score` and Python read them).
    let items = b.items.get_value();
    let output = openai_batch::read_output(&body);
    let saving = {
        let (prices, _) =
            crate::transport::cost::parse_prices(&state.provider.prices.get_untracked());
        Saving::of(
            &output,
            crate::transport::cost::price_for(&prices, &backend.model),
        )
    };
    let plan = plan(state, metric);
    let done: std::collections::HashSet<String> = b
        .results
        .with_untracked(|r| r.iter().map(|x| x.id.clone()).collect());
    let planned = PlannedRequests::of(&plan, &backend, &items, |i| !done.contains(&i.id));
    let key = backend.api_key.clone();
    let scored = reading::score(&plan, &backend, &items, &planned, output, |e| {
        redact(&e.to_string(), &key)
    });
    let summary = scored.summary(planned.0.len());
    let notes: Vec<String> = scored
        .notes
        .iter()
        .cloned()
        .chain(scored.unanswered_sentence())
        .collect();
    if !notes.is_empty() {
        b.report.update(|r| {
            r.splice(0..0, notes);
        });
    }
    let results = scored.results;
    store_results(b, results).await;
    forget_batch(b).await;
    b.status.set(BatchStatus::Finished);
    let cost = saving.sentence();
    b.message.set(Some(format!(
        "OpenAI batch {batch_id} finished: {summary}.{cost}"
    )));
}

/// The Batch API's input lines of the items without a result, each under its `custom_id`;
/// items whose image or requests cannot be made get their result with the reason instead.
async fn pending_lines(
    state: Settings,
    b: BatchState,
    plan: &Plan,
    backend: &Backend,
) -> (Vec<(String, HttpRequest)>, Vec<ItemResult>) {
    let items = b.items.get_value();
    let done: std::collections::HashSet<String> = b
        .results
        .with_untracked(|r| r.iter().map(|x| x.id.clone()).collect());
    let mut lines: Vec<(String, HttpRequest)> = Vec::new();
    let mut broken: Vec<ItemResult> = Vec::new();
    for (index, item) in items
        .iter()
        .enumerate()
        .filter(|(_, i)| !done.contains(&i.id))
    {
        let image = if plan.sends_image() {
            match prepared_image(&b.images.get_value(), item, state.max_side.get_untracked()).await
            {
                Ok(i) => i,
                Err(e) => {
                    broken.push(ItemResult {
                        error: Some(e),
                        ..plan.blank_result(item)
                    });
                    continue;
                }
            }
        } else {
            None
        };
        match plan.requests(backend, item, image) {
            Ok(reqs) => lines.extend(
                reqs.into_iter()
                    .map(|(slot, r)| (batch_plan::custom_id(index, &slot), r)),
            ),
            Err(e) => broken.push(ItemResult {
                error: Some(e.to_string()),
                ..plan.blank_result(item)
            }),
        }
    }
    (lines, broken)
}

/// Polls the batch, saying how far it is, until it ends; `None` once the run is paused or
/// cancelled.
async fn wait_for_end(b: BatchState, backend: &Backend, batch_id: &str) -> Option<BatchInfo> {
    let interval = b.poll_s.get_untracked().max(1) * 1000;
    loop {
        let got = match openai_batch::status_request(backend, batch_id) {
            Ok(req) => call(&req)
                .await
                .and_then(|r| openai_batch::read_batch(r.status, &r.body)),
            Err(e) => Err(e),
        };
        match got {
            Ok(info) if info.is_terminal() => return Some(info),
            Ok(info) => b.message.set(Some(format!(
                "OpenAI batch {}: {}, {} of {} requests done ({} failed).",
                info.id,
                info.status.id(),
                info.completed,
                info.total,
                info.failed
            ))),
            Err(e) => b
                .message
                .set(Some(format!("Polling the batch: {e} Trying again."))),
        }
        if b.status.get_untracked() != BatchStatus::Running {
            return None;
        }
        fetch::sleep(interval, None).await;
    }
}

/// The batch's answers: its output file (successes) and error file (failures), both JSONL;
/// `None` when a download failed (said in the message).
async fn download_answers(b: BatchState, backend: &Backend, info: &BatchInfo) -> Option<String> {
    let mut body = String::new();
    for file in [&info.output_file_id, &info.error_file_id]
        .into_iter()
        .flatten()
    {
        let content = match openai_batch::content_request(backend, file) {
            Ok(req) => call(&req).await,
            Err(e) => Err(e),
        };
        match content {
            Ok(r) if (200..300).contains(&r.status) => {
                body.push_str(&r.body);
                body.push('\n');
            }
            Ok(r) => {
                b.message.set(Some(format!(
                    "Downloading the batch output failed (HTTP {}).",
                    r.status
                )));
                return None;
            }
            Err(e) => {
                b.message
                    .set(Some(format!("Downloading the batch output failed: {e}")));
                return None;
            }
        }
    }
    Some(body)
}

/// Forgets the stored batch id; a refusal is said (a reload would look for the batch again).
async fn forget_batch(b: BatchState) {
    if let Err(e) = run_records::set_openai_batch(b, None).await {
        b.report.update(|r| {
            r.insert(
                0,
                format!("The finished batch could not be marked done in this browser ({e})."),
            )
        });
    }
}

/// Stores and shows the results; a refused write is said in the report, with how many.
async fn store_results(b: BatchState, results: Vec<ItemResult>) {
    let mut refused = (0, None);
    for r in &results {
        if let Ok(json) = serde_json::to_string(r) {
            if let Err(e) = run_records::put_result(b, &r.id, &json).await {
                refused.0 += 1;
                refused.1.get_or_insert(e);
            }
        }
    }
    if let (n, Some(e)) = refused {
        b.report.update(|r| {
            r.insert(
                0,
                format!(
                    "{n} of {} results were not stored in this browser ({e}): export \
                     them before reloading.",
                    results.len()
                ),
            )
        });
    }
    b.results.update(|all| all.extend(results));
}
