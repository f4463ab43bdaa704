//! Importing a dataset for a batch run: JSONL (one JSON object per line) or CSV (RFC 4180, header
//! row required), one item per row.
//!
//! Every bad row is reported with its 1-based line number (for CSV, the physical line where the
//! record starts) and a plain-English reason; good rows are kept. Unknown columns are ignored and
//! listed in a warning. A file with more than [`MAX_ROWS`] rows or a line longer than
//! [`MAX_LINE_BYTES`] is refused as a whole. Parsing is linear in the size of the file.
//!
//! Accepted columns ([`COLUMNS`]; names are matched case-insensitively, surrounding spaces
//! ignored):
//!
//! | column | meaning |
//! |---|---|
//! | `id` | required, unique (JSONL: a string or a number) |
//! | `task` | `ic` (default), `vqa`, `vdu` or `reg` |
//! | `text` | required: the output to judge |
//! | `question` | required for `vqa` and `vdu` |
//! | `references` | JSONL: array of strings; CSV: a JSON array, or texts separated by `\|` |
//! | `image` | file name (`./` and backslashes normalised) |
//! | `box` | required for `reg`: `[left, top, right, bottom]` in 0..1 (CSV: `"l,t,r,b"`) |
//! | `human_correctness` … `human_conciseness`, `human_overall` | one or more ratings (JSONL: a number or an array; CSV: `3` or `3\|4`) |
//! | `human` | JSONL: `{"correctness": 4, "overall": [3, 3.5]}` (CSV: the same as JSON text) |
//! | `group` | best-of-N: candidates for the same input share a group |
//! | `chosen` | best-of-N: `true/false/1/0/yes/no` (empty: false) |
//! | `caption`, `reference_answer` | MAEV, optional |

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::fmt;

use serde_json::Value;

use super::{normalize_path, Human, Item};
use crate::criteria::Criterion;
use crate::geometry::NormBox;
use crate::task::Task;

/// Most data rows a dataset may have.
pub const MAX_ROWS: usize = 100_000;
/// Longest physical line accepted, in bytes (1 MB).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Every column (JSONL field) the import understands.
pub const COLUMNS: [&str; 18] = [
    "id",
    "task",
    "text",
    "question",
    "references",
    "image",
    "box",
    "human_correctness",
    "human_completeness",
    "human_clarity",
    "human_fluency",
    "human_conciseness",
    "human_overall",
    "human",
    "group",
    "chosen",
    "caption",
    "reference_answer",
];

/// The two dataset formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Jsonl,
    Csv,
}

impl Format {
    pub fn label(self) -> &'static str {
        match self {
            Format::Jsonl => "JSONL",
            Format::Csv => "CSV",
        }
    }
}

/// A row that was not imported, or a problem with the file as a whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowProblem {
    /// 1-based line of the file where the row starts; 0 for the file as a whole.
    pub line: usize,
    /// Why, in plain English (a sentence, without the line number).
    pub message: String,
}

impl fmt::Display for RowProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "Line {}: {}", self.line, self.message)
        }
    }
}

/// An imported dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    pub format: Format,
    /// The good rows, in file order.
    pub items: Vec<Item>,
    /// The bad rows, in file order (or one problem refusing the whole file).
    pub problems: Vec<RowProblem>,
    /// Things worth knowing that did not reject any row (ignored columns, best-of-N oddities).
    pub warnings: Vec<String>,
}

/// The format from the file name's extension (`.jsonl`, `.ndjson`, `.json`; `.csv`, `.tsv`), or
/// else from the content: JSONL when it starts with `{` or `[`, CSV otherwise.
pub fn detect_format(file_name: &str, text: &str) -> Format {
    let base = super::base_name(file_name.trim());
    let ext = base
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "jsonl" | "ndjson" | "json" | "jsonlines" => Format::Jsonl,
        "csv" | "tsv" => Format::Csv,
        _ => {
            let start = text.trim_start_matches(|c: char| c == '\u{feff}' || c.is_whitespace());
            if start.starts_with('{') || start.starts_with('[') {
                Format::Jsonl
            } else {
                Format::Csv
            }
        }
    }
}

/// Imports a dataset, detecting the format with [`detect_format`].
pub fn parse(file_name: &str, text: &str) -> Dataset {
    parse_as(detect_format(file_name, text), text)
}

/// Imports a dataset in the given format.
pub fn parse_as(format: Format, text: &str) -> Dataset {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rows = Rows::new(format);
    if let Some(line) = first_long_line(text) {
        rows.refuse(
            line,
            "The line is longer than 1 MB, so the file is refused (a dataset has one item per \
             line; is this the right file?)."
                .to_string(),
        );
    } else if text.trim().is_empty() {
        rows.refuse(0, "The file is empty.".to_string());
    } else {
        match format {
            Format::Jsonl => jsonl(text, &mut rows),
            Format::Csv => csv(text, &mut rows),
        }
    }
    rows.finish()
}

/// The first physical line over [`MAX_LINE_BYTES`] (CRLF, LF and lone CR end lines).
fn first_long_line(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut line = 1;
    let mut len = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\n' => {
                line += 1;
                len = 0;
            }
            b'\r' => {
                if bytes.get(i + 1) != Some(&b'\n') {
                    line += 1;
                }
                len = 0;
            }
            _ => {
                len += 1;
                if len > MAX_LINE_BYTES {
                    return Some(line);
                }
            }
        }
    }
    None
}

fn too_many_rows() -> String {
    format!(
        "The file has more than {} rows, so it is refused; split it into smaller datasets.",
        group_digits(MAX_ROWS)
    )
}

fn group_digits(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Fields and raw values
// ---------------------------------------------------------------------------------------------

/// A known column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Id,
    Task,
    Text,
    Question,
    References,
    Image,
    Box,
    /// `human_<criterion>`, or `human_overall` (`None`).
    HumanFlat(Option<Criterion>),
    /// `human`: an object of ratings.
    HumanObject,
    Group,
    Chosen,
    Caption,
    ReferenceAnswer,
}

impl Field {
    /// From a lower-cased, trimmed name.
    fn from_name(name: &str) -> Option<Field> {
        Some(match name {
            "id" => Field::Id,
            "task" => Field::Task,
            "text" => Field::Text,
            "question" => Field::Question,
            "references" => Field::References,
            "image" => Field::Image,
            "box" => Field::Box,
            "human" => Field::HumanObject,
            "human_overall" => Field::HumanFlat(None),
            "group" => Field::Group,
            "chosen" => Field::Chosen,
            "caption" => Field::Caption,
            "reference_answer" => Field::ReferenceAnswer,
            other => {
                let c = other.strip_prefix("human_").and_then(Criterion::from_id)?;
                Field::HumanFlat(Some(c))
            }
        })
    }
}

