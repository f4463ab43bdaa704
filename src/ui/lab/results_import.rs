//! Importing a results file exported earlier: analysis without calling any model. A JSONL file
//! is read a slice of lines at a time (`lab::jsonl_reader`), with a progress bar, yielding to
//! the page between slices: a million results took seconds of parsing in one step, with the
//! tab frozen and nothing shown (issue 17.5).

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::batch;
use crate::lab::jsonl_reader::JsonlReader;
use crate::lab::{io, ItemResult};
use crate::ui::batch_run::replace_run;
use crate::ui::batch_state::{BatchState, BatchStatus};
use crate::web::files;

/// The longest the reading holds the main thread before it yields.
const SLICE_MS: f64 = 40.0;
/// Lines read between looks at the clock.
const LINES: usize = 500;

/// Reads `file` (JSONL or CSV) and shows its results in place of whatever this tab held.
pub fn import_results(b: BatchState, file: web_sys::File) {
    b.import_seq.update_value(|n| *n += 1);
    let seq = b.import_seq.get_value();
    spawn_local(async move {
        let name = file.name();
        b.reading.set(Some((0.0, 0)));
        let read = match files::text(&file).await {
            Ok(text) if name.to_lowercase().ends_with(".csv") => {
                Some(io::from_csv_records(&batch::dataset::csv_records(&text)))
            }
            Ok(text) => read_jsonl(b, seq, &text).await,
            Err(e) => {
                b.message.set(Some(e));
                None
            }
        };
        // A later import took over meanwhile: its reading and its results are the ones shown.
        if b.import_seq.get_value() != seq {
            return;
        }
        b.reading.set(None);
        if let Some((results, problems)) = read {
            show(b, &name, results, problems);
        }
    });
}

/// The results and problems of a JSONL text, read in slices; `None` when a later import took
/// over before the end.
async fn read_jsonl(b: BatchState, seq: u64, text: &str) -> Option<(Vec<ItemResult>, Vec<String>)> {
    let now = || js_sys::Date::now();
    let mut reader = JsonlReader::default();
    loop {
        let start = now();
        let mut done = false;
        while !done && now() - start < SLICE_MS {
            done = reader.read(text, LINES);
        }
        if done {
            return Some((reader.results, reader.problems));
        }
        b.reading
            .set(Some((reader.fraction(text), reader.results.len())));
        crate::web::fetch::sleep(0, None).await;
        if b.import_seq.get_value() != seq {
            return None;
        }
    }
}

fn show(b: BatchState, name: &str, results: Vec<ItemResult>, problems: Vec<String>) {
    replace_run(b);
    b.stored_run.set_value(None);
    b.report.set(problems);
    b.message.set(Some(format!(
        "Loaded {} results from \u{201c}{name}\u{201d}.",
        results.len()
    )));
    b.item_count.set(results.len());
    b.left_out.set(0);
    b.items.set_value(Rc::new(Vec::new()));
    b.results.set(results);
    b.status.set(BatchStatus::Finished);
}
