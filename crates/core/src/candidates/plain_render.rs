//! The comparison for metrics without γ as markup (see `render`): one row per candidate with
//! its score, the judge's uncertainty where the metric gives one, and its rank; then the
//! differences down the ranking, each said against that uncertainty.

use std::fmt::Write;

use super::render::escape;
use super::{ranks, Difference};

/// One candidate's outcome: its `data-state`, score and uncertainty, and a note shown without
/// a score ("asking…", "failed"), or with a partial one ("2 of 3 trials read").
#[derive(Clone, Debug, PartialEq)]
pub struct PlainCell {
    pub state: &'static str,
    pub score: Option<f64>,
    pub uncertainty: Option<f64>,
    pub note: String,
    /// Why it (or one of its requests) failed, said under the table.
    pub error: Option<String>,
}

/// The table: candidate, score (± uncertainty), rank (`candidate-result-<i>` with
/// `data-overall`, `data-uncertainty`, `data-rank`).
pub fn plain_table(labels: &[String], cells: &[PlainCell], decimals: usize, scale: &str) -> String {
    let scores: Vec<Option<f64>> = cells.iter().map(|c| c.score).collect();
    let rank = ranks(&scores);
    let mut h = format!("<table class=\"candidates-table\"><caption class=\"visually-hidden\">Each candidate's score ({scale}), the judge's uncertainty where the metric gives one, and its rank</caption><thead><tr><th scope=\"col\">Candidate</th><th scope=\"col\">Score ± uncertainty</th><th scope=\"col\">Rank</th></tr></thead><tbody>");
    for (i, c) in cells.iter().enumerate() {
        let label = labels.get(i).map(|l| escape(l)).unwrap_or_default();
        let value = c.score.map(|v| v.to_string()).unwrap_or_default();
        let u = c.uncertainty.map(|v| v.to_string()).unwrap_or_default();
        let shown = match (c.score, c.uncertainty) {
            (Some(s), Some(u)) => format!("{s:.decimals$} ± {u:.decimals$}"),
            (Some(s), None) => format!("{s:.decimals$}"),
            _ => "—".to_string(),
        };
        let note = if c.note.is_empty() {
            String::new()
        } else {
            format!(" <span class=\"note-text\">{}</span>", escape(&c.note))
        };
        let r = rank[i].map(|r| r.to_string()).unwrap_or_default();
        let _ = write!(h, "<tr><th scope=\"row\">{label}</th><td data-testid=\"candidate-result-{i}\" data-state=\"{}\" data-overall=\"{value}\" data-uncertainty=\"{u}\" data-rank=\"{r}\">{shown}{note}</td><td>{}</td></tr>", c.state, if r.is_empty() { "—" } else { &r });
    }
    h.push_str("</tbody></table>");
    let errors: String = cells
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let e = c.error.as_ref()?;
            let label = labels.get(i).map(|l| escape(l)).unwrap_or_default();
            Some(format!("<li>{label}: {}</li>", escape(e)))
        })
        .collect();
    if !errors.is_empty() {
        let _ = write!(
            h,
            "<ul class=\"error candidate-errors\" data-testid=\"candidate-errors\">{errors}</ul>"
        );
    }
    h
}

/// The sentence for one difference down the ranking.
pub fn difference_sentence(d: &Difference, labels: &[String], decimals: usize) -> String {
    let name = |i: usize| labels.get(i).cloned().unwrap_or_default();
    let (hi, lo, diff) = (name(d.higher), name(d.lower), d.diff);
    if diff == 0.0 {
        return format!("{hi} and {lo} score the same: no difference to judge.");
    }
    match d.combined {
        Some(u) if diff > u => format!(
            "{hi} is ahead of {lo} by {diff:.decimals$}, more than the judge's uncertainty {u:.decimals$}."
        ),
        Some(u) => format!(
            "{hi} is ahead of {lo} by {diff:.decimals$}, within the judge's uncertainty {u:.decimals$} \u{2014} not a reliable difference."
        ),
        None => format!(
            "{hi} is ahead of {lo} by {diff:.decimals$}; the metric gives no uncertainty to weigh it against."
        ),
    }
}

/// The differences as a list (`candidate-differences`; each `difference-<k>` with
/// `data-diff`, `data-uncertainty` and `data-exceeds` = `yes|no|` for none to compare with).
pub fn differences_html(labels: &[String], diffs: &[Difference], decimals: usize) -> String {
    let mut h =
        String::from("<ul class=\"candidate-differences\" data-testid=\"candidate-differences\">");
    if diffs.is_empty() {
        h.push_str("<li>Fewer than two candidates have a score: no difference to show.</li>");
    }
    for (k, d) in diffs.iter().enumerate() {
        let exceeds = match d.exceeds {
            Some(true) => "yes",
            Some(false) => "no",
            None => "",
        };
        let u = d.combined.map(|u| u.to_string()).unwrap_or_default();
        let _ = write!(
            h,
            "<li data-testid=\"difference-{k}\" data-diff=\"{}\" data-uncertainty=\"{u}\" data-exceeds=\"{exceeds}\">{}</li>",
            d.diff,
            escape(&difference_sentence(d, labels, decimals))
        );
    }
    h.push_str("</ul>");
    h
}