/// A hint for a column name that looks like one we know.
fn hint(name: &str) -> Option<&'static str> {
    Some(match name {
        "bbox" | "boxes" | "bounding_box" => "box",
        "reference" | "refs" | "ref" | "gt" | "ground_truth" => "references",
        "img" | "image_file" | "image_path" | "file_name" | "filename" | "file" | "path" => "image",
        "output" | "prediction" | "candidate" | "answer" | "response" | "generated" => "text",
        "type" | "task_type" => "task",
        "name" | "item" | "item_id" | "uid" => "id",
        "best" | "selected" | "preferred" => "chosen",
        "score" | "rating" | "human_score" | "overall" => "human_overall",
        _ => return None,
    })
}

/// One cell: a JSON value (JSONL) or the text of a CSV field.
#[derive(Clone, Copy)]
enum Raw<'a> {
    Json(&'a Value),
    Csv(&'a str),
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true/false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn wrong_type(name: &str, expected: &str, v: &Value) -> String {
    format!("{name} should be {expected}, not {}", kind(v))
}

fn quote(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() > MAX {
        let cut: String = s.chars().take(MAX).collect();
        format!("\u{201c}{cut}\u{2026}\u{201d}")
    } else {
        format!("\u{201c}{s}\u{201d}")
    }
}

fn non_empty(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

impl<'a> Raw<'a> {
    /// Text, trimmed; `None` when empty or null.
    fn text(self, name: &str) -> Result<Option<String>, String> {
        match self {
            Raw::Csv(s) => Ok(non_empty(s)),
            Raw::Json(Value::Null) => Ok(None),
            Raw::Json(Value::String(s)) => Ok(non_empty(s)),
            Raw::Json(v) => Err(wrong_type(name, "text", v)),
        }
    }

    /// Text, or a JSON number kept as written (ids, groups).
    fn text_or_number(self, name: &str) -> Result<Option<String>, String> {
        match self {
            Raw::Json(Value::Number(n)) => Ok(Some(n.to_string())),
            Raw::Json(v @ (Value::Bool(_) | Value::Array(_) | Value::Object(_))) => {
                Err(wrong_type(name, "text or a number", v))
            }
            other => other.text(name),
        }
    }

    /// One or more numbers: a number, a JSON array of numbers, or text `3` / `3|4` / `[3, 4]`.
    fn numbers(self, name: &str) -> Result<Vec<f64>, String> {
        match self {
            Raw::Csv(s) => numbers_from_text(name, s),
            Raw::Json(Value::Null) => Ok(Vec::new()),
            Raw::Json(Value::String(s)) => numbers_from_text(name, s),
            Raw::Json(Value::Number(n)) => Ok(vec![json_number(name, n)?]),
            Raw::Json(Value::Array(a)) => numbers_from_array(name, a),
            Raw::Json(v) => Err(wrong_type(name, "a number or a list of numbers", v)),
        }
    }

    fn boolean(self, name: &str) -> Result<bool, String> {
        match self {
            Raw::Json(Value::Null) => Ok(false),
            Raw::Json(Value::Bool(b)) => Ok(*b),
            Raw::Json(Value::Number(n)) => match n.as_u64() {
                Some(0) => Ok(false),
                Some(1) => Ok(true),
                _ => Err(format!("{name} should be true or false, not {n}")),
            },
            Raw::Json(Value::String(s)) => boolean_from_text(name, s),
            Raw::Csv(s) => boolean_from_text(name, s),
            Raw::Json(v) => Err(wrong_type(name, "true or false", v)),
        }
    }

    /// References: JSON array of strings; CSV text: a JSON array or `|`-separated.
    fn strings(self, name: &str) -> Result<Vec<String>, String> {
        match self {
            Raw::Json(Value::Null) => Ok(Vec::new()),
            Raw::Json(Value::String(s)) => Ok(non_empty(s).into_iter().collect()),
            Raw::Json(Value::Array(a)) => strings_from_array(name, a),
            Raw::Json(v) => Err(wrong_type(name, "a list of texts", v)),
            Raw::Csv(s) => {
                let t = s.trim();
                if t.starts_with('[') {
                    match serde_json::from_str::<Value>(t) {
                        Ok(Value::Array(a)) => strings_from_array(name, &a),
                        Ok(v) => Err(wrong_type(name, "a list of texts", &v)),
                        Err(e) => Err(format!(
                            "{name} starts with [ but is not a valid JSON array ({})",
                            json_message(&e)
                        )),
                    }
                } else {
                    Ok(t.split('|').filter_map(non_empty).collect())
                }
            }
        }
    }

    fn bbox(self, name: &str) -> Result<Option<NormBox>, String> {
        let text = match self {
            Raw::Json(Value::String(s)) => Some(s.as_str()),
            Raw::Csv(s) => Some(s),
            _ => None,
        };
        let values = match (self, text) {
            (Raw::Json(Value::Null), _) => return Ok(None),
            (Raw::Json(Value::Array(a)), _) => numbers_from_array(name, a)?,
            (_, Some(s)) => {
                let t = s.trim();
                if t.is_empty() {
                    return Ok(None);
                }
                let inner = t
                    .trim_start_matches(['[', '('])
                    .trim_end_matches([']', ')'])
                    .trim();
                let mut values = Vec::new();
                for part in inner
                    .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
                    .filter(|p| !p.is_empty())
                {
                    values.push(number(name, part).map_err(|_| {
                        format!(
                            "{name} {} should be four numbers \u{201c}left,top,right,bottom\u{201d}",
                            quote(t)
                        )
                    })?);
                }
                values
            }
            (Raw::Json(v), None) => {
                return Err(wrong_type(name, "a list [left, top, right, bottom]", v));
            }
            (Raw::Csv(_), None) => return Ok(None),
        };
        make_box(name, &values).map(Some)
    }
}

fn boolean_from_text(name: &str, s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "" | "false" | "0" | "no" => Ok(false),
        "true" | "1" | "yes" => Ok(true),
        _ => Err(format!(
            "{name} {} is not one of true/false/1/0/yes/no",
            quote(s.trim())
        )),
    }
}

fn make_box(name: &str, v: &[f64]) -> Result<NormBox, String> {
    if v.len() != 4 {
        return Err(format!(
            "{name} should have 4 numbers [left, top, right, bottom], not {}",
            v.len()
        ));
    }
    if let Some(x) = v.iter().find(|x| !(0.0..=1.0).contains(*x)) {
        return Err(format!(
            "{name} values must be fractions of the image size between 0 and 1 (found {x}; \
             divide pixel coordinates by the image width and height)"
        ));
    }
    let b = NormBox {
        x0: v[0],
        y0: v[1],
        x1: v[2],
        y1: v[3],
    };
    if b.x0 >= b.x1 || b.y0 >= b.y1 {
        return Err(format!(
            "{name} must be [left, top, right, bottom] with left < right and top < bottom"
        ));
    }
    Ok(b)
}

fn number(name: &str, s: &str) -> Result<f64, String> {
    let t = s.trim();
    match t.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("{name} {} is not a number", quote(t))),
    }
}

