//! FLEUR's score smoothing (paper §3.2 and Appendix B; SPEC §2): the printed score's decimal
//! digits are replaced by their expectation under the judge's token probabilities.
//!
//! FLEUR = Σ_{j=1,2} 10^-j Σ_{i=0..9} i·p(i, j), where p(i, j) is the probability of the token
//! for digit i at the step that printed the j-th decimal. Probabilities are the full-vocabulary
//! ones the server reports, **not** renormalised over the digits (a digit missing from the
//! top-k alternatives counts as 0). As in the authors' code:
//!
//! * the second decimal counts only when the printed number has a non-zero one (`0.80` is read
//!   as `0.8`: `len(str(score_check)) > 3`);
//! * a printed `1.0` (or `1`) is 0.9·P("0") + 1.0·P("1") at the units step;
//! * a printed `0` with no decimals goes the `str(0.0)` path: the tenths digit of `"0.0"` is
//!   `0`, found at the step that printed the `0`, so the score is 0.1·Σ i·p(i) at that step;
//! * a printed value outside [0, 1], or no number, is an error, not a score.
//!
//! **Multi-digit tokens (our rule).** GPT-4o writes `0.85` as `0`, `.`, `85`, so no step
//! prints the hundredths digit alone, and the paper's formula cannot be applied as written (the
//! HarmonicEval paper ran a GPT-4o "GPT-FLEUR" but gives no rule: "it could not be implemented
//! straightforwardly"). When the step that printed the tenths digit also printed more digits,
//! every alternative at that step is read as the decimal it would print there (`85` after
//! `0.` is 0.85, `9` is 0.9, to two places) and the score is Σ p(alt)·value(alt): the same
//! expectation, over the alternatives that step really had. This is our choice, applied only
//! where the tokenizer needs it; the result then says so (`Scheme::MultiDigit`, exported as the
//! extension `fleur-multi-digit`). For one-digit tokens the paper's formula applies unchanged.

use crate::answers::completion::TokenStep;
use crate::answers::errors::JudgeError;

/// Which digit of the printed number a step produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Units,
    Tenths,
    Hundredths,
}

impl Place {
    pub fn id(self) -> &'static str {
        match self {
            Place::Units => "units",
            Place::Tenths => "tenths",
            Place::Hundredths => "hundredths",
        }
    }
}

/// How the smoothed score was formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// One digit per token: the paper's per-digit sums.
    PerDigit,
    /// The tenths step printed several digits: alternatives read as decimals (our rule, see
    /// the module documentation).
    MultiDigit,
    /// A number without decimals: a printed `1.0` (or `1`) by the units-step rule, a printed
    /// `0` by the authors' `str(0.0)` path (0.1·E\[digit\] at its step).
    Units,
}

impl Scheme {
    pub fn id(self) -> &'static str {
        match self {
            Scheme::PerDigit => "per_digit",
            Scheme::MultiDigit => "multi_digit",
            Scheme::Units => "units",
        }
    }
}

