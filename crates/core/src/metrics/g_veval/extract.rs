//! Reading G-VEval's scores (SPEC §3): the integer after the `$` that opens the final score
//! ("The final score is $85$"), or after each ACCR letter (α85α, β…β, ψ…ψ, δ…δ), smoothed
//! from that token's `top_logprobs`.
//!
//! * **Integer tokens** (GPT-4o writes 0..100 as single tokens): the expected value over the
//!   alternatives that are integers 0..=100, renormalised over those integers, as the authors
//!   do.
//! * **Split digits** (llama.cpp models write `85` as `8`, `5`): for one- and two-digit scores
//!   each position is smoothed over its single-digit alternatives (renormalised) and the
//!   positions are chained, 10·E\[d1\] + E\[d2\]. A three-digit score (100), or digits we cannot
//!   line up with the tokens, falls back to the printed integer.
//! * **No probabilities** (Anthropic, or token text that does not spell the answer): the
//!   printed integer, marked unsmoothed.
//!
//! The final score is the *last* "final score is $…$" in the answer, so `$` signs in the
//! reasoning ("costs $5") are never mistaken for it; without that sentence, the last `$n$`.

use crate::answers::completion::TokenStep;
use crate::answers::errors::JudgeError;

/// How a score was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    IntegerTokens,
    ChainedDigits,
    Parsed,
}

