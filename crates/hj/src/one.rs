//! `hj judge`: one image and one text, judged as the evaluator judges them, the scores printed
//! and, with `--json`, the result file the page opens (the lab's record turned into the
//! evaluator's document, `lab::open_doc::document`, with the image when it fits the page's
//! limit). The item goes through the dataset reader, so its checks and sentences are the lab's.

use std::path::Path;

use harmonic_judge_core::batch;
use harmonic_judge_core::files::gate::MAX_DOC_BYTES;
use harmonic_judge_core::files::result_file::with_extras;
use harmonic_judge_core::lab::open_doc;
use harmonic_judge_core::native::disk;
use harmonic_judge_core::native::files::{self, Images};
use harmonic_judge_core::providers::Image;
use serde_json::{json, Map, Value};

use crate::options::JudgeCommand;

/// The item as one dataset line.
fn item_line(c: &JudgeCommand, image: Option<&str>) -> Result<String, String> {
    let mut obj = Map::new();
    obj.insert("id".into(), json!("item"));
    obj.insert("task".into(), json!(c.task));
    obj.insert("text".into(), json!(c.text));
    for (value, key) in [
        (&c.question, "question"),
        (&c.caption, "caption"),
        (&c.reference_answer, "reference_answer"),
    ] {
        if let Some(v) = value {
            obj.insert(key.into(), json!(v));
        }
    }
    if !c.reference.is_empty() {
        obj.insert("references".into(), json!(c.reference));
    }
    if let Some(b) = &c.region {
        let numbers: Result<Vec<f64>, _> = b.split(',').map(|x| x.trim().parse::<f64>()).collect();
        let numbers = numbers.map_err(|_| {
            format!("--box is four numbers l,t,r,b between 0 and 1, not \u{201c}{b}\u{201d}.")
        })?;
        obj.insert("box".into(), json!(numbers));
    }
    if let Some(name) = image {
        obj.insert("image".into(), json!(name));
    }
    Ok(Value::Object(obj).to_string())
}

/// `hj judge --image IMG --text TEXT`.
pub fn judge(c: &JudgeCommand) -> Result<i32, String> {
    let plan = c.judge.plan()?;
    let backend = c.judge.settings()?.backend(plan.metric)?;
    let gamma = c.gamma.gamma;
    let image_path = c.image.as_deref().map(Path::new);
    if plan.sends_image() && image_path.is_none() {
        return Err("Add an image: --image FILE.".into());
    }
    let (images, name) = image_of(image_path)?;
    let parsed = batch::parse("item.jsonl", &item_line(c, name.as_deref())?);
    if let Some(problem) = parsed.problems.first() {
        return Err(problem.message.clone());
    }
    let item = parsed
        .items
        .into_iter()
        .next()
        .ok_or("The item could not be read.")?;
    let client = crate::http::Client::new(c.requests.timeout, c.requests.retries);
    let judged = crate::run::Judge {
        plan: &plan,
        backend: &backend,
        images: &images,
        boxes_drawn: c.boxes_drawn,
        client: &client,
    };
    let result = judged.item(&item, &|why| eprintln!("{why}"))?;
    println!(
        "{} ({}), judged by {} at {}",
        plan.metric.info().name,
        plan.fidelity().level(),
        backend.model,
        harmonic_judge_core::providers::without_credentials(&backend.base_url)
    );
    for line in crate::report::item_lines(&result, gamma) {
        println!("{line}");
    }
    if let Some(out) = &c.json {
        let sent = match images {
            Images::None => None,
            _ => files::item_image(&images, &item, c.boxes_drawn)?,
        };
        write_json(Path::new(out), &result, sent, gamma)?;
    }
    Ok(if result.is_complete() {
        crate::dataset::OK
    } else {
        crate::dataset::INCOMPLETE
    })
}

/// Where the one image is, and its file name as the item names it.
fn image_of(path: Option<&Path>) -> Result<(Images, Option<String>), String> {
    let Some(p) = path else {
        return Ok((Images::None, None));
    };
    // Refused when not a regular file or over the page's limit for an image, before reading.
    let bytes = disk::read_limited(p, "an image", disk::IMAGE_BYTES)?;
    // Refused now, before any request, with the page's sentence (prepared as the page
    // prepares it; kept, so the item's request does not decode it again unless it has a box).
    files::image(&bytes, &p.display().to_string(), None)?;
    let dir = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
    Ok((Images::Dir(dir.to_path_buf()), name))
}

/// The result file the page opens, with the image as it was sent (scaled, its box drawn in)
/// where it fits the page's limit.
fn write_json(
    out: &Path,
    result: &harmonic_judge_core::lab::ItemResult,
    sent: Option<Image>,
    gamma: f64,
) -> Result<(), String> {
    let doc = open_doc::document(result, gamma)?;
    let data_url = sent.map(|i| i.data_url());
    let with_image = with_extras(&doc, data_url.as_deref(), &Default::default(), None);
    let text = if with_image.len() <= MAX_DOC_BYTES {
        with_image
    } else {
        eprintln!("The image is too large for the page's result file: it is left out.");
        with_extras(&doc, None, &Default::default(), None)
    };
    crate::outfile::replace(out, &text)?;
    eprintln!(
        "Result file written to {} (open it on the page: Open a result).",
        out.display()
    );
    Ok(())
}
