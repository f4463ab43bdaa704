//! The run's results file: the lab's results JSONL (`lab::io::to_jsonl`, one result per line,
//! each written whole and flushed as its item finishes), so a stopped run loses at most the
//! items in flight, and the same command resumes it: what the file holds is kept, a line cut
//! off when the run was stopped is dropped (its item runs again), and only items without a
//! result are sent.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use harmonic_judge::lab::{io, ItemResult};
use harmonic_judge::metrics::Metric;

/// What a results file already holds.
#[derive(Debug, Default)]
pub struct Existing {
    pub results: Vec<ItemResult>,
    /// Sentences about what was dropped.
    pub notes: Vec<String>,
}

/// Reads the results already in `path` for a run of `metric` over the items `ids`; failed
/// ones are dropped when `retry_failed` (they run again). A file of another metric or another
/// dataset is refused, never overwritten. The file is rewritten, without what was dropped,
/// only when something was.
pub fn resume(
    path: &Path,
    metric: Metric,
    ids: &HashSet<&str>,
    retry_failed: bool,
) -> Result<Existing, String> {
    let shown = path.display();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Existing::default()),
        Err(e) => return Err(format!("\u{201c}{shown}\u{201d} cannot be read: {e}.")),
    };
    let mut kept: Vec<(ItemResult, &str)> = Vec::new();
    let mut notes = Vec::new();
    let mut dropped = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Ok(r) = serde_json::from_str::<ItemResult>(line) else {
            notes.push(format!(
                "Line {} of \u{201c}{shown}\u{201d} is not a whole result (the run was stopped \
                 while writing it?): dropped, its item runs again.",
                i + 1
            ));
            dropped = true;
            continue;
        };
        if r.metric != metric.id() {
            return Err(format!(
                "\u{201c}{shown}\u{201d} holds results of another metric ({}): choose another \
                 --out, or the same --metric to resume it.",
                r.metric
            ));
        }
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
        kept.push((r, line));
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

/// Writes `text` to `path` through a file beside it, so a stop midway leaves the old file.
pub fn replace(path: &Path, text: &str) -> Result<(), String> {
    let tmp: PathBuf = {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".tmp");
        path.with_file_name(name)
    };
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| format!("\u{201c}{}\u{201d} cannot be written: {e}.", path.display()))
}

/// Appends results as they finish, one whole line each, flushed at once.
pub struct Appender {
    file: File,
    gamma: f64,
    path: PathBuf,
}

impl Appender {
    pub fn open(path: &Path, gamma: f64) -> Result<Appender, String> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("\u{201c}{}\u{201d} cannot be written: {e}.", path.display()))?;
        Ok(Appender {
            file,
            gamma,
            path: path.to_path_buf(),
        })
    }

    pub fn append(&mut self, result: &ItemResult) -> Result<(), String> {
        // One write of the whole line: a stop leaves it whole or absent (or cut, and dropped
        // on resume).
        let line = io::to_jsonl(std::slice::from_ref(result), self.gamma);
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
        let mut a = Appender::open(&path, 0.75).unwrap();
        a.append(&result("a", Some(0.5))).unwrap();
        a.append(&result("b", None)).unwrap();
        drop(a);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"id\":\"c\",\"met");
        std::fs::write(&path, &text).unwrap();
        let ids: HashSet<&str> = ["a", "b", "c"].into_iter().collect();
        let m = Metric::ALL[1];
        let e = resume(&path, m, &ids, false).unwrap();
        assert_eq!(e.results.len(), 2);
        assert!(e.notes[0].starts_with("Line 3 "), "{:?}", e.notes);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);
        let e = resume(&path, m, &ids, true).unwrap();
        assert_eq!(e.results, [result("a", Some(0.5))]);
        assert!(resume(&path, Metric::ALL[0], &ids, false)
            .unwrap_err()
            .contains("another metric"));
        let other: HashSet<&str> = ["z"].into_iter().collect();
        assert!(resume(&path, m, &other, false)
            .unwrap_err()
            .contains("another dataset"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
