//! JSONL datasets: one JSON object per line.

use serde_json::Value;

use super::fields::*;
use super::rows::Rows;
use super::{too_many_rows, MAX_ROWS};

pub(super) fn jsonl(text: &str, rows: &mut Rows) {
    let mut count = 0usize;
    for (i, raw_line) in text.split('\n').enumerate() {
        let line = i + 1;
        let trimmed = raw_line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if count == 0 && trimmed.starts_with('[') {
            rows.refuse(
                line,
                "This is a JSON array, not JSONL: write one JSON object per line (e.g. \
                 {\"id\": \"1\", \"text\": \"A dog.\", \"image\": \"1.jpg\"})."
                    .to_string(),
            );
            return;
        }
        if count == 0 && trimmed == "{" {
            rows.refuse(
                line,
                "The JSON objects span several lines; JSONL needs each object whole on one line \
                 (e.g. reformat it with `jq -c`)."
                    .to_string(),
            );
            return;
        }
        count += 1;
        if count > MAX_ROWS {
            rows.refuse(line, too_many_rows());
            return;
        }
        let value = match serde_json::from_str::<Value>(trimmed) {
            Ok(v) => v,
            Err(e) => {
                let mut msg = format!("invalid JSON ({})", json_message(&e));
                if e.is_eof() {
                    msg.push_str("; each line must hold one whole JSON object");
                }
                rows.problem(line, &[msg]);
                continue;
            }
        };
        let Value::Object(map) = &value else {
            rows.problem(
                line,
                &[format!(
                    "the line is {}, not a JSON object {{\u{2026}}}",
                    kind(&value)
                )],
            );
            continue;
        };
        let mut cells = Vec::with_capacity(map.len());
        for (key, v) in map {
            match Field::from_name(&key.trim().to_ascii_lowercase()) {
                Some(f) => cells.push((f, Raw::Json(v))),
                None => rows.ignore(key, line),
            }
        }
        rows.row(line, &cells);
    }
}
