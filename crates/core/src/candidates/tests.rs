use super::*;
use crate::metrics::harmonic_eval::weighting::{sigma, smoothed_score, Harmonic};

fn scored(p: [f64; 5]) -> Scored {
    Scored {
        score: smoothed_score(&p),
        sigma: Some(sigma(&p)),
    }
}

const SURE_LOW: [f64; 5] = [0.0, 0.9, 0.1, 0.0, 0.0]; // mean 2.1, σ 0.3
const UNSURE_HIGH: [f64; 5] = [0.0, 0.0, 0.1, 0.3, 0.6]; // mean 4.5, σ √0.45
const FLAT_B: [f64; 5] = [0.0, 0.2, 0.4, 0.3, 0.1]; // mean 3.3, σ 0.9
const LOW_C: [f64; 5] = [0.4, 0.5, 0.1, 0.0, 0.0]; // mean 1.7

/// A: two sure low criteria and three unsure high ones; B and C the same on all five.
fn three() -> Vec<Vec<Scored>> {
    let a = vec![
        scored(SURE_LOW),
        scored(SURE_LOW),
        scored(UNSURE_HIGH),
        scored(UNSURE_HIGH),
        scored(UNSURE_HIGH),
    ];
    vec![a, vec![scored(FLAT_B); 5], vec![scored(LOW_C); 5]]
}

/// Closed form of the A/B crossing: (2·2.1·r + 3·4.5) / (2r + 3) = 3.3 with
/// r = (σ1/σ2)^(−k), k = 2(1 − γ)/γ.
fn closed_form_flip() -> f64 {
    let r: f64 = 3.0 * (3.3 - 4.5) / (2.0 * (2.1 - 3.3));
    let ratio: f64 = 0.3 / 0.45f64.sqrt();
    let k = -r.ln() / ratio.ln();
    2.0 / (k + 2.0)
}

#[test]
fn order_and_ranks_follow_gamma() {
    let c = three();
    let flip = closed_form_flip();
    assert!((0.79..0.81).contains(&flip), "{flip}");
    let below = scores_at(&Harmonic, &c, flip - 0.05);
    let above = scores_at(&Harmonic, &c, flip + 0.05);
    assert_eq!(order(&below), vec![1, 0, 2]);
    assert_eq!(order(&above), vec![0, 1, 2]);
    assert_eq!(ranks(&below), vec![Some(2), Some(1), Some(3)]);
    // At γ = 1 A is the plain mean (2·2.1 + 3·4.5) / 5.
    assert!((scores_at(&Harmonic, &c, 1.0)[0].unwrap() - 3.54).abs() < 1e-12);
}

#[test]
fn the_one_flip_is_found_to_within_1e_9() {
    let flips = flip_points(&Harmonic, &three());
    assert_eq!(flips.len(), 1, "{flips:?}");
    let f = flips[0];
    assert!((f.gamma - closed_form_flip()).abs() < 1e-9, "{f:?}");
    assert_eq!((f.over, f.under), (0, 1));
    let labels: Vec<String> = (0..3).map(default_label).collect();
    assert_eq!(
        flip_sentence(&f, &labels),
        "A overtakes B at \u{3b3} = 0.80"
    );
}

#[test]
fn agreement_and_its_range() {
    let c = three();
    let flips = flip_points(&Harmonic, &c);
    let g = closed_form_flip();
    // The human prefers A: the metric agrees above the flip only.
    assert_eq!(agrees(&scores_at(&Harmonic, &c, 0.75), 0), Some(false));
    assert_eq!(agrees(&scores_at(&Harmonic, &c, 0.9), 0), Some(true));
    let r = agreement_ranges(&Harmonic, &c, &flips, 0);
    assert_eq!(r.len(), 1);
    assert!((r[0].0 - g).abs() < 1e-9 && r[0].1 == 1.0, "{r:?}");
    assert_eq!(ranges_text(&r), "0.80-1.00");
    // B: below the flip. C: never.
    let rb = agreement_ranges(&Harmonic, &c, &flips, 1);
    assert!(rb[0].0 == GAMMA_MIN && (rb[0].1 - g).abs() < 1e-9, "{rb:?}");
    assert!(agreement_ranges(&Harmonic, &c, &flips, 2).is_empty());
    assert_eq!(ranges_text(&[]), "");
}

