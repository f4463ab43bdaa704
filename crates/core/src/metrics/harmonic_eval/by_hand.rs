//! HarmonicEval set by hand (issue 44): a teacher shapes each criterion's rating distribution
//! and watches the harmonic weighting respond. No model is asked.
//!
//! Each criterion has five bars, one per rating, each a relative weight from 0 to 100; the
//! criterion's distribution is the five normalised. The result is an ordinary
//! [`CriterionResult`] (score, σ, coverage 1), so the cards, the overall score, S(γ), the
//! weights chart and the export use the same code as a model's answer. A criterion whose five
//! bars are all zero has no distribution: it is refused in a sentence, never divided by zero.
//!
//! In a result file the bars travel as `by_hand` (criterion id → five numbers) beside the
//! distributions they give; opening the file checks that the two agree.

use serde_json::{Map, Value};

use super::weighting::{sigma, smoothed_score};
use super::CriterionResult;
use crate::scoring::criteria::Criterion;
use crate::scoring::weighting::Scored;

/// The model a by-hand result names in its export, so every reader sees no model was asked.
pub const MODEL: &str = "(none: set by hand)";
/// What a by-hand result says wherever it shows.
pub const SAID: &str = "Set by hand, no model was asked.";
/// The export's `source`.
pub const SOURCE: &str =
    "Set by hand: no model was asked; each criterion's distribution is its five bars normalised.";
/// The largest value of one bar.
pub const MAX_BAR: u8 = 100;

/// One criterion's five bars, for ratings 1 to 5.
pub type Bars = [u8; 5];

/// The five criteria's bars, in [`Criterion::ALL`] order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hand(pub [Bars; 5]);

/// Where "Set the ratings yourself" starts: five criteria of different certainty, so that
/// moving γ visibly moves the weights.
pub const START: Hand = Hand([
    [0, 0, 5, 40, 100],
    [5, 30, 100, 30, 5],
    [0, 0, 20, 100, 20],
    [0, 0, 0, 10, 100],
    [40, 100, 60, 30, 10],
]);

impl Hand {
    pub fn bars(&self, c: Criterion) -> Bars {
        self.0[c.index()]
    }

    /// The same, with one bar set (clamped to 0–100).
    pub fn with_bar(mut self, c: Criterion, rating: usize, value: u8) -> Hand {
        if (1..=5).contains(&rating) {
            self.0[c.index()][rating - 1] = value.min(MAX_BAR);
        }
        self
    }

    pub fn with_bars(mut self, c: Criterion, bars: Bars) -> Hand {
        self.0[c.index()] = bars.map(|b| b.min(MAX_BAR));
        self
    }

    /// Each criterion's result, or the sentence that refuses it.
    pub fn results(&self) -> [Result<CriterionResult, String>; 5] {
        std::array::from_fn(|i| result(Criterion::ALL[i], &self.0[i]))
    }

    /// Bars that give (about) the results shown: each distribution scaled so its largest
    /// probability is 100 and rounded; a criterion without a result starts flat. Used by
    /// "Change these ratings" on a model's result.
    pub fn from_results(results: &[Option<&CriterionResult>; 5]) -> Hand {
        Hand(std::array::from_fn(|i| match results[i] {
            Some(r) => bars_of(&r.distribution),
            None => Preset::Flat.bars(),
        }))
    }

    /// The `by_hand` object of a result file.
    pub fn to_json(&self) -> Value {
        Value::Object(
            Criterion::ALL
                .iter()
                .map(|c| (c.id().to_string(), Value::from(self.bars(*c).to_vec())))
                .collect(),
        )
    }

    /// Reads a file's `by_hand` object, or says why it cannot.
    pub fn from_json(v: &Value) -> Result<Hand, String> {
        let bad = || {
            "This file's ratings set by hand are not five numbers from 0 to 100 for each criterion, so it cannot be shown.".to_string()
        };
        let o: &Map<String, Value> = v.as_object().ok_or_else(bad)?;
        let mut hand = Hand([[0; 5]; 5]);
        for c in Criterion::ALL {
            let list = o.get(c.id()).and_then(Value::as_array).ok_or_else(bad)?;
            let bars: Vec<u8> = list
                .iter()
                .filter_map(Value::as_u64)
                .filter(|&b| b <= u64::from(MAX_BAR))
                .map(|b| b as u8)
                .collect();
            let bars: Bars = bars.try_into().map_err(|_| bad())?;
            if list.len() != 5 {
                return Err(bad());
            }
            hand.0[c.index()] = bars;
        }
        Ok(hand)
    }
}

