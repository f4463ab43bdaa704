//! The comparison's table and chart as markup, made here rather than in `view!`: one string
//! per redraw is far less wasm than a reactive node per cell (the evaluator's first-visit
//! transfer is budgeted), and the markup is tested natively. Every user text is escaped.

use std::fmt::Write;

use super::{ranks, winner, Flip};
use crate::scoring::gamma_axis::{GammaAxis, GAMMA_MIN};
use crate::scoring::plot_frame::PlotFrame;
use crate::scoring::weighting::{Scored, Weighting};

/// `s` safe inside HTML text and double-quoted attributes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One candidate's outcome on one criterion.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The criterion's `data-state` (`idle|running|retrying|done|error`).
    pub state: &'static str,
    pub score: Option<f64>,
    /// `None` with a score: printed, unsmoothed.
    pub sigma: Option<f64>,
    /// Shown without a score ("asking…", "failed").
    pub note: &'static str,
    /// Why it failed, said under the table.
    pub error: Option<String>,
}

/// One criterion's row: id, name, and a cell per candidate.
pub type Row = (&'static str, &'static str, Vec<Cell>);

fn cell_text(c: &Cell) -> String {
    match (c.score, c.sigma) {
        (Some(s), Some(sd)) => format!("{s:.2} ± {sd:.2}"),
        (Some(s), None) => format!("{s:.2} (printed)"),
        _ => c.note.to_string(),
    }
}

/// The side-by-side table: a row per criterion (score ± σ per candidate and who wins it),
/// then the overall at `gamma` with each candidate's rank (`candidate-result-<i>`).
pub fn comparison_table(
    labels: &[String],
    rows: &[Row],
    scores: &[Option<f64>],
    gamma: f64,
) -> String {
    let mut h = String::from("<table class=\"candidates-table\"><caption class=\"visually-hidden\">Each candidate's criterion scores (mean ± σ), overall score and rank at the current γ</caption><thead><tr><th scope=\"col\">Criterion</th>");
    for l in labels {
        let _ = write!(h, "<th scope=\"col\">{}</th>", escape(l));
    }
    h.push_str("<th scope=\"col\">Best</th></tr></thead><tbody>");
    for (id, name, cells) in rows {
        let _ = write!(h, "<tr><th scope=\"row\">{name}</th>");
        for (i, c) in cells.iter().enumerate() {
            let _ = write!(
                h,
                "<td data-testid=\"candidate-{i}-{id}\" data-state=\"{}\">{}</td>",
                c.state,
                cell_text(c)
            );
        }
        let col: Vec<Option<f64>> = cells.iter().map(|c| c.score).collect();
        let best = winner(&col)
            .and_then(|i| labels.get(i))
            .map_or("tie".to_string(), |l| escape(l));
        let _ = write!(
            h,
            "<td data-testid=\"candidates-best-{id}\">{best}</td></tr>"
        );
    }
    let _ = write!(
        h,
        "</tbody><tfoot><tr><th scope=\"row\">Overall at γ = {gamma:.2}</th>"
    );
    let rank = ranks(scores);
    for (i, s) in scores.iter().enumerate() {
        let (value, shown) = match s {
            Some(v) => (v.to_string(), format!("{v:.2}")),
            None => (String::new(), "—".to_string()),
        };
        let r = rank[i].map(|r| r.to_string()).unwrap_or_default();
        let hash = rank[i].map(|r| format!(" (#{r})")).unwrap_or_default();
        let _ = write!(h, "<td data-testid=\"candidate-result-{i}\" data-overall=\"{value}\" data-rank=\"{r}\">{shown}{hash}</td>");
    }
    let top = super::order(scores)
        .first()
        .filter(|&&i| scores[i].is_some())
        .and_then(|&i| labels.get(i))
        .map(|l| escape(l))
        .unwrap_or_default();
    let _ = write!(h, "<td>{top}</td></tr></tfoot></table>");
    let mut errors = String::new();
    for (_, name, cells) in rows {
        for (i, c) in cells.iter().enumerate() {
            if let Some(e) = &c.error {
                let label = labels.get(i).map(|l| escape(l)).unwrap_or_default();
                let _ = write!(errors, "<li>{label} · {name}: {}</li>", escape(e));
            }
        }
    }
    if !errors.is_empty() {
        let _ = write!(
            h,
            "<ul class=\"error candidate-errors\" data-testid=\"candidate-errors\">{errors}</ul>"
        );
    }
    h
}

const FRAME: PlotFrame = PlotFrame::new(340.0, 200.0, [44.0, 30.0, 10.0, 44.0]);
const DASHES: [&str; 5] = ["none", "6 3", "2 3", "8 3 2 3", "1 2"];

/// The chart's γ axis in its viewBox units, for the γ under the pointer.
pub const AXIS: GammaAxis = FRAME.gamma_axis();

