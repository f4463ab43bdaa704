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

use std::fmt;

use super::Item;

mod csv;
mod fields;
mod jsonl;
mod rows;

pub use csv::{csv_records, CsvRecords};
use rows::Rows;

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
            Format::Jsonl => jsonl::jsonl(text, &mut rows),
            Format::Csv => csv::csv(text, &mut rows),
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

pub(super) fn too_many_rows() -> String {
    format!(
        "The file has more than {} rows, so it is refused; split it into smaller datasets.",
        crate::inputs::text_checks::thousands(MAX_ROWS)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::geometry::NormBox;
    use crate::scoring::criteria::Criterion;
    use crate::scoring::task::Task;

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
