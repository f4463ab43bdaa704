//! The commands over a dataset: `run` (judge it live), `plan` (write its requests as batch
//! JSONL), `score` (read a file of answers into results) and `figures` (the lab's agreement
//! figures of a results file).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use harmonic_judge_core::batch::plan::Plan;
use harmonic_judge_core::lab::io;
use harmonic_judge_core::native::{batch_files, files};

use crate::options::{FiguresCommand, JudgeOptions, PlanCommand, RunCommand, ScoreCommand};
use crate::report;

/// Exit status: everything scored.
pub const OK: i32 = 0;
/// Some items failed or were left out (their results, or the reasons, are written).
pub const INCOMPLETE: i32 = 1;
/// The run stopped early on something that would fail every item (resume it once fixed).
pub const STOPPED: i32 = 3;

/// The `--out` file, refused where it (or `--agreement`) is one of the command's `inputs`: the
/// dataset, `--images`, and what else the command reads.
fn out_path(out: &str, agreement: Option<&str>, inputs: &[&str]) -> Result<PathBuf, String> {
    let out = PathBuf::from(out);
    let inputs: Vec<&Path> = inputs.iter().map(Path::new).collect();
    crate::outfile::refuse_input(&out, &inputs)?;
    if let Some(agreement) = agreement.map(Path::new) {
        crate::outfile::refuse_input(agreement, &inputs)?;
        crate::outfile::refuse_input(agreement, &[&out])?;
    }
    Ok(out)
}

/// The dataset and `--images`, where given.
fn inputs<'a>(dataset: &'a str, images: &'a Option<String>) -> Vec<&'a str> {
    std::iter::once(dataset).chain(images.as_deref()).collect()
}

/// The dataset, its report said on standard error. `needs_image`: whether an item whose image
/// is missing is left out (a live run, as the lab does) or planned with the reason (plan and
/// score, whose item numbers must not depend on the images).
fn load(dataset: &str, images: Option<&str>, needs_image: bool) -> Result<files::Loaded, String> {
    let loaded = files::load(Path::new(dataset), images.map(Path::new), needs_image)?;
    for line in &loaded.report {
        eprintln!("{line}");
    }
    if loaded.items.is_empty() {
        return Err(format!(
            "No items of \u{201c}{}\u{201d} are ready (see above).",
            loaded.name
        ));
    }
    Ok(loaded)
}

/// `hj run DATASET --out results.jsonl`.
pub fn run(c: &RunCommand) -> Result<i32, String> {
    let plan = c.judge.plan()?;
    let judge = c.judge.settings()?;
    let backend = judge.backend(plan.metric)?;
    let figures = &c.figures;
    let inputs = inputs(&c.dataset, &c.images.images);
    let out = out_path(&c.out, figures.agreement.as_deref(), &inputs)?;
    let needs_image = plan.metric.needs_image_file();
    let loaded = load(&c.dataset, c.images.images.as_deref(), needs_image)?;
    let ids: HashSet<&str> = loaded.items.iter().map(|i| i.id.as_str()).collect();
    let record =
        crate::outfile::judge_record(&judge.provider, &backend, &plan, &c.judge.criteria());
    let existing = crate::outfile::resume(&out, &record, &ids, c.retry_failed)?;
    for note in &existing.notes {
        eprintln!("{note}");
    }
    let total = loaded.items.len();
    let finished: HashSet<String> = existing.results.iter().map(|r| r.id.clone()).collect();
    let done = existing.results.iter().filter(|r| r.is_complete()).count();
    if !finished.is_empty() {
        eprintln!(
            "Resuming: {} of {total} items already have results in {}.",
            finished.len(),
            out.display()
        );
    }
    let client = crate::http::Client::new(c.requests.timeout, c.requests.retries);
    let judged = crate::run::Judge {
        plan: &plan,
        backend: &backend,
        images: &loaded.images,
        boxes_drawn: c.images.boxes_drawn,
        client: &client,
    };
    let workers = judge.concurrency(c.concurrency)?;
    let appender = crate::outfile::Appender::open(&out, figures.gamma.gamma, &record)?;
    let mut progress = crate::progress::Progress::new(total, finished.len());
    let outcome = crate::run::run(
        &judged,
        &loaded.items,
        &finished,
        workers,
        appender,
        &mut progress,
        (done, finished.len() - done),
    );
    if let Some(stop) = outcome.stopped {
        eprintln!("{stop}");
        eprintln!(
            "The run stopped: {} of {total} items have results in {}. Nothing more was sent; \
             fix the cause and run the same command again to resume.",
            outcome.done + outcome.failed,
            out.display()
        );
        return Ok(STOPPED);
    }
    let left_out = loaded.left_out + loaded.bad_rows;
    let mut summary = report::summary(total, outcome.done, outcome.failed, left_out, &out);
    if outcome.failed > 0 {
        summary
            .push_str(" Run the same command with --retry-failed to judge the failed ones again.");
    }
    eprintln!("{summary}");
    report::figures_of_file(&out, figures)?;
    Ok(if outcome.failed == 0 && left_out == 0 {
        OK
    } else {
        INCOMPLETE
    })
}

