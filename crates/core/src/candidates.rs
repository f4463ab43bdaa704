//! Several candidate texts for one image (issue 21): ranking them at γ, the γ values where
//! their order changes, whether the metric agrees with the human's choice (and over which γ),
//! and, for metrics without γ, the score differences against the judge's own uncertainty.
//!
//! Pure: the evaluator's candidates panel calls these on every slider move, no request sent.
//! A candidate's overall at γ is the metric's [`Weighting`] of its criteria (HarmonicEval's
//! harmonic weighting, the one metric with γ).

use crate::scoring::gamma_axis::GAMMA_MIN;
use crate::scoring::weighting::{Scored, Weighting};

/// Grid points on [`GAMMA_MIN`, 1] where a sign change of S_a − S_b is looked for. Two
/// crossings of the same pair closer than one step (≈ 0.002) could be missed; each one found
/// is then bisected to about 1e-12.
pub const GRID: usize = 500;

/// Each candidate's overall score at `gamma` (`None` where it has no scored criterion).
pub fn scores_at(w: &dyn Weighting, candidates: &[Vec<Scored>], gamma: f64) -> Vec<Option<f64>> {
    candidates.iter().map(|c| w.overall(c, gamma)).collect()
}

/// Candidate indices best first: higher score first, equal scores in input order, candidates
/// without a score last.
pub fn order(scores: &[Option<f64>]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    idx.sort_by(|&a, &b| match (scores[a], scores[b]) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    idx
}

/// 1-based rank of each candidate (equal scores share the better rank); `None` without score.
pub fn ranks(scores: &[Option<f64>]) -> Vec<Option<usize>> {
    scores
        .iter()
        .map(|s| s.map(|x| 1 + scores.iter().flatten().filter(|&&y| y > x).count()))
        .collect()
}

/// A γ where two candidates swap places.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flip {
    pub gamma: f64,
    /// The candidate ahead just above `gamma` ("`over` overtakes `under` at γ").
    pub over: usize,
    pub under: usize,
}

/// Sign of S_a − S_b at `gamma`, 0 when equal or either has no score.
fn sign(w: &dyn Weighting, a: &[Scored], b: &[Scored], gamma: f64) -> i8 {
    match (w.overall(a, gamma), w.overall(b, gamma)) {
        (Some(x), Some(y)) if x > y => 1,
        (Some(x), Some(y)) if x < y => -1,
        _ => 0,
    }
}