/// Marks an export (`json`, from `export_json`) as set by hand: its bars as `by_hand`, no
/// model, and a `source` that says so.
pub fn mark(json: &str, hand: &Hand) -> String {
    let Ok(Value::Object(mut obj)) = serde_json::from_str::<Value>(json) else {
        return json.to_string();
    };
    obj.insert("by_hand".into(), hand.to_json());
    obj.insert("model".into(), Value::from(MODEL));
    obj.insert("source".into(), Value::from(SOURCE));
    serde_json::to_string_pretty(&Value::Object(obj)).unwrap_or_else(|_| json.to_string())
}

/// The distribution the five bars give, or `None` when all are zero.
pub fn distribution(bars: &Bars) -> Option<[f64; 5]> {
    let sum: u32 = bars.iter().map(|&b| u32::from(b)).sum();
    (sum > 0).then(|| bars.map(|b| f64::from(b) / f64::from(sum)))
}

/// Why a criterion with all five bars at zero has no score.
pub fn refusal(c: Criterion) -> String {
    format!(
        "All five of {}'s bars are at zero, so it has no rating distribution and no score: raise at least one.",
        c.label()
    )
}

/// One criterion's result from its bars.
pub fn result(c: Criterion, bars: &Bars) -> Result<CriterionResult, String> {
    let p = distribution(bars).ok_or_else(|| refusal(c))?;
    Ok(CriterionResult {
        distribution: p,
        score: smoothed_score(&p),
        sigma: Some(sigma(&p)),
        // All the mass is on the five ratings: nothing was left to other tokens.
        coverage: Some(1.0),
        answer: String::new(),
        usage: None,
        doubts: Vec::new(),
    })
}

/// Bars for a distribution: the largest probability becomes 100, the rest in proportion,
/// rounded to whole numbers.
pub fn bars_of(p: &[f64; 5]) -> Bars {
    let top = p.iter().copied().fold(0.0, f64::max);
    if top.is_nan() || top <= 0.0 {
        return Preset::Flat.bars();
    }
    p.map(|x| {
        (x / top * f64::from(MAX_BAR))
            .round()
            .clamp(0.0, f64::from(MAX_BAR)) as u8
    })
}

/// Whether the bars give the distribution a file records for each criterion (to 1e-6).
pub fn agrees(hand: &Hand, results: &[Option<Result<CriterionResult, String>>; 5]) -> bool {
    Criterion::ALL.iter().all(
        |&c| match (distribution(&hand.bars(c)), &results[c.index()]) {
            (Some(p), Some(Ok(r))) => p
                .iter()
                .zip(&r.distribution)
                .all(|(a, b)| (a - b).abs() <= 1e-6),
            (None, Some(Err(_))) => true,
            _ => false,
        },
    )
}

/// A criterion's preset: sure of one rating, split between two, or flat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    Sure(u8),
    Split(u8, u8),
    Flat,
}

impl Preset {
    /// Every preset offered, in the order the menu lists them.
    pub const ALL: [Preset; 11] = [
        Preset::Sure(1),
        Preset::Sure(2),
        Preset::Sure(3),
        Preset::Sure(4),
        Preset::Sure(5),
        Preset::Split(1, 2),
        Preset::Split(2, 3),
        Preset::Split(3, 4),
        Preset::Split(4, 5),
        Preset::Split(1, 5),
        Preset::Flat,
    ];

    pub fn bars(self) -> Bars {
        let mut b = [0; 5];
        match self {
            Preset::Sure(r) => b[usize::from(r) - 1] = MAX_BAR,
            Preset::Split(r, s) => {
                b[usize::from(r) - 1] = MAX_BAR;
                b[usize::from(s) - 1] = MAX_BAR;
            }
            Preset::Flat => b = [MAX_BAR; 5],
        }
        b
    }

