//! Planning and scoring apart, as the lab's Batch-API run does them: the items' requests as one
//! JSONL file in OpenAI's Batch API format (`custom_id` = `<item index>:<slot>`), which vLLM's
//! `run_batch` reads as well; and a file of answers in that API's output format read back into
//! the lab's results. Both call what the lab calls (`Plan::requests`,
//! `openai_batch::input_jsonl`, `openai_batch::read_output`, `batch::reading`, which reads
//! every answer against the plan), so a cluster that runs the requests on its own engine gets
//! the lab's scores.

use super::files::{item_image, Images};
use crate::answers::errors::{redact, JudgeError};
use crate::batch::openai_batch::{self, Limits};
use crate::batch::plan::{self, Plan};
use crate::batch::reading::{self, PlannedRequests};
use crate::batch::Item;
use crate::lab::ItemResult;
use crate::providers::{Backend, HttpRequest, Protocol};

/// An item's requests, or its result saying why it has none (its image, or its input).
pub fn item_requests(
    plan: &Plan,
    backend: &Backend,
    item: &Item,
    images: &Images,
    boxes_drawn: bool,
) -> Result<Vec<(String, HttpRequest)>, Box<ItemResult>> {
    let why = |error: String| {
        Box::new(ItemResult {
            error: Some(error),
            ..plan.blank_result(item)
        })
    };
    let image = if plan.sends_image() {
        item_image(images, item, boxes_drawn).map_err(why)?
    } else {
        None
    };
    plan.requests(backend, item, image)
        .map_err(|e| why(redact(&e.to_string(), &backend.api_key)))
}

/// The planned batch: the input file's text, how many requests it holds, and the items that
/// could not be planned with their reason (recorded as results, as the lab records them).
#[derive(Clone, Debug)]
pub struct Planned {
    pub jsonl: String,
    pub requests: usize,
    pub broken: Vec<ItemResult>,
}

/// What [`plan_to`] wrote: how many requests, how many bytes, and the items that could not be
/// planned with their reason.
#[derive(Clone, Debug, Default)]
pub struct Written {
    pub requests: usize,
    pub bytes: usize,
    pub broken: Vec<ItemResult>,
}

/// Every item's requests (`items`, in the order their index is counted) as Batch API JSONL
/// written to `out` as they are made, one item at a time, so memory holds one item's requests
/// whatever the dataset's size; items in `done` (by id) are skipped. `limits` are the runner's
/// (`openai_batch::Limits::for_provider`): the request count is checked before anything is
/// written, the size as each line is. `Err` when the file cannot be made at all (too many
/// requests, too large, not OpenAI's wire format, a write that failed): what was written is
/// then to be thrown away.
#[allow(clippy::too_many_arguments)]
pub fn plan_to(
    plan: &Plan,
    backend: &Backend,
    items: &[Item],
    images: &Images,
    boxes_drawn: bool,
    done: &dyn Fn(&str) -> bool,
    limits: Limits,
    out: &mut dyn std::io::Write,
) -> Result<Written, String> {
    if backend.protocol != Protocol::OpenAi {
        return Err(format!(
            "A batch file is in OpenAI's format (its Batch API and vLLM's batch runner read it); \
             the provider speaks {}. Choose an OpenAI-compatible provider (openai, vllm, \
             llama_server, custom).",
            backend.protocol.id()
        ));
    }
    if let Some(max) = limits.max_requests {
        // Counted without images (a request's slots do not depend on it), before writing.
        let n = PlannedRequests::count(plan, backend, items, |i| !done(&i.id));
        if n > max {
            return Err(limits.check(n, 0).unwrap_err().to_string());
        }
    }
    let mut written = Written::default();
    for (index, item) in items.iter().enumerate().filter(|(_, i)| !done(&i.id)) {
        let requests = match item_requests(plan, backend, item, images, boxes_drawn) {
            Ok(r) => r,
            Err(result) => {
                written.broken.push(*result);
                continue;
            }
        };
        for (slot, request) in requests {
            let line = openai_batch::input_line(&plan::custom_id(index, &slot), &request)
                .map_err(|e| e.to_string())?;
            written.requests += 1;
            written.bytes += line.len();
            limits
                .check(written.requests, written.bytes)
                .map_err(|e| e.to_string())?;
            out.write_all(line.as_bytes())
                .map_err(|e| format!("The batch file could not be written: {e}."))?;
        }
    }
    Ok(written)
}

/// [`plan_to`] into memory (the Python package's `plan`).
pub fn plan_jsonl(
    plan: &Plan,
    backend: &Backend,
    items: &[Item],
    images: &Images,
    boxes_drawn: bool,
    done: &dyn Fn(&str) -> bool,
    limits: Limits,
) -> Result<Planned, String> {
    let mut jsonl = Vec::new();
    let written = plan_to(
        plan,
        backend,
        items,
        images,
        boxes_drawn,
        done,
        limits,
        &mut jsonl,
    )?;
    Ok(Planned {
        jsonl: String::from_utf8(jsonl).map_err(|e| e.to_string())?,
        requests: written.requests,
        broken: written.broken,
    })
}