impl Method {
    pub fn id(self) -> &'static str {
        match self {
            Method::IntegerTokens => "integer_tokens",
            Method::ChainedDigits => "chained_digits",
            Method::Parsed => "parsed",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// The integer as printed.
    pub printed: u32,
    /// Expected value (or the printed integer for `Parsed`), in 0..=100.
    pub score: f64,
    pub method: Method,
    /// The generated token the smoothing read, if any.
    pub step: Option<usize>,
    /// Integer tokens: (value, renormalised probability), by value.
    pub distribution: Vec<(u32, f64)>,
    /// The score stands within the last few tokens (or characters) of the answer.
    pub near_end: bool,
    /// A scale's number (`$0$ to $100$`) came earlier and was passed over.
    pub after_echo: bool,
}

/// Byte span of the digits of the last `open<digits>close` in `s` (spaces allowed inside).
/// With `lead`, only occurrences right after that phrase (case-insensitive; spaces and `*`
/// between) count.
fn last_wrapped(s: &str, open: char, close: char, lead: Option<&str>) -> Option<(usize, usize)> {
    let mut found = None;
    for (i, c) in s.char_indices() {
        if c != open {
            continue;
        }
        if let Some(lead) = lead {
            let before = s[..i].trim_end_matches([' ', '*', '\n']);
            let tail = before
                .len()
                .checked_sub(lead.len())
                .and_then(|k| before.get(k..));
            if !tail.is_some_and(|t| t.eq_ignore_ascii_case(lead)) {
                continue;
            }
        }
        let after = &s[i + c.len_utf8()..];
        let skip = after.len() - after.trim_start_matches(' ').len();
        let digits_start = i + c.len_utf8() + skip;
        let digits = s[digits_start..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        if digits == 0 {
            continue;
        }
        let rest = s[digits_start + digits..].trim_start_matches(' ');
        if rest.starts_with(close) {
            let end = digits_start + digits;
            // "$0$ to $100$" echoed from a scale is not a score.
            let wrapped_end = end + (s.len() - end - rest.len()) + close.len_utf8();
            if crate::answers::echo::is_scale_number(s, i, wrapped_end) {
                continue;
            }
            found = Some((digits_start, end));
        }
    }
    found
}

fn join(steps: &[TokenStep]) -> (String, Vec<usize>) {
    let mut joined = String::new();
    let mut starts = Vec::with_capacity(steps.len());
    for s in steps {
        starts.push(joined.len());
        joined.push_str(&s.token);
    }
    (joined, starts)
}

/// Distinct alternatives at a step (chosen token included, duplicates added up) with
/// probabilities.
fn alternatives(step: &TokenStep) -> Vec<(&str, f64)> {
    step.alternatives()
}

/// The digit run an alternative prints after `prefix`, if the run is all it prints in digits.
fn run_after<'a>(alt: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = alt.strip_prefix(prefix)?.trim_start_matches(' ');
    let n = rest.bytes().take_while(u8::is_ascii_digit).count();
    (n > 0).then_some(&rest[..n])
}

fn parsed(printed: u32) -> Reading {
    Reading {
        printed,
        score: f64::from(printed),
        method: Method::Parsed,
        step: None,
        distribution: Vec::new(),
        near_end: false,
        after_echo: false,
    }
}

/// Smooths the integer whose digits are at `span` of the joined token text.
fn smooth_at(steps: &[TokenStep], starts: &[usize], span: (usize, usize), printed: u32) -> Reading {
    let locate = |at: usize| {
        let si = starts.partition_point(|&s| s <= at) - 1;
        (si, at - starts[si])
    };
    let (si, offset) = locate(span.0);
    let step = &steps[si];
    let prefix = &step.token[..offset];
    let len = span.1 - span.0;
    let chosen_run = run_after(&step.token, prefix).map_or(0, str::len);
    if chosen_run == len {
        let mut dist: Vec<(u32, f64)> = alternatives(step)
            .into_iter()
            .filter_map(|(alt, p)| {
                let v: u32 = run_after(alt, prefix)?.parse().ok()?;
                (v <= 100).then_some((v, p))
            })
            .collect();
        let total: f64 = dist.iter().map(|(_, p)| p).sum();
        if total > 0.0 {
            dist.iter_mut().for_each(|(_, p)| *p /= total);
            crate::scoring::small_sort::sort_by_key(&mut dist, |(v, _)| *v);
            let score = dist.iter().map(|(v, p)| f64::from(*v) * p).sum();
            return Reading {
                printed,
                score,
                method: Method::IntegerTokens,
                step: Some(si),
                distribution: dist,
                near_end: false,
                after_echo: false,
            };
        }
        return parsed(printed);
    }
    // One digit per token: chain positions for one- and two-digit scores.
    if chosen_run != 1 || len > 2 {
        return parsed(printed);
    }
    let mut score = 0.0;
    for j in 0..len {
        let (sj, oj) = locate(span.0 + j);
        let step = &steps[sj];
        let prefix = &step.token[..oj];
        let digits: Vec<(f64, f64)> = alternatives(step)
            .into_iter()
            .filter_map(|(alt, p)| {
                let run = run_after(alt, prefix)?;
                (run.len() == 1).then(|| (f64::from(run.as_bytes()[0] - b'0'), p))
            })
            .collect();
        let total: f64 = digits.iter().map(|(_, p)| p).sum();
        if total <= 0.0 || run_after(&step.token, prefix).map(str::len) != Some(1) {
            return parsed(printed);
        }
        let expected: f64 = digits.iter().map(|(d, p)| d * p).sum::<f64>() / total;
        score += expected * 10f64.powi((len - 1 - j) as i32);
    }
    Reading {
        printed,
        score: score.min(100.0),
        method: Method::ChainedDigits,
        step: Some(si),
        distribution: Vec::new(),
        near_end: false,
        after_echo: false,
    }
}

/// Reads the wrapped integer: from the tokens when they spell the answer, else from the text.
fn read(
    steps: Option<&[TokenStep]>,
    text: &str,
    truncated: bool,
    open: char,
    close: char,
    lead: Option<&str>,
) -> Result<Reading, JudgeError> {
    let printed_at = |s: &str, span: (usize, usize)| -> Result<u32, JudgeError> {
        let digits = &s[span.0..span.1];
        match digits.parse::<u32>() {
            Ok(v) if v <= 100 => Ok(v),
            _ => Err(JudgeError::OutOfRange {
                printed: digits.to_string(),
                range: "0 to 100",
            }),
        }
    };
    let find = |s: &str| {
        last_wrapped(s, open, close, lead).or_else(|| lead.and(last_wrapped(s, open, close, None)))
    };
    let echoed = |s: &str, span: (usize, usize)| crate::answers::echo::has_scale_echo(&s[..span.0]);
    if let Some(steps) = steps.filter(|s| !s.is_empty()) {
        let (joined, starts) = join(steps);
        if let Some(span) = find(&joined) {
            let printed = printed_at(&joined, span)?;
            let mut reading = smooth_at(steps, &starts, span, printed);
            let last = starts.partition_point(|&s| s < span.1).saturating_sub(1);
            reading.near_end = crate::answers::doubt::near_end_of_steps(steps, last);
            reading.after_echo = echoed(&joined, span);
            return Ok(reading);
        }
    }
    let span = find(text).ok_or_else(|| JudgeError::NoNumber {
        text: text.to_string(),
        truncated,
    })?;
    let mut reading = parsed(printed_at(text, span)?);
    reading.near_end = crate::answers::doubt::near_end_of_text(text, span.1);
    reading.after_echo = echoed(text, span);
    Ok(reading)
}

/// The final score: the integer in the last "The final score is $…$".
pub fn final_score(
    steps: Option<&[TokenStep]>,
    text: &str,
    truncated: bool,
) -> Result<Reading, JudgeError> {
    read(steps, text, truncated, '$', '$', Some("final score is"))
}

/// The four ACCR dimensions, in the prompt's order, with the letter that wraps each.
pub const ACCR: [(&str, char); 4] = [
    ("accuracy", 'α'),
    ("completeness", 'β'),
    ("conciseness", 'ψ'),
    ("relevance", 'δ'),
];

/// The four ACCR scores (accuracy, completeness, conciseness, relevance). One that is missing
/// is an error naming it.
pub fn accr_scores(
    steps: Option<&[TokenStep]>,
    text: &str,
    truncated: bool,
) -> Result<[Reading; 4], JudgeError> {
    let mut out = Vec::with_capacity(4);
    for (name, letter) in ACCR {
        let r = read(steps, text, truncated, letter, letter, None).map_err(|e| match e {
            JudgeError::NoNumber { text, truncated } => JudgeError::NoNumber {
                text: format!("(no {name} score wrapped in {letter}…{letter}) {text}"),
                truncated,
            },
            other => other,
        })?;
        out.push(r);
    }
    Ok(out.try_into().expect("four dimensions"))
}

/// Fuzz harness (`g_veval_extract`, run by `crate::fuzzing`): for any answer, `$score$` and
/// the ACCR scores are finite and every probability is in [0, 1].
#[cfg(not(target_arch = "wasm32"))]
pub fn fuzz(steps: &[TokenStep], text: &str) {
    let probability = |p: f64| (-1e-9..=1.0 + 1e-9).contains(&p);
    for s in [Some(steps), None] {
        if let Ok(r) = final_score(s, text, false) {
            assert!(r.score.is_finite() && r.distribution.iter().all(|&(_, p)| probability(p)));
        }
        if let Ok(rs) = accr_scores(s, text, false) {
            assert!(rs.iter().all(|r| r.score.is_finite()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(token: &str, top: &[(&str, f64)]) -> TokenStep {
        let p = top
            .iter()
            .find(|(t, _)| *t == token)
            .map_or(1.0, |(_, p)| *p);
        TokenStep {
            token: token.into(),
            logprob: p.ln(),
            top: top.iter().map(|(t, p)| (t.to_string(), p.ln())).collect(),
        }
    }

    fn words(text: &str) -> Vec<TokenStep> {
        text.split_inclusive(' ')
            .map(|w| step(w, &[(w, 1.0)]))
            .collect()
    }

    fn with_tail(reasoning: &str, tail: Vec<TokenStep>) -> (Vec<TokenStep>, String) {
        let mut steps = words(reasoning);
        steps.extend(tail);
        let text = steps.iter().map(|s| s.token.as_str()).collect();
        (steps, text)
    }

    #[test]
    fn integer_token_after_the_dollar_renormalised_over_integers() {
        let alts = [("85", 0.5), ("80", 0.3), ("90", 0.15), ("The", 0.05)];
        let (steps, text) = with_tail(
            "The caption is accurate. The final score is ",
            vec![
                step("$", &[("$", 1.0)]),
                step("85", &alts),
                step("$.", &[("$.", 1.0)]),
            ],
        );
        let r = final_score(Some(&steps), &text, false).unwrap();
        assert_eq!((r.printed, r.method), (85, Method::IntegerTokens));
        let expected = (85.0 * 0.5 + 80.0 * 0.3 + 90.0 * 0.15) / 0.95;
        assert!((r.score - expected).abs() < 1e-12, "{}", r.score);
        assert_eq!(
            r.distribution.iter().map(|d| d.0).collect::<Vec<_>>(),
            vec![80, 85, 90]
        );
        assert_eq!(r.step, Some(steps.len() - 2));
    }

    #[test]
    fn dollars_in_the_reasoning_do_not_count_only_the_last_final_score_does() {
        let (steps, text) = with_tail(
            "A $5 hat; earlier I said The final score is $10$ but on reflection The final score is ",
            vec![step("$", &[("$", 1.0)]), step("70", &[("70", 0.8), ("60", 0.2)]), step("$", &[("$", 1.0)])],
        );
        let r = final_score(Some(&steps), &text, false).unwrap();
        assert_eq!(r.printed, 70);
        assert!((r.score - 68.0).abs() < 1e-12);
    }

    #[test]
    fn accr_reads_four_wrapped_scores() {
        let mut tail = Vec::new();
        for (name, letter, value) in [
            ("Accuracy", "α", "80"),
            ("Completeness", "β", "60"),
            ("Conciseness", "ψ", "90"),
            ("Relevance", "δ", "100"),
        ] {
            tail.extend(words(&format!(" The {name} score is ")));
            tail.push(step(letter, &[(letter, 1.0)]));
            tail.push(step(value, &[(value, 0.9), ("50", 0.1)]));
            tail.push(step(letter, &[(letter, 1.0)]));
            tail.push(step(".", &[(".", 1.0)]));
        }
        let (steps, text) = with_tail("Reasoning.", tail);
        let r = accr_scores(Some(&steps), &text, false).unwrap();
        let scores: Vec<f64> = r.iter().map(|x| x.score).collect();
        let expected = [
            0.9 * 80.0 + 5.0,
            0.9 * 60.0 + 5.0,
            0.9 * 90.0 + 5.0,
            0.9 * 100.0 + 5.0,
        ];
        for (a, b) in scores.iter().zip(expected) {
            assert!((a - b).abs() < 1e-9, "{scores:?}");
        }
        assert!(r.iter().all(|x| x.method == Method::IntegerTokens));
        let missing = accr_scores(None, "The Accuracy score is α80α.", false).unwrap_err();
        assert!(missing.to_string().contains("completeness"), "{missing}");
    }

    #[test]
    fn split_digit_tokenizers_chain_positions_and_100_falls_back() {
        let d8 = [("8", 0.6), ("7", 0.4)];
        let d5 = [("5", 0.5), ("0", 0.5)];
        let (steps, text) = with_tail(
            "Fine. The final score is ",
            vec![
                step("$", &[("$", 1.0)]),
                step("8", &d8),
                step("5", &d5),
                step("$", &[("$", 1.0)]),
            ],
        );
        let r = final_score(Some(&steps), &text, false).unwrap();
        assert_eq!(r.method, Method::ChainedDigits);
        assert!((r.score - (10.0 * 7.6 + 2.5)).abs() < 1e-12, "{}", r.score);
        let (steps, text) = with_tail(
            "Perfect. The final score is ",
            vec![
                step("$", &[("$", 1.0)]),
                step("1", &[("1", 1.0)]),
                step("0", &[("0", 1.0)]),
                step("0", &[("0", 1.0)]),
                step("$", &[("$", 1.0)]),
            ],
        );
        let r = final_score(Some(&steps), &text, false).unwrap();
        assert_eq!((r.method, r.score), (Method::Parsed, 100.0));
    }

    #[test]
    fn without_probabilities_the_printed_integer_is_used() {
        let r = final_score(None, "Good.\n\nThe final score is $ 72 $.", false).unwrap();
        assert_eq!((r.printed, r.score, r.method), (72, 72.0, Method::Parsed));
        // A **bold** sentence still counts.
        let r = final_score(None, "**The final score is $64$**", false).unwrap();
        assert_eq!(r.printed, 64);
    }

    #[test]
    fn out_of_range_and_missing_scores_are_errors() {
        let e = final_score(None, "The final score is $120$.", false).unwrap_err();
        assert!(matches!(e, JudgeError::OutOfRange { .. }), "{e:?}");
        let e = final_score(None, "I think it is good.", true).unwrap_err();
        assert!(e.to_string().contains("cut off"));
        // Without the sentence, the last $n$ anywhere is taken.
        assert_eq!(final_score(None, "Score: $55$", false).unwrap().printed, 55);
    }
}
