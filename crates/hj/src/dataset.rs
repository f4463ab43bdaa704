//! The commands over a dataset: `run` (judge it live), `plan` (write its requests as batch
//! JSONL), `score` (read a file of answers into results) and `figures` (the lab's agreement
//! figures of a results file).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use harmonic_judge_core::batch::plan::Plan;
use harmonic_judge_core::lab::io;
use harmonic_judge_core::native::{batch_files, files};

use crate::args::{self, Args, JUDGE_SWITCHES, JUDGE_VALUES};
use crate::report::{self, FigureOptions};

/// Exit status: everything scored.
pub const OK: i32 = 0;
/// Some items failed or were left out (their results, or the reasons, are written).
pub const INCOMPLETE: i32 = 1;
/// The run stopped early on something that would fail every item (resume it once fixed).
pub const STOPPED: i32 = 3;

const FIGURE_VALUES: [&str; 3] = ["gamma", "protocol", "agreement"];

fn parse(words: &[String], values: &[&str], switches: &[&str]) -> Result<Args, String> {
    let values: Vec<&str> = JUDGE_VALUES.iter().chain(values).copied().collect();
    let switches: Vec<&str> = JUDGE_SWITCHES.iter().chain(switches).copied().collect();
    args::parse(words, &values, &switches)
}

/// The `--out` file, refused where it (or `--agreement`) is one of the command's inputs: the
/// dataset, `--images`, and the `more` the command reads.
fn out_path(args: &Args, what: &str, dataset: &str, more: &[&str]) -> Result<PathBuf, String> {
    let out = args
        .value("out")
        .map(PathBuf::from)
        .ok_or_else(|| format!("Name the file to write {what} to (--out FILE)."))?;
    let mut inputs: Vec<&Path> = vec![Path::new(dataset)];
    inputs.extend(args.value("images").map(Path::new));
    inputs.extend(more.iter().map(Path::new));
    crate::outfile::refuse_input(&out, &inputs)?;
    if let Some(agreement) = args.value("agreement") {
        let agreement = Path::new(agreement);
        crate::outfile::refuse_input(agreement, &inputs)?;
        crate::outfile::refuse_input(agreement, &[&out])?;
    }
    Ok(out)
}

/// The dataset, its report said on standard error. `needs_image`: whether an item whose image
/// is missing is left out (a live run, as the lab does) or planned with the reason (plan and
/// score, whose item numbers must not depend on the images).
fn load(args: &Args, dataset: &str, needs_image: bool) -> Result<files::Loaded, String> {
    let images = args.value("images").map(Path::new);
    let loaded = files::load(Path::new(dataset), images, needs_image)?;
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
pub fn run(words: &[String]) -> Result<i32, String> {
    let args = parse(
        words,
        &[
            &FIGURE_VALUES[..],
            &["images", "out", "concurrency", "retries", "timeout"],
        ]
        .concat(),
        &["retry-failed", "boxes-drawn", "keep-partial"],
    )?;
    let [dataset] = args.positionals(&["the dataset"])?[..] else {
        unreachable!()
    };
    let (plan, judge) = args::judge(&args)?;
    let backend = judge.backend(plan.metric)?;
    let out = out_path(&args, "the results", dataset, &[])?;
    let figure_options = FigureOptions::of(&args)?;
    let loaded = load(&args, dataset, plan.metric.needs_image_file())?;
    let ids: HashSet<&str> = loaded.items.iter().map(|i| i.id.as_str()).collect();
    let record =
        crate::outfile::judge_record(&judge.provider, &backend, &plan, &args.list("criteria"));
    let existing = crate::outfile::resume(&out, &record, &ids, args.has("retry-failed"))?;
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
    let client = crate::http::Client::new(args.number("timeout", 120)?, args.number("retries", 3)?);
    let judged = crate::run::Judge {
        plan: &plan,
        backend: &backend,
        images: &loaded.images,
        boxes_drawn: args.has("boxes-drawn"),
        client: &client,
    };
    let workers = judge.concurrency(args.number("concurrency", 5)?)?;
    let appender = crate::outfile::Appender::open(&out, figure_options.gamma, &record)?;
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
    report::figures_of_file(&out, &figure_options)?;
    Ok(if outcome.failed == 0 && left_out == 0 {
        OK
    } else {
        INCOMPLETE
    })
}

fn offline(args: &Args) -> Result<(Plan, harmonic_judge_core::providers::Backend), String> {
    let (plan, judge) = args::judge(args)?;
    let backend = judge.offline_backend(plan.metric)?;
    Ok((plan, backend))
}

/// `hj plan DATASET --out requests.jsonl`.
pub fn plan(words: &[String]) -> Result<i32, String> {
    let args = parse(words, &["images", "out"], &["boxes-drawn"])?;
    let [dataset] = args.positionals(&["the dataset"])?[..] else {
        unreachable!()
    };
    let (plan, backend) = offline(&args)?;
    let out = out_path(&args, "the requests", dataset, &[])?;
    let loaded = load(&args, dataset, false)?;
    let provider = args
        .value("provider")
        .unwrap_or(harmonic_judge_core::providers::PRESETS[0].id);
    let limits = harmonic_judge_core::batch::openai_batch::Limits::for_provider(provider);
    // Written as planned, one item at a time, through a file beside `out`: a refusal midway
    // (a limit passed) leaves `out` as it was.
    let planned = crate::outfile::write_through(&out, |file| {
        let planned = batch_files::plan_to(
            &plan,
            &backend,
            &loaded.items,
            &loaded.images,
            args.has("boxes-drawn"),
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
pub fn score(words: &[String]) -> Result<i32, String> {
    let args = parse(
        words,
        &[&FIGURE_VALUES[..], &["images", "out"]].concat(),
        &["keep-partial"],
    )?;
    let Some((dataset, answers)) = args.positional.split_first().filter(|(_, a)| !a.is_empty())
    else {
        return Err(
            "This command takes the dataset and the answers file (one or more); --help shows how."
                .into(),
        );
    };
    let (plan, backend) = offline(&args)?;
    let more: Vec<&str> = answers.iter().map(String::as_str).collect();
    let out = out_path(&args, "the results", dataset, &more)?;
    let figure_options = FigureOptions::of(&args)?;
    let loaded = load(&args, dataset, false)?;
    // A line at a time, each limited, each item read once its answers are in.
    let paths: Vec<&Path> = answers.iter().map(Path::new).collect();
    let scored = batch_files::score_files(&plan, &backend, &loaded.items, &paths)?;
    report::notes(&scored.notes);
    if scored.results.is_empty() {
        return Err(format!(
            "{} no answer to any planned request of this dataset, so nothing was written.",
            match answers {
                [one] => format!("\u{201c}{one}\u{201d} holds"),
                _ => "The answers files hold".to_string(),
            }
        ));
    }
    // A line at a time, not the whole file's text in memory.
    crate::outfile::write_through(&out, |f| {
        for r in &scored.results {
            f.write_all(io::jsonl_line(r, figure_options.gamma).as_bytes())
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
    report::figures_of_file(&out, &figure_options)?;
    Ok(if clean { OK } else { INCOMPLETE })
}

/// `hj figures RESULTS.jsonl`.
pub fn figures(words: &[String]) -> Result<i32, String> {
    let args = args::parse(words, &FIGURE_VALUES, &["keep-partial"])?;
    let [results] = args.positionals(&["the results file"])?[..] else {
        unreachable!()
    };
    let options = FigureOptions::of(&args)?;
    report::figures_of_file(Path::new(results), &options)?;
    Ok(OK)
}
