//! What the commands print: an item's scores (each criterion's with σ, the overall at γ, or the
//! metric's one score), a run's summary, and the lab's agreement figures.

use std::path::Path;

use harmonic_judge_core::lab::figures::{figures, Figures};
use harmonic_judge_core::lab::jsonl_reader::JsonlReader;
use harmonic_judge_core::lab::ItemResult;
use harmonic_judge_core::metrics::Metric;
use harmonic_judge_core::native::disk;

use crate::options::Figures as FigureOptions;

/// An item's scores, one line each; the error instead when it has none.
pub fn item_lines(r: &ItemResult, gamma: f64) -> Vec<String> {
    let mut lines = Vec::new();
    for c in &r.criteria {
        lines.push(match (c.score, c.sigma, &c.error) {
            (Some(s), Some(sigma), _) => format!("  {:<13} {s:.4}  σ {sigma:.4}", c.name),
            (Some(s), None, _) => format!("  {:<13} {s:.4}  (unsmoothed: no σ)", c.name),
            (None, _, Some(e)) => format!("  {:<13} no score: {e}", c.name),
            (None, _, None) => format!("  {:<13} no score", c.name),
        });
    }
    let name = Metric::from_id(&r.metric).map_or(r.metric.as_str(), |m| m.info().name);
    if let Some(why) = r.incomplete_sentence() {
        lines.push(format!("  {why}"));
        return lines;
    }
    match (r.overall(gamma), r.weighted().is_some()) {
        (Some(o), true) => lines.push(format!("  Overall at γ = {gamma:.2}: {o:.4}")),
        (Some(o), false) => lines.push(format!("  {name}: {o:.4}")),
        (None, _) => lines.push(format!(
            "  No score: {}",
            r.error
                .as_deref()
                .unwrap_or("no criterion could be scored.")
        )),
    }
    if r.is_partial() {
        lines.push(format!(
            "  (scored on {} of {} criteria: the overall rests on those)",
            r.criteria.len() - r.failed_criteria(),
            r.criteria.len()
        ));
    }
    lines
}

/// Reads a results file as the lab's *Import results* does and prints its figures (when its
/// results carry human judgments), writing the agreement JSON where asked.
pub fn figures_of_file(path: &Path, options: &FigureOptions) -> Result<Option<Figures>, String> {
    // A line at a time, each limited, as the lab's import reads it.
    let mut reader = JsonlReader::default();
    disk::each_line(path, |_, line, _| {
        reader.read_line(line);
        Ok(())
    })?;
    let (results, problems) = (reader.results, reader.problems);
    for p in problems.iter().take(10) {
        eprintln!("{}: {p}", path.display());
    }
    let f = figures(
        &results,
        options.gamma.gamma,
        options.protocol,
        options.keep_partial,
    );
    match &f {
        Some(f) => {
            for line in f.lines() {
                println!("{line}");
            }
            if let Some(out) = &options.agreement {
                crate::outfile::replace(Path::new(out), &f.json())?;
                eprintln!("Agreement written to {out}.");
            }
        }
        None => println!(
            "No human judgments in these results (human_overall, human_<criterion>, or group + \
             chosen), so no agreement figures."
        ),
    }
    Ok(f)
}

/// The run's last words: how many items have results, and what to do about the rest.
pub fn summary(total: usize, done: usize, failed: usize, left_out: usize, out: &Path) -> String {
    let head = format!("{done} of {total} items scored on every criterion, {failed} failed");
    summary_of(head, left_out, out)
}

/// `head` (the counts) followed by where the results are and the dataset lines left out.
pub fn summary_of(head: String, left_out: usize, out: &Path) -> String {
    let mut s = format!("{head}; results in {}.", out.display());
    if left_out > 0 {
        s.push_str(&format!(
            " {left_out} dataset line{} left out (see above).",
            if left_out == 1 { " was" } else { "s were" }
        ));
    }
    s
}

/// The first ten of `notes` on standard error, and how many more there are.
pub fn notes(notes: &[String]) {
    for n in notes.iter().take(10) {
        eprintln!("{n}");
    }
    if notes.len() > 10 {
        eprintln!("… and {} more such sentences.", notes.len() - 10);
    }
}