fn json_number(name: &str, n: &serde_json::Number) -> Result<f64, String> {
    n.as_f64()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("{name} {n} is not a usable number"))
}

fn numbers_from_array(name: &str, a: &[Value]) -> Result<Vec<f64>, String> {
    a.iter()
        .map(|v| match v {
            Value::Number(n) => json_number(name, n),
            Value::String(s) => number(name, s),
            v => Err(wrong_type(&format!("each value of {name}"), "a number", v)),
        })
        .collect()
}

fn numbers_from_text(name: &str, s: &str) -> Result<Vec<f64>, String> {
    let t = s.trim();
    if t.starts_with('[') {
        return match serde_json::from_str::<Value>(t) {
            Ok(Value::Array(a)) => numbers_from_array(name, &a),
            _ => Err(format!("{name} {} is not a list of numbers", quote(t))),
        };
    }
    t.split('|')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            number(name, p).map_err(|e| {
                if p.contains(',') {
                    format!("{e} (separate several ratings with |; decimals use a point)")
                } else {
                    e
                }
            })
        })
        .collect()
}

fn strings_from_array(name: &str, a: &[Value]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for v in a {
        match v {
            Value::String(s) => out.extend(non_empty(s)),
            v => return Err(wrong_type(&format!("each value of {name}"), "text", v)),
        }
    }
    Ok(out)
}

/// serde_json's message without its "at line 1 column N" (the line is ours).
fn json_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match full.strip_suffix(&suffix) {
        Some(msg) => format!("{msg}, at column {}", e.column()),
        None => full,
    }
}

// ---------------------------------------------------------------------------------------------
// Building items
// ---------------------------------------------------------------------------------------------

/// The state of an import: items so far, problems, ids seen, ignored names.
struct Rows {
    format: Format,
    items: Vec<Item>,
    problems: Vec<RowProblem>,
    warnings: Vec<String>,
    refused: bool,
    /// id → line where it first appeared.
    ids: HashMap<String, usize>,
    /// Ignored field names in first-seen order, with the line they first appeared on.
    ignored: Vec<(String, usize)>,
    ignored_set: HashSet<String>,
}

impl Rows {
    fn new(format: Format) -> Rows {
        Rows {
            format,
            items: Vec::new(),
            problems: Vec::new(),
            warnings: Vec::new(),
            refused: false,
            ids: HashMap::new(),
            ignored: Vec::new(),
            ignored_set: HashSet::new(),
        }
    }

    /// Refuses the whole file: no items, this one problem.
    fn refuse(&mut self, line: usize, message: String) {
        self.items.clear();
        self.problems = vec![RowProblem { line, message }];
        self.warnings.clear();
        self.ignored.clear();
        self.refused = true;
    }

    fn ignore(&mut self, name: &str, line: usize) {
        if self.ignored_set.insert(name.to_string()) {
            self.ignored.push((name.to_string(), line));
        }
    }

