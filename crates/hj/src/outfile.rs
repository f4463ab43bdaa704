//! The run's results file: the lab's results JSONL (`lab::io::to_jsonl`, one result per line,
//! each written whole and flushed as its item finishes), so a stopped run loses at most the
//! items in flight, and the same command resumes it: what the file holds is kept, a line cut
//! off when the run was stopped is dropped (its item runs again), and only items without a
//! result are sent.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use harmonic_judge_core::batch::plan::Plan;
use harmonic_judge_core::lab::{io, ItemResult};
use harmonic_judge_core::native::disk;
use harmonic_judge_core::providers::Backend;

/// What a results file already holds.
#[derive(Debug, Default)]
pub struct Existing {
    pub results: Vec<ItemResult>,
    /// Sentences about what was dropped.
    pub notes: Vec<String>,
}

/// Refuses to write `out` where it is one of the `inputs` (the same file, reached by any path:
/// compared canonicalized, and by device and inode), so a command never replaces what it reads.
pub fn refuse_input(out: &Path, inputs: &[&Path]) -> Result<(), String> {
    let out_real = canonical(out);
    for input in inputs {
        let same = match (&out_real, canonical(input)) {
            (Some(o), Some(i)) => *o == i || same_inode(o, &i),
            _ => false,
        };
        if same {
            return Err(format!(
                "\u{201c}{}\u{201d} is one of this command's inputs (\u{201c}{}\u{201d}): \
                 writing there would replace it. Choose another file to write to.",
                out.display(),
                input.display()
            ));
        }
    }
    Ok(())
}

/// The path with every link and `..` resolved; for a file not made yet, its folder's resolved
/// path and its name.
fn canonical(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let name = path.file_name()?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Some(parent.canonicalize().ok()?.join(name))
}

#[cfg(unix)]
fn same_inode(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_inode(_: &Path, _: &Path) -> bool {
    false
}

/// Who a run's results were judged by, as each line of its file records it (`judge`): the
/// provider (the preset named, `custom` included), base URL, model, metric and its options.
pub type JudgeRecord = serde_json::Value;

/// The judge record of a run: `provider` is the preset id as given (`custom` stays `custom`),
/// `criteria` the criteria asked for (`--criteria`; none: all).
pub fn judge_record(
    provider: &str,
    backend: &Backend,
    plan: &Plan,
    criteria: &[String],
) -> JudgeRecord {
    let mut criteria = criteria.to_vec();
    criteria.sort();
    criteria.dedup();
    serde_json::json!({
        "provider": provider,
        "base_url": backend.base_url,
        "model": backend.model,
        "metric": plan.metric.id(),
        "options": {
            "extensions": plan.fidelity().record().extensions,
            "criteria": criteria,
            "image_detail": backend.image_detail.id(),
            "max_tokens": backend.tuning.max_tokens,
            "repeatable": backend.tuning.repeatable,
        },
    })
}

/// Reads the results already in `path` for a run of `judge` over the items `ids`; failed ones
/// are dropped when `retry_failed` (they run again). A file that is not this tool's results (a
/// line that is not a result, other than a last line cut off by a stop), or holds another
/// metric's, another judge's or another dataset's, is refused with a sentence and never
/// rewritten. The file is rewritten, without what was dropped, only when something was.
pub fn resume(
    path: &Path,
    judge: &JudgeRecord,
    ids: &HashSet<&str>,
    retry_failed: bool,
) -> Result<Existing, String> {
    let shown = path.display();
    let file = match disk::open(path) {
        Ok((file, _)) => file,
        Err((std::io::ErrorKind::NotFound, _)) => return Ok(Existing::default()),
        Err((_, e)) => return Err(e),
    };
    let mut kept: Vec<(ItemResult, String)> = Vec::new();
    let mut notes = Vec::new();
    let mut dropped = false;
    // A line that is no result: the file is refused unless it is the last line, cut off by a
    // stop (no line break after it, and no whole JSON value).
    let mut cut_off: Option<usize> = None;
    disk::each_line_in(path, file, |number, line, ended| {
        if line.trim().is_empty() {
            return Ok(());
        }
        if let Some(earlier) = cut_off {
            return Err(not_results(path, earlier));
        }
        let Some((r, recorded)) = read_line(line) else {
            if ended || serde_json::from_str::<serde_json::Value>(line).is_ok() {
                return Err(not_results(path, number));
            }
            cut_off = Some(number);
            return Ok(());
        };
        check_judge(path, &r, recorded.as_ref(), judge)?;
        if !ids.contains(r.id.as_str()) {
            return Err(format!(
                "\u{201c}{shown}\u{201d} holds a result for item \u{201c}{}\u{201d}, which this \
                 dataset does not have: is it another dataset's results? Choose another --out.",
                r.id
            ));
        }
        // An item written twice (a run resumed with --retry-failed): the last one counts.
        if let Some(k) = kept.iter().position(|(x, _)| x.id == r.id) {
            kept.remove(k);
            dropped = true;
        }
        kept.push((r, line.to_string()));
        Ok(())
    })?;
    if let Some(number) = cut_off {
        notes.push(format!(
            "Line {number} of \u{201c}{shown}\u{201d} is not a whole result (the run was stopped \
             while writing it?): dropped, its item runs again."
        ));
        dropped = true;
    }
    if retry_failed {
        let before = kept.len();
        kept.retain(|(r, _)| r.is_complete());
        let failed = before - kept.len();
        if failed > 0 {
            notes.push(format!("{failed} failed items run again (--retry-failed)."));
            dropped = true;
        }
    }
    if dropped {
        let mut out = String::new();
        for (_, line) in &kept {
            out.push_str(line);
            out.push('\n');
        }
        replace(path, &out)?;
    }
    Ok(Existing {
        results: kept.into_iter().map(|(r, _)| r).collect(),
        notes,
    })
}

/// A results line: the result and the judge it records, if any (files written before issue 68
/// record none). `None` for a line that is no result (a result has an id and a metric).
fn read_line(line: &str) -> Option<(ItemResult, Option<JudgeRecord>)> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    let object = value.as_object()?;
    if !["id", "metric"]
        .iter()
        .all(|k| object.get(*k).is_some_and(|v| v.is_string()))
    {
        return None;
    }
    let result: ItemResult = serde_json::from_str(line).ok()?;
    Some((result, object.get("judge").cloned()))
}

