//! Why a score may not mean what it says, in a short code for the page and the export and a
//! sentence for a person.
//!
//! A score is shown only when it was read from the judge's answer to the question asked (see
//! [`crate::answers::echo`]). Even then three things make it doubtful, and the card says so beside the
//! number:
//!
//! * the answer was cut off at the output limit and the score came only at its very end, so the
//!   model may have been about to write something else (`4` of an unfinished `4.5`, or a word);
//! * little of the probability at the rating step was on the rating tokens (low coverage): the
//!   model was mostly about to write something else there;
//! * the answer repeated the instruction's scale before its score: a weak judge that echoes its
//!   prompt may be echoing the score's place too.

use crate::answers::completion::TokenStep;

/// Coverage below this is reported as low. Half the mass elsewhere means the distribution over
/// ratings describes the lesser part of what the model was about to write.
pub const LOW_COVERAGE: f64 = 0.5;

/// A score found within this many generated tokens of the end of an answer that was cut off
/// is doubtful.
pub const NEAR_END_TOKENS: usize = 3;

/// Without tokens (a printed answer only), the same rule counted in characters.
pub const NEAR_END_CHARS: usize = 12;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Doubt {
    /// Cut off at the output limit, the score only at the end.
    Truncated,
    /// Coverage under [`LOW_COVERAGE`].
    LowCoverage,
    /// The answer repeated the instruction's scale before the score.
    Echo,
}

impl Doubt {
    /// The doubts an export records in `doubts` (codes; unknown ones left out).
    pub fn from_export(doubts: Option<&serde_json::Value>) -> Vec<Doubt> {
        doubts
            .and_then(serde_json::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|d| d.as_str().and_then(Doubt::from_code))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The short code of the page's `data-doubt` and of the export's `"doubts"`.
    pub fn code(self) -> &'static str {
        match self {
            Doubt::Truncated => "truncated",
            Doubt::LowCoverage => "low-coverage",
            Doubt::Echo => "echo",
        }
    }

    pub fn from_code(code: &str) -> Option<Doubt> {
        [Doubt::Truncated, Doubt::LowCoverage, Doubt::Echo]
            .into_iter()
            .find(|d| d.code() == code)
    }

    /// One sentence for the card.
    pub fn sentence(self) -> &'static str {
        match self {
            Doubt::Truncated => {
                "Doubtful: the answer was cut off at the output limit and the score came only \
                 at its end; raise “Output tokens” and ask again."
            }
            Doubt::LowCoverage => {
                "Doubtful: less than half of the judge's probability at that step was on a \
                 score; it was mostly about to write something else."
            }
            Doubt::Echo => {
                "Doubtful: the judge repeated the instruction's scale before its score; read \
                 its answer before trusting the number."
            }
        }
    }
}

/// The codes joined by spaces, as the page's `data-doubt` carries them ("" when none).
pub fn codes(doubts: &[Doubt]) -> String {
    doubts
        .iter()
        .map(|d| d.code())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether the generated step `step` lies within [`NEAR_END_TOKENS`] of the answer's end. The
/// end-of-sequence entry llama.cpp adds (an empty token) is not counted.
pub fn near_end_of_steps(steps: &[TokenStep], step: usize) -> bool {
    let later = steps
        .iter()
        .skip(step + 1)
        .filter(|s| !s.token.is_empty())
        .count();
    later < NEAR_END_TOKENS
}

/// Whether byte `at` of `text` lies within [`NEAR_END_CHARS`] characters of its end.
pub fn near_end_of_text(text: &str, at: usize) -> bool {
    text.get(at..)
        .is_none_or(|rest| rest.trim_end().chars().count() <= NEAR_END_CHARS)
}

/// The doubts about one score. `near_end` is from [`near_end_of_steps`] or
/// [`near_end_of_text`]; `coverage` is `None` where the metric has none.
pub fn assess(truncated: bool, near_end: bool, coverage: Option<f64>, echo: bool) -> Vec<Doubt> {
    let mut out = Vec::new();
    if truncated && near_end {
        out.push(Doubt::Truncated);
    }
    if coverage.is_some_and(|c| c < LOW_COVERAGE) {
        out.push(Doubt::LowCoverage);
    }
    if echo {
        out.push(Doubt::Echo);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(t: &str) -> TokenStep {
        TokenStep {
            token: t.into(),
            logprob: 0.0,
            top: vec![],
        }
    }

    #[test]
    fn truncation_counts_only_near_the_end() {
        let steps: Vec<_> = ["Rating", ":", " ", "4", ".", " The", " caption", ""]
            .map(plain)
            .to_vec();
        assert!(near_end_of_steps(&steps, 4));
        assert!(!near_end_of_steps(&steps, 3));
        assert!(!near_end_of_steps(&steps, 1));
        assert_eq!(assess(true, true, Some(0.9), false), [Doubt::Truncated]);
        assert_eq!(assess(false, true, Some(0.9), false), []);
        assert_eq!(assess(true, false, Some(0.9), false), []);
    }

    #[test]
    fn coverage_and_echo_and_codes() {
        let d = assess(true, true, Some(0.3), true);
        assert_eq!(d, [Doubt::Truncated, Doubt::LowCoverage, Doubt::Echo]);
        assert_eq!(codes(&d), "truncated low-coverage echo");
        assert_eq!(codes(&[]), "");
        assert_eq!(Doubt::from_code("echo"), Some(Doubt::Echo));
        assert!(assess(false, false, Some(0.5), false).is_empty());
        assert!(assess(false, false, None, false).is_empty());
    }

    #[test]
    fn text_end() {
        assert!(near_end_of_text("Rating: 4", 8));
        assert!(!near_end_of_text(
            "4. The caption names the dog and the ball.",
            0
        ));
    }
}