/// The chart's readout at `gamma` (the γ under the pointer, or moved with the keys): every
/// candidate's overall score there, best first; a candidate with no score says so.
pub fn readout(
    w: &dyn Weighting,
    labels: &[String],
    candidates: &[Vec<Scored>],
    gamma: f64,
) -> String {
    let scores = super::scores_at(w, candidates, gamma);
    let mut parts: Vec<String> = super::order(&scores)
        .into_iter()
        .map(|i| match scores[i] {
            Some(s) => format!("{} {s:.2}", label_of(labels, i)),
            None => format!("{} no score", label_of(labels, i)),
        })
        .collect();
    if parts.is_empty() {
        parts.push("no candidate has a score".into());
    }
    format!("At γ = {gamma:.2}: {}", parts.join(", "))
}

fn label_of(labels: &[String], i: usize) -> String {
    labels
        .get(i)
        .cloned()
        .unwrap_or_else(|| super::default_label(i))
}

fn x(g: f64) -> f64 {
    AXIS.x(g)
}

fn y(s: f64) -> f64 {
    FRAME.top + (5.0 - s.clamp(1.0, 5.0)) / 4.0 * FRAME.inner_height()
}

/// Vertical room a curve label needs (11 px text and a little air).
const LABEL_GAP: f64 = 13.0;

/// Positions for labels that want to sit at `wanted` (in any order): each as near its wish as
/// the others allow, every two at least `gap` apart, all within `lo..=hi` where they fit.
pub(crate) fn spread(wanted: &[f64], gap: f64, lo: f64, hi: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..wanted.len()).collect();
    order.sort_by(|&a, &b| wanted[a].total_cmp(&wanted[b]));
    let mut at: Vec<f64> = order.iter().map(|&i| wanted[i].clamp(lo, hi)).collect();
    // Push down what sits too close under the one above, then back up from the bottom.
    for k in 1..at.len() {
        at[k] = at[k].max(at[k - 1] + gap);
    }
    if let Some(last) = at.last_mut() {
        *last = last.min(hi);
    }
    for k in (0..at.len().saturating_sub(1)).rev() {
        at[k] = at[k].min(at[k + 1] - gap);
    }
    let mut out = vec![0.0; wanted.len()];
    for (k, &i) in order.iter().enumerate() {
        out[i] = at[k];
    }
    out
}

/// Every candidate's S(γ) (`curves[i]`: (γ, S) points; empty without a score) on one chart,
/// the flips as solid verticals, the current γ dashed. Lines differ by dash pattern and carry
/// their label at the right end, so nothing relies on colour.
pub fn plot_svg(
    labels: &[String],
    curves: &[Vec<(f64, f64)>],
    flips: &[Flip],
    gamma: f64,
) -> String {
    let (left, top, bottom, view_box) = (FRAME.left, FRAME.top, FRAME.bottom_y(), FRAME.view_box());
    let drawn = curves.iter().filter(|c| !c.is_empty()).count();
    let mut h = format!(
        "<svg class=\"gamma-plot candidates-plot\" data-testid=\"candidates-plot\" data-points=\"{}\" viewBox=\"{view_box}\" role=\"img\" aria-label=\"Overall score (1 to 5) of {drawn} candidates against γ (0.01 to 1); the order changes at {} γ value{}, marked by solid vertical lines. The current γ is {gamma:.2}, the dashed line.\">",
        curves.iter().map(Vec::len).sum::<usize>(),
        flips.len(),
        if flips.len() == 1 { "" } else { "s" },
    );
    for s in 1..=5 {
        let (yy, s) = (y(s as f64), s);
        let _ = write!(h, "<line class=\"grid\" x1=\"{left}\" x2=\"{}\" y1=\"{yy}\" y2=\"{yy}\"/><text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{s}</text>", FRAME.right_x(), left - 6.0, yy + 4.0);
    }
    for g in [0.01, 0.25, 0.5, 0.75, 1.0] {
        let xx = x(g);
        let _ = write!(h, "<line class=\"axis\" x1=\"{xx}\" x2=\"{xx}\" y1=\"{bottom}\" y2=\"{}\"/><text class=\"tick\" x=\"{xx}\" y=\"{}\" text-anchor=\"{}\">{g}</text>", bottom + 4.0, bottom + 16.0, crate::scoring::gamma_axis::tick_anchor(g));
    }
    let _ = write!(h, "<line class=\"axis\" x1=\"{left}\" y1=\"{bottom}\" x2=\"{}\" y2=\"{bottom}\"/><line class=\"axis\" x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{bottom}\"/>", FRAME.right_x());
    let _ = write!(h, "<text class=\"axis-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">γ (weighting)</text><text class=\"axis-title\" transform=\"translate(12 {}) rotate(-90)\" text-anchor=\"middle\">Overall score (1–5)</text>", (left + FRAME.right_x()) / 2.0, FRAME.height - 6.0, (top + bottom) / 2.0);
    for f in flips {
        let xx = x(f.gamma);
        let _ = write!(
            h,
            "<line class=\"flip\" x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{top}\" y2=\"{bottom}\"/>"
        );
    }
    // Each label at its line's right end, moved apart where two ends (nearly) meet.
    let drawn: Vec<(usize, &Vec<(f64, f64)>)> = curves
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.is_empty())
        .collect();
    let ends: Vec<f64> = drawn
        .iter()
        .map(|(_, c)| y(c.last().map_or(3.0, |p| p.1)) + 4.0)
        .collect();
    let label_ys = spread(&ends, LABEL_GAP, top + 8.0, bottom + 4.0);
    for ((i, c), ly) in drawn.into_iter().zip(label_ys) {
        let points: Vec<String> = c
            .iter()
            .map(|(g, s)| format!("{:.1},{:.1}", x(*g), y(*s)))
            .collect();
        let label = labels.get(i).map(|l| escape(l)).unwrap_or_default();
        let _ = write!(h, "<polyline class=\"curve\" fill=\"none\" stroke-dasharray=\"{}\" points=\"{}\"/><text class=\"curve-label\" x=\"{}\" y=\"{ly:.1}\">{label}</text>", DASHES[i % DASHES.len()], points.join(" "), FRAME.right_x() + 4.0);
    }
    let xx = x(gamma);
    let _ = write!(
        h,
        "<line class=\"cursor\" x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{top}\" y2=\"{bottom}\"/></svg>"
    );
    h
}

