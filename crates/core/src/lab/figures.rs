//! The lab's agreement figures in one call, for callers without a page (the command line, the
//! Python package): the results the meta-evaluation uses (items scored on fewer than all their
//! criteria left out unless kept, as the lab's default *Only items scored on every criterion*),
//! the report at γ ([`Prepared::report`], several ratings per item as `protocol` says) and its
//! 95 % intervals drawn as the lab draws them ([`MetaBootstrap`], [`DEFAULT_RESAMPLES`] with
//! [`DEFAULT_SEED`]). So the figures are the lab's, to the last bit, for the same results.

use super::analysis::{MetaReport, Prepared};
use super::uncertainty::{
    agreement_json, with_interval, MetaBootstrap, MetaIntervals, DEFAULT_RESAMPLES, DEFAULT_SEED,
};
use super::ItemResult;
use crate::meta::RatingProtocol;

/// The figures of a set of results at one γ.
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    pub gamma: f64,
    pub protocol: RatingProtocol,
    /// How many results entered the figures.
    pub used: usize,
    /// Results left out for being scored on fewer than all their criteria.
    pub left_out_partial: usize,
    pub report: MetaReport,
    pub intervals: MetaIntervals,
}

/// The lab's figures for `results` at `gamma`, or `None` when no result carries a human
/// judgment or a best-of-N choice (the lab then shows none either). `keep_partial` is the
/// lab's unticked *Only items scored on every criterion*.
pub fn figures(
    results: &[ItemResult],
    gamma: f64,
    protocol: RatingProtocol,
    keep_partial: bool,
) -> Option<Figures> {
    let partial = results.iter().filter(|r| r.is_partial()).count();
    let kept: Vec<ItemResult>;
    let used: &[ItemResult] = if keep_partial || partial == 0 {
        results
    } else {
        kept = results
            .iter()
            .filter(|r| !r.is_partial())
            .cloned()
            .collect();
        &kept
    };
    let mut prepared = Prepared::with_protocol(used, protocol);
    if !prepared.has_judgments() {
        return None;
    }
    let report = prepared.report(used, gamma);
    let mut boot = MetaBootstrap::new(&prepared, used, gamma, DEFAULT_RESAMPLES, DEFAULT_SEED);
    while !boot.step(used, usize::MAX) {}
    Some(Figures {
        gamma,
        protocol,
        used: used.len(),
        left_out_partial: if keep_partial { 0 } else { partial },
        report,
        intervals: boot.intervals(),
    })
}

impl Figures {
    /// The lab's *Export agreement (JSON)* document.
    pub fn json(&self) -> String {
        agreement_json(&self.report, Some(&self.intervals), self.gamma)
    }