#[test]
fn ties_and_missing_scores_never_agree() {
    assert_eq!(agrees(&[Some(3.0), Some(3.0)], 0), Some(false));
    assert_eq!(agrees(&[Some(3.0), None], 0), None);
    assert_eq!(agrees(&[Some(3.0)], 4), None);
    assert_eq!(order(&[None, Some(1.0), Some(2.0)]), vec![2, 1, 0]);
    assert_eq!(
        ranks(&[Some(2.0), Some(2.0), Some(1.0)]),
        vec![Some(1), Some(1), Some(3)]
    );
    assert_eq!(winner(&[Some(2.0), Some(2.0)]), None);
    assert_eq!(winner(&[Some(2.0), Some(2.5), None]), Some(1));
    assert_eq!(winner(&[Some(2.0), None]), None);
}

#[test]
fn identical_or_parallel_candidates_give_no_flip() {
    let same = vec![vec![scored(FLAT_B); 5], vec![scored(FLAT_B); 5]];
    assert!(flip_points(&Harmonic, &same).is_empty());
    // B and C are constant in γ and apart: no crossing.
    let c = three();
    assert!(pair_flips(&Harmonic, &c[1], &c[2], 1, 2).is_empty());
    // Unsmoothed criteria (σ unknown) make the score the plain mean at every γ.
    let printed = |s: f64| Scored {
        score: s,
        sigma: None,
    };
    let u = vec![vec![printed(3.0); 5], vec![printed(4.0); 5]];
    assert!(flip_points(&Harmonic, &u).is_empty());
    assert_eq!(order(&scores_at(&Harmonic, &u, 0.3)), vec![1, 0]);
}

#[test]
fn a_pair_given_the_other_way_round_names_the_same_overtaker() {
    let c = three();
    let f = pair_flips(&Harmonic, &c[1], &c[0], 1, 0);
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].over, f[0].under), (0, 1));
}

#[test]
fn differences_against_the_judges_uncertainty() {
    let d = differences(
        &[Some(0.6), Some(0.9), None, Some(0.5)],
        &[Some(0.05), Some(0.1), None, Some(0.2)],
    );
    assert_eq!(d.len(), 2);
    assert_eq!((d[0].higher, d[0].lower), (1, 0));
    assert!((d[0].diff - 0.3).abs() < 1e-12);
    assert_eq!(d[0].exceeds, Some(true)); // 0.3 > √(0.01 + 0.0025)
    assert_eq!((d[1].higher, d[1].lower), (0, 3));
    assert_eq!(d[1].exceeds, Some(false)); // 0.1 < √(0.0025 + 0.04)
    let plain = differences(&[Some(70.0), Some(80.0)], &[None, None]);
    assert_eq!(plain[0].exceeds, None);
    assert!((plain[0].diff - 10.0).abs() < 1e-12);
}

#[test]
fn default_labels() {
    assert_eq!((0..5).map(default_label).collect::<String>(), "ABCDE");
}

mod export_tests {
    use super::*;
    use crate::candidates::export::{append_to_inbox, comparison_json, inbox_records, Judged};
    use crate::metrics::harmonic_eval::CriterionResult;

    fn result(p: [f64; 5]) -> CriterionResult {
        CriterionResult {
            distribution: p,
            score: smoothed_score(&p),
            sigma: Some(sigma(&p)),
            coverage: Some(1.0),
            answer: "4".into(),
            usage: None,
            doubts: Vec::new(),
        }
    }