    /// Builds one row's item, or records why not.
    fn row(&mut self, line: usize, cells: &[(Field, Raw<'_>)]) {
        let mut errors: Vec<String> = Vec::new();
        let mut id = None;
        let mut task = Task::Ic;
        let mut text = None;
        let mut question = None;
        let mut references = Vec::new();
        let mut image = None;
        let mut bbox = None;
        let mut human = Human::default();
        let mut flat_seen = [false; 6];
        let mut group = None;
        let mut chosen = false;
        let mut caption = None;
        let mut reference_answer = None;

        fn put(errors: &mut Vec<String>, r: Result<Option<String>, String>) -> Option<String> {
            r.unwrap_or_else(|e| {
                errors.push(e);
                None
            })
        }

        for &(field, raw) in cells {
            match field {
                Field::Id => id = put(&mut errors, raw.text_or_number("id")),
                Field::Task => match raw.text("task") {
                    Ok(None) => {}
                    Ok(Some(t)) => match Task::from_id(&t.to_ascii_lowercase()) {
                        Some(found) => task = found,
                        None => errors.push(format!(
                            "unknown task {} (expected ic, vqa, vdu or reg)",
                            quote(&t)
                        )),
                    },
                    Err(e) => errors.push(e),
                },
                Field::Text => text = put(&mut errors, raw.text("text")),
                Field::Question => question = put(&mut errors, raw.text("question")),
                Field::References => match raw.strings("references") {
                    Ok(v) => references = v,
                    Err(e) => errors.push(e),
                },
                Field::Image => {
                    image = put(&mut errors, raw.text("image"))
                        .map(|s| normalize_path(&s))
                        .filter(|s| !s.is_empty())
                }
                Field::Box => match raw.bbox("box") {
                    Ok(b) => bbox = b,
                    Err(e) => errors.push(e),
                },
                Field::HumanFlat(c) => {
                    let name = match c {
                        Some(c) => format!("human_{}", c.id()),
                        None => "human_overall".to_string(),
                    };
                    match raw.numbers(&name) {
                        Ok(v) if !v.is_empty() => {
                            flat_seen[c.map_or(5, Criterion::index)] = true;
                            *human_slot(&mut human, c) = v;
                        }
                        Ok(_) => {}
                        Err(e) => errors.push(e),
                    }
                }
                // Read after the loop, to check it against the flat columns.
                Field::HumanObject => {}
                Field::Group => group = put(&mut errors, raw.text_or_number("group")),
                Field::Chosen => match raw.boolean("chosen") {
                    Ok(b) => chosen = b,
                    Err(e) => errors.push(e),
                },
                Field::Caption => caption = put(&mut errors, raw.text("caption")),
                Field::ReferenceAnswer => {
                    reference_answer = put(&mut errors, raw.text("reference_answer"))
                }
            }
        }
        // The `human` object last, so that it can be checked against the flat columns.
        for &(field, raw) in cells {
            if field == Field::HumanObject {
                self.human_object(line, raw, &mut human, &flat_seen, &mut errors);
            }
        }

        let id_text = id.clone();
        // A field with a wrong value is not also reported as missing.
        let bad = |errors: &[String], name: &str| {
            errors.iter().any(|e| {
                e.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(' '))
            })
        };
        if id.is_none() && !bad(&errors, "id") {
            errors.push("missing id".to_string());
        }
        if text.is_none() && !bad(&errors, "text") {
            errors.push("missing text (the output to judge)".to_string());
        }
        if task.needs_question() && question.is_none() && !bad(&errors, "question") {
            errors.push(format!("task {} needs a question", task.id()));
        }
        if task.needs_box() && bbox.is_none() && !bad(&errors, "box") {
            errors.push(format!(
                "task {} needs a box [left, top, right, bottom]",
                task.id()
            ));
        }
        if let Some(id) = id_text {
            match self.ids.entry(id) {
                Entry::Occupied(first) => errors.push(format!(
                    "duplicate id {} (first on line {})",
                    quote(first.key()),
                    first.get()
                )),
                Entry::Vacant(v) => {
                    v.insert(line);
                }
            }
        }

        if errors.is_empty() {
            self.items.push(Item {
                line,
                id: id.unwrap_or_default(),
                task,
                text: text.unwrap_or_default(),
                question,
                references,
                image,
                bbox,
                human,
                group,
                chosen,
                caption,
                reference_answer,
            });
        } else {
            self.problem(line, &errors);
        }
    }

    fn problem(&mut self, line: usize, errors: &[String]) {
        let mut message = errors.join("; ");
        if !message.ends_with('.') {
            message.push('.');
        }
        self.problems.push(RowProblem { line, message });
    }

    /// `human: {"correctness": 4, "overall": [3, 3.5]}`.
    fn human_object(
        &mut self,
        line: usize,
        raw: Raw<'_>,
        human: &mut Human,
        flat_seen: &[bool; 6],
        errors: &mut Vec<String>,
    ) {
        let parsed;
        let value = match raw {
            Raw::Json(v) => v,
            Raw::Csv(s) if s.trim().is_empty() => return,
            Raw::Csv(s) => match serde_json::from_str::<Value>(s.trim()) {
                Ok(v) => {
                    parsed = v;
                    &parsed
                }
                Err(e) => {
                    errors.push(format!(
                        "human is not valid JSON ({}); write e.g. {{\"overall\": 3}}",
                        json_message(&e)
                    ));
                    return;
                }
            },
        };
        let map = match value {
            Value::Null => return,
            Value::Object(map) => map,
            v => {
                errors.push(wrong_type(
                    "human",
                    "an object like {\"correctness\": 4, \"overall\": 3.5}",
                    v,
                ));
                return;
            }
        };
        for (key, v) in map {
            let k = key.trim().to_ascii_lowercase();
            let c = if k == "overall" {
                None
            } else if let Some(c) = Criterion::from_id(&k) {
                Some(c)
            } else {
                self.ignore(&format!("human.{key}"), line);
                continue;
            };
            let name = format!("human.{k}");
            match Raw::Json(v).numbers(&name) {
                Ok(values) if values.is_empty() => {}
                Ok(values) => {
                    if flat_seen[c.map_or(5, Criterion::index)] {
                        errors.push(format!("{name} is also given as human_{k}; give it once"));
                    } else {
                        *human_slot(human, c) = values;
                    }
                }
                Err(e) => errors.push(e),
            }
        }
    }

    fn finish(mut self) -> Dataset {
        if !self.refused {
            if !self.ignored.is_empty() {
                let names: Vec<String> = self
                    .ignored
                    .iter()
                    .map(|(name, line)| {
                        let mut s = format!("\u{201c}{name}\u{201d}");
                        if self.format == Format::Jsonl {
                            s.push_str(&format!(" (first on line {line})"));
                        }
                        if let Some(h) = hint(&name.trim().to_ascii_lowercase()) {
                            s.push_str(&format!(" (did you mean \u{201c}{h}\u{201d}?)"));
                        }
                        s
                    })
                    .collect();
                let what = match self.format {
                    Format::Jsonl => "fields",
                    Format::Csv => "columns",
                };
                self.warnings.insert(
                    0,
                    format!("Ignored {what} the app does not use: {}.", names.join(", ")),
                );
            }
            self.best_of_n_warnings();
        }
        Dataset {
            format: self.format,
            items: self.items,
            problems: self.problems,
            warnings: self.warnings,
        }
    }

    fn best_of_n_warnings(&mut self) {
        let orphans = self
            .items
            .iter()
            .filter(|i| i.chosen && i.group.is_none())
            .count();
        if orphans > 0 {
            self.warnings.push(format!(
                "{orphans} item{} marked chosen but without a group; chosen only counts within \
                 a group.",
                if orphans == 1 { " is" } else { "s are" }
            ));
        }
        if !self.items.iter().any(|i| i.chosen && i.group.is_some()) {
            return;
        }
        // Groups in first-seen order, each with whether a candidate is chosen.
        let mut order: Vec<&str> = Vec::new();
        let mut chosen: HashMap<&str, bool> = HashMap::new();
        for item in &self.items {
            if let Some(g) = item.group.as_deref() {
                let e = chosen.entry(g).or_insert_with(|| {
                    order.push(g);
                    false
                });
                *e |= item.chosen;
            }
        }
        let without: Vec<&str> = order.into_iter().filter(|g| !chosen[g]).collect();
        if !without.is_empty() {
            let shown: Vec<String> = without.iter().take(5).map(|g| quote(g)).collect();
            let more = if without.len() > 5 { ", \u{2026}" } else { "" };
            self.warnings.push(format!(
                "{} group{} no chosen candidate: {}{more}.",
                without.len(),
                if without.len() == 1 { " has" } else { "s have" },
                shown.join(", ")
            ));
        }
    }
}

fn human_slot(human: &mut Human, c: Option<Criterion>) -> &mut Vec<f64> {
    match c {
        Some(c) => &mut human.criteria[c.index()],
        None => &mut human.overall,
    }
}

// ---------------------------------------------------------------------------------------------
// JSONL
// ---------------------------------------------------------------------------------------------

fn jsonl(text: &str, rows: &mut Rows) {
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

// ---------------------------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------------------------

/// One CSV record.
struct Record {
    /// Physical line where it starts.
    line: usize,
    fields: Vec<String>,
    error: Option<String>,
}

impl Record {
    fn is_blank(&self) -> bool {
        self.error.is_none() && self.fields.iter().all(|f| f.trim().is_empty())
    }
}

/// An RFC 4180 reader: quoted fields with doubled quotes, delimiters and line breaks inside
/// quotes, CRLF, LF or lone CR line ends. Delimiters and quotes are ASCII, so every slice
/// boundary is a character boundary.
struct CsvReader<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    delim: u8,
}

impl<'a> CsvReader<'a> {
    fn new(text: &'a str, delim: u8) -> CsvReader<'a> {
        CsvReader {
            text,
            pos: 0,
            line: 1,
            delim,
        }
    }

    fn byte(&self, at: usize) -> Option<u8> {
        self.text.as_bytes().get(at).copied()
    }

    /// Consumes a line end at `pos` if there is one.
    fn line_end(&mut self) -> bool {
        match self.byte(self.pos) {
            Some(b'\r') => {
                self.pos += 1;
                if self.byte(self.pos) == Some(b'\n') {
                    self.pos += 1;
                }
                self.line += 1;
                true
            }
            Some(b'\n') => {
                self.pos += 1;
                self.line += 1;
                true
            }
            _ => false,
        }
    }

    /// Scans an unquoted run up to a delimiter, a line end or the end.
    fn unquoted(&mut self) -> &'a str {
        let start = self.pos;
        while let Some(b) = self.byte(self.pos) {
            if b == self.delim || b == b'\r' || b == b'\n' {
                break;
            }
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }

    /// A quoted field; `pos` is on the opening quote. `Err` when never closed.
    fn quoted(&mut self) -> Result<String, ()> {
        self.pos += 1;
        let mut out = String::new();
        let mut start = self.pos;
        loop {
            match self.byte(self.pos) {
                None => return Err(()),
                Some(b'"') => {
                    if self.byte(self.pos + 1) == Some(b'"') {
                        out.push_str(&self.text[start..=self.pos]);
                        self.pos += 2;
                        start = self.pos;
                    } else {
                        out.push_str(&self.text[start..self.pos]);
                        self.pos += 1;
                        break;
                    }
                }
                Some(b'\r') => {
                    if self.byte(self.pos + 1) != Some(b'\n') {
                        self.line += 1;
                    }
                    self.pos += 1;
                }
                Some(b'\n') => {
                    self.line += 1;
                    self.pos += 1;
                }
                Some(_) => self.pos += 1,
            }
        }
        if out.contains('\r') {
            out = out.replace("\r\n", "\n").replace('\r', "\n");
        }
        Ok(out)
    }
}

impl Iterator for CsvReader<'_> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        if self.pos >= self.text.len() {
            return None;
        }
        let line = self.line;
        let mut fields = Vec::new();
        let mut error = None;
        loop {
            if self.byte(self.pos) == Some(b'"') {
                match self.quoted() {
                    Ok(mut field) => {
                        match self.byte(self.pos) {
                            None | Some(b'\r') | Some(b'\n') => {}
                            Some(b) if b == self.delim => {}
                            Some(_) => {
                                error.get_or_insert_with(|| {
                                    format!(
                                        "field {} has text after its closing quote (a quote \
                                         inside a quoted field must be doubled: \"\")",
                                        fields.len() + 1
                                    )
                                });
                                field.push_str(self.unquoted());
                            }
                        }
                        fields.push(field);
                    }
                    Err(()) => {
                        fields.push(String::new());
                        error = Some(format!(
                            "field {} opens a quote that is never closed, so the rest of the \
                             file was read as part of it",
                            fields.len()
                        ));
                        return Some(Record {
                            line,
                            fields,
                            error,
                        });
                    }
                }
            } else {
                fields.push(self.unquoted().to_string());
            }
            match self.byte(self.pos) {
                Some(b) if b == self.delim => self.pos += 1,
                _ => {
                    self.line_end();
                    break;
                }
            }
        }
        Some(Record {
            line,
            fields,
            error,
        })
    }
}

