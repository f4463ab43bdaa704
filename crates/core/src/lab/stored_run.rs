//! A batch run's identity as stored on the device: every run gets an id when its dataset is
//! imported, and its results, dataset, images and Batch-API state live under that id, so an
//! import (in this tab or another) never touches another run. Also the messages by which the
//! tab running a stored run shows it live in the device's other tabs.
//!
//! Pure: the browser side (`web::batch_store`, `web::live`) only moves these records as JSON.

use serde::{Deserialize, Serialize};

use super::ItemResult;

/// The stored description of one batch run (IndexedDB key `run:<id>`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredRun {
    pub id: String,
    /// When the dataset was imported (ms since the epoch).
    pub created_ms: f64,
    /// The dataset file's name.
    pub dataset: String,
    /// The metric of the last run over it (empty before the first Run).
    #[serde(default)]
    pub metric: String,
    /// Items ready to run.
    #[serde(default)]
    pub total: usize,
    /// The image files kept beside the dataset (a ZIP or loose images), by name.
    #[serde(default)]
    pub files: Vec<String>,
    /// An OpenAI Batch API batch this run was handed to and not yet read back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openai_batch: Option<String>,
}

/// The dataset's name and text as stored (key `dataset:<id>`), to resume after a reload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredDataset {
    pub name: String,
    pub text: String,
}

/// A fresh run id from the clock and a random number: `run-<ms, base 36>-<random, hex>`.
/// Never holds `/` or `:`, the separators of the keys below.
pub fn new_run_id(now_ms: f64, random: f64) -> String {
    let ms = if now_ms.is_finite() && now_ms > 0.0 {
        now_ms as u64
    } else {
        0
    };
    let r = (random.clamp(0.0, 1.0) * f64::from(u32::MAX)) as u32;
    format!("run-{}-{r:08x}", base36(ms))
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Whether `id` is a run id this app made (anything else is refused as a key prefix).
pub fn is_run_id(id: &str) -> bool {
    id.starts_with("run-")
        && id.len() <= 40
        && id[4..]
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
}

/// Keys of the batch stores. A run's keys all start with a prefix that no other run's key
/// starts with, so one key range reads or deletes exactly one run.
pub mod keys {
    /// Results store: one item's result.
    pub fn result(run: &str, item: &str) -> String {
        format!("{run}/{item}")
    }
    /// Results store: the range holding one run's results, `[lower, upper]`.
    pub fn results_range(run: &str) -> (String, String) {
        (format!("{run}/"), format!("{run}/\u{ffff}"))
    }
    /// The item id of a results-store key of `run`.
    pub fn item_of<'a>(run: &str, key: &'a str) -> Option<&'a str> {
        key.strip_prefix(run)?.strip_prefix('/')
    }
    pub fn run(run: &str) -> String {
        format!("run:{run}")
    }
    /// Meta store: the range holding every run's description.
    pub fn runs_range() -> (String, String) {
        ("run:".into(), "run:\u{ffff}".into())
    }
    pub fn dataset(run: &str) -> String {
        format!("dataset:{run}")
    }
    pub fn file(run: &str, name: &str) -> String {
        format!("file:{run}:{name}")
    }
    /// Meta store: the range holding one run's files.
    pub fn files_range(run: &str) -> (String, String) {
        (format!("file:{run}:"), format!("file:{run}:\u{ffff}"))
    }
}

impl StoredRun {
    /// One line for the list of stored runs.
    pub fn summary(&self, done: usize) -> String {
        let metric = if self.metric.is_empty() {
            "not run yet".to_string()
        } else {
            self.metric.clone()
        };
        let waiting = if self.openai_batch.is_some() {
            " · waiting for OpenAI's Batch API"
        } else {
            ""
        };
        format!(
            "\u{201c}{}\u{201d} · {metric} · {done} of {} items finished{waiting}",
            self.dataset, self.total
        )
    }

    /// Whether some of its items have no result yet (a reload or a stop interrupted it).
    pub fn unfinished(&self, done: usize) -> bool {
        self.total > 0 && done < self.total
    }
}

/// Runs newest first (the list's order).
pub fn newest_first(runs: &mut [(StoredRun, usize)]) {
    runs.sort_by(|a, b| {
        b.0.created_ms
            .total_cmp(&a.0.created_ms)
            .then_with(|| b.0.id.cmp(&a.0.id))
    });
}

/// What the tab running a stored run tells the device's other tabs (BroadcastChannel).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LiveMessage {
    /// One item of `run` finished (already stored).
    Result {
        run: String,
        result: Box<ItemResult>,
    },
    /// `run` stopped running in that tab (`status`: paused, cancelled, finished).
    Stopped { run: String, status: String },
}

impl LiveMessage {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// `None` for anything that is not one of these messages (another app version, junk).
    pub fn from_json(text: &str) -> Option<LiveMessage> {
        serde_json::from_str(text).ok()
    }

    pub fn run(&self) -> &str {
        match self {
            LiveMessage::Result { run, .. } | LiveMessage::Stopped { run, .. } => run,
        }
    }
}

/// Adds a live result to those shown, unless that item is already there (a result read back
/// from storage and the same result broadcast must not count twice). Returns whether added.
pub fn merge_live(results: &mut Vec<ItemResult>, result: ItemResult) -> bool {
    if results.iter().any(|r| r.id == result.id) {
        return false;
    }
    results.push(result);
    true
}

