//! Finding the rating in a completion and turning its token probabilities into a distribution
//! over the ratings 1..=5.
//!
//! Models do not always answer with a bare digit: `4`, ` 4`, `**4**`, `Rating: 4` all occur.
//! The rating step is the first generated token that is a rating on its own (not part of a
//! longer number, not the "1" of an echoed "1 to 5"). At that step the top-k alternatives are
//! folded by rating (`4` and ` 4` count together), summed, and renormalised over 1..=5 (our
//! choice: the paper says only "the output token probability", and renormalising makes the
//! five probabilities a distribution whatever else the model considered). The mass that was
//! on rating tokens before renormalising is
//! kept as the **coverage**: near 1 the distribution is trustworthy, low coverage means the
//! model was mostly considering something else at that step.

use crate::answers::completion::TokenStep;
use crate::answers::errors::JudgeError;

/// Ratings live in 1..=RATING_LEVELS.
pub const RATING_LEVELS: usize = 5;

/// The renormalised rating distribution at the step where the rating was produced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingDistribution {
    /// `p[r - 1]` is the probability of rating `r`; sums to 1.
    pub p: [f64; RATING_LEVELS],
    /// Probability mass on rating tokens before renormalising, in (0, 1].
    pub coverage: f64,
    /// Index of the generated token that carried the rating.
    pub step: usize,
    /// The answer repeated a scale or rating list before the rating.
    pub after_echo: bool,
}

/// The rating a token stands for: a digit 1..=5 possibly wrapped in whitespace or Markdown
/// emphasis (`" 4"`, `"**4"`, `"4**"`), or closed by one punctuation mark as some tokenizers
/// merge it (`"4."`, `"4/"` of `4/5`). Anything else, `"45"` or `"4.5"` included, is not a
/// rating.
pub fn rating_of_token(token: &str) -> Option<usize> {
    let markup = |c: char| c.is_whitespace() || "*_#\"'`".contains(c);
    let core = token.trim_matches(markup);
    let core = core
        .strip_suffix(['.', ',', ';', ':', ')', '!', '/'])
        .unwrap_or(core);
    let core = core.strip_prefix('(').unwrap_or(core).trim_matches(markup);
    let mut chars = core.chars();
    match (chars.next(), chars.next()) {
        (Some(d @ '1'..='5'), None) => Some(d as usize - '0' as usize),
        _ => None,
    }
}

/// The generated text and the byte offset at which each step's token starts in it.
pub(crate) fn joined(steps: &[TokenStep]) -> (String, Vec<usize>) {
    let mut text = String::new();
    let mut starts = Vec::with_capacity(steps.len());
    for s in steps {
        starts.push(text.len());
        text.push_str(&s.token);
    }
    (text, starts)
}

/// Where the rating was found, and whether an echoed scale or instruction was passed over
/// before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RatingStep {
    pub step: usize,
    /// A number of an echoed scale, range or rating list came earlier in the answer.
    pub after_echo: bool,
}

/// Whether the digit at byte `at` of `text` is a number of its own: not part of `45`, `4.5`,
/// `0.4` or `1,5`.
fn stands_alone(text: &str, at: usize) -> bool {
    let b = text.as_bytes();
    let before = |k: usize| at.checked_sub(k).map(|j| b[j]);
    if before(1).is_some_and(|c| c.is_ascii_digit())
        || (before(1).is_some_and(|c| c == b'.' || c == b',')
            && before(2).is_some_and(|c| c.is_ascii_digit()))
    {
        return false;
    }
    let after = |k: usize| b.get(at + k).copied();
    if after(1).is_some_and(|c| c.is_ascii_digit()) {
        return false;
    }
    !(after(1).is_some_and(|c| c == b'.' || c == b',')
        && after(2).is_some_and(|c| c.is_ascii_digit()))
}