    fn judged<'a>(
        label: &'a str,
        text: &'a str,
        r: &'a [CriterionResult; 5],
    ) -> Judged<'a, CriterionResult> {
        Judged {
            label,
            text,
            criteria: std::array::from_fn(|i| Some(Ok(&r[i]))),
        }
    }

    fn results() -> [[CriterionResult; 5]; 3] {
        [
            [SURE_LOW, SURE_LOW, UNSURE_HIGH, UNSURE_HIGH, UNSURE_HIGH].map(result),
            [FLAT_B; 5].map(result),
            [LOW_C; 5].map(result),
        ]
    }

    #[test]
    fn the_export_carries_candidates_choice_and_agreement() {
        let r = results();
        let j = [
            judged("A", "first", &r[0]),
            judged("B", "second", &r[1]),
            judged("C", "third", &r[2]),
        ];
        let singles = vec!["{\"metric\":\"harmonic_eval\"}".to_string()];
        let doc: serde_json::Value = serde_json::from_str(&comparison_json(
            "harmonic_eval",
            &Harmonic,
            0.75,
            &j,
            &singles,
            Some(0),
            None,
        ))
        .unwrap();
        assert_eq!(doc["kind"], "candidates");
        assert_eq!(doc["ranking"], serde_json::json!(["B", "A", "C"]));
        assert_eq!(doc["chosen"], "A");
        assert_eq!(doc["agreement"]["at_gamma"], false);
        assert_eq!(doc["agreement"]["ranges_text"], "0.80-1.00");
        assert_eq!(doc["candidates"][1]["text"], "second");
        assert_eq!(doc["candidates"][1]["rank"], 1);
        assert_eq!(doc["candidates"][0]["result"]["metric"], "harmonic_eval");
        assert!(doc["candidates"][2]["result"].is_null());
        let flip = doc["flip_points"][0]["gamma"].as_f64().unwrap();
        assert!((flip - closed_form_flip()).abs() < 1e-9);
        assert_eq!(doc["flip_points"][0]["over"], "A");
        // Without a choice there is no agreement to report.
        let none: serde_json::Value = serde_json::from_str(&comparison_json(
            "harmonic_eval",
            &Harmonic,
            0.75,
            &j,
            &[],
            None,
            None,
        ))
        .unwrap();
        assert!(none["agreement"].is_null() && none["chosen"].is_null());
    }

    #[test]
    fn the_lab_gets_one_group_with_the_choice_and_pairwise_accuracy_follows_gamma() {
        let r = results();
        let j = [
            judged("A", "first", &r[0]),
            judged("B", "second", &r[1]),
            judged("C", "third", &r[2]),
        ];
        // Each candidate's own export, as the page makes it (criteria with σ and distribution).
        let single = |k: usize| {
            let crit: Vec<serde_json::Value> = ["correctness", "completeness", "clarity", "fluency", "conciseness"]
                .iter()
                .zip(&r[k])
                .map(|(n, c)| serde_json::json!({"name": n, "score": c.score, "sigma": c.sigma, "distribution": c.distribution, "weight": 0.2, "answer": "4", "doubts": []}))
                .collect();
            serde_json::json!({"metric": "harmonic_eval", "task": "ic", "fidelity": "paper", "criteria": crit}).to_string()
        };
        let singles: Vec<String> = (0..3).map(single).collect();
        let line = comparison_json(
            "harmonic_eval",
            &Harmonic,
            0.75,
            &j,
            &singles,
            Some(0),
            Some("cmp-1"),
        );
        let inbox = append_to_inbox(None, &line);
        let inbox = append_to_inbox(Some(&inbox), &line.replace("cmp-1", "cmp-2"));
        let (all, problems) = inbox_records(&inbox);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(all.len(), 6);
        assert_eq!(all[3].group.as_deref(), Some("cmp-2"));
        let (_, broken) = inbox_records(&append_to_inbox(Some(&inbox), "{not json"));
        assert_eq!(broken.len(), 1);
        assert!(
            broken[0].starts_with("Comparison 3: not a comparison"),
            "{broken:?}"
        );
        let recs: Vec<_> = all[..3].to_vec();
        assert_eq!(recs.len(), 3);
        assert!(recs
            .iter()
            .all(|x| x.group.as_deref() == Some("cmp-1") && x.task == "ic"));
        assert_eq!(
            recs.iter().map(|x| x.chosen).collect::<Vec<_>>(),
            vec![true, false, false]
        );
        assert_eq!(recs[1].id, "cmp-1-B");
        assert_eq!(recs[0].criteria.len(), 5);
        assert_eq!(recs[0].fidelity.as_deref(), Some("paper"));
        // The chosen A beats C always and B only above the flip: 1 of 2 pairs, then 2 of 2.
        let g = closed_form_flip();
        for (gamma, want) in [(g - 0.02, 1usize), (g + 0.02, 2)] {
            let a = recs[0].overall(gamma).unwrap();
            let won = recs[1..]
                .iter()
                .filter(|o| a > o.overall(gamma).unwrap())
                .count();
            assert_eq!(won, want, "γ {gamma}");
        }
        // A score off the scale is refused, not shown.
        let bad = line.replacen("\"score\":", "\"score\": 23.0, \"was\":", 1);
        let (none, why) = inbox_records(&bad);
        assert!(none.is_empty() && why[0].contains("outside"), "{why:?}");
    }
}

