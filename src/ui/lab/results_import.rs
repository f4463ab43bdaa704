//! Importing a results file exported earlier: analysis without calling any model. A JSONL file
//! is read a slice of lines at a time (`lab::jsonl_reader`), a CSV file a slice of records at
//! a time, with a progress bar, yielding to the page between slices: a million results took seconds of parsing in one step, with the
//! tab frozen and nothing shown (issue 17.5).

use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::batch;
use crate::lab::jsonl_reader::JsonlReader;
use crate::lab::{io, ItemResult};
use crate::ui::lab::batch_run::replace_run;
use crate::ui::lab::batch_state::{BatchState, BatchStatus};
use crate::web::files;

/// The longest the reading holds the main thread before it yields.
const SLICE_MS: f64 = 40.0;
/// Lines read between looks at the clock.
const LINES: usize = 500;
/// Bytes of the file read at once.
const PIECE: f64 = 4.0 * 1024.0 * 1024.0;

/// Reads `file` (JSONL or CSV) and shows its results in place of whatever this tab held.
pub fn import_results(b: BatchState, file: web_sys::File) {
    b.import_seq.update_value(|n| *n += 1);
    let seq = b.import_seq.get_value();
    spawn_local(async move {
        let name = file.name();
        b.reading.set(Some((0.0, 0)));
        crate::web::timing::start("hj-read-results");
        let read = if name.to_lowercase().ends_with(".csv") {
            read_csv(b, seq, &file).await
        } else {
            read_jsonl(b, seq, &file).await
        };
        // A later import took over meanwhile: its reading and its results are the ones shown.
        if b.import_seq.get_value() != seq {
            return;
        }
        b.reading.set(None);
        crate::web::timing::end("hj-read-results");
        match read {
            Ok(Some((results, problems))) => show(b, &name, results, problems),
            Ok(None) => {}
            Err(e) => b.message.set(Some(e)),
        }
    });
}

/// The results and problems of a JSONL file, read a piece of `PIECE` bytes at a time (cut at
/// line ends, so no character is split) and each piece a slice of lines at a time; `None` when
/// a later import took over before the end. Reading the whole file into one string first held
/// the page for up to a second at a million lines.
async fn read_jsonl(
    b: BatchState,
    seq: u64,
    file: &web_sys::File,
) -> Result<Option<(Vec<ItemResult>, Vec<String>)>, String> {
    let now = || js_sys::Date::now();
    let size = file.size();
    let mut reader = JsonlReader::default();
    let (mut offset, mut consumed, mut carry) = (0.0, 0.0, Vec::new());
    while offset < size || !carry.is_empty() {
        let end = (offset + PIECE).min(size);
        let mut bytes = std::mem::take(&mut carry);
        if offset < size {
            let part = file
                .slice_with_f64_and_f64(offset, end)
                .map_err(|_| "The file could not be read.".to_string())?;
            bytes.extend(files::bytes(&part).await?);
        }
        offset = end;
        let cut = match bytes.iter().rposition(|&c| c == b'\n') {
            Some(i) if offset < size => i + 1,
            None if offset < size => 0,
            _ => bytes.len(),
        };
        carry = bytes.split_off(cut);
        let text = String::from_utf8_lossy(&bytes);
        reader.next_piece();
        loop {
            let start = now();
            let mut done = false;
            while !done && now() - start < SLICE_MS {
                done = reader.read(&text, LINES);
            }
            let share = (consumed
                + reader.position() as f64 / text.len().max(1) as f64 * bytes.len() as f64)
                / size;
            b.reading.set(Some((share.min(1.0), reader.results.len())));
            crate::web::fetch::sleep(0, None).await;
            if b.import_seq.get_value() != seq {
                return Ok(None);
            }
            if done {
                break;
            }
        }
        consumed += bytes.len() as f64;
    }
    Ok(Some((reader.results, reader.problems)))
}

/// The results and problems of a CSV file: the text is read whole (a quoted field may hold a
/// line end, so it is not cut in pieces), then its records a slice at a time with a progress
/// bar, yielding to the page between slices; `None` when a later import took over.
async fn read_csv(
    b: BatchState,
    seq: u64,
    file: &web_sys::File,
) -> Result<Option<(Vec<ItemResult>, Vec<String>)>, String> {
    let now = || js_sys::Date::now();
    let text = files::text(file).await?;
    let mut records = batch::dataset::CsvRecords::new(&text);
    let mut read = io::CsvResults::default();
    loop {
        let start = now();
        let mut done = false;
        while !done && now() - start < SLICE_MS {
            for _ in 0..LINES {
                match records.next() {
                    Some((line, row)) => read.push(line, &row),
                    None => {
                        done = true;
                        break;
                    }
                }
            }
        }
        b.reading.set(Some((records.share(), read.found())));
        crate::web::fetch::sleep(0, None).await;
        if b.import_seq.get_value() != seq {
            return Ok(None);
        }
        if done {
            return Ok(Some(read.finish()));
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