fn not_results(path: &Path, line: usize) -> String {
    format!(
        "\u{201c}{}\u{201d} is not a results file of hj run (line {line} is not a result): it \
         was left as it is. Choose another --out.",
        path.display()
    )
}

/// Refuses a result judged by another metric or judge than `judge`.
fn check_judge(
    path: &Path,
    r: &ItemResult,
    recorded: Option<&JudgeRecord>,
    judge: &JudgeRecord,
) -> Result<(), String> {
    let shown = path.display();
    let metric = judge["metric"].as_str().unwrap_or_default();
    if r.metric != metric {
        return Err(format!(
            "\u{201c}{shown}\u{201d} holds results of another metric ({}): choose another \
             --out, or the same --metric to resume it.",
            r.metric
        ));
    }
    let model = r.kept.as_ref().map(|k| k.model.as_str());
    let differs = match recorded {
        Some(recorded) => recorded != judge,
        // Written before the judge was recorded: its model, where it kept one.
        None => model.is_some_and(|m| Some(m) != judge["model"].as_str()),
    };
    if differs {
        let was = recorded.map_or_else(|| format!("model {}", model.unwrap_or_default()), describe);
        return Err(format!(
            "\u{201c}{shown}\u{201d} holds results judged by another judge ({was}; this run: \
             {}). A run has one judge: resume it with the same --provider, --base-url, --model, \
             --metric and options, or start a new file with another --out.",
            describe(judge)
        ));
    }
    Ok(())
}

/// A judge record in words.
fn describe(judge: &JudgeRecord) -> String {
    let s = |k: &str| judge[k].as_str().unwrap_or("?").to_string();
    format!(
        "provider {}, base URL {}, model {}, metric {}, options {}",
        s("provider"),
        s("base_url"),
        s("model"),
        s("metric"),
        judge["options"]
    )
}

/// Writes `text` to `path` through a file beside it, so a stop midway leaves the old file.
pub fn replace(path: &Path, text: &str) -> Result<(), String> {
    write_through(path, |f| {
        f.write_all(text.as_bytes())
            .map_err(|e| format!("\u{201c}{}\u{201d} cannot be written: {e}.", path.display()))
    })
}

/// Lets `write` write `path`'s new content, streamed, into a file beside it, which replaces
/// `path` only when `write` succeeds (it is removed otherwise): a stop or a refusal midway
/// leaves the old file.
pub fn write_through<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<T, String>,
) -> Result<T, String> {
    let tmp: PathBuf = {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".tmp");
        path.with_file_name(name)
    };
    let cannot =
        |e: std::io::Error| format!("\u{201c}{}\u{201d} cannot be written: {e}.", path.display());
    let file = File::create(&tmp).map_err(cannot)?;
    let mut buffered = std::io::BufWriter::new(file);
    let outcome = write(&mut buffered).and_then(|value| {
        buffered.flush().map_err(cannot)?;
        std::fs::rename(&tmp, path).map_err(cannot)?;
        Ok(value)
    });
    if outcome.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    outcome
}

/// Appends results as they finish, one whole line each, flushed at once.
pub struct Appender {
    file: File,
    gamma: f64,
    path: PathBuf,
    /// `,"judge":{…}}`: what ends each line in place of its last brace.
    judge_tail: String,
}