    /// The figures as the lab's table words them, one line each: τ-b and τ-c ×100 with their
    /// intervals and n, overall then per criterion, and the pairwise accuracy.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "Agreement with human judgments ({} items{}; several ratings per item: {}):",
            self.used,
            if self.left_out_partial > 0 {
                format!(
                    ", {} scored on fewer than all criteria left out",
                    self.left_out_partial
                )
            } else {
                String::new()
            },
            self.protocol.id()
        )];
        let row = |label: String,
                   a: &super::analysis::Agreement,
                   e: [crate::meta::bootstrap::Estimate; 2]| {
            format!(
                "  {label:<22} τ-b ×100 {:<20} τ-c ×100 {:<20} n {}",
                with_interval(a.tau_b, e[0].interval),
                with_interval(a.tau_c, e[1].interval),
                a.n
            )
        };
        lines.push(row(
            format!("Overall (γ = {:.2})", self.gamma),
            &self.report.overall,
            self.intervals.overall,
        ));
        for (c, a) in &self.report.criteria {
            let e = self
                .intervals
                .criteria
                .iter()
                .find(|x| x.0 == *c)
                .map(|x| x.1)
                .unwrap_or_default();
            lines.push(row(c.label().to_string(), a, e));
        }
        let counts = &self.report.pairwise_counts;
        if counts.pairs > 0 {
            lines.push(format!(
                "  Pairwise accuracy: {} % over {} pairs from best-of-N groups ({} ties, counted wrong)",
                with_interval(self.report.pairwise, self.intervals.pairwise.interval),
                counts.pairs,
                counts.ties
            ));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::analysis::Prepared;
    use crate::lab::record::CriterionRecord;

    fn result(id: &str, scores: &[Option<f64>], human: f64) -> ItemResult {
        let mut r = ItemResult {
            id: id.into(),
            metric: crate::metrics::Metric::HarmonicEval.id().into(),
            criteria: scores
                .iter()
                .zip(crate::scoring::criteria::Criterion::ALL)
                .map(|(s, c)| CriterionRecord {
                    name: c.id().into(),
                    score: *s,
                    sigma: s.map(|x| 0.2 + x / 20.0),
                    distribution: None,
                    error: s.is_none().then(|| "no rating".into()),
                    doubts: Vec::new(),
                })
                .collect(),
            ..ItemResult::default()
        };
        r.human.insert("overall".into(), vec![human]);
        r
    }

    fn results() -> Vec<ItemResult> {
        (0..12)
            .map(|i| {
                let x = f64::from(i % 5) + 1.0;
                let partial = i == 3;
                let scores: Vec<Option<f64>> = (0..5)
                    .map(|k| (!(partial && k == 2)).then(|| (x + f64::from(k) * 0.3).min(5.0)))
                    .collect();
                result(&format!("i{i}"), &scores, f64::from((i * 7) % 5) + 1.0)
            })
            .collect()
    }

    #[test]
    fn the_figures_are_the_labs_report_on_the_items_it_uses() {
        let all = results();
        let f = figures(&all, 0.5, RatingProtocol::Repeated, false).unwrap();
        assert_eq!((f.used, f.left_out_partial), (11, 1));
        let used: Vec<ItemResult> = all.iter().filter(|r| !r.is_partial()).cloned().collect();
        let want = Prepared::with_protocol(&used, RatingProtocol::Repeated).report(&used, 0.5);
        assert_eq!(f.report, want);
        let mut boot = MetaBootstrap::new(
            &Prepared::with_protocol(&used, RatingProtocol::Repeated),
            &used,
            0.5,
            DEFAULT_RESAMPLES,
            DEFAULT_SEED,
        );
        while !boot.step(&used, 7) {}
        assert_eq!(
            f.intervals,
            boot.intervals(),
            "stepped or at once, the same draws"
        );
        let kept = figures(&all, 0.5, RatingProtocol::Repeated, true).unwrap();
        assert_eq!((kept.used, kept.left_out_partial), (12, 0));
        assert_ne!(kept.report.overall.n, f.report.overall.n);
    }

    #[test]
    fn the_lines_and_the_json_say_the_same_figures() {
        let f = figures(&results(), 0.75, RatingProtocol::Repeated, false).unwrap();
        let lines = f.lines();
        assert!(lines[0].contains("11 items, 1 scored on fewer than all criteria left out"));
        let tau = f.report.overall.tau_b.unwrap();
        assert!(lines[1].contains(&format!("{tau:.1}")), "{}", lines[1]);
        assert_eq!(lines.len(), 2 + 5, "overall and five criteria, no pairs");
        let doc: serde_json::Value = serde_json::from_str(&f.json()).unwrap();
        assert_eq!(doc["overall"]["tau_b"]["value"].as_f64(), Some(tau));
        assert_eq!(doc["gamma"].as_f64(), Some(0.75));
    }

    #[test]
    fn results_without_judgments_have_no_figures() {
        let mut all = results();
        for r in &mut all {
            r.human.clear();
        }
        assert_eq!(figures(&all, 0.5, RatingProtocol::Repeated, false), None);
    }
}