/// The step that produced the rating: the first token that is a rating on its own
/// ([`rating_of_token`]), stands alone as a number, and is not part of an echoed scale, range
/// or rating list ([`crate::answers::echo::is_scale_number`]). The decision is made on the answer's text,
/// so it is the same whether the tokenizer writes `" 1"` or `" "`, `"1"`.
pub fn locate_rating(steps: &[TokenStep]) -> Option<RatingStep> {
    let (text, starts) = joined(steps);
    let mut after_echo = false;
    for (i, step) in steps.iter().enumerate() {
        let Some(r) = rating_of_token(&step.token) else {
            continue;
        };
        let digit = char::from(b'0' + r as u8);
        let at = starts[i]
            + step
                .token
                .find(digit)
                .expect("a rating token holds its digit");
        if !stands_alone(&text, at) {
            continue;
        }
        if crate::answers::echo::is_scale_number(&text, at, at + 1) {
            after_echo = true;
            continue;
        }
        return Some(RatingStep {
            step: i,
            after_echo,
        });
    }
    None
}

/// Index of the step that produced the rating, if any (see [`locate_rating`]).
pub fn find_rating_step(steps: &[TokenStep]) -> Option<usize> {
    locate_rating(steps).map(|r| r.step)
}

/// Folds the alternatives at one step into rating masses (before renormalising). Duplicate
/// token texts add up and the chosen token counts once ([`TokenStep::alternatives`]).
fn rating_masses(step: &TokenStep) -> [f64; RATING_LEVELS] {
    let mut mass = [0.0; RATING_LEVELS];
    for (token, p) in step.alternatives() {
        if let Some(r) = rating_of_token(token) {
            mass[r - 1] += p;
        }
    }
    mass
}

/// Extracts the rating distribution from a completion's steps.
///
/// `text` is the completion's text, quoted in the error when no rating is found.
///
/// # Example
///
/// SPEC §1's Correctness distribution (0, .05, .15, .6, .2) as a judge's top logprobs would
/// carry it: after a Markdown `**`, the rating `4` spelt two ways (`"4"` and `" 4"`, folded
/// together) and 3 % of the mass on a token that is no rating. The distribution is
/// renormalised over 1..=5 and the 97 % kept as its coverage; its mean and σ are SPEC's.
///
/// ```
/// use harmonic_judge_core::metrics::harmonic_eval::weighting::{sigma, smoothed_score};
/// use harmonic_judge_core::answers::completion::TokenStep;
/// use harmonic_judge_core::answers::rating::rating_distribution;
///
/// let ln = |p: f64| (0.97 * p).ln();
/// let steps = [
///     TokenStep { token: "**".into(), logprob: 0.0, top: vec![("**".into(), 0.0)] },
///     TokenStep {
///         token: "4".into(),
///         logprob: ln(0.5),
///         top: vec![
///             ("4".into(), ln(0.5)),
///             ("5".into(), ln(0.2)),
///             ("3".into(), ln(0.15)),
///             (" 4".into(), ln(0.1)),
///             ("2".into(), ln(0.05)),
///             ("The".into(), 0.03f64.ln()),
///         ],
///     },
/// ];
/// let d = rating_distribution(&steps, "**4").unwrap();
/// assert_eq!(d.step, 1);
/// assert!((d.coverage - 0.97).abs() < 1e-9);
/// let expected = [0.0, 0.05, 0.15, 0.6, 0.2];
/// assert!(d.p.iter().zip(expected).all(|(p, e)| (p - e).abs() < 1e-9));
/// assert!((smoothed_score(&d.p) - 3.95).abs() < 1e-9);
/// assert!((sigma(&d.p) - 0.7399).abs() < 1e-4);
///
/// // No rating anywhere: an error that quotes the answer, never a number.
/// let words = [TokenStep { token: "Good".into(), logprob: 0.0, top: vec![] }];
/// assert!(rating_distribution(&words, "Good").is_err());
/// ```
pub fn rating_distribution(
    steps: &[TokenStep],
    text: &str,
) -> Result<RatingDistribution, JudgeError> {
    if steps.is_empty() {
        return Err(JudgeError::NoLogprobs);
    }
    let no_rating = || JudgeError::NoRating {
        truncated: false,
        text: text.to_string(),
    };
    let found = locate_rating(steps).ok_or_else(no_rating)?;
    let step = found.step;
    let mass = rating_masses(&steps[step]);
    let total: f64 = mass.iter().sum();
    // NaN fails is_finite, so this rejects NaN, infinity and zero mass alike.
    if !total.is_finite() || total <= 0.0 {
        return Err(no_rating());
    }
    let p = mass.map(|m| m / total);
    Ok(RatingDistribution {
        p,
        coverage: total.min(1.0),
        step,
        after_echo: found.after_echo,
    })
}