/// The lines as a table: each candidate's S at γ = 0.01, 0.1, …, 1 (the curve's nearest point).
pub fn curves_table(labels: &[String], curves: &[Vec<(f64, f64)>]) -> String {
    let mut h = String::from("<table class=\"gamma-table\" data-testid=\"candidates-table\"><thead><tr><th scope=\"col\">γ</th>");
    for l in labels {
        let _ = write!(h, "<th scope=\"col\">{}</th>", escape(l));
    }
    h.push_str("</tr></thead><tbody>");
    for k in 0..=10 {
        let g = if k == 0 { GAMMA_MIN } else { k as f64 / 10.0 };
        let _ = write!(h, "<tr><td>{g:.2}</td>");
        for c in curves {
            let s = c
                .iter()
                .min_by(|a, b| (a.0 - g).abs().total_cmp(&(b.0 - g).abs()))
                .map(|p| p.1);
            let _ = write!(
                h,
                "<td>{}</td>",
                s.map_or("—".to_string(), |s| format!("{s:.3}"))
            );
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table>");
    h
}

/// The ranking line: `data-order` holds the scored candidates' labels best first; `gamma` is
/// `None` for a metric without γ.
pub fn ranking_html(labels: &[String], scores: &[Option<f64>], gamma: Option<f64>) -> String {
    let best_first: Vec<String> = super::order(scores)
        .into_iter()
        .filter(|&i| scores[i].is_some())
        .filter_map(|i| labels.get(i).map(|l| escape(l)))
        .collect();
    format!(
        "<p class=\"ranking\" data-testid=\"ranking\" data-order=\"{}\">Ranking{}: {}</p>",
        best_first.join(","),
        gamma.map(|g| format!(" at γ = {g:.2}")).unwrap_or_default(),
        best_first.join(" › ")
    )
}

/// The γ values where the order changes, as a list of sentences; `data-values` has them to
/// four decimals.
pub fn flips_html(labels: &[String], flips: &[Flip]) -> String {
    let values: Vec<String> = flips.iter().map(|f| format!("{:.4}", f.gamma)).collect();
    let mut h = format!(
        "<ul class=\"flip-points\" data-testid=\"flip-points\" data-values=\"{}\">",
        values.join(",")
    );
    if flips.is_empty() {
        h.push_str("<li>The order is the same at every γ from 0.01 to 1.</li>");
    }
    for f in flips {
        let _ = write!(
            h,
            "<li>{} (as γ rises)</li>",
            escape(&super::flip_sentence(f, labels))
        );
    }
    h.push_str("</ul>");
    h
}

/// One radio per candidate (`prefer-<i>`, value i), `chosen` checked; the page listens on
/// their container.
pub fn radios_html(labels: &[String], chosen: Option<usize>) -> String {
    let mut h = String::new();
    for (i, l) in labels.iter().enumerate() {
        let checked = if chosen == Some(i) { " checked" } else { "" };
        let _ = write!(h, "<label class=\"check\"><input type=\"radio\" name=\"prefer\" value=\"{i}\" data-testid=\"prefer-{i}\"{checked}>{}</label>", escape(l));
    }
    h
}