fn offline(
    judge: &JudgeOptions,
) -> Result<(Plan, harmonic_judge_core::providers::Backend), String> {
    let plan = judge.plan()?;
    let backend = judge.settings()?.offline_backend(plan.metric)?;
    Ok((plan, backend))
}

/// `hj plan DATASET --out requests.jsonl`.
pub fn plan(c: &PlanCommand) -> Result<i32, String> {
    let dataset = &c.dataset;
    let (plan, backend) = offline(&c.judge)?;
    let out = out_path(&c.out, None, &inputs(dataset, &c.images.images))?;
    let loaded = load(dataset, c.images.images.as_deref(), false)?;
    let limits = harmonic_judge_core::batch::openai_batch::Limits::for_provider(&c.judge.provider);
    // Written as planned, one item at a time, through a file beside `out`: a refusal midway
    // (a limit passed) leaves `out` as it was.
    let planned = crate::outfile::write_through(&out, |file| {
        let planned = batch_files::plan_to(
            &plan,
            &backend,
            &loaded.items,
            &loaded.images,
            c.images.boxes_drawn,
            &|_| false,
            limits,
            file,
        )?;
        for r in &planned.broken {
            eprintln!("{}: {}", r.id, r.error.as_deref().unwrap_or_default());
        }
        if planned.requests == 0 {
            return Err("No item could be planned (see above), so no file was written.".into());
        }
        Ok(planned)
    })?;
    let items = loaded.items.len() - planned.broken.len();
    println!(
        "{} requests for {items} items written to {} (OpenAI's Batch API format, which vLLM's \
         run_batch reads too). Score its answers with: hj score {dataset} ANSWERS.jsonl --out \
         results.jsonl, with the same --metric and options.",
        planned.requests,
        out.display()
    );
    let left_out = planned.broken.len() + loaded.bad_rows;
    Ok(if left_out == 0 { OK } else { INCOMPLETE })
}

/// `hj score DATASET ANSWERS [MORE_ANSWERS…] --out results.jsonl`: a later answers file
/// answers what an earlier one left unanswered or failed (the batch's error file, a retry's
/// output).
pub fn score(c: &ScoreCommand) -> Result<i32, String> {
    let (dataset, answers) = (&c.dataset, &c.answers);
    let (plan, backend) = offline(&c.judge)?;
    let mut read = inputs(dataset, &c.images);
    read.extend(answers.iter().map(String::as_str));
    let out = out_path(&c.out, c.figures.agreement.as_deref(), &read)?;
    let loaded = load(dataset, c.images.as_deref(), false)?;
    // A line at a time, each limited, each item read once its answers are in.
    let paths: Vec<&Path> = answers.iter().map(Path::new).collect();
    let scored = batch_files::score_files(&plan, &backend, &loaded.items, &paths)?;
    report::notes(&scored.notes);
    if scored.results.is_empty() {
        return Err(format!(
            "{} no answer to any planned request of this dataset, so nothing was written.",
            match &answers[..] {
                [one] => format!("\u{201c}{one}\u{201d} holds"),
                _ => "The answers files hold".to_string(),
            }
        ));
    }
    // A line at a time, not the whole file's text in memory.
    crate::outfile::write_through(&out, |f| {
        for r in &scored.results {
            f.write_all(io::jsonl_line(r, c.figures.gamma.gamma).as_bytes())
                .map_err(|e| {
                    format!("\u{201c}{}\u{201d} cannot be written: {e}.", out.display())
                })?;
        }
        Ok(())
    })?;
    if let Some(s) = scored.unanswered_sentence() {
        eprintln!("{s}");
    }
    let left_out = loaded.bad_rows;
    let head = scored.summary(loaded.items.len());
    eprintln!("{}", report::summary_of(head, left_out, &out));
    let clean = scored.complete() == loaded.items.len() && left_out == 0 && scored.notes.is_empty();
    // The figures read the results from the file, as the lab's import does: not held twice.
    drop((scored, loaded));
    report::figures_of_file(&out, &c.figures)?;
    Ok(if clean { OK } else { INCOMPLETE })
}

/// `hj figures RESULTS.jsonl`.
pub fn figures(c: &FiguresCommand) -> Result<i32, String> {
    report::figures_of_file(Path::new(&c.results), &c.figures)?;
    Ok(OK)
}