#[test]
fn problems_name_the_candidate_and_say_shared_ones_once() {
    use crate::metrics::harmonic_eval::Input;
    let base = Input {
        image: None,
        ..Input::default()
    };
    let labels: Vec<String> = vec!["A".into(), "A".into(), " ".into()];
    let texts: Vec<String> = vec!["a dog".into(), "".into(), "a cat".into()];
    let problems = |base: &Input, labels: &[String], texts: &[String]| {
        problems_with(labels, texts, |t| {
            Input {
                text: t.into(),
                ..base.clone()
            }
            .problems()
        })
    };
    let p = problems(&base, &labels, &texts);
    assert_eq!(
        p.iter().filter(|s| s.starts_with("Add an image")).count(),
        1,
        "{p:?}"
    );
    assert!(
        p.iter().any(|s| s.starts_with("Candidate B: Enter the")),
        "{p:?}"
    );
    assert!(
        p.iter().any(|s| s.contains("labelled \u{201c}A\u{201d}")),
        "{p:?}"
    );
    assert!(
        p.contains(&"Candidate C: give it a label.".to_string()),
        "{p:?}"
    );
    assert!(!p.iter().any(|s| s.starts_with("Candidate A")), "{p:?}");
    let ok = Input {
        image: Some(crate::providers::Image::new("image/jpeg", "/9j/")),
        ..Input::default()
    };
    let fine: Vec<String> = vec!["A".into(), "B".into()];
    assert!(problems(&ok, &fine, &["x".into(), "y".into()]).is_empty());
}

mod render_tests {
    use crate::candidates::render::{comparison_table, curves_table, escape, plot_svg, Cell};
    use crate::candidates::Flip;

    fn cell(score: Option<f64>, sigma: Option<f64>) -> Cell {
        Cell {
            state: if score.is_some() { "done" } else { "error" },
            score,
            sigma,
            note: "failed",
            error: score
                .is_none()
                .then(|| "The model <wrote> no rating.".to_string()),
        }
    }

    #[test]
    fn labels_are_spread_a_gap_apart_near_their_wish_and_inside_the_range() {
        use crate::candidates::render::spread;
        // Far apart already: unmoved, in the caller's order.
        assert_eq!(spread(&[100.0, 20.0], 13.0, 0.0, 200.0), vec![100.0, 20.0]);
        // Two on one spot: the second pushed down a gap.
        assert_eq!(spread(&[50.0, 50.0], 13.0, 0.0, 200.0), vec![50.0, 63.0]);
        // Three crowding the bottom: pushed back up inside the range, a gap apart.
        assert_eq!(
            spread(&[199.0, 200.0, 195.0], 13.0, 0.0, 200.0),
            vec![187.0, 200.0, 174.0]
        );
        // Above the top: brought inside.
        assert_eq!(spread(&[-5.0], 13.0, 10.0, 200.0), vec![10.0]);
        assert!(spread(&[], 13.0, 0.0, 1.0).is_empty());
    }