/// Bisects a sign change of S_a − S_b between `lo` (sign `s_lo`) and `hi`.
fn bisect(
    w: &dyn Weighting,
    a: &[Scored],
    b: &[Scored],
    mut lo: f64,
    mut hi: f64,
    s_lo: i8,
) -> f64 {
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        let s = sign(w, a, b, mid);
        if s == 0 {
            return mid;
        }
        if s == s_lo {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Where candidates `a` and `b` swap places on [`GAMMA_MIN`, 1]: each strict sign change of
/// S_a(γ) − S_b(γ) (a touch without a change of side is no flip), ascending.
pub fn pair_flips(
    w: &dyn Weighting,
    a: &[Scored],
    b: &[Scored],
    ia: usize,
    ib: usize,
) -> Vec<Flip> {
    let mut flips = Vec::new();
    let mut last: Option<(f64, i8)> = None;
    for i in 0..=GRID {
        let g = GAMMA_MIN + (1.0 - GAMMA_MIN) * i as f64 / GRID as f64;
        let s = sign(w, a, b, g);
        if s == 0 {
            continue;
        }
        if let Some((lg, ls)) = last {
            if ls != s {
                let gamma = bisect(w, a, b, lg, g, ls);
                let (over, under) = if s > 0 { (ia, ib) } else { (ib, ia) };
                flips.push(Flip { gamma, over, under });
            }
        }
        last = Some((g, s));
    }
    flips
}

/// Every γ on [`GAMMA_MIN`, 1] where some pair of candidates changes order, ascending.
pub fn flip_points(w: &dyn Weighting, candidates: &[Vec<Scored>]) -> Vec<Flip> {
    let mut all = Vec::new();
    for a in 0..candidates.len() {
        for b in a + 1..candidates.len() {
            all.extend(pair_flips(w, &candidates[a], &candidates[b], a, b));
        }
    }
    all.sort_by(|x, y| x.gamma.total_cmp(&y.gamma));
    all
}

/// Whether `chosen` scores strictly above every other candidate (ties count as disagreeing, as
/// in pairwise accuracy, SPEC §6). `None` when the chosen one or another has no score.
pub fn agrees(scores: &[Option<f64>], chosen: usize) -> Option<bool> {
    let mine = (*scores.get(chosen)?)?;
    let mut ok = true;
    for (i, s) in scores.iter().enumerate() {
        if i != chosen {
            ok &= mine > (*s)?;
        }
    }
    Some(ok)
}

/// The γ intervals of [`GAMMA_MIN`, 1] over which the metric agrees with `chosen`, from the
/// flips that involve it: between two consecutive breakpoints the order does not change, so
/// its midpoint decides the interval. Adjacent agreeing intervals are merged.
pub fn agreement_ranges(
    w: &dyn Weighting,
    candidates: &[Vec<Scored>],
    flips: &[Flip],
    chosen: usize,
) -> Vec<(f64, f64)> {
    let mut cuts = vec![GAMMA_MIN];
    cuts.extend(
        flips
            .iter()
            .filter(|f| f.over == chosen || f.under == chosen)
            .map(|f| f.gamma),
    );
    cuts.push(1.0);
    let mut ranges: Vec<(f64, f64)> = Vec::new();
    for pair in cuts.windows(2) {
        let (lo, hi) = (pair[0], pair[1]);
        if hi <= lo {
            continue;
        }
        let mid = 0.5 * (lo + hi);
        if agrees(&scores_at(w, candidates, mid), chosen) != Some(true) {
            continue;
        }
        match ranges.last_mut() {
            Some(last) if last.1 == lo => last.1 = hi,
            _ => ranges.push((lo, hi)),
        }
    }
    ranges
}

/// The `data-range` form of agreement ranges: `0.80-1.00`, comma-separated, empty for none.
pub fn ranges_text(ranges: &[(f64, f64)]) -> String {
    ranges
        .iter()
        .map(|(a, b)| format!("{a:.2}-{b:.2}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The sentence for a flip, e.g. "B overtakes A at γ = 0.42".
pub fn flip_sentence(flip: &Flip, labels: &[String]) -> String {
    let name = |i: usize| {
        labels
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("#{}", i + 1))
    };
    format!(
        "{} overtakes {} at \u{3b3} = {:.2}",
        name(flip.over),
        name(flip.under),
        flip.gamma
    )
}

/// The winner of one criterion among the candidates: the index with the strictly highest
/// score, `None` on a tie at the top or when fewer than two candidates have a score.
pub fn winner(scores: &[Option<f64>]) -> Option<usize> {
    if scores.iter().flatten().count() < 2 {
        return None;
    }
    let best = order(scores)[0];
    let top = scores[best]?;
    let tied = scores
        .iter()
        .enumerate()
        .any(|(i, s)| i != best && *s == Some(top));
    (!tied).then_some(best)
}

/// The difference between two neighbours of the ranking, for metrics without γ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Difference {
    pub higher: usize,
    pub lower: usize,
    pub diff: f64,
    /// Whether `diff` exceeds the judge's combined uncertainty √(u_higher² + u_lower²); `None`
    /// where the metric gives no uncertainty for either.
    pub exceeds: Option<bool>,
    /// That combined uncertainty, where there is one.
    pub combined: Option<f64>,
}

/// Differences between each candidate and the next one down the ranking (scored ones only).
/// `uncertainty[i]` is the judge's own spread of candidate i's score where the metric gives one
/// (e.g. the standard deviation of a smoothed score), in the score's units.
pub fn differences(scores: &[Option<f64>], uncertainty: &[Option<f64>]) -> Vec<Difference> {
    let ranked: Vec<usize> = order(scores)
        .into_iter()
        .filter(|&i| scores[i].is_some())
        .collect();
    ranked
        .windows(2)
        .filter_map(|w| {
            let (h, l) = (w[0], w[1]);
            let diff = scores[h]? - scores[l]?;
            let u = |i: usize| uncertainty.get(i).copied().flatten();
            let combined = match (u(h), u(l)) {
                (Some(a), Some(b)) => Some((a * a + b * b).sqrt()),
                _ => None,
            };
            Some(Difference {
                higher: h,
                lower: l,
                diff,
                exceeds: combined.map(|c| diff > c),
                combined,
            })
        })
        .collect()
}

/// Default label of candidate `i`: A, B, C, …
pub fn default_label(i: usize) -> String {
    char::from(b'A' + (i % 26) as u8).to_string()
}

/// Up to this many candidates for one image.
pub const MAX_CANDIDATES: usize = 5;

/// Why the candidates cannot be judged, one sentence per problem: each candidate's own
/// (the image, its text, the question…, said once when all share it; `own(text)` is the
/// problems of the metric's input with that text), and labels that are empty or repeated (the
/// ranking names candidates by label).
pub fn problems_with(
    labels: &[String],
    texts: &[String],
    own: impl Fn(&str) -> Vec<String>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // What every candidate shares (the image, the question…): said once, without a label.
    let shared = own("x");
    for (i, text) in texts.iter().enumerate() {
        let label = labels.get(i).map(|l| l.trim()).unwrap_or_default();
        for p in own(text) {
            let p = if shared.contains(&p) {
                p
            } else {
                format!("Candidate {}: {p}", default_label(i))
            };
            if !out.contains(&p) {
                out.push(p);
            }
        }
        if label.is_empty() {
            out.push(format!("Candidate {}: give it a label.", default_label(i)));
        } else if labels[..i].iter().any(|l| l.trim() == label) {
            out.push(format!(
                "Two candidates are labelled \u{201c}{label}\u{201d}: give each its own label."
            ));
        }
    }
    out
}

pub mod export;
pub mod plain;
pub mod plain_render;
pub mod render;

#[cfg(test)]
mod plain_tests;
#[cfg(test)]
mod tests;