impl Appender {
    pub fn open(path: &Path, gamma: f64, judge: &JudgeRecord) -> Result<Appender, String> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("\u{201c}{}\u{201d} cannot be written: {e}.", path.display()))?;
        Ok(Appender {
            file,
            gamma,
            path: path.to_path_buf(),
            judge_tail: format!(",\"judge\":{judge}}}\n"),
        })
    }

    pub fn append(&mut self, result: &ItemResult) -> Result<(), String> {
        // One write of the whole line: a stop leaves it whole or absent (or cut, and dropped
        // on resume).
        // The lab's line, its numbers as written, with the judge added as its last key.
        let mut line = io::to_jsonl(std::slice::from_ref(result), self.gamma);
        line.truncate(line.trim_end().len().saturating_sub(1));
        line.push_str(&self.judge_tail);
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|e| {
                format!(
                    "The result of \u{201c}{}\u{201d} could not be written to \u{201c}{}\u{201d} \
                     ({e}); the run stops so that nothing is lost.",
                    result.id,
                    self.path.display()
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use harmonic_judge_core::metrics::Metric;

    fn judge(metric: Metric, model: &str) -> JudgeRecord {
        let plan = harmonic_judge_core::native::settings::plan(metric, false, &[], &[]).unwrap();
        let backend = Backend {
            base_url: "http://h/v1".into(),
            model: model.into(),
            ..Backend::default()
        };
        judge_record("custom", &backend, &plan, &[])
    }

    fn result(id: &str, score: Option<f64>) -> ItemResult {
        ItemResult {
            id: id.into(),
            metric: Metric::ALL[1].id().into(),
            score,
            error: score.is_none().then(|| "no answer".into()),
            ..ItemResult::default()
        }
    }

    #[test]
    fn a_cut_line_is_dropped_and_failed_items_rerun_when_asked() {
        let dir = std::env::temp_dir().join(format!("hj-outfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.jsonl");
        let m = Metric::ALL[1];
        let j = judge(m, "m");
        assert_eq!(j["provider"], "custom");
        let mut a = Appender::open(&path, 0.75, &j).unwrap();
        a.append(&result("a", Some(0.5))).unwrap();
        a.append(&result("b", None)).unwrap();
        drop(a);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"id\":\"c\",\"met");
        std::fs::write(&path, &text).unwrap();
        let ids: HashSet<&str> = ["a", "b", "c"].into_iter().collect();
        let e = resume(&path, &j, &ids, false).unwrap();
        assert_eq!(e.results.len(), 2);
        assert!(e.notes[0].starts_with("Line 3 "), "{:?}", e.notes);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);
        let e = resume(&path, &j, &ids, true).unwrap();
        assert_eq!(e.results, [result("a", Some(0.5))]);
        assert!(resume(&path, &judge(Metric::ALL[0], "m"), &ids, false)
            .unwrap_err()
            .contains("another metric"));
        let before = std::fs::read_to_string(&path).unwrap();
        let other_model = resume(&path, &judge(m, "other"), &ids, false).unwrap_err();
        assert!(
            other_model.contains("another judge") && other_model.contains("another --out"),
            "{other_model}"
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            before,
            "left as it is"
        );
        let other: HashSet<&str> = ["z"].into_iter().collect();
        assert!(resume(&path, &j, &other, false)
            .unwrap_err()
            .contains("another dataset"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_that_is_not_results_is_refused_and_left_as_it_is() {
        let dir = std::env::temp_dir().join(format!("hj-outfile-not-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("answers.jsonl");
        let j = judge(Metric::ALL[1], "m");
        let ids: HashSet<&str> = ["a"].into_iter().collect();
        for text in [
            "{\"custom_id\":\"0:score\",\"response\":{}}\n{\"custom_id\":\"1:score\"}\n",
            "{\"custom_id\":\"0:score\"}",
            "hello\n",
            "not json\n{\"id\":\"a\",\"met",
        ] {
            std::fs::write(&path, text).unwrap();
            let e = resume(&path, &j, &ids, false).unwrap_err();
            assert!(e.contains("is not a results file"), "{text}: {e}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_output_that_is_an_input_is_refused_by_any_path() {
        let dir = std::env::temp_dir().join(format!("hj-outfile-in-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let input = dir.join("d.zip");
        std::fs::write(&input, "x").unwrap();
        let roundabout = dir.join("sub/../d.zip");
        assert!(refuse_input(&roundabout, &[&input]).is_err());
        assert!(refuse_input(&input, &[Path::new("elsewhere"), &roundabout]).is_err());
        let link = dir.join("link.zip");
        let _ = std::fs::remove_file(&link);
        std::fs::hard_link(&input, &link).unwrap();
        assert!(
            refuse_input(&link, &[&input]).is_err(),
            "a hard link is the same file"
        );
        assert!(refuse_input(&dir.join("new.jsonl"), &[&input]).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
