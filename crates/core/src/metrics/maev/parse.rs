//! Reading a MAEV trial answer. The instruction asks for a JSON-like
//! `'Evaluation Evidence': …` / `'Assistant Score': …`, the examples show
//! `Evaluation Evidence: …` / `Assistant Score: "2"`, and models also write real JSON; all are
//! read. The score is the digit after the last "Assistant Score" label; with token
//! probabilities it is the expected value over the alternatives 0, 1, 2 at that step
//! (renormalised), otherwise the printed digit. The expected value, and accepting a printed 1,
//! are our extension (`ext-maev-expected-score`); the paper's reading is in
//! `maev::read_trial`, which calls this without steps and refuses a 1.

use crate::answers::completion::TokenStep;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreSource {
    Probabilities,
    Printed,
}

impl ScoreSource {
    pub fn id(self) -> &'static str {
        match self {
            ScoreSource::Probabilities => "probabilities",
            ScoreSource::Printed => "printed",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TrialReading {
    pub evidence: String,
    pub printed: u8,
    /// In [0, 2].
    pub score: f64,
    pub source: ScoreSource,
    /// Filled in by [`super::read_completion`] from the completion.
    pub usage: Option<crate::answers::completion::Usage>,
    /// Why the score may not mean what it says; filled in by [`super::read_completion`].
    pub doubts: Vec<crate::answers::doubt::Doubt>,
}

const SCORE_LABEL: &str = "assistant score";
const EVIDENCE_LABEL: &str = "evaluation evidence";

/// Byte offset of the last case-insensitive occurrence of an ASCII `label`.
fn rfind_label(text: &str, label: &str) -> Option<usize> {
    let lower = text.to_ascii_lowercase();
    lower.rfind(label)
}

/// The printed score digit's byte offset: after the label, past quotes, colons, spaces and `<`.
fn score_digit(text: &str) -> Option<(usize, u8)> {
    let at = rfind_label(text, SCORE_LABEL)? + SCORE_LABEL.len();
    let rest = &text[at..];
    let skip = rest
        .char_indices()
        .find(|(_, c)| !matches!(c, '\'' | '"' | ':' | ' ' | '<' | '*' | '\n' | '\t'))
        .map(|(i, _)| i)?;
    let b = rest.as_bytes();
    let digit = *b.get(skip)?;
    if !digit.is_ascii_digit() || b.get(skip + 1).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    // The instruction's "0 or 2" (or a cut-off "0 or "), echoed: not a score.
    if crate::answers::echo::is_scale_number(text, at + skip, at + skip + 1) {
        return None;
    }
    let value = digit - b'0';
    (value <= 2).then_some((at + skip, value))
}

fn evidence(text: &str) -> String {
    let end = rfind_label(text, SCORE_LABEL).unwrap_or(text.len());
    let Some(start) = rfind_label(&text[..end], EVIDENCE_LABEL) else {
        return text[..end].trim().to_string();
    };
    let body = &text[start + EVIDENCE_LABEL.len()..end];
    let trim = |c: char| matches!(c, '\'' | '"' | ':' | ',' | '{' | '}' | '*') || c.is_whitespace();
    body.trim_matches(trim).to_string()
}

/// Reads one trial; `Err` carries the sentence for a trial that cannot be read.
pub fn read_trial(text: &str, steps: Option<&[TokenStep]>) -> Result<TrialReading, String> {
    let Some((_, printed)) = score_digit(text) else {
        let shown: String = text.chars().take(160).collect();
        return Err(format!(
            "No \u{201c}Assistant Score\u{201d} of 0, 1 or 2 in the answer: \u{201c}{shown}\u{201d}"
        ));
    };
    let evidence = evidence(text);
    let smoothed = steps.and_then(expected_score);
    Ok(TrialReading {
        evidence,
        printed,
        score: smoothed.unwrap_or(f64::from(printed)),
        source: if smoothed.is_some() {
            ScoreSource::Probabilities
        } else {
            ScoreSource::Printed
        },
        usage: None,
        doubts: Vec::new(),
    })
}

/// The doubts about a trial's score in a whole completion: cut off right after it, or after an
/// echoed scale.
pub fn doubts_of(c: &crate::answers::completion::Completion) -> Vec<crate::answers::doubt::Doubt> {
    let at = score_digit(&c.text).map_or(0, |(at, _)| at);
    crate::answers::doubt::assess(
        c.truncated,
        crate::answers::doubt::near_end_of_text(&c.text, at + 1),
        None,
        crate::answers::echo::has_scale_echo(&c.text[..at]),
    )
}

/// Σ v·p over the alternatives 0, 1, 2 at the step that printed the score, renormalised.
fn expected_score(steps: &[TokenStep]) -> Option<f64> {
    let mut joined = String::new();
    let mut starts = Vec::with_capacity(steps.len());
    for s in steps {
        starts.push(joined.len());
        joined.push_str(&s.token);
    }
    let (at, _) = score_digit(&joined)?;
    let si = starts.partition_point(|&s| s <= at) - 1;
    let step = &steps[si];
    let prefix = &step.token[..at - starts[si]];
    let (mut mass, mut total) = (0.0, 0.0);
    for (alt, p) in step.alternatives() {
        let Some(rest) = alt.strip_prefix(prefix) else {
            continue;
        };
        let mut chars = rest.chars();
        let Some(d @ '0'..='2') = chars.next() else {
            continue;
        };
        if chars.next().is_some_and(|c| c.is_ascii_digit()) {
            continue;
        }
        mass += f64::from(d as u8 - b'0') * p;
        total += p;
    }
    (total > 0.0).then(|| mass / total)
}

/// Fuzz harness (`maev_trial`, run by `crate::fuzzing`): for any answer, a trial's score is
/// in [0, 2].
#[cfg(not(target_arch = "wasm32"))]
pub fn fuzz(steps: &[TokenStep], text: &str) {
    for s in [Some(steps), None] {
        if let Ok(t) = read_trial(text, s) {
            assert!((0.0..=2.0 + 1e-9).contains(&t.score), "{}", t.score);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_instructed_json_like_form() {
        let t = "'Evaluation Evidence': The answer invents a red car.\n'Assistant Score': 0";
        let r = read_trial(t, None).unwrap();
        assert_eq!(
            (r.printed, r.score, r.source),
            (0, 0.0, ScoreSource::Printed)
        );
        assert_eq!(r.evidence, "The answer invents a red car.");
    }

    #[test]
    fn reads_the_examples_form_and_real_json() {
        let t = "Evaluation Evidence: Mirrors the caption.\nAssistant Score: \"2\"";
        let r = read_trial(t, None).unwrap();
        assert_eq!(
            (r.printed, r.evidence.as_str()),
            (2, "Mirrors the caption.")
        );
        let t = r#"{"Evaluation Evidence": "Accurate.", "Assistant Score": 2}"#;
        let r = read_trial(t, None).unwrap();
        assert_eq!((r.printed, r.evidence.as_str()), (2, "Accurate."));
        let t = "**Evaluation Evidence**: ok\n**Assistant Score**: <2>";
        assert_eq!(read_trial(t, None).unwrap().printed, 2);
    }

    #[test]
    fn unreadable_answers_are_errors_not_zeros() {
        assert!(read_trial("I think it is fine.", None)
            .unwrap_err()
            .contains("No \u{201c}Assistant Score"));
        assert!(read_trial("Assistant Score: 5", None).is_err());
        assert!(read_trial("Assistant Score: 10", None).is_err());
        // The instruction echoed: "0 or 2" is the choice, not an answer.
        assert!(read_trial("'Assistant Score': 0 or 2", None).is_err());
        assert!(read_trial("'Assistant Score': 0 or ", None).is_err());
    }

    #[test]
    fn a_cut_off_answer_is_doubtful() {
        let c = crate::answers::completion::Completion {
            text: "Evaluation Evidence: fine.\nAssistant Score: 2".into(),
            steps: None,
            usage: None,
            model: None,
            truncated: true,
        };
        assert_eq!(doubts_of(&c), [crate::answers::doubt::Doubt::Truncated]);
        let whole = crate::answers::completion::Completion {
            truncated: false,
            ..c
        };
        assert!(doubts_of(&whole).is_empty());
    }

    #[test]
    fn probabilities_give_an_expected_score() {
        let tok = |t: &str| TokenStep {
            token: t.into(),
            logprob: 0.0,
            top: vec![],
        };
        let score = TokenStep {
            token: "2".into(),
            logprob: 0.7f64.ln(),
            top: vec![
                ("2".into(), 0.7f64.ln()),
                ("0".into(), 0.2f64.ln()),
                ("The".into(), 0.1f64.ln()),
            ],
        };
        let steps = [
            tok("Evaluation Evidence: fine.\nAssistant Score: \""),
            score,
            tok("\""),
        ];
        let text: String = steps.iter().map(|s| s.token.as_str()).collect();
        let r = read_trial(&text, Some(&steps)).unwrap();
        assert_eq!(r.source, ScoreSource::Probabilities);
        assert!((r.score - 1.4 / 0.9).abs() < 1e-12, "{}", r.score);
    }
}
