//! What an import makes ready, and the report that says so truthfully: an item whose image is
//! missing (not named, or not among the chosen files) is not ready and is not run, and every
//! finding is listed in line order, whatever check found it (the parser's bad rows and the
//! image checks used to be listed one after the other, so lines read 11, 13, 12).

use super::{Dataset, Item};

/// The items a run can take, and the report in line order.
#[derive(Clone, Debug, PartialEq)]
pub struct Readiness {
    /// Items with everything the chosen metric needs, in file order.
    pub ready: Vec<Item>,
    /// Items left out because their image is missing.
    pub left_out: usize,
    /// Findings: file-level ones first, then by line, then the warnings that name no line.
    pub report: Vec<String>,
}

/// Splits `dataset` into ready items and a line-ordered report. `needs_image`: whether the
/// chosen metric looks at the image; `has_image`: whether a (normalised) image name is among
/// the chosen files. `earlier` are findings about the chosen files themselves (a damaged ZIP),
/// listed first.
pub fn readiness(
    dataset: Dataset,
    needs_image: bool,
    has_image: impl Fn(&str) -> bool,
    earlier: Vec<String>,
) -> Readiness {
    let mut findings: Vec<(usize, String)> = dataset
        .problems
        .iter()
        .map(|p| (p.line, p.to_string()))
        .collect();
    let mut ready = Vec::with_capacity(dataset.items.len());
    let mut left_out = 0;
    for item in dataset.items {
        let missing = match (&item.image, needs_image) {
            (None, true) => Some(format!(
                "Line {}: item \u{201c}{}\u{201d} names no image; left out.",
                item.line, item.id
            )),
            (Some(img), true) if !has_image(img) => Some(format!(
                "Line {}: image \u{201c}{img}\u{201d} of item \u{201c}{}\u{201d} is not among the chosen files; left out.",
                item.line, item.id
            )),
            _ => None,
        };
        match missing {
            Some(m) => {
                left_out += 1;
                findings.push((item.line, m));
            }
            None => ready.push(item),
        }
    }
    // Stable: two findings on one line keep the order they were found in.
    findings.sort_by_key(|(line, _)| *line);
    let mut report = earlier;
    report.extend(findings.into_iter().map(|(_, m)| m));
    report.extend(dataset.warnings);
    Readiness {
        ready,
        left_out,
        report,
    }
}

/// What the import says while it checks a dataset of `lines` lines (large ones hold the tab
/// for a moment).
pub fn checking_sentence(lines: usize) -> String {
    format!(
        "Checking {} line{} and their images\u{2026}",
        crate::inputs::text_checks::thousands(lines),
        if lines == 1 { "" } else { "s" }
    )
}

/// The sentence under the report: how many items are ready, and how many were left out.
pub fn ready_sentence(ready: usize, left_out: usize) -> String {
    match (ready, left_out) {
        (0, 0) => String::new(),
        (0, l) => format!("No items ready: {l} left out (see above)."),
        (r, 0) => format!(
            "{r} item{} ready. The run uses the metric and backend chosen on this page.",
            if r == 1 { "" } else { "s" }
        ),
        (r, l) => format!(
            "{r} item{} ready, {l} left out (see above). The run uses the metric and backend chosen on this page.",
            if r == 1 { "" } else { "s" }
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::parse;

    fn jsonl(rows: &[&str]) -> Dataset {
        parse("d.jsonl", &rows.join("\n"))
    }

    #[test]
    fn an_item_without_its_image_is_not_ready_and_the_report_is_in_line_order() {
        let d = jsonl(&[
            r#"{"id":"a","task":"ic","text":"t","image":"a.png"}"#,
            r#"{"id":"b","task":"ic","text":"t","image":"gone.png"}"#,
            r#"{"task":"ic","text":"no id","image":"a.png"}"#,
            r#"{"id":"c","task":"ic","text":"t"}"#,
            r#"{"id":"d","task":"ic","image":"a.png"}"#,
            r#"{"id":"e","task":"ic","text":"t","image":"a.png"}"#,
        ]);
        assert_eq!(d.items.len(), 4, "{:?}", d.problems);
        let r = readiness(d, true, |n| n == "a.png", vec!["the ZIP: a warning".into()]);
        let ids: Vec<&str> = r.ready.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["a", "e"]);
        assert_eq!(r.left_out, 2);
        let lines: Vec<&str> = r
            .report
            .iter()
            .map(|m| m.split(':').next().unwrap())
            .collect();
        assert_eq!(lines, ["the ZIP", "Line 2", "Line 3", "Line 4", "Line 5"]);
        assert!(r.report[1].contains("gone.png") && r.report[1].ends_with("left out."));
        assert!(r.report[3].contains("names no image"));
        assert!(r.report[4].contains("missing text"));
    }

    #[test]
    fn the_check_says_how_many_lines_it_checks() {
        assert_eq!(
            checking_sentence(100_000),
            "Checking 100,000 lines and their images\u{2026}"
        );
        assert_eq!(
            checking_sentence(1),
            "Checking 1 line and their images\u{2026}"
        );
    }

    #[test]
    fn a_metric_without_images_needs_none() {
        let d = jsonl(&[
            r#"{"id":"a","task":"ic","text":"t"}"#,
            r#"{"id":"b","task":"ic","text":"t","image":"gone.png"}"#,
        ]);
        let r = readiness(d, false, |_| false, Vec::new());
        assert_eq!(r.ready.len(), 2);
        assert_eq!(r.left_out, 0);
        assert!(r.report.is_empty());
    }

    #[test]
    fn the_sentence_counts_only_ready_items() {
        assert_eq!(ready_sentence(0, 0), "");
        assert!(ready_sentence(1, 0).starts_with("1 item ready."));
        assert!(ready_sentence(48, 2).starts_with("48 items ready, 2 left out"));
        assert!(ready_sentence(0, 3).starts_with("No items ready: 3 left out"));
    }
}
