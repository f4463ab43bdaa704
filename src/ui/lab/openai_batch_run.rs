//! Handing a batch run to OpenAI's Batch API: the pending items' requests go up as one JSONL
//! file, a batch is created and polled, and its output is read into the same results store as
//! an in-browser run (at half the price, within 24 hours). The batch id is kept in IndexedDB so
//! a reload keeps polling the same batch.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::ui::batch_run::{
    blank_result, item_requests, item_result, metric_needs_image, prepared_image,
};
use crate::ui::batch_state::{BatchState, BatchStatus};
use crate::ui::state::AppState;
use crate::batch::openai_batch::{self, BatchInfo};
use crate::errors::{redact, JudgeError};
use crate::lab::ItemResult;
use crate::providers::HttpRequest;
use crate::ui::stored_runs;
use crate::web::{fetch, files};

const CALL_TIMEOUT_MS: u32 = 120_000;

/// An item's answers by slot (criterion id, `score`, `trial-<i>`).
type SlotAnswers = Vec<(String, Result<crate::completion::Completion, JudgeError>)>;

async fn call(req: &HttpRequest) -> Result<fetch::RawResponse, JudgeError> {
    fetch::send(req, CALL_TIMEOUT_MS, None).await
}

/// Builds, uploads and submits the pending items, then polls until the batch ends.
pub fn submit(state: AppState, b: BatchState) {
    let metric = state.metric.get_untracked();
    b.metric.set_value(metric.clone());
    let backend = state.backend();
    b.status.set(BatchStatus::Running);
    b.message.set(Some("Preparing the batch file…".into()));
    spawn_local(async move {
        let key = backend.api_key.clone();
        let fail = move |e: String| {
            b.message.set(Some(redact(&e, &key)));
            b.status.set(BatchStatus::Ready);
        };
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
            let image = if metric_needs_image(state, &metric) {
                match prepared_image(&b.images.get_value(), item, state.max_side.get_untracked())
                    .await
                {
                    Ok(i) => i,
                    Err(e) => {
                        broken.push(ItemResult {
                            error: Some(e),
                            ..blank_result(&metric, item)
                        });
                        continue;
                    }
                }
            } else {
                None
            };
            match item_requests(state, &metric, &backend, item, image) {
                Ok(reqs) => lines.extend(
                    reqs.into_iter()
                        .map(|(slot, r)| (format!("{index}:{slot}"), r)),
                ),
                Err(e) => broken.push(ItemResult {
                    error: Some(e.to_string()),
                    ..blank_result(&metric, item)
                }),
            }
        }
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
        if let Err(e) = stored_runs::set_openai_batch(b, Some(info.id.clone())).await {
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
pub async fn poll(state: AppState, b: BatchState, batch_id: String) {
    let backend = state.backend();
    let metric = b.metric.get_value();
    let interval = b.poll_s.get_untracked().max(1) * 1000;
    let info: BatchInfo = loop {
        let got = match openai_batch::status_request(&backend, &batch_id) {
            Ok(req) => call(&req)
                .await
                .and_then(|r| openai_batch::read_batch(r.status, &r.body)),
            Err(e) => Err(e),
        };
        match got {
            Ok(info) if info.is_terminal() => break info,
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
            return; // cancelled or paused: the batch id stays stored for later
        }
        fetch::sleep(interval, None).await;
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
    // Answers: the output file (successes) and the error file (failures), both JSONL.
    let mut body = String::new();
    for file in [&info.output_file_id, &info.error_file_id]
        .into_iter()
        .flatten()
    {
        let content = match openai_batch::content_request(&backend, file) {
            Ok(req) => call(&req).await,
            Err(e) => Err(e),
        };
        match content {
            Ok(r) if (200..300).contains(&r.status) => {
                body.push_str(&r.body);
                body.push('\n');
            }
            Ok(r) => {
                return b.message.set(Some(format!(
                    "Downloading the batch output failed (HTTP {}).",
                    r.status
                )))
            }
            Err(e) => {
                return b
                    .message
                    .set(Some(format!("Downloading the batch output failed: {e}")))
            }
        }
    }
    // Group the answers by item (custom_id = "<index>:<slot>").
    let items = b.items.get_value();
    let mut by_item: std::collections::BTreeMap<usize, SlotAnswers> = Default::default();
    let output = openai_batch::read_output(&body);
    let (tokens_in, tokens_out) = output
        .iter()
        .filter_map(|(_, a)| a.as_ref().ok().and_then(|c| c.usage))
        .fold((0, 0), |(i, o), u| {
            (i + u.prompt_tokens, o + u.completion_tokens)
        });
    let saving = {
        let (prices, _) = crate::cost::parse_prices(&state.prices.get_untracked());
        crate::cost::Cost::priced(
            tokens_in,
            tokens_out,
            crate::cost::price_for(&prices, &backend.model),
        )
        .usd
    };
    for (custom_id, answer) in output {
        let Some((index, slot)) = custom_id.split_once(':') else {
            continue;
        };
        if let Ok(index) = index.parse::<usize>() {
            by_item
                .entry(index)
                .or_default()
                .push((slot.to_string(), answer));
        }
    }
    let key = backend.api_key.clone();
    let results: Vec<ItemResult> = by_item
        .into_iter()
        .filter_map(|(index, mut answers)| {
            let item = items.get(index)?;
            // Keep the prompt's slot order (criteria in their usual order).
            answers.sort_by_key(|(slot, _)| {
                crate::criteria::Criterion::ALL
                    .iter()
                    .position(|c| c.id() == slot)
                    .unwrap_or(usize::MAX)
            });
            let key = key.clone();
            Some(item_result(
                state,
                &metric,
                backend.protocol,
                blank_result(&metric, item),
                answers,
                move |e| redact(&e.to_string(), &key),
            ))
        })
        .collect();
    store_results(b, results).await;
    forget_batch(b).await;
    b.status.set(BatchStatus::Finished);
    let cost = match saving {
        Some(live) => format!(
            " {tokens_in} input + {tokens_out} output tokens: ${:.4} at the Batch API's half price instead of ${live:.4} live (saved ${:.4}).",
            openai_batch::batch_cost(live),
            live - openai_batch::batch_cost(live)
        ),
        None => format!(" {tokens_in} input + {tokens_out} output tokens, billed at half the live price."),
    };
    b.message
        .set(Some(format!("OpenAI batch {batch_id} finished.{cost}")));
}

/// Forgets the stored batch id; a refusal is said (a reload would look for the batch again).
async fn forget_batch(b: BatchState) {
    if let Err(e) = stored_runs::set_openai_batch(b, None).await {
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
            if let Err(e) = stored_runs::put_result(b, &r.id, &json).await {
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
