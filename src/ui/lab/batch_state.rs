//! The batch run's state: the imported dataset and images, the results as they arrive, and
//! the run's status. Provided through context beside the shared `Settings`.

use std::collections::HashSet;
use std::rc::Rc;

use leptos::prelude::*;

use crate::batch::{Item, ZipArchive};
use crate::lab::ItemResult;

/// Where the dataset's images come from.
#[derive(Clone)]
pub enum Images {
    None,
    Zip {
        bytes: Rc<Vec<u8>>,
        archive: Rc<ZipArchive>,
    },
    Files(Vec<web_sys::File>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchStatus {
    /// Nothing imported.
    Empty,
    /// Imported (or results loaded), not running.
    Ready,
    Running,
    Paused,
    Cancelled,
    Finished,
    /// Another tab runs this stored run; its results are shown here as they arrive.
    Watching,
}

impl BatchStatus {
    pub fn id(self) -> &'static str {
        match self {
            BatchStatus::Empty => "empty",
            BatchStatus::Ready => "ready",
            BatchStatus::Running => "running",
            BatchStatus::Paused => "paused",
            BatchStatus::Cancelled => "cancelled",
            BatchStatus::Finished => "finished",
            BatchStatus::Watching => "watching",
        }
    }
}

/// The results the meta-evaluation uses: all of them, read in place, or (when items scored on
/// fewer than all criteria are left out) a copy of the others. Copying every result on each
/// showing took seconds at a million results.
#[derive(Clone, Copy)]
pub struct Used {
    pub all: RwSignal<Vec<ItemResult>>,
    /// `None`: none is left out, the results are used as they are.
    pub kept: Memo<Option<Vec<ItemResult>>>,
}

impl Used {
    pub fn with<T>(&self, f: impl FnOnce(&[ItemResult]) -> T) -> T {
        self.kept.with(|kept| match kept {
            Some(v) => f(v),
            None => self.all.with(|all| f(all)),
        })
    }

    pub fn track(&self) {
        self.with(|_| ());
    }
}

#[derive(Clone, Copy)]
pub struct BatchState {
    pub items: StoredValue<Rc<Vec<Item>>, LocalStorage>,
    pub item_count: RwSignal<usize>,
    /// Items of the imported dataset left out because their image is missing.
    pub left_out: RwSignal<usize>,
    pub images: StoredValue<Images, LocalStorage>,
    /// The dataset file's name and text, kept to resume after a reload.
    pub dataset_file: StoredValue<Option<(String, String)>>,
    /// Import findings: bad rows with their line numbers, missing images, warnings.
    pub report: RwSignal<Vec<String>>,
    pub results: RwSignal<Vec<ItemResult>>,
    /// Results finished but not shown yet: shown in batches (`lab::pace`), so that each result
    /// costs the same whatever the number stored.
    pub pending: StoredValue<Vec<ItemResult>>,
    pub pacer: StoredValue<crate::lab::pace::Pacer>,
    /// Ids of the items with a result (shown or pending), and where the next free item is
    /// looked for: picking the next item costs the same at 100k results as at 10.
    pub done_ids: StoredValue<HashSet<String>>,
    pub cursor: StoredValue<usize>,
    /// Item ids being worked on now.
    pub claimed: StoredValue<HashSet<String>>,
    pub status: RwSignal<BatchStatus>,
    /// The metric the run uses (fixed when it starts).
    pub metric: StoredValue<crate::metrics::Metric>,
    /// When this stretch of running began (ms) and how many were finished then, for the rate.
    pub started_ms: StoredValue<f64>,
    pub finished_at_start: StoredValue<usize>,
    pub now_ms: RwSignal<f64>,
    /// A run interrupted by a reload: its id and one sentence, offered for resuming.
    pub resumable: RwSignal<Option<(String, String)>>,
    /// Whether that run is being run by another tab now (then it is offered to watch live).
    pub resumable_elsewhere: RwSignal<bool>,
    /// The id of the stored run this tab holds (`None` before an import, or for a results
    /// file, which is not stored).
    pub stored_run: StoredValue<Option<String>>,
    /// The runs stored on this device, newest first, each with its number of results.
    pub runs: RwSignal<Vec<(crate::lab::stored_run::StoredRun, usize)>>,
    pub message: RwSignal<Option<String>>,
    /// A dataset import under way: what it is doing now ("Checking 100,000 lines…").
    pub importing: RwSignal<Option<String>>,
    /// A results file being read: the share read (0…1) and the results found so far.
    pub reading: RwSignal<Option<(f64, usize)>>,
    /// Bumped by each results import, so that a slower one still reading gives way.
    pub import_seq: StoredValue<u64>,
    /// Results table: sort key, descending, text filter; the item shown in detail.
    pub sort: RwSignal<(String, bool)>,
    pub filter: RwSignal<String>,
    pub selected: RwSignal<Option<String>>,
    /// Seconds between polls of an OpenAI batch.
    pub poll_s: RwSignal<u32>,
    /// Aborts the run's requests.
    pub cancel: StoredValue<Option<web_sys::AbortController>, LocalStorage>,
    /// Which dataset (or results file) this tab holds: bumped when another replaces it, so an
    /// answer to the old one's request, arriving late, is dropped instead of filed under the
    /// new one.
    pub run_id: StoredValue<u64>,
    /// The device-wide batch lock, held by this tab while it runs (see `web::run_lock`).
    pub lock: StoredValue<Option<crate::web::run_lock::RunLock>, LocalStorage>,
}

impl BatchState {
    pub fn new() -> BatchState {
        BatchState {
            items: StoredValue::new_local(Rc::new(Vec::new())),
            item_count: RwSignal::new(0),
            left_out: RwSignal::new(0),
            images: StoredValue::new_local(Images::None),
            dataset_file: StoredValue::new(None),
            report: RwSignal::new(Vec::new()),
            results: RwSignal::new(Vec::new()),
            pending: StoredValue::new(Vec::new()),
            pacer: StoredValue::new(Default::default()),
            done_ids: StoredValue::new(HashSet::new()),
            cursor: StoredValue::new(0),
            claimed: StoredValue::new(HashSet::new()),
            status: RwSignal::new(BatchStatus::Empty),
            metric: StoredValue::new(crate::metrics::Metric::ALL[0]),
            started_ms: StoredValue::new(0.0),
            finished_at_start: StoredValue::new(0),
            now_ms: RwSignal::new(0.0),
            resumable: RwSignal::new(None),
            resumable_elsewhere: RwSignal::new(false),
            stored_run: StoredValue::new(None),
            runs: RwSignal::new(Vec::new()),
            message: RwSignal::new(None),
            importing: RwSignal::new(None),
            reading: RwSignal::new(None),
            import_seq: StoredValue::new(0),
            sort: RwSignal::new(("id".into(), false)),
            filter: RwSignal::new(String::new()),
            selected: RwSignal::new(None),
            cancel: StoredValue::new_local(None),
            poll_s: RwSignal::new(30),
            run_id: StoredValue::new(0),
            lock: StoredValue::new_local(None),
        }
    }

    /// (done, failed, partial) among finished items. Done means scored on every criterion;
    /// an item with any failed criterion counts as failed, and `partial` says how many of the
    /// failed still have an overall score resting on fewer criteria.
    pub fn counts(&self) -> (usize, usize, usize) {
        self.results.with(|r| {
            let done = r.iter().filter(|x| x.is_complete()).count();
            let partial = r.iter().filter(|x| x.is_partial()).count();
            (done, r.len() - done, partial)
        })
    }
}