    /// The menu's value.
    pub fn id(self) -> String {
        match self {
            Preset::Sure(r) => format!("sure-{r}"),
            Preset::Split(r, s) => format!("split-{r}-{s}"),
            Preset::Flat => "flat".into(),
        }
    }

    pub fn from_id(id: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.id() == id)
    }

    pub fn label(self) -> String {
        match self {
            Preset::Sure(r) => format!("Sure of {r}"),
            Preset::Split(r, s) => format!("Split between {r} and {s}"),
            Preset::Flat => "Flat: no idea".into(),
        }
    }
}

/// One step of the guided sequence for a class: bars, the γ it starts at, and the one sentence
/// that says what to watch.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub title: &'static str,
    pub sentence: &'static str,
    pub gamma: f64,
    pub hand: Hand,
}

const SURE: Bars = [0, 0, 0, 0, 100];
const TORN: Bars = [0, 0, 60, 100, 60];

/// The guided sequence.
pub const STEPS: [Step; 4] = [
    Step {
        title: "Equally sure",
        sentence: "All five criteria have the same distribution, so every criterion weighs the same: move γ and the score does not move.",
        gamma: 0.75,
        hand: Hand([TORN; 5]),
    },
    Step {
        title: "One certain",
        sentence: "Fluency is certain (σ = 0): at any γ below 1 it carries all the weight, so the score is its 5; only γ = 1 gives the others a say.",
        gamma: 0.5,
        hand: Hand([TORN, TORN, TORN, SURE, TORN]),
    },
    Step {
        title: "Unsure but high",
        sentence: "Completeness leans to 5 but is unsure; the others are sure of 2. At small γ it hardly counts and the score stays near 2; at γ = 1 it lifts the score.",
        gamma: 0.3,
        hand: Hand([
            [0, 100, 10, 0, 0],
            [0, 20, 40, 60, 100],
            [0, 100, 10, 0, 0],
            [0, 100, 10, 0, 0],
            [0, 100, 10, 0, 0],
        ]),
    },
    Step {
        title: "Your turn",
        sentence: "Clarity is torn between 1 and 5. Make it surer, one bar at a time, and watch its weight grow while the score follows its rating.",
        gamma: 0.75,
        hand: Hand([
            [0, 0, 20, 100, 20],
            [0, 10, 100, 40, 0],
            [100, 0, 0, 0, 100],
            [0, 0, 10, 100, 40],
            [0, 20, 100, 20, 0],
        ]),
    },
];

/// A weight as a whole percentage, never rounded to a false 0% or 100%: "<1%" and ">99%" for
/// a weight that is not quite nothing or not quite all.
pub fn percent(w: f64) -> String {
    match w {
        w if w > 0.0 && w < 0.005 => "<1%".into(),
        w if w < 1.0 && w > 0.995 => ">99%".into(),
        w => format!("{:.0}%", w * 100.0),
    }
}

/// The plain sentence under a result: which criterion carries most of the weight at γ and why.
/// `items` pairs each criterion with its score (None: failed or not run) and `weights` is the
/// weighting at `gamma` (aligned). `None` when nothing is scored.
pub fn weight_sentence(
    items: &[(Criterion, Option<Scored>)],
    weights: &[Option<f64>],
    gamma: f64,
) -> Option<String> {
    let scored: Vec<(Criterion, Scored, f64)> = items
        .iter()
        .zip(weights)
        .filter_map(|((c, s), w)| Some((*c, (*s)?, (*w)?)))
        .collect();
    let (top_c, _, top_w) = *scored.iter().max_by(|a, b| a.2.total_cmp(&b.2))?;
    let g = format!("{gamma:.2}");
    let pct = percent;
    if scored.len() == 1 {
        return Some(format!(
            "Only {} has a score, so it carries all the weight.",
            top_c.label()
        ));
    }
    let sigmas: Vec<f64> = scored.iter().filter_map(|(_, s, _)| s.sigma).collect();
    if sigmas.len() < scored.len() {
        return Some(format!(
            "At γ = {g}, {} carries the largest share ({}). Criteria without probabilities keep a fixed share whatever γ is.",
            top_c.label(),
            pct(top_w)
        ));
    }
    let min = sigmas.iter().copied().fold(f64::INFINITY, f64::min);
    let max = sigmas.iter().copied().fold(0.0, f64::max);
    if max - min <= 1e-12 {
        return Some(format!(
            "Every criterion is equally sure (σ = {min:.2}), so each weighs the same ({}) at every γ: γ cannot move this score.",
            pct(1.0 / scored.len() as f64)
        ));
    }
    if gamma >= 1.0 {
        return Some(format!(
            "At γ = 1 every criterion weighs the same ({}): σ does not count. Move γ down to favour the surer criteria.",
            pct(1.0 / scored.len() as f64)
        ));
    }
    Some(below_one(&scored, &g, min, (top_c, top_w)))
}

