//! Planning and scoring apart, as the lab's Batch-API run does them: the items' requests as one
//! JSONL file in OpenAI's Batch API format (`custom_id` = `<item index>:<slot>`), which vLLM's
//! `run_batch` reads as well; and a file of answers in that API's output format read back into
//! the lab's results. Both call what the lab calls (`Plan::requests`,
//! `openai_batch::input_jsonl`, `openai_batch::read_output`, `batch::reading`, which reads
//! every answer against the plan), so a cluster that runs the requests on its own engine gets
//! the lab's scores.

use super::files::{item_image, Images};
use crate::answers::errors::{redact, JudgeError};
use crate::batch::openai_batch;
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

/// Every item's requests (`items`, in the order their index is counted) as Batch API JSONL;
/// items in `done` (by id) are skipped. `Err` when the file cannot be made at all (no request,
/// too many, not OpenAI's wire format).
pub fn plan_jsonl(
    plan: &Plan,
    backend: &Backend,
    items: &[Item],
    images: &Images,
    boxes_drawn: bool,
    done: &dyn Fn(&str) -> bool,
) -> Result<Planned, String> {
    if backend.protocol != Protocol::OpenAi {
        return Err(format!(
            "A batch file is in OpenAI's format (its Batch API and vLLM's batch runner read it); \
             the provider speaks {}. Choose an OpenAI-compatible provider (openai, vllm, \
             llama_server, custom).",
            backend.protocol.id()
        ));
    }
    let mut lines = Vec::new();
    let mut broken = Vec::new();
    for (index, item) in items.iter().enumerate().filter(|(_, i)| !done(&i.id)) {
        match item_requests(plan, backend, item, images, boxes_drawn) {
            Ok(reqs) => lines.extend(
                reqs.into_iter()
                    .map(|(slot, r)| (plan::custom_id(index, &slot), r)),
            ),
            Err(result) => broken.push(*result),
        }
    }
    // Every item broken: nothing to write, and each result says why.
    let jsonl = if lines.is_empty() {
        String::new()
    } else {
        openai_batch::input_jsonl(&lines).map_err(|e| e.to_string())?
    };
    Ok(Planned {
        jsonl,
        requests: lines.len(),
        broken,
    })
}

pub use crate::batch::reading::BatchScores as Scored;

/// Reads `answers` (the texts of the Batch API's output and error files, or vLLM's, one answer
/// per line; several files one after the other, a later one answering what an earlier left
/// unanswered or failed) against the requests [`plan_jsonl`] plans for `items`, as the lab reads
/// a finished batch (`batch::reading`). `backend` is who answered (its model and wire format are
/// recorded; its key, if any, is redacted from every error).
pub fn score(plan: &Plan, backend: &Backend, items: &[Item], answers: &[&str]) -> Scored {
    let output: plan::Answers = answers
        .iter()
        .flat_map(|text| openai_batch::read_output(text))
        .collect();
    let planned = PlannedRequests::of(plan, backend, items, |_| true);
    let say = |e: JudgeError| redact(&e.to_string(), &backend.api_key);
    reading::score(plan, backend, items, &planned, output, say)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Metric;
    use crate::native::{files, settings};
    use std::path::Path;

    fn sample() -> files::Loaded {
        let zip = Path::new(env!("CARGO_MANIFEST_DIR")).join("public/sample-dataset.zip");
        files::load(&zip, None, true).unwrap()
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
            let planned =
                plan_jsonl(&plan, &b, &loaded.items, &loaded.images, false, &|_| false).unwrap();
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
            let rest = plan_jsonl(&plan, &b, &loaded.items, &loaded.images, false, &|id| {
                id == first
            })
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