/// The rating printed in a text with no token probabilities (Anthropic's API), found by the
/// same rules as [`find_rating_step`] over a simple split of the text into number, word and
/// punctuation pieces, each carrying the whitespace before it as tokenizers do.
pub fn rating_in_text(text: &str) -> Option<usize> {
    printed_rating(text).map(|p| p.rating)
}

/// A rating printed in a text, where it stands and whether an echo came before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrintedRating {
    pub rating: usize,
    /// Byte offset of the rating's token in the text.
    pub at: usize,
    pub after_echo: bool,
}

/// [`rating_in_text`] with the rating's place in the text, for judging doubts.
pub fn printed_rating(text: &str) -> Option<PrintedRating> {
    let steps = pseudo_tokens(text);
    let found = locate_rating(&steps)?;
    let at = steps[..found.step].iter().map(|s| s.token.len()).sum();
    Some(PrintedRating {
        rating: rating_of_token(&steps[found.step].token)?,
        at,
        after_echo: found.after_echo,
    })
}

fn pseudo_tokens(text: &str) -> Vec<TokenStep> {
    #[derive(PartialEq, Clone, Copy)]
    enum Kind {
        Digit,
        Word,
        Other,
    }
    let kind = |c: char| {
        if c.is_ascii_digit() {
            Kind::Digit
        // Any non-ASCII character counts as a word character: close enough for finding a
        // rating, and it keeps Unicode's alphabetic tables (about 3 KB) out of the wasm.
        } else if c.is_ascii_alphabetic() || !c.is_ascii() {
            Kind::Word
        } else {
            Kind::Other
        }
    };
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut current_kind = None;
    for c in text.chars() {
        if c.is_whitespace() {
            if current_kind.is_some() {
                out.push(std::mem::take(&mut current));
                current_kind = None;
            }
            current.push(c);
            continue;
        }
        let k = kind(c);
        // Digits and words run on; punctuation is one token per character.
        if current_kind.is_some() && (current_kind != Some(k) || k == Kind::Other) {
            out.push(std::mem::take(&mut current));
        }
        current.push(c);
        current_kind = Some(k);
    }
    if !current.trim().is_empty() {
        out.push(current);
    }
    out.into_iter()
        .map(|token| TokenStep {
            token,
            logprob: 0.0,
            top: Vec::new(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(token: &str, top: &[(&str, f64)]) -> TokenStep {
        let logprob = top
            .iter()
            .find(|(t, _)| *t == token)
            .map(|(_, p)| p.ln())
            .unwrap_or(0.0);
        TokenStep {
            token: token.into(),
            logprob,
            top: top.iter().map(|(t, p)| (t.to_string(), p.ln())).collect(),
        }
    }

    fn plain(token: &str) -> TokenStep {
        step(token, &[(token, 1.0)])
    }

    #[test]
    fn token_forms() {
        assert_eq!(rating_of_token("4"), Some(4));
        assert_eq!(rating_of_token(" 4"), Some(4));
        assert_eq!(rating_of_token("**4"), Some(4));
        assert_eq!(rating_of_token("5**"), Some(5));
        assert_eq!(rating_of_token("\n3"), Some(3));
        assert_eq!(rating_of_token("4."), Some(4));
        assert_eq!(rating_of_token(" 4/"), Some(4));
        assert_eq!(rating_of_token("(2)"), Some(2));
        for bad in [
            "0", "6", "45", "4.5", "four", "", " ", "**", ".", "4..", "3.0",
        ] {
            assert_eq!(rating_of_token(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn bare_first_token_with_variants_folded() {
        let steps = [step(
            "4",
            &[
                ("4", 0.5),
                (" 4", 0.1),
                ("5", 0.2),
                ("3", 0.1),
                ("The", 0.1),
            ],
        )];
        let d = rating_distribution(&steps, "4").unwrap();
        assert_eq!(d.step, 0);
        assert!((d.coverage - 0.9).abs() < 1e-12);
        let expected = [0.0, 0.0, 0.1 / 0.9, 0.6 / 0.9, 0.2 / 0.9];
        for (a, b) in d.p.iter().zip(expected) {
            assert!((a - b).abs() < 1e-12, "{:?}", d.p);
        }
    }

    #[test]
    fn markdown_bold_rating_is_found_after_the_stars() {
        let steps = [
            plain("**"),
            step("4", &[("4", 0.7), ("5", 0.3)]),
            plain("**"),
        ];
        let d = rating_distribution(&steps, "**4**").unwrap();
        assert_eq!(d.step, 1);
        assert!((d.p[3] - 0.7).abs() < 1e-12);
    }

    #[test]
    fn rating_after_label() {
        let steps = [
            plain("Rating"),
            plain(":"),
            step(" 3", &[(" 3", 0.6), (" 4", 0.4)]),
        ];
        let d = rating_distribution(&steps, "Rating: 3").unwrap();
        assert_eq!(d.step, 2);
        assert!((d.p[2] - 0.6).abs() < 1e-12 && (d.p[3] - 0.4).abs() < 1e-12);
    }

    #[test]
    fn echoed_scale_and_longer_numbers_are_skipped() {
        let steps = [
            plain("On"),
            plain(" a"),
            plain(" scale"),
            plain(" of"),
            plain(" 1"),
            plain(" to"),
            plain(" 5"),
            plain(","),
            plain(" I"),
            plain(" give"),
            step(" 2", &[(" 2", 1.0)]),
        ];
        assert_eq!(find_rating_step(&steps), Some(10));
        let steps = [plain("4"), plain("5")];
        assert_eq!(find_rating_step(&steps), None);
        let steps = [plain("0"), plain("."), plain("4")];
        assert_eq!(find_rating_step(&steps), None);
        let steps = [plain("4"), plain("."), plain("5")];
        assert_eq!(find_rating_step(&steps), None);
    }

    #[test]
    fn merged_punctuation_and_out_of_forms() {
        let steps = [
            plain("Score"),
            plain(":"),
            step(" 4/", &[(" 4/", 0.8), (" 3/", 0.2)]),
            plain("5"),
        ];
        let d = rating_distribution(&steps, "Score: 4/5").unwrap();
        assert_eq!(d.step, 2);
        assert!((d.p[3] - 0.8).abs() < 1e-12 && (d.p[2] - 0.2).abs() < 1e-12);
        let steps = [
            step("4", &[("4", 0.9), ("5", 0.1)]),
            plain(" out"),
            plain(" of"),
            plain(" 5"),
        ];
        assert_eq!(find_rating_step(&steps), Some(0));
    }

    #[test]
    fn no_rating_token_is_a_clear_error() {
        let steps = [plain("I"), plain(" cannot"), plain(" rate")];
        match rating_distribution(&steps, "I cannot rate") {
            Err(JudgeError::NoRating { text, .. }) => assert_eq!(text, "I cannot rate"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn zero_coverage_is_an_error_not_a_score() {
        let steps = [TokenStep {
            token: "4".into(),
            logprob: f64::NEG_INFINITY,
            top: vec![("4".into(), f64::NEG_INFINITY)],
        }];
        assert!(matches!(
            rating_distribution(&steps, "4"),
            Err(JudgeError::NoRating { .. })
        ));
    }

    #[test]
    fn empty_top_logprobs_falls_back_to_chosen_token() {
        let steps = [TokenStep {
            token: "5".into(),
            logprob: (0.8f64).ln(),
            top: vec![],
        }];
        let d = rating_distribution(&steps, "5").unwrap();
        assert_eq!(d.p, [0.0, 0.0, 0.0, 0.0, 1.0]);
        assert!((d.coverage - 0.8).abs() < 1e-12);
    }

    #[test]
    fn ratings_printed_in_plain_text() {
        assert_eq!(rating_in_text("4"), Some(4));
        assert_eq!(rating_in_text("Rating: 5"), Some(5));
        assert_eq!(
            rating_in_text("**3**\n\nThe caption is mostly right."),
            Some(3)
        );
        assert_eq!(
            rating_in_text("On a scale of 1 to 5, I give it 2."),
            Some(2)
        );
        assert_eq!(rating_in_text("Score: 4/5"), Some(4));
        assert_eq!(rating_in_text("4.5"), None);
        assert_eq!(rating_in_text("45 points"), None);
        assert_eq!(rating_in_text("I cannot rate this."), None);
        assert_eq!(rating_in_text(""), None);
    }

    #[test]
    fn no_steps_means_no_logprobs() {
        assert_eq!(rating_distribution(&[], "4"), Err(JudgeError::NoLogprobs));
    }
}