    #[test]
    fn user_text_is_escaped_everywhere() {
        assert_eq!(
            escape("<b a=\"x\">&'"),
            "&lt;b a=&quot;x&quot;&gt;&amp;&#39;"
        );
        let labels = vec!["<img src=x onerror=alert(1)>".to_string(), "B".to_string()];
        let rows = vec![(
            "fluency",
            "Fluency",
            vec![cell(Some(4.0), Some(0.5)), cell(Some(3.0), None)],
        )];
        let t = comparison_table(&labels, &rows, &[Some(4.0), Some(3.0)], 0.75);
        let svg = plot_svg(&labels, &[vec![(0.01, 4.0), (1.0, 4.0)], vec![]], &[], 0.75);
        let tab = curves_table(&labels, &[vec![(0.01, 4.0)], vec![]]);
        for h in [&t, &svg, &tab] {
            assert!(!h.contains("<img"), "{h}");
            assert!(h.contains("&lt;img src=x onerror=alert(1)&gt;"), "{h}");
        }
    }

    #[test]
    fn the_table_says_scores_sigmas_winners_overall_and_rank() {
        let labels = vec!["A".to_string(), "B".to_string(), "C".to_string()];
        let rows = vec![
            (
                "fluency",
                "Fluency",
                vec![
                    cell(Some(4.25), Some(0.5)),
                    cell(Some(3.0), None),
                    cell(None, None),
                ],
            ),
            (
                "clarity",
                "Clarity",
                vec![
                    cell(Some(3.0), Some(0.1)),
                    cell(Some(3.0), Some(0.2)),
                    cell(None, None),
                ],
            ),
        ];
        let t = comparison_table(&labels, &rows, &[Some(3.5), Some(4.0), None], 0.8);
        assert!(
            t.contains(
                "<td data-testid=\"candidate-0-fluency\" data-state=\"done\">4.25 ± 0.50</td>"
            ),
            "{t}"
        );
        assert!(t.contains(">3.00 (printed)</td>"), "{t}");
        assert!(
            t.contains("data-testid=\"candidate-2-fluency\" data-state=\"error\">failed</td>"),
            "{t}"
        );
        assert!(
            t.contains("<td data-testid=\"candidates-best-fluency\">A</td>"),
            "{t}"
        );
        assert!(
            t.contains("<td data-testid=\"candidates-best-clarity\">tie</td>"),
            "{t}"
        );
        assert!(t.contains("Overall at γ = 0.80"), "{t}");
        assert!(t.contains("data-testid=\"candidate-result-1\" data-overall=\"4\" data-rank=\"1\">4.00 (#1)</td>"), "{t}");
        assert!(
            t.contains(
                "data-testid=\"candidate-result-2\" data-overall=\"\" data-rank=\"\">—</td>"
            ),
            "{t}"
        );
        assert!(t.contains("<td>B</td></tr></tfoot></table>"), "{t}");
        // Why a criterion failed is said under the table, escaped.
        assert!(t.ends_with("<ul class=\"error candidate-errors\" data-testid=\"candidate-errors\"><li>C · Fluency: The model &lt;wrote&gt; no rating.</li><li>C · Clarity: The model &lt;wrote&gt; no rating.</li></ul>"), "{t}");
    }

    #[test]
    fn the_chart_marks_flips_and_the_cursor_on_the_slider_range() {
        let labels = vec!["A".to_string(), "B".to_string()];
        let curves = vec![vec![(0.01, 2.0), (1.0, 4.0)], vec![(0.01, 3.0), (1.0, 3.0)]];
        let flip = Flip {
            gamma: 0.505,
            over: 0,
            under: 1,
        };
        let svg = plot_svg(&labels, &curves, &[flip], 1.0);
        assert_eq!(svg.matches("<line class=\"flip\"").count(), 1);
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("data-points=\"4\""));
        assert!(svg.contains("changes at 1 γ value,"));
        // γ = 1 is the right end of the axis (340 − 30), γ = 0.505 its middle.
        assert!(svg.contains("<line class=\"cursor\" x1=\"310.0\""), "{svg}");
        assert!(svg.contains("<line class=\"flip\" x1=\"177.0\""), "{svg}");
        // Score 4 at the top quarter: y = 10 + (5 − 4)/4 · 146.
        assert!(svg.contains("310.0,46.5"), "{svg}");
        // The two lines end 0.04 apart at γ = 1: their labels are moved apart, not drawn over
        // each other.
        let near = vec![
            vec![(0.01, 2.0), (1.0, 3.02)],
            vec![(0.01, 3.0), (1.0, 2.98)],
        ];
        let svg = plot_svg(&labels, &near, &[], 1.0);
        let ys: Vec<f64> = svg
            .split("class=\"curve-label\" x=\"314\" y=\"")
            .skip(1)
            .map(|t| t.split('"').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(ys.len(), 2, "{svg}");
        assert!(
            ys[1] - ys[0] >= 13.0 - 1e-9,
            "A above B, a line apart: {ys:?}"
        );
        let tab = curves_table(&labels, &curves);
        assert_eq!(tab.matches("<tr>").count(), 12);
        assert!(
            tab.contains("<tr><td>1.00</td><td>4.000</td><td>3.000</td></tr>"),
            "{tab}"
        );
    }
}