/// The delimiter: the most frequent of `,` `;` tab outside quotes on the first line (`,` on a
/// tie or when none).
fn detect_delimiter(text: &str) -> u8 {
    let mut counts = [0usize; 3];
    let mut in_quotes = false;
    for b in text.bytes() {
        match b {
            b'"' => in_quotes = !in_quotes,
            b'\n' | b'\r' if !in_quotes => break,
            b',' if !in_quotes => counts[0] += 1,
            b';' if !in_quotes => counts[1] += 1,
            b'\t' if !in_quotes => counts[2] += 1,
            _ => {}
        }
    }
    let delims = [b',', b';', b'\t'];
    let mut best = 0;
    for i in 1..3 {
        if counts[i] > counts[best] {
            best = i;
        }
    }
    delims[best]
}

/// The non-blank records of a CSV text (separator detected as for datasets), each with the
/// line it starts on. Used to re-import results files exported as CSV.
pub fn csv_records(text: &str) -> Vec<(usize, Vec<String>)> {
    let text = text.trim_start_matches('\u{feff}');
    let delim = detect_delimiter(text.trim_start_matches(['\r', '\n']));
    CsvReader::new(text, delim)
        .filter(|r| !r.is_blank())
        .map(|r| (r.line, r.fields))
        .collect()
}