pub use crate::batch::reading::BatchScores as Scored;

/// Reads `answers` (the texts of the Batch API's output and error files, or vLLM's, one answer
/// per line; several files one after the other, a later one answering what an earlier left
/// unanswered or failed) against the requests [`plan_jsonl`] plans for `items`, as the lab reads
/// a finished batch (`batch::reading`). `backend` is who answered (its model and wire format are
/// recorded; its key, if any, is redacted from every error).
pub fn score(plan: &Plan, backend: &Backend, items: &[Item], answers: &[&str]) -> Scored {
    let planned = PlannedRequests::of(plan, backend, items, |_| true);
    let say = |e: JudgeError| redact(&e.to_string(), &backend.api_key);
    let mut reader = reading::Reader::new(plan, backend, items, &planned, say);
    for text in answers {
        // As `openai_batch::read_output` numbers and skips lines, one answer at a time.
        for (i, line) in text.lines().enumerate() {
            if !line.trim().is_empty() {
                let (id, answer) = openai_batch::read_output_line(i + 1, line);
                reader.add(id, answer);
            }
        }
    }
    reader.finish()
}

/// [`score`] of answers files on disk (`hj score`): each read a line at a time (each line at
/// most `disk::LINE_BYTES`, a special file refused) straight into `batch::reading::Reader`, which
/// reads an item as soon as its answers are in and lets them go, so memory holds the results
/// and the answers of the items still waiting, not the files nor every answer.
pub fn score_files(
    plan: &Plan,
    backend: &Backend,
    items: &[Item],
    answers: &[&std::path::Path],
) -> Result<Scored, String> {
    let planned = PlannedRequests::of(plan, backend, items, |_| true);
    let say = |e: JudgeError| redact(&e.to_string(), &backend.api_key);
    let mut reader = reading::Reader::new(plan, backend, items, &planned, say);
    for path in answers {
        super::disk::each_line(path, |number, line, _| {
            if !line.trim().is_empty() {
                let (id, answer) = openai_batch::read_output_line(number, line);
                reader.add(id, answer);
            }
            Ok(())
        })?;
    }
    Ok(reader.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Metric;
    use crate::native::{files, settings};
    use std::path::Path;

    fn sample() -> files::Loaded {
        let zip = Path::new(crate::REPO).join("public/sample-dataset.zip");
        files::load(&zip, None, true).unwrap()
    }

    fn none() -> Limits {
        Limits::for_provider("vllm")
    }

    #[test]
    fn the_runners_limits_are_checked_before_and_while_writing() {
        let loaded = sample();
        let metric = Metric::ALL[0];
        let plan = settings::plan(metric, false, &[], &[]).unwrap();
        let b = backend(metric);
        let go = |limits: Limits, out: &mut Vec<u8>| {
            plan_to(
                &plan,
                &b,
                &loaded.items,
                &loaded.images,
                false,
                &|_| false,
                limits,
                out,
            )
        };
        let mut all = Vec::new();
        let w = go(none(), &mut all).unwrap();
        assert_eq!(w.bytes, all.len());
        assert!(w.requests > 3);
        assert_eq!(
            Limits::for_provider("vllm").max_requests,
            None,
            "none invented"
        );
        assert_eq!(Limits::for_provider("openai").max_requests, Some(50_000));
        // Too many requests: refused before a byte is written.
        let mut out = Vec::new();
        let few = Limits {
            max_requests: Some(w.requests - 1),
            max_bytes: None,
        };
        let e = go(few, &mut out).unwrap_err();
        assert!(e.contains("at most") && out.is_empty(), "{e}");
        // Too large: refused at the line that passes the size, nothing past it written.
        let small = Limits {
            max_requests: None,
            max_bytes: Some(all.len() / 2),
        };
        let mut out = Vec::new();
        let e = go(small, &mut out).unwrap_err();
        assert!(e.contains("would be over"), "{e}");
        assert!(out.len() <= all.len() / 2 && all.starts_with(&out));
        // The file written as planned is the in-memory one, byte for byte.
        let jsonl = plan_jsonl(
            &plan,
            &b,
            &loaded.items,
            &loaded.images,
            false,
            &|_| false,
            none(),
        );
        assert_eq!(jsonl.unwrap().jsonl.as_bytes(), &all[..]);
    }

    fn backend(metric: Metric) -> Backend {
        settings::JudgeSettings {
            provider: "vllm".into(),
            ..Default::default()
        }
        .backend(metric)
        .unwrap()
    }

    /// An OpenAI answer printing `text`, each character a token certain of itself.
    fn answer_line(custom_id: &str, text: &str) -> String {
        let steps: Vec<serde_json::Value> = text
            .chars()
            .map(|c| {
                let t = c.to_string();
                serde_json::json!({"token": t, "logprob": -0.01,
                    "top_logprobs": [{"token": t, "logprob": -0.01}, {"token": "3", "logprob": -4.7}]})
            })
            .collect();
        serde_json::json!({"custom_id": custom_id, "response": {"status_code": 200, "body": {
            "model": "m", "choices": [{"message": {"content": text},
            "logprobs": {"content": steps}, "finish_reason": "stop"}]}}, "error": null})
        .to_string()
    }

    #[test]
    fn every_planned_request_is_a_batch_line_under_its_item_index() {
        let loaded = sample();
        for metric in Metric::ALL {
            let plan = settings::plan(metric, false, &[], &[]).unwrap();
            let b = backend(metric);
            let planned = plan_jsonl(
                &plan,
                &b,
                &loaded.items,
                &loaded.images,
                false,
                &|_| false,
                none(),
            )
            .unwrap();
            let lines: Vec<serde_json::Value> = planned
                .jsonl
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            assert_eq!(lines.len(), planned.requests);
            let planned_items = loaded.items.len() - planned.broken.len();
            // The sample has no references, captions or reference answers: RefFLEUR and MAEV
            // refuse every item, each with its sentence.
            assert_eq!(planned_items == 0, lines.is_empty(), "{metric:?}");
            assert!(planned_items > 0 || !planned.broken.is_empty());
            for l in &lines {
                let (index, slot) =
                    plan::parse_custom_id(l["custom_id"].as_str().unwrap()).unwrap();
                let item = &loaded.items[index];
                let image = plan
                    .sends_image()
                    .then(|| item_image(&loaded.images, item, false).unwrap())
                    .flatten();
                let want = plan.requests(&b, item, image).unwrap();
                let (_, req) = want.iter().find(|(s, _)| s == slot).unwrap();
                let body: serde_json::Value = serde_json::from_str(&req.body).unwrap();
                assert_eq!(
                    l["body"], body,
                    "{metric:?} {slot}: the lab's request, byte for byte"
                );
                assert_eq!(l["url"], "/v1/chat/completions");
            }
            // REG items' boxes cannot be drawn here: said, not sent without the box.
            for r in &planned.broken {
                assert!(!r.error.as_deref().unwrap().is_empty(), "{r:?}");
            }
            // Skipping the done items plans the rest only.
            if planned_items == 0 {
                continue;
            }
            let first = loaded.items[0].id.clone();
            let rest = plan_jsonl(
                &plan,
                &b,
                &loaded.items,
                &loaded.images,
                false,
                &|id| id == first,
                none(),
            )
            .unwrap();
            assert!(rest
                .jsonl
                .lines()
                .all(|l| !l.contains("\"custom_id\":\"0:")));
        }
        let anthropic = settings::JudgeSettings {
            provider: "anthropic".into(),
            api_key: "k".into(),
            ..Default::default()
        }
        .backend(Metric::ALL[0])
        .unwrap();
        let plan = settings::plan(Metric::ALL[0], false, &[], &[]).unwrap();
        let refused = plan_jsonl(
            &plan,
            &anthropic,
            &sample().items,
            &Images::None,
            true,
            &|_| false,
            none(),
        );
        assert!(refused.unwrap_err().contains("OpenAI's format"));
    }

    #[test]
    fn answers_are_read_as_the_lab_reads_a_finished_batch() {
        let loaded = sample();
        let metric = Metric::ALL[0];
        let plan = settings::plan(metric, false, &[], &[]).unwrap();
        let b = backend(metric);
        let mut lines: Vec<String> = ["correctness", "completeness", "clarity", "fluency"]
            .iter()
            .map(|c| answer_line(&format!("0:{c}"), "4"))
            .collect();
        lines.push(answer_line("0:conciseness", "Rating: 2"));
        lines.push(answer_line("99:fluency", "4"));
        lines.push("not json".into());
        let scored = score(&plan, &b, &loaded.items, &[&lines.join("\n")]);
        assert_eq!(scored.results.len(), 1);
        assert_eq!(scored.unanswered.len(), loaded.items.len() - 1);
        assert_eq!(scored.notes.len(), 2, "{:?}", scored.notes);
        let answers = openai_batch::read_output(&lines[..5].join("\n"))
            .into_iter()
            .map(|(id, a)| (plan::parse_custom_id(&id).unwrap().1.to_string(), a))
            .collect();
        let want = plan.read(
            &b,
            &loaded.items[0],
            plan.blank_result(&loaded.items[0]),
            answers,
            |e| e.to_string(),
        );
        assert_eq!(scored.results[0], want);
        let c = &scored.results[0].criteria;
        assert_eq!(c.len(), 5);
        assert!(c.iter().all(|c| c.score.is_some()), "{c:?}");
    }
}