#[test]
fn ranking_flips_and_radios_markup() {
    use crate::candidates::render::{flips_html, radios_html, ranking_html};
    let labels: Vec<String> = vec!["A".into(), "B&B".into(), "C".into()];
    let r = ranking_html(&labels, &[Some(3.0), Some(4.0), None], Some(0.7));
    assert_eq!(r, "<p class=\"ranking\" data-testid=\"ranking\" data-order=\"B&amp;B,A\">Ranking at γ = 0.70: B&amp;B › A</p>");
    let r = ranking_html(&labels, &[Some(3.0), Some(4.0), None], None);
    assert!(r.ends_with(">Ranking: B&amp;B › A</p>"), "{r}");
    let f = flips_html(
        &labels,
        &[Flip {
            gamma: 0.79871,
            over: 0,
            under: 1,
        }],
    );
    assert!(f.contains("data-values=\"0.7987\""), "{f}");
    assert!(
        f.contains("<li>A overtakes B&amp;B at γ = 0.80 (as γ rises)</li>"),
        "{f}"
    );
    assert!(flips_html(&labels, &[]).contains("data-values=\"\""));
    let rad = radios_html(&labels, None);
    assert_eq!(rad.matches("type=\"radio\"").count(), 3);
    assert!(
        rad.contains("value=\"2\" data-testid=\"prefer-2\">C</label>"),
        "{rad}"
    );
    // A pick opened from a link or file shows checked.
    let rad = radios_html(&labels, Some(1));
    assert!(
        rad.contains("data-testid=\"prefer-1\" checked>B&amp;B</label>"),
        "{rad}"
    );
    assert_eq!(rad.matches(" checked").count(), 1);
}

#[test]
fn the_readout_lists_every_candidate_best_first_at_the_gamma_pointed_at() {
    let c = three();
    let labels: Vec<String> = ["A", "B", "C"].map(String::from).to_vec();
    for g in [0.01, 0.5, 0.75, 0.9, 1.0] {
        let text = render::readout(&Harmonic, &labels, &c, g);
        let scores = scores_at(&Harmonic, &c, g);
        let expected: Vec<String> = order(&scores)
            .into_iter()
            .map(|i| format!("{} {:.2}", labels[i], scores[i].unwrap()))
            .collect();
        assert_eq!(text, format!("At γ = {g:.2}: {}", expected.join(", ")));
    }
    // Either side of the flip the first two swap places in the readout.
    let star = closed_form_flip();
    let before = render::readout(&Harmonic, &labels, &c, star - 0.02);
    let after = render::readout(&Harmonic, &labels, &c, star + 0.02);
    assert_ne!(
        before.split(": ").nth(1).unwrap().chars().next(),
        after.split(": ").nth(1).unwrap().chars().next()
    );
    // A candidate without a score is named last, not given a number.
    let mut partial = c.clone();
    partial[1].clear();
    assert!(render::readout(&Harmonic, &labels, &partial, 0.75).ends_with("B no score"));
    assert_eq!(
        render::readout(&Harmonic, &[], &[], 0.5),
        "At γ = 0.50: no candidate has a score"
    );
    // The axis puts the ends of γ at the plot's edges.
    assert!((render::AXIS.gamma_at(44.0 / 340.0) - 0.01).abs() < 1e-12);
    assert!((render::AXIS.gamma_at((340.0 - 30.0) / 340.0) - 1.0).abs() < 1e-12);
}