fn csv(text: &str, rows: &mut Rows) {
    let delim = detect_delimiter(text.trim_start_matches(['\r', '\n']));
    let mut records = CsvReader::new(text, delim);

    // The header: the first non-blank record.
    let header = loop {
        match records.next() {
            None => {
                rows.refuse(0, "The file is empty.".to_string());
                return;
            }
            Some(r) if r.is_blank() => continue,
            Some(r) => break r,
        }
    };
    if let Some(e) = header.error {
        rows.refuse(header.line, format!("The header row is malformed: {e}."));
        return;
    }
    let mut columns: Vec<Option<Field>> = Vec::with_capacity(header.fields.len());
    let mut seen: Vec<Field> = Vec::new();
    for name in &header.fields {
        let lower = name.trim().to_ascii_lowercase();
        let field = Field::from_name(&lower);
        match field {
            Some(f) if seen.contains(&f) => {
                rows.refuse(
                    header.line,
                    format!(
                        "Column \u{201c}{}\u{201d} appears twice in the header.",
                        name.trim()
                    ),
                );
                return;
            }
            Some(f) => seen.push(f),
            // A nameless column (a spreadsheet's or pandas' row index) is dropped silently.
            None if lower.is_empty() => {}
            None => rows.ignore(name.trim(), header.line),
        }
        columns.push(field);
    }
    for (required, f) in [("id", Field::Id), ("text", Field::Text)] {
        if !seen.contains(&f) {
            rows.refuse(
                header.line,
                format!(
                    "The header row has no \u{201c}{required}\u{201d} column. The first line must \
                     name the columns, e.g. id,task,text,image (found: {}).",
                    header
                        .fields
                        .iter()
                        .take(10)
                        .map(|f| quote(f.trim()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            return;
        }
    }

    let mut count = 0usize;
    for record in records {
        if record.is_blank() {
            continue;
        }
        count += 1;
        if count > MAX_ROWS {
            rows.refuse(record.line, too_many_rows());
            return;
        }
        if let Some(e) = &record.error {
            rows.problem(record.line, std::slice::from_ref(e));
            continue;
        }
        if record.fields.len() != columns.len() {
            rows.problem(
                record.line,
                &[format!(
                    "the row has {} field{} but the header has {} column{} (a text containing \
                     {} or a line break must be in double quotes)",
                    record.fields.len(),
                    if record.fields.len() == 1 { "" } else { "s" },
                    columns.len(),
                    if columns.len() == 1 { "" } else { "s" },
                    match delim {
                        b';' => "a semicolon",
                        b'\t' => "a tab",
                        _ => "a comma",
                    }
                )],
            );
            continue;
        }
        let cells: Vec<(Field, Raw<'_>)> = columns
            .iter()
            .zip(&record.fields)
            .filter_map(|(f, v)| f.map(|f| (f, Raw::Csv(v.as_str()))))
            .collect();
        rows.row(record.line, &cells);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv_ds(text: &str) -> Dataset {
        parse("data.csv", text)
    }

    fn jsonl_ds(text: &str) -> Dataset {
        parse("data.jsonl", text)
    }

    fn lines(ds: &Dataset) -> Vec<usize> {
        ds.problems.iter().map(|p| p.line).collect()
    }

    fn ids(ds: &Dataset) -> Vec<&str> {
        ds.items.iter().map(|i| i.id.as_str()).collect()
    }

    #[test]
    fn csv_records_keep_lines_and_quoted_newlines() {
        let r = csv_records("id,text\r\na,\"x\ny\"\r\n\r\nb,z\r\n");
        assert_eq!(r.len(), 3);
        assert_eq!(r[1], (2, vec!["a".to_string(), "x\ny".to_string()]));
        assert_eq!(r[2].0, 5);
    }

    #[test]
    fn format_detection() {
        assert_eq!(detect_format("a.JSONL", "id,text"), Format::Jsonl);
        assert_eq!(detect_format("dir/a.ndjson", ""), Format::Jsonl);
        assert_eq!(detect_format("a.csv", "{\"id\":1}"), Format::Csv);
        assert_eq!(detect_format("a.tsv", ""), Format::Csv);
        assert_eq!(detect_format("data", "\u{feff}  {\"id\":1}"), Format::Jsonl);
        assert_eq!(detect_format("data.txt", "id,text\n1,a"), Format::Csv);
        assert_eq!(detect_format("", "[{}]"), Format::Jsonl);
    }

    #[test]
    fn csv_basic_row() {
        let ds = csv_ds(
            "id,task,text,question,references,image,box,group,chosen,caption,reference_answer\n\
             1,vqa,Two.,How many cats?,a|b,./imgs\\1.png,,g1,yes,Two cats.,2\n",
        );
        assert!(ds.problems.is_empty(), "{:?}", ds.problems);
        assert!(ds.warnings.is_empty(), "{:?}", ds.warnings);
        let it = &ds.items[0];
        assert_eq!(ds.format, Format::Csv);
        assert_eq!(it.line, 2);
        assert_eq!(it.id, "1");
        assert_eq!(it.task, Task::Vqa);
        assert_eq!(it.text, "Two.");
        assert_eq!(it.question.as_deref(), Some("How many cats?"));
        assert_eq!(it.references, vec!["a", "b"]);
        assert_eq!(it.image.as_deref(), Some("imgs/1.png"));
        assert_eq!(it.bbox, None);
        assert_eq!(it.group.as_deref(), Some("g1"));
        assert!(it.chosen);
        assert_eq!(it.caption.as_deref(), Some("Two cats."));
        assert_eq!(it.reference_answer.as_deref(), Some("2"));
        assert!(it.human.is_empty());
    }

    #[test]
    fn csv_quoting_embedded_newlines_bom_crlf() {
        let text = "\u{feff}id,text,references\r\n\
                    a,\"Hello, \"\"world\"\"\",\"[\"\"r1\"\", \"\"r2, with comma\"\"]\"\r\n\
                    b,\"line one\r\nline two\",\r\n\
                    c,plain,\r\n";
        let ds = csv_ds(text);
        assert!(ds.problems.is_empty(), "{:?}", ds.problems);
        assert_eq!(ids(&ds), vec!["a", "b", "c"]);
        assert_eq!(ds.items[0].text, "Hello, \"world\"");
        assert_eq!(ds.items[0].references, vec!["r1", "r2, with comma"]);
        assert_eq!(ds.items[1].text, "line one\nline two");
        assert_eq!(ds.items[1].line, 3);
        // The record after the two-line one starts on line 5.
        assert_eq!(ds.items[2].line, 5);
    }

    #[test]
    fn csv_semicolon_and_tab_delimiters() {
        let ds = csv_ds("id;text;box;task\n1;A cat;0.1,0.2,0.5,0.6;reg\n");
        assert!(ds.problems.is_empty(), "{:?}", ds.problems);
        let b = ds.items[0].bbox.unwrap();
        assert_eq!((b.x0, b.y0, b.x1, b.y1), (0.1, 0.2, 0.5, 0.6));
        let ds = parse("x.tsv", "id\ttext\n1\tA, cat\n");
        assert_eq!(ds.items[0].text, "A, cat");
    }

    #[test]
    fn csv_row_errors_with_line_numbers() {
        let text = "id,task,text,question,box,human_overall,chosen\n\
                    1,ic,ok,,,,\n\
                    ,ic,no id,,,,\n\
                    3,caption,bad task,,,,\n\
                    4,ic,\"spans\ntwo lines\",,,abc,\n\
                    5,vqa,no question,,,,\n\
                    6,reg,bad box,,\"0.1,0.2,1.5,0.9\",,\n\
                    7,reg,no box,,,,\n\
                    8,ic,too,many,,,,\n\
                    9,ic,bad chosen,,,,maybe\n\
                    10,ic,,,,,\n\
                    11,reg,reversed,,\"0.5,0.2,0.1,0.9\",,\n\
                    12,ic,\"bad\"quote,,,,\n\
                    13,ic,fine,,,\"3|4\",0\n";
        let ds = csv_ds(text);
        assert_eq!(ids(&ds), vec!["1", "13"]);
        assert_eq!(ds.items[1].line, 15);
        assert_eq!(ds.items[1].human.overall, vec![3.0, 4.0]);
        assert_eq!(lines(&ds), vec![3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14]);
        let msg = |line: usize| {
            ds.problems
                .iter()
                .find(|p| p.line == line)
                .unwrap()
                .message
                .clone()
        };
        assert_eq!(msg(3), "missing id.");
        assert!(
            msg(4).contains("unknown task \u{201c}caption\u{201d}"),
            "{}",
            msg(4)
        );
        assert!(msg(5).contains("human_overall \u{201c}abc\u{201d} is not a number"));
        assert_eq!(msg(7), "task vqa needs a question.");
        assert!(msg(8).contains("between 0 and 1"), "{}", msg(8));
        assert!(!msg(8).contains("needs a box"), "{}", msg(8));
        assert!(msg(9).contains("needs a box"));
        assert!(
            msg(10).contains("8 fields but the header has 7 columns"),
            "{}",
            msg(10)
        );
        assert!(
            msg(11).contains("chosen \u{201c}maybe\u{201d}"),
            "{}",
            msg(11)
        );
        assert!(msg(12).contains("missing text"));
        assert!(msg(13).contains("left < right"));
        assert!(msg(14).contains("after its closing quote"), "{}", msg(14));
        assert_eq!(
            ds.problems[0].to_string(),
            "Line 3: missing id.",
            "Display adds the line"
        );
    }

    #[test]
    fn csv_unclosed_quote_and_header_problems() {
        let ds = csv_ds("id,text\n1,ok\n2,\"never closed\n3,x\n");
        assert_eq!(ids(&ds), vec!["1"]);
        assert_eq!(lines(&ds), vec![3]);
        assert!(ds.problems[0].message.contains("never closed"));

        let ds = csv_ds("id,caption_text\n1,x\n");
        assert!(ds.items.is_empty());
        assert_eq!(lines(&ds), vec![1]);
        assert!(ds.problems[0]
            .message
            .contains("no \u{201c}text\u{201d} column"));

        let ds = csv_ds("\n\nid,text,ID\n1,x,2\n");
        assert!(ds.items.is_empty());
        assert_eq!(lines(&ds), vec![3]);
        assert!(ds.problems[0].message.contains("appears twice"));
    }

    #[test]
    fn csv_unknown_columns_warn_and_blank_rows_skip() {
        let ds = csv_ds(",id,text,bbox,Notes\n0,1,a,x,y\n,,,,\n\n1,2,b,,\n");
        assert!(ds.problems.is_empty(), "{:?}", ds.problems);
        assert_eq!(ids(&ds), vec!["1", "2"]);
        assert_eq!(ds.items[1].line, 5);
        assert_eq!(ds.warnings.len(), 1);
        let w = &ds.warnings[0];
        assert!(w.starts_with("Ignored columns"), "{w}");
        assert!(
            w.contains("\u{201c}bbox\u{201d} (did you mean \u{201c}box\u{201d}?)"),
            "{w}"
        );
        assert!(w.contains("\u{201c}Notes\u{201d}"), "{w}");
    }

    #[test]
    fn duplicate_ids_name_the_first_line() {
        let ds = csv_ds("id,text\na,1\nb,2\na,3\n\n b ,4\n");
        assert_eq!(ids(&ds), vec!["a", "b"]);
        assert_eq!(lines(&ds), vec![4, 6]);
        assert_eq!(
            ds.problems[0].message,
            "duplicate id \u{201c}a\u{201d} (first on line 2)."
        );
        assert!(ds.problems[1].message.contains("(first on line 3)"));

        let ds = jsonl_ds("{\"id\": 7, \"text\": \"a\"}\n{\"id\": \"7\", \"text\": \"b\"}\n");
        assert_eq!(ids(&ds), vec!["7"]);
        assert_eq!(lines(&ds), vec![2]);
    }

    #[test]
    fn jsonl_rows_and_errors() {
        let text = "\u{feff}{\"id\": \"a\", \"task\": \"REG\", \"text\": \"the left dog\", \"box\": [0.1, 0.2, 0.3, 0.4], \"image\": \"./x/a.png\", \"references\": [\"r1\", \"\"]}\r\n\
                    \n\
                    {\"id\": \"b\", \"text\": \"x\"\n\
                    [1, 2]\n\
                    {\"id\": \"c\", \"text\": 5}\n\
                    {\"id\": [1], \"text\": \"y\"}\n\
                    {\"id\": \"d\", \"text\": \"z\", \"box\": [0.1, 0.2, 0.3]}\n\
                    {\"id\": \"e\", \"text\": \"z\", \"references\": \"only one\", \"meta\": 1, \"bbox\": 2}\n\
                    {\"id\": \"f\", \"text\": \"z\", \"task\": \"vdu\", \"question\": \"What total?\"} trailing\n";
        let ds = jsonl_ds(text);
        assert_eq!(ids(&ds), vec!["a", "e"]);
        let a = &ds.items[0];
        assert_eq!(a.task, Task::Reg);
        assert_eq!(a.image.as_deref(), Some("x/a.png"));
        assert_eq!(a.references, vec!["r1"]);
        assert_eq!(
            a.bbox,
            Some(NormBox {
                x0: 0.1,
                y0: 0.2,
                x1: 0.3,
                y1: 0.4
            })
        );
        assert_eq!(ds.items[1].references, vec!["only one"]);
        assert_eq!(ds.items[1].line, 8);
        assert_eq!(lines(&ds), vec![3, 4, 5, 6, 7, 9]);
        let m: Vec<&str> = ds.problems.iter().map(|p| p.message.as_str()).collect();
        assert!(
            m[0].starts_with("invalid JSON (EOF while parsing"),
            "{}",
            m[0]
        );
        assert!(m[0].contains("one whole JSON object"), "{}", m[0]);
        assert!(!m[0].contains("at line 1"), "{}", m[0]);
        assert!(m[1].contains("a list, not a JSON object"), "{}", m[1]);
        assert!(
            m[2].contains("text should be text, not a number"),
            "{}",
            m[2]
        );
        assert!(
            m[3].contains("id should be text or a number, not a list"),
            "{}",
            m[3]
        );
        assert!(m[4].contains("4 numbers"), "{}", m[4]);
        assert!(
            m[5].starts_with("invalid JSON (trailing characters"),
            "{}",
            m[5]
        );
        assert_eq!(ds.warnings.len(), 1);
        assert!(ds.warnings[0].contains("\u{201c}meta\u{201d} (first on line 8)"));
        assert!(ds.warnings[0].contains("did you mean \u{201c}box\u{201d}"));
    }

    #[test]
    fn jsonl_array_file_is_refused() {
        let ds = parse("data.json", "[\n{\"id\": 1, \"text\": \"a\"}\n]\n");
        assert!(ds.items.is_empty());
        assert_eq!(lines(&ds), vec![1]);
        assert!(ds.problems[0].message.contains("not JSONL"));

        let ds = jsonl_ds("\n{\n  \"id\": 1,\n  \"text\": \"a\"\n}\n");
        assert!(ds.items.is_empty());
        assert_eq!(lines(&ds), vec![2]);
        assert!(ds.problems[0].message.contains("span several lines"));
    }

    #[test]
    fn human_object_and_flat_columns_agree() {
        let text = "{\"id\": \"1\", \"text\": \"a\", \"human\": {\"correctness\": 4, \"Overall\": 3.5, \"mood\": 1}}\n\
                    {\"id\": \"2\", \"text\": \"a\", \"human_correctness\": 4, \"human_overall\": 3.5}\n\
                    {\"id\": \"3\", \"text\": \"a\", \"human_overall\": [3, 4, \"4.5\"], \"human\": {\"fluency\": [5, 4]}}\n\
                    {\"id\": \"4\", \"text\": \"a\", \"human_overall\": 3, \"human\": {\"overall\": 4}}\n\
                    {\"id\": \"5\", \"text\": \"a\", \"human\": [4]}\n\
                    {\"id\": \"6\", \"text\": \"a\", \"human\": {\"clarity\": \"good\"}}\n\
                    {\"id\": \"7\", \"text\": \"a\", \"human_clarity\": true}\n\
                    {\"id\": \"8\", \"text\": \"a\", \"human_clarity\": null, \"human\": null}\n";
        let ds = jsonl_ds(text);
        assert_eq!(ids(&ds), vec!["1", "2", "3", "8"]);
        assert_eq!(ds.items[0].human, ds.items[1].human);
        assert_eq!(ds.items[0].human.ratings(Criterion::Correctness), &[4.0]);
        assert_eq!(ds.items[0].human.overall, vec![3.5]);
        assert_eq!(ds.items[2].human.overall, vec![3.0, 4.0, 4.5]);
        assert_eq!(ds.items[2].human.ratings(Criterion::Fluency), &[5.0, 4.0]);
        assert!(ds.items[3].human.is_empty());
        assert_eq!(lines(&ds), vec![4, 5, 6, 7]);
        assert!(ds.problems[0]
            .message
            .contains("also given as human_overall"));
        assert!(ds.problems[1].message.contains("human should be an object"));
        assert!(ds.problems[2]
            .message
            .contains("human.clarity \u{201c}good\u{201d}"));
        assert!(ds.problems[3].message.contains("not true/false"));
        assert!(ds.warnings[0].contains("human.mood"), "{:?}", ds.warnings);
    }

    #[test]
    fn csv_multi_ratings_and_human_json_column() {
        let ds = csv_ds(
            "id,text,human_overall,human_fluency,human_conciseness,human\n\
             1,a,2|3|4,\"[1, 2]\",5,\n\
             2,a,\"3,5\",,,\n\
             3,a,,,,\"{\"\"clarity\"\": [4, 4]}\"\n\
             4,a,,,,{oops\n",
        );
        assert_eq!(ids(&ds), vec!["1", "3"]);
        let h = &ds.items[0].human;
        assert_eq!(h.overall, vec![2.0, 3.0, 4.0]);
        assert_eq!(h.ratings(Criterion::Fluency), &[1.0, 2.0]);
        assert_eq!(h.ratings(Criterion::Conciseness), &[5.0]);
        assert_eq!(ds.items[1].human.ratings(Criterion::Clarity), &[4.0, 4.0]);
        assert_eq!(lines(&ds), vec![3, 5]);
        assert!(ds.problems[0]
            .message
            .contains("separate several ratings with |"));
        assert!(ds.problems[1].message.contains("human is not valid JSON"));
    }

    #[test]
    fn group_and_chosen() {
        let text = "{\"id\": \"1\", \"text\": \"a\", \"group\": \"g\", \"chosen\": true}\n\
                    {\"id\": \"2\", \"text\": \"b\", \"group\": \"g\", \"chosen\": 0}\n\
                    {\"id\": \"3\", \"text\": \"c\", \"group\": 9, \"chosen\": \"no\"}\n\
                    {\"id\": \"4\", \"text\": \"d\", \"chosen\": \"YES\"}\n\
                    {\"id\": \"5\", \"text\": \"e\", \"group\": \"h\", \"chosen\": 2}\n";
        let ds = jsonl_ds(text);
        assert_eq!(ids(&ds), vec!["1", "2", "3", "4"]);
        let chosen: Vec<bool> = ds.items.iter().map(|i| i.chosen).collect();
        assert_eq!(chosen, vec![true, false, false, true]);
        assert_eq!(ds.items[2].group.as_deref(), Some("9"));
        assert_eq!(lines(&ds), vec![5]);
        assert_eq!(ds.warnings.len(), 2, "{:?}", ds.warnings);
        assert!(ds.warnings[0].starts_with("1 item is marked chosen but without a group"));
        assert!(ds.warnings[1].starts_with("1 group has no chosen candidate: \u{201c}9\u{201d}"));

        let ds = csv_ds("id,text,group,chosen\n1,a,g,1\n2,b,g,false\n3,c,g,No\n4,d,,\n");
        let chosen: Vec<bool> = ds.items.iter().map(|i| i.chosen).collect();
        assert_eq!(chosen, vec![true, false, false, false]);
        assert!(ds.warnings.is_empty(), "{:?}", ds.warnings);
    }

    #[test]
    fn limits_refuse_the_file() {
        let long = format!("id,text\n1,ok\n2,{}\n", "x".repeat(MAX_LINE_BYTES + 1));
        let ds = csv_ds(&long);
        assert!(ds.items.is_empty());
        assert_eq!(lines(&ds), vec![3]);
        assert!(ds.problems[0].message.contains("longer than 1 MB"));

        let mut many = String::from("id,text\n");
        for i in 0..=MAX_ROWS {
            many.push_str(&format!("{i},t\n"));
        }
        let ds = csv_ds(&many);
        assert!(ds.items.is_empty());
        assert_eq!(lines(&ds), vec![MAX_ROWS + 2]);
        assert!(ds.problems[0].message.contains("more than 100,000 rows"));

        let mut exact = String::new();
        for i in 0..MAX_ROWS {
            exact.push_str(&format!("{{\"id\":{i},\"text\":\"t\"}}\n"));
        }
        let ds = jsonl_ds(&exact);
        assert_eq!(ds.items.len(), MAX_ROWS);
        assert!(ds.problems.is_empty());
        exact.push_str("{\"id\":\"x\",\"text\":\"t\"}\n");
        let ds = jsonl_ds(&exact);
        assert!(ds.items.is_empty());
        assert_eq!(lines(&ds), vec![MAX_ROWS + 1]);

        assert_eq!(jsonl_ds(" \n\n").problems[0].message, "The file is empty.");
        assert_eq!(csv_ds("").problems[0].line, 0);
    }

    #[test]
    fn garbage_never_panics() {
        let samples = [
            "\"",
            "\"\"",
            "\"a\"\"",
            ",",
            "\r",
            "\r\r\n",
            "id,text\n\"",
            "id,text\n1,\"\"\"",
            "id,text\r1,a\r2,b",
            "{",
            "{}",
            "{\"id\":null}",
            "id,text\n1,\u{e9}\u{1f600}\n",
            "id,text,box\n1,a,\"[]\"\n",
            "id,text,box\n1,a,\"[nan,1,2,3]\"\n",
        ];
        for s in samples {
            for f in ["a.csv", "a.jsonl"] {
                let _ = parse(f, s);
            }
        }
        let ds = csv_ds("id,text\r1,a\r2,b");
        assert_eq!(ids(&ds), vec!["1", "2"]);
        assert_eq!(ds.items[1].line, 3);
    }
}