/// [`weight_sentence`] where γ < 1 and the criteria differ in σ: who the weighting favours.
fn below_one(
    scored: &[(Criterion, Scored, f64)],
    g: &str,
    min: f64,
    top: (Criterion, f64),
) -> String {
    let (top_c, top_w) = top;
    let pct = percent;
    let certain: Vec<&str> = scored
        .iter()
        .filter(|(_, s, _)| s.sigma == Some(0.0))
        .map(|(c, _, _)| c.label())
        .collect();
    match certain.len() {
        0 => {}
        1 => {
            return format!(
                "At γ = {g}, {} carries all the weight: it is certain (σ = 0), and below γ = 1 a certain criterion outweighs any unsure one.",
                certain[0]
            )
        }
        _ => {
            return format!(
                "At γ = {g}, {} are certain (σ = 0) and share all the weight equally; below γ = 1 the unsure criteria count for nothing.",
                certain.join(", ")
            )
        }
    }
    let surest: Vec<&(Criterion, Scored, f64)> = scored
        .iter()
        .filter(|(_, s, _)| s.sigma.is_some_and(|x| x - min <= 1e-12))
        .collect();
    let share: f64 = surest.iter().map(|(_, _, w)| w).sum();
    let how = if share > 0.5 {
        "most of the weight"
    } else {
        "the largest share of the weight"
    };
    if let [(c, _, _)] = surest[..] {
        debug_assert_eq!(*c, top_c);
        return format!(
            "At γ = {g}, {} carries {how} ({}): its σ ({min:.2}) is the smallest, and the smaller γ, the more the surest criterion counts.",
            top_c.label(),
            pct(top_w)
        );
    }
    let names: Vec<&str> = surest.iter().map(|(c, _, _)| c.label()).collect();
    format!(
        "At γ = {g}, {} share {how} ({} together): their σ ({min:.2}) is the smallest, and the smaller γ, the more the surest criteria count.",
        names.join(", "),
        pct(share)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::harmonic_eval::weigh;
    use crate::scoring::gamma_axis::GAMMA_MIN;

    fn overall(hand: &Hand, gamma: f64) -> f64 {
        let r = hand.results();
        let ok: Vec<Option<&CriterionResult>> = r.iter().map(|r| r.as_ref().ok()).collect();
        weigh(&ok, gamma).1.unwrap()
    }

    fn sentence(hand: &Hand, gamma: f64) -> String {
        let r = hand.results();
        let ok: Vec<Option<&CriterionResult>> = r.iter().map(|r| r.as_ref().ok()).collect();
        let (w, _) = weigh(&ok, gamma);
        let items: Vec<(Criterion, Option<Scored>)> = Criterion::ALL
            .iter()
            .zip(&ok)
            .map(|(c, r)| (*c, r.map(|r| r.scored())))
            .collect();
        weight_sentence(&items, &w, gamma).unwrap()
    }

    #[test]
    fn the_bars_are_normalised_into_the_distribution_and_give_its_score_and_sigma() {
        let r = result(Criterion::Clarity, &[0, 0, 50, 100, 50]).unwrap();
        assert_eq!(r.distribution, [0.0, 0.0, 0.25, 0.5, 0.25]);
        assert_eq!(r.score, 4.0);
        assert!((r.sigma.unwrap() - 0.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(r.coverage, Some(1.0));
        // Scaling every bar changes nothing.
        assert_eq!(result(Criterion::Clarity, &[0, 0, 1, 2, 1]).unwrap(), r);
    }

    #[test]
    fn all_five_at_zero_is_refused_in_words_not_divided_by_zero() {
        let e = result(Criterion::Fluency, &[0; 5]).unwrap_err();
        assert!(e.contains("Fluency") && e.contains("zero"), "{e}");
        let hand = START.with_bars(Criterion::Fluency, [0; 5]);
        let r = hand.results();
        assert!(r[Criterion::Fluency.index()].is_err());
        let ok: Vec<Option<&CriterionResult>> = r.iter().map(|r| r.as_ref().ok()).collect();
        let (w, s) = weigh(&ok, 0.5);
        assert!(w[Criterion::Fluency.index()].is_none() && s.unwrap().is_finite());
    }

    #[test]
    fn bars_clamp_and_ratings_outside_one_to_five_are_ignored() {
        let h = START
            .with_bar(Criterion::Clarity, 3, 250)
            .with_bar(Criterion::Clarity, 0, 9)
            .with_bar(Criterion::Clarity, 6, 9);
        assert_eq!(h.bars(Criterion::Clarity), [0, 0, 100, 100, 20]);
    }

    #[test]
    fn presets_give_one_rating_two_or_all_five() {
        assert_eq!(Preset::Sure(4).bars(), [0, 0, 0, 100, 0]);
        assert_eq!(Preset::Split(1, 5).bars(), [100, 0, 0, 0, 100]);
        assert_eq!(Preset::Flat.bars(), [100; 5]);
        for p in Preset::ALL {
            assert_eq!(Preset::from_id(&p.id()), Some(p));
        }
        assert_eq!(
            result(Criterion::Correctness, &Preset::Sure(2).bars())
                .unwrap()
                .sigma,
            Some(0.0)
        );
        assert_eq!(
            result(Criterion::Correctness, &Preset::Split(2, 4).bars())
                .unwrap()
                .score,
            3.0
        );
    }

    #[test]
    fn the_same_distribution_everywhere_gives_the_same_score_at_every_gamma() {
        let hand = STEPS[0].hand;
        let at_default = overall(&hand, 0.75);
        for g in [GAMMA_MIN, 0.1, 0.3, 0.5, 0.9, 1.0] {
            assert_eq!(overall(&hand, g), at_default, "γ = {g}");
        }
        assert!(sentence(&hand, 0.4).starts_with("Every criterion is equally sure"));
    }

    #[test]
    fn a_certain_criterion_carries_all_the_weight_below_gamma_one() {
        let hand = STEPS[1].hand;
        let r = hand.results();
        let ok: Vec<Option<&CriterionResult>> = r.iter().map(|r| r.as_ref().ok()).collect();
        for g in [GAMMA_MIN, 0.5, 0.99] {
            let (w, s) = weigh(&ok, g);
            assert_eq!(w[Criterion::Fluency.index()], Some(1.0), "γ = {g}");
            assert_eq!(s, Some(5.0));
        }
        assert_eq!(weigh(&ok, 1.0).0[Criterion::Fluency.index()], Some(0.2));
        let said = sentence(&hand, 0.5);
        assert!(
            said.contains("Fluency carries all the weight") && said.contains("σ = 0"),
            "{said}"
        );
    }

    #[test]
    fn an_unsure_high_criterion_counts_only_as_gamma_grows() {
        let hand = STEPS[2].hand;
        let low = overall(&hand, 0.1);
        let high = overall(&hand, 1.0);
        assert!(low < 2.2 && high > low + 0.3, "{low} {high}");
        let said = sentence(&hand, 0.3);
        assert!(
            said.contains("Correctness, Clarity, Fluency, Conciseness share most of the weight")
                && said.contains("smallest"),
            "{said}"
        );
        assert!(sentence(&hand, 1.0).starts_with("At γ = 1 every criterion weighs the same"));
    }

    #[test]
    fn the_sentence_names_the_heaviest_criterion_and_its_sigma() {
        let hand = START;
        let r = hand.results();
        let sigmas: Vec<f64> = r
            .iter()
            .map(|r| r.as_ref().unwrap().sigma.unwrap())
            .collect();
        let surest = Criterion::ALL[sigmas
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .unwrap()
            .0];
        let said = sentence(&hand, 0.3);
        assert!(said.contains(surest.label()), "{said}");
        assert!(said.contains("most of the weight"), "{said}");
        let ok: Vec<Option<&CriterionResult>> = r.iter().map(|r| r.as_ref().ok()).collect();
        let items: Vec<(Criterion, Option<Scored>)> = Criterion::ALL
            .iter()
            .zip(&ok)
            .map(|(c, r)| (*c, r.map(|r| r.scored())))
            .collect();
        assert_eq!(weight_sentence(&items, &[None; 5], 0.3), None);
    }

    #[test]
    fn bars_round_trip_through_the_file_and_are_checked_against_the_distributions() {
        let v = START.to_json();
        let back = Hand::from_json(&v).unwrap();
        assert_eq!(back, START);
        let results: [Option<Result<CriterionResult, String>>; 5] = START.results().map(Some);
        assert!(agrees(&START, &results));
        let other = START.with_bar(Criterion::Clarity, 1, 77);
        assert!(!agrees(&other, &results));
        for bad in [
            serde_json::json!([1, 2]),
            serde_json::json!({"correctness": [1, 2, 3]}),
            serde_json::json!({"correctness": [0,0,0,0,101], "completeness": [1,1,1,1,1], "clarity": [1,1,1,1,1], "fluency": [1,1,1,1,1], "conciseness": [1,1,1,1,1]}),
        ] {
            assert!(Hand::from_json(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_marked_export_reopens_to_the_same_bars_and_numbers_and_a_tampered_one_is_refused() {
        use crate::metrics::harmonic_eval::{export_json, reopen, CriterionSet, ExportInput};
        let hand = START.with_bars(Criterion::Clarity, [0; 5]);
        let results = hand.results();
        let backend = crate::providers::Backend {
            model: MODEL.into(),
            ..Default::default()
        };
        let json = export_json(&ExportInput {
            gamma: 0.4,
            task: crate::scoring::task::Task::Ic,
            text: "A dog.",
            question: "",
            backend: &backend,
            results: std::array::from_fn(|i| Some(results[i].as_ref().map_err(Clone::clone))),
            fidelity: &crate::metrics::fidelity::Fidelity::paper(),
            criteria: CriterionSet::default(),
        });
        let marked = mark(&json, &hand);
        let v: Value = serde_json::from_str(&marked).unwrap();
        assert_eq!(v["model"], MODEL);
        assert_eq!(v["source"], SOURCE);
        let back = reopen::reopen(v.as_object().unwrap()).unwrap();
        assert_eq!(back.by_hand, Some(hand));
        assert_eq!(back.gamma, 0.4);
        for (i, r) in results.iter().enumerate() {
            assert_eq!(back.results[i].as_ref().unwrap(), r, "criterion {i}");
        }
        let mut tampered = v.clone();
        tampered["by_hand"]["fluency"] = serde_json::json!([1, 0, 0, 0, 0]);
        let e = reopen::reopen(tampered.as_object().unwrap()).unwrap_err();
        assert!(e.contains("set by hand"), "{e}");
        // A model's export has no bars.
        let plain: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            reopen::reopen(plain.as_object().unwrap()).unwrap().by_hand,
            None
        );
    }

    #[test]
    fn a_models_distribution_becomes_bars_with_its_largest_at_one_hundred() {
        assert_eq!(bars_of(&[0.0, 0.0, 0.1, 0.2, 0.7]), [0, 0, 14, 29, 100]);
        assert_eq!(bars_of(&[0.0; 5]), [100; 5]);
        let r = result(Criterion::Clarity, &[0, 0, 14, 29, 100]).unwrap();
        let hand = Hand::from_results(&[Some(&r), None, None, None, None]);
        assert_eq!(hand.bars(Criterion::Correctness), [0, 0, 14, 29, 100]);
        assert_eq!(hand.bars(Criterion::Fluency), [100; 5]);
    }

    #[test]
    fn a_weight_is_never_rounded_to_a_false_nothing_or_all() {
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(0.003), "<1%");
        assert_eq!(percent(0.997), ">99%");
        assert_eq!(percent(1.0), "100%");
        assert_eq!(percent(0.254), "25%");
    }

    #[test]
    fn every_step_has_a_sentence_and_a_gamma_in_range() {
        for s in STEPS {
            assert!(
                !s.sentence.is_empty() && (0.01..=1.0).contains(&s.gamma),
                "{}",
                s.title
            );
            assert!(s.hand.results().iter().all(Result::is_ok), "{}", s.title);
        }
    }
}