/// Results read back from storage merged into those shown live: every item once, the stored
/// copy winning (it is the one a reload would see).
pub fn merge_stored(shown: &[ItemResult], stored: Vec<ItemResult>) -> Vec<ItemResult> {
    let ids: std::collections::HashSet<&str> = stored.iter().map(|r| r.id.as_str()).collect();
    let extra: Vec<ItemResult> = shown
        .iter()
        .filter(|r| !ids.contains(r.id.as_str()))
        .cloned()
        .collect();
    let mut out = stored;
    out.extend(extra);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(id: &str, score: f64) -> ItemResult {
        ItemResult {
            id: id.into(),
            metric: "fleur".into(),
            score: Some(score),
            ..ItemResult::default()
        }
    }

    #[test]
    fn run_ids_are_distinct_valid_and_free_of_key_separators() {
        let a = new_run_id(1_763_850_000_000.0, 0.25);
        let b = new_run_id(1_763_850_000_000.0, 0.75);
        let c = new_run_id(1_763_850_000_001.0, 0.25);
        assert_ne!(a, b);
        assert_ne!(a, c);
        for id in [&a, &b, &c] {
            assert!(is_run_id(id), "{id}");
            assert!(!id.contains('/') && !id.contains(':'), "{id}");
        }
        assert!(is_run_id(&new_run_id(f64::NAN, f64::INFINITY)));
        assert!(!is_run_id("run-a/b"));
        assert!(!is_run_id("file:x"));
        assert!(!is_run_id(""));
    }

    #[test]
    fn one_runs_key_range_never_holds_another_runs_keys() {
        let (r1, r2) = ("run-abc-00000001", "run-abc-0000000");
        let (lo, hi) = keys::results_range(r2);
        let k1 = keys::result(r1, "item/1");
        let k2 = keys::result(r2, "item/1");
        assert!(k2 >= lo && k2 <= hi);
        // r2 is a prefix of r1, but r1's keys continue with a digit, not '/'.
        assert!(!(k1 >= lo && k1 <= hi), "{k1} in [{lo}, {hi}]");
        assert_eq!(keys::item_of(r2, &k2), Some("item/1"));
        assert_eq!(keys::item_of(r2, &k1), None);
        let (flo, fhi) = keys::files_range(r2);
        let f1 = keys::file(r1, "images.zip");
        assert!(!(f1 >= flo && f1 <= fhi));
        let f2 = keys::file(r2, "images.zip");
        assert!(f2 >= flo && f2 <= fhi);
        let (rlo, rhi) = keys::runs_range();
        assert!(keys::run(r1) >= rlo && keys::run(r1) <= rhi);
        assert!(!(keys::dataset(r1) >= rlo && keys::dataset(r1) <= rhi));
    }

    #[test]
    fn the_stored_run_record_round_trips_and_old_records_read() {
        let run = StoredRun {
            id: "run-x-1".into(),
            created_ms: 5.0,
            dataset: "d.jsonl".into(),
            metric: "harmonic_eval".into(),
            total: 40,
            files: vec!["images.zip".into()],
            openai_batch: Some("batch_1".into()),
        };
        let json = serde_json::to_string(&run).unwrap();
        assert_eq!(serde_json::from_str::<StoredRun>(&json).unwrap(), run);
        let minimal: StoredRun =
            serde_json::from_str(r#"{"id":"run-y","created_ms":1,"dataset":"a.csv"}"#).unwrap();
        assert_eq!((minimal.total, minimal.openai_batch.is_none()), (0, true));
        assert!(run.summary(12).contains("12 of 40"));
        assert!(run.summary(12).contains("Batch API"));
        assert!(run.unfinished(39) && !run.unfinished(40));
        assert!(
            !minimal.unfinished(0),
            "a run never started has nothing to resume"
        );
    }

    #[test]
    fn runs_list_newest_first() {
        let mk = |id: &str, t: f64| {
            (
                StoredRun {
                    id: id.into(),
                    created_ms: t,
                    dataset: "d".into(),
                    metric: String::new(),
                    total: 1,
                    files: vec![],
                    openai_batch: None,
                },
                0,
            )
        };
        let mut runs = vec![mk("run-a", 1.0), mk("run-c", 3.0), mk("run-b", 2.0)];
        newest_first(&mut runs);
        let ids: Vec<&str> = runs.iter().map(|r| r.0.id.as_str()).collect();
        assert_eq!(ids, ["run-c", "run-b", "run-a"]);
    }

    #[test]
    fn live_messages_round_trip_and_junk_is_ignored() {
        let m = LiveMessage::Result {
            run: "run-a".into(),
            result: Box::new(result("i1", 0.5)),
        };
        assert_eq!(LiveMessage::from_json(&m.to_json()), Some(m.clone()));
        assert_eq!(m.run(), "run-a");
        let s = LiveMessage::Stopped {
            run: "run-a".into(),
            status: "finished".into(),
        };
        assert!(s.to_json().contains(r#""kind":"stopped""#));
        assert_eq!(LiveMessage::from_json(&s.to_json()), Some(s));
        assert_eq!(LiveMessage::from_json("{\"kind\":\"other\"}"), None);
        assert_eq!(LiveMessage::from_json("not json"), None);
    }

    #[test]
    fn a_result_seen_live_and_read_back_counts_once() {
        let mut shown = vec![result("a", 0.1)];
        assert!(merge_live(&mut shown, result("b", 0.2)));
        assert!(!merge_live(&mut shown, result("b", 0.2)));
        assert_eq!(shown.len(), 2);
        let merged = merge_stored(&shown, vec![result("b", 0.3), result("c", 0.4)]);
        let mut ids: Vec<&str> = merged.iter().map(|r| r.id.as_str()).collect();
        ids.sort();
        assert_eq!(ids, ["a", "b", "c"]);
        assert_eq!(
            merged.iter().find(|r| r.id == "b").unwrap().score,
            Some(0.3),
            "the stored copy wins"
        );
    }
}