/// The alternatives at one step, read at one place of the number.
#[derive(Clone, Debug, PartialEq)]
pub struct PlaceDistribution {
    pub place: Place,
    /// Index of the generated token.
    pub step: usize,
    pub token: String,
    /// Probability by the digit the alternative prints at this place (full vocabulary).
    pub digits: [f64; 10],
    /// Multi-digit scheme only: (alternative, the decimal it prints, its probability).
    pub readings: Vec<(String, f64, f64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Smoothed {
    /// The number as printed, e.g. `"0.85"`.
    pub printed: String,
    pub raw: f64,
    pub score: f64,
    pub scheme: Scheme,
    pub places: Vec<PlaceDistribution>,
    /// The answer repeated the instruction's scale before the score.
    pub after_echo: bool,
}

/// Byte span of the first number in `s` (`0.85`, `.85`, `1`), and whether a minus sign
/// precedes it.
fn first_number(s: &str) -> Option<(usize, usize, bool)> {
    let b = s.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let start = (0..b.len()).find(|&i| digit(i) || (b[i] == b'.' && digit(i + 1)))?;
    let mut end = start;
    while digit(end) {
        end += 1;
    }
    if b.get(end) == Some(&b'.') && digit(end + 1) {
        end += 1;
        while digit(end) {
            end += 1;
        }
    }
    let negative = start > 0 && b[start - 1] == b'-';
    Some((start, end, negative))
}

/// The first number of `s` that is not part of an echoed scale or range
/// ([`crate::answers::echo::is_scale_number`]: the `0.0` of "on a scale of 0.0 to 1.0", or the `0` of an
/// answer cut off at "…scale of 0."), and whether such an echo came before it.
fn score_number(s: &str) -> Option<((usize, usize, bool), bool)> {
    let mut from = 0;
    let mut after_echo = false;
    while let Some((start, end, negative)) = first_number(&s[from..]) {
        let (start, end) = (from + start, from + end);
        if !crate::answers::echo::is_scale_number(s, start, end) {
            return Some(((start, end, negative), after_echo));
        }
        after_echo = true;
        from = end;
    }
    None
}

/// The leading run of ASCII digits of `s`.
fn digit_run(s: &str) -> &str {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    &s[..n]
}

/// Every distinct alternative at a step (the chosen token counted once, duplicates added up)
/// with its probability.
fn alternatives(step: &TokenStep) -> Vec<(&str, f64)> {
    step.alternatives()
}

/// The step holding byte `at` of the joined text, and the offset inside its token.
fn locate(starts: &[usize], at: usize) -> (usize, usize) {
    let step = starts.partition_point(|&s| s <= at) - 1;
    (step, at - starts[step])
}

/// What each alternative at `step` prints from in-token offset `offset` on: the digit run
/// after the chosen token's prefix (alternatives with another prefix print something else).
fn runs_at(step: &TokenStep, offset: usize) -> Vec<(&str, &str, f64)> {
    let prefix = &step.token[..offset];
    alternatives(step)
        .into_iter()
        .filter_map(|(alt, p)| {
            let run = digit_run(alt.strip_prefix(prefix)?);
            (!run.is_empty()).then_some((alt, run, p))
        })
        .collect()
}

fn digit_of(run: &str) -> usize {
    usize::from(run.as_bytes()[0] - b'0')
}

fn place_distribution(
    step_index: usize,
    step: &TokenStep,
    offset: usize,
    place: Place,
) -> PlaceDistribution {
    let mut digits = [0.0; 10];
    for (_, run, p) in runs_at(step, offset) {
        digits[digit_of(run)] += p;
    }
    PlaceDistribution {
        place,
        step: step_index,
        token: step.token.clone(),
        digits,
        readings: Vec::new(),
    }
}

/// Probabilities of one step's alternatives cannot add up to more than 1; a server whose do
/// (found by fuzzing) would otherwise push a score past 1.
fn consistent(masses: impl IntoIterator<Item = f64>) -> Result<(), JudgeError> {
    let total: f64 = masses.into_iter().sum();
    if total.is_nan() || total > 1.0 + 1e-6 {
        return Err(JudgeError::BadResponse {
            detail: format!(
                "the token probabilities of one step add up to {total:.3}, more than 1"
            ),
        });
    }
    Ok(())
}

/// Smooths the printed score from the completion's steps. `text` is quoted in errors.
pub fn smooth(steps: &[TokenStep], text: &str, truncated: bool) -> Result<Smoothed, JudgeError> {
    if steps.is_empty() {
        return Err(JudgeError::NoLogprobs);
    }
    let mut joined = String::new();
    let mut starts = Vec::with_capacity(steps.len());
    for s in steps {
        starts.push(joined.len());
        joined.push_str(&s.token);
    }
    let no_number = || JudgeError::NoNumber {
        text: text.to_string(),
        truncated,
    };
    let ((start, end, negative), after_echo) = score_number(&joined).ok_or_else(no_number)?;
    let printed = joined[start..end].to_string();
    let raw: f64 = printed.parse().map_err(|_| no_number())?;
    // Decided on the text, not the float: ".99999999999999999" parses as 1.0 (found by
    // fuzzing) but has no units digit, and "1.000000000000000001" is more than 1.
    let (units, frac) = printed.split_once('.').unwrap_or((&printed, ""));
    let exactly_one = units.trim_start_matches('0') == "1" && frac.bytes().all(|b| b == b'0');
    let over_one = !exactly_one && units.bytes().any(|b| b != b'0');
    if negative || over_one || !(0.0..=1.0).contains(&raw) {
        return Err(JudgeError::OutOfRange {
            printed: if negative {
                format!("-{printed}")
            } else {
                printed
            },
            range: "0.0 to 1.0",
        });
    }
    let dot = printed.find('.');
    let (scheme, score, places) = if exactly_one || (frac.is_empty() && !units.is_empty()) {
        let units_end = start + dot.unwrap_or(printed.len());
        units_rule(steps, &starts, units_end, exactly_one)?
    } else {
        let tenths_at = start + dot.expect("has decimals") + 1;
        decimals_rule(steps, &starts, tenths_at, frac)?
    };
    Ok(Smoothed {
        printed,
        raw,
        score,
        scheme,
        places,
        after_echo,
    })
}

/// A scheme, its score and the distributions it read.
type Rule = (Scheme, f64, Vec<PlaceDistribution>);

/// The units rule: a number with no decimals is either 1 or 0 here.
fn units_rule(
    steps: &[TokenStep],
    starts: &[usize],
    units_end: usize,
    exactly_one: bool,
) -> Result<Rule, JudgeError> {
    let (si, offset) = locate(starts, units_end - 1);
    let d = place_distribution(si, &steps[si], offset, Place::Units);
    consistent(d.digits)?;
    let score = if exactly_one {
        0.9 * d.digits[0] + d.digits[1]
    } else {
        // The authors' code: `str(0.0)`'s tenths digit is 0, found at this step.
        0.1 * d
            .digits
            .iter()
            .enumerate()
            .map(|(i, p)| i as f64 * p)
            .sum::<f64>()
    };
    Ok((Scheme::Units, score, vec![d]))
}

/// A number with decimals: the tenths token's alternatives read as two-digit runs when the
/// printed token carries both digits, or tenths and hundredths read digit by digit.
fn decimals_rule(
    steps: &[TokenStep],
    starts: &[usize],
    tenths_at: usize,
    frac: &str,
) -> Result<Rule, JudgeError> {
    let (si, offset) = locate(starts, tenths_at);
    let chosen_run = digit_run(&steps[si].token[offset..]);
    if chosen_run.len() >= 2 {
        let mut d = place_distribution(si, &steps[si], offset, Place::Tenths);
        let mut score = 0.0;
        for (alt, run, p) in runs_at(&steps[si], offset) {
            let value = run
                .bytes()
                .take(2)
                .enumerate()
                .map(|(j, c)| f64::from(c - b'0') * 10f64.powi(-(j as i32 + 1)))
                .sum::<f64>();
            score += p * value;
            d.readings.push((alt.to_string(), value, p));
        }
        consistent(d.readings.iter().map(|r| r.2))?;
        return Ok((Scheme::MultiDigit, score, vec![d]));
    }

    let tenths = place_distribution(si, &steps[si], offset, Place::Tenths);
    consistent(tenths.digits)?;
    let expectation = |d: &PlaceDistribution| -> f64 {
        d.digits.iter().enumerate().map(|(i, p)| i as f64 * p).sum()
    };
    let mut score = 0.1 * expectation(&tenths);
    let mut places = vec![tenths];
    let second = frac.as_bytes().get(1).copied();
    if second.is_some_and(|c| c != b'0') {
        let (si2, offset2) = locate(starts, tenths_at + 1);
        let hundredths = place_distribution(si2, &steps[si2], offset2, Place::Hundredths);
        consistent(hundredths.digits)?;
        score += 0.01 * expectation(&hundredths);
        places.push(hundredths);
    }
    Ok((Scheme::PerDigit, score, places))
}

/// Fuzz harness (`fleur_smoothing`, run by `crate::fuzzing`): for any answer, a score is
/// always in [0, 1].
#[cfg(not(target_arch = "wasm32"))]
pub fn fuzz(steps: &[TokenStep], text: &str) {
    for truncated in [false, true] {
        if let Ok(s) = smooth(steps, text, truncated) {
            assert!(
                (0.0..=1.0 + 1e-9).contains(&s.score) && (0.0..=1.0).contains(&s.raw),
                "{s:?}"
            );
        }
    }
}

/// SPEC §2's test vector, shared by the tests that need it (here and in `candidates`).
#[cfg(test)]
pub(crate) mod spec_vector {
    /// SPEC §2's test vector: the paper's Appendix B example, printed "0.85".
    pub(crate) const P: [f64; 10] = [
        0.003021240234375,
        0.00128936767578125,
        0.0018758773803710938,
        0.00353240966796875,
        0.00827789306640625,
        0.03350830078125,
        0.07672119140625,
        0.2117919921875,
        0.383544921875,
        0.2763671875,
    ];
    pub(crate) const Q: [f64; 10] = [
        0.0450439453125,
        0.035614013671875,
        0.050628662109375,
        0.044342041015625,
        0.0400390625,
        0.3515625,
        0.048309326171875,
        0.041961669921875,
        0.04681396484375,
        0.035888671875,
    ];
}

#[cfg(test)]
mod tests {
    use super::spec_vector::{P, Q};
    use super::*;

    fn step(token: &str, top: &[(&str, f64)]) -> TokenStep {
        let p = top
            .iter()
            .find(|(t, _)| *t == token)
            .map(|(_, p)| *p)
            .unwrap_or(1.0);
        TokenStep {
            token: token.into(),
            logprob: p.ln(),
            top: top.iter().map(|(t, p)| (t.to_string(), p.ln())).collect(),
        }
    }

    fn sure(token: &str) -> TokenStep {
        step(token, &[(token, 1.0)])
    }

    fn digits_step(chosen: &str, p: &[f64; 10]) -> TokenStep {
        let names: Vec<String> = (0..10).map(|i| i.to_string()).collect();
        let top: Vec<(&str, f64)> = names
            .iter()
            .map(String::as_str)
            .zip(p.iter().copied())
            .collect();
        step(chosen, &top)
    }

    #[test]
    fn spec_test_vector_0_85() {
        let steps = [
            sure("0"),
            sure("."),
            digits_step("8", &P),
            digits_step("5", &Q),
        ];
        let s = smooth(&steps, "0.85", false).unwrap();
        assert_eq!(s.printed, "0.85");
        assert_eq!(s.raw, 0.85);
        assert_eq!(s.scheme, Scheme::PerDigit);
        assert!((s.score - 0.806172).abs() < 5e-7, "{}", s.score);
        assert_eq!(s.places.len(), 2);
        assert_eq!((s.places[0].place, s.places[0].step), (Place::Tenths, 2));
        assert_eq!(
            (s.places[1].place, s.places[1].step),
            (Place::Hundredths, 3)
        );
        // Not renormalised: the digit masses are the reported probabilities.
        assert!((s.places[0].digits[8] - P[8]).abs() < 1e-15);
    }

    #[test]
    fn the_one_point_zero_rule() {
        let steps = [
            step("1", &[("1", 0.7), ("0", 0.25), ("The", 0.05)]),
            sure("."),
            step("0", &[("0", 0.9), ("5", 0.1)]),
        ];
        let s = smooth(&steps, "1.0", false).unwrap();
        assert_eq!(s.scheme, Scheme::Units);
        assert!((s.score - (0.9 * 0.25 + 0.7)).abs() < 1e-12);
        assert_eq!(s.places[0].place, Place::Units);
    }

    #[test]
    fn one_decimal_uses_only_the_tenths_step_and_a_zero_second_decimal_is_ignored() {
        let tenths = step("7", &[("7", 0.6), ("8", 0.3), ("6", 0.1)]);
        let one = smooth(&[sure("0"), sure("."), tenths.clone()], "0.7", false).unwrap();
        assert!((one.score - 0.1 * (7.0 * 0.6 + 8.0 * 0.3 + 6.0 * 0.1)).abs() < 1e-12);
        assert_eq!(one.places.len(), 1);
        let zero_second = [
            sure("0"),
            sure("."),
            tenths,
            step("0", &[("0", 0.5), ("5", 0.5)]),
        ];
        let s = smooth(&zero_second, "0.70", false).unwrap();
        assert!((s.score - one.score).abs() < 1e-15, "0.70 is read as 0.7");
    }

    #[test]
    fn multi_digit_tokens_are_read_as_decimals() {
        // GPT-4o: "0", ".", "85" with alternatives "85", "8", "9", "75", "90".
        let steps = [
            sure("0"),
            sure("."),
            step(
                "85",
                &[
                    ("85", 0.5),
                    ("8", 0.2),
                    ("9", 0.1),
                    ("75", 0.1),
                    ("90", 0.05),
                    ("<", 0.05),
                ],
            ),
        ];
        let s = smooth(&steps, "0.85", false).unwrap();
        assert_eq!(s.scheme, Scheme::MultiDigit);
        let expected = 0.5 * 0.85 + 0.2 * 0.8 + 0.1 * 0.9 + 0.1 * 0.75 + 0.05 * 0.9;
        assert!((s.score - expected).abs() < 1e-12, "{}", s.score);
        assert_eq!(
            s.places[0].readings.len(),
            5,
            "the non-digit alternative is left out"
        );
        assert!((s.places[0].digits[8] - 0.7).abs() < 1e-12);
    }

    #[test]
    fn digits_inside_a_longer_token_keep_its_prefix() {
        // A tokenizer that merges "0." into one token and the decimal into ".8".
        let steps = [
            sure("Score: "),
            step("0.8", &[("0.8", 0.6), ("0.9", 0.4), ("1.0", 0.0)]),
        ];
        let s = smooth(&steps, "Score: 0.8", false).unwrap();
        assert!(
            (s.score - 0.1 * (8.0 * 0.6 + 9.0 * 0.4)).abs() < 1e-12,
            "{}",
            s.score
        );
    }

    #[test]
    fn invalid_outputs_are_errors() {
        let out = smooth(&[sure("1"), sure("."), sure("5")], "1.5", false).unwrap_err();
        assert!(matches!(&out, JudgeError::OutOfRange { printed, .. } if printed == "1.5"));
        assert!(out
            .to_string()
            .contains("outside the score range 0.0 to 1.0"));
        let neg = smooth(&[sure("-"), sure("0"), sure("."), sure("2")], "-0.2", false).unwrap_err();
        assert!(matches!(neg, JudgeError::OutOfRange { .. }));
        let none = smooth(&[sure("Good"), sure(" caption")], "Good caption", true).unwrap_err();
        assert!(none.to_string().contains("no score") && none.to_string().contains("cut off"));
        assert_eq!(smooth(&[], "0.5", false), Err(JudgeError::NoLogprobs));
    }

    #[test]
    fn a_printed_zero_without_decimals_follows_the_authors_str_path() {
        // `str(0.0)` is "0.0": its tenths digit 0 is looked up at the step that printed "0",
        // and the score is 0.1·E[digit] there.
        let s = smooth(&[step("0", &[("0", 0.8), ("1", 0.2)])], "0", false).unwrap();
        assert!((s.score - 0.1 * 0.2).abs() < 1e-12, "{}", s.score);
        let s = smooth(
            &[step("0", &[("0", 0.5), ("7", 0.3), ("1", 0.2)])],
            "0",
            false,
        )
        .unwrap();
        assert!(
            (s.score - 0.1 * (7.0 * 0.3 + 0.2)).abs() < 1e-12,
            "{}",
            s.score
        );
        assert_eq!(s.scheme, Scheme::Units);
    }

    #[test]
    fn probabilities_adding_up_past_one_are_refused_not_scored_past_one() {
        // Found by fuzzing: a server listing "85" and "80" at 0.82 and 0.61 made 1.30.
        let step = |token: &str, top: &[(&str, f64)]| TokenStep {
            token: token.into(),
            logprob: top[0].1.ln(),
            top: top.iter().map(|(t, p)| (t.to_string(), p.ln())).collect(),
        };
        let steps = [
            step("0", &[("0", 1.0)]),
            step(".", &[(".", 1.0)]),
            step("85", &[("85", 0.82), ("80", 0.61), ("9", 0.135)]),
        ];
        let err = smooth(&steps, "0.85", false).unwrap_err().to_string();
        assert!(err.contains("add up to 1.565, more than 1"), "{err}");
        let per_digit = [
            step("0", &[("0", 1.0)]),
            step(".", &[(".", 1.0)]),
            step("8", &[("8", 0.7), ("9", 0.7)]),
        ];
        assert!(smooth(&per_digit, "0.8", false).is_err());
    }

    #[test]
    fn numbers_are_judged_by_their_text_not_their_float() {
        // Found by fuzzing: 35 nines after the point parse as 1.0 and sent the units rule to
        // the byte before the number.
        let nines = format!(".{}", "9".repeat(34));
        let steps = [TokenStep {
            token: format!("\u{fffd}{nines}"),
            logprob: -0.1,
            top: Vec::new(),
        }];
        let s = smooth(&steps, &nines, false).unwrap();
        assert_eq!(s.scheme, Scheme::MultiDigit);
        assert!(s.score <= 1.0);
        // More than 1 by text, 1.0 as a float: out of range.
        let steps = [TokenStep {
            token: "1.0000000000000000001".into(),
            logprob: -0.1,
            top: Vec::new(),
        }];
        assert!(matches!(
            smooth(&steps, "", false),
            Err(JudgeError::OutOfRange { .. })
        ));
    }
}
