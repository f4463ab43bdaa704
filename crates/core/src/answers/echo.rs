//! Numbers that are not answers: the ends of a scale or range, the labels of a rating list,
//! the options of a choice. A judge model, small ones above all, often repeats its instruction
//! before answering ("Your task is to rate the text on a scale of 1 to 5…"). The `1` there is
//! not a rating, whatever the tokenizer did with the spaces around it.
//!
//! Every metric's reader asks [`is_scale_number`] about a number before taking it as a score.
//! The decision is made on the answer's text, never on token boundaries, so it holds for
//! GPT-4o's `" 1"`, SmolLM2's `" "`, `"1"` and an answer cut off right after `"to "`.
//!
//! ```
//! use harmonic_judge_core::answers::echo::is_scale_number;
//!
//! let text = "Your task is to rate the text on a scale of 1 to 5. Rating: 4";
//! let at = |needle: &str| {
//!     let i = text.find(needle).unwrap();
//!     (i, i + needle.len())
//! };
//! let (s, e) = at("1 to");
//! assert!(is_scale_number(text, s, s + 1)); // the low end of the scale
//! assert!(is_scale_number(text, e + 1, e + 2)); // its high end, "5"
//! assert!(!is_scale_number(text, text.len() - 1, text.len())); // the rating
//! // Cut off at the token limit right after "to": still the scale, not a rating.
//! assert!(is_scale_number("on a scale of 1 to ", 14, 15));
//! ```

/// Words that, right after a number, make it one end of a range or one option of a choice:
/// "1 to 5", "0 or 2", "between 1 and 5".
const JOINERS: [&str; 3] = ["to", "or", "and"];

/// Words that, right before a number, make it the start of a scale or range.
const OPENERS: [&str; 8] = [
    "scale of",
    "scale from",
    "scale",
    "from",
    "between",
    "range of",
    "range",
    "ranging",
];

/// Words that, right after a number, say what a level of a scale means: "1 being the worst",
/// "1 = poor", "1 means".
const MEANINGS: [&str; 4] = ["being", "=", "means", "indicates"];

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `s` starts with `word` as a whole word (case-insensitive).
fn starts_with_word(s: &str, word: &str) -> bool {
    s.len() >= word.len()
        && s.as_bytes()[..word.len()].eq_ignore_ascii_case(word.as_bytes())
        && !s
            .as_bytes()
            .get(word.len())
            .is_some_and(|&b| is_word_byte(b) && is_word_byte(word.as_bytes()[word.len() - 1]))
}

/// `s` ends with `word` as a whole word (case-insensitive).
fn ends_with_word(s: &str, word: &str) -> bool {
    s.len() >= word.len()
        && s.as_bytes()[s.len() - word.len()..].eq_ignore_ascii_case(word.as_bytes())
        && !(s.len() > word.len()
            && is_word_byte(s.as_bytes()[s.len() - word.len() - 1])
            && is_word_byte(word.as_bytes()[0]))
}

/// Spaces, emphasis and quotes that may sit between a number and the word that explains it.
fn is_filler(c: char) -> bool {
    matches!(c, ' ' | '\t' | '*' | '_' | '"' | '\'' | '`' | '(' | ')')
}

/// Whether `text[start..end]` (a number: `1`, `0.0`, `85`) is part of a scale, a range, a
/// choice or a rating list rather than an answer. `start..end` must lie on char boundaries.
pub fn is_scale_number(text: &str, start: usize, end: usize) -> bool {
    let before = &text[..start];
    let after = &text[end..];
    // "0." cut off after its point: the number continues in the instruction ("0.0 to 1.0").
    let after_number = after
        .strip_prefix('.')
        .filter(|a| a.is_empty())
        .unwrap_or(after);
    let next = after_number.trim_start_matches(is_filler);
    let prev = before.trim_end_matches(is_filler);

    // One end of "1 to 5", "1-5", "1–5", "0 or 2", "1 and 5"; also when the answer stops right
    // after "to" or after the dash.
    let joined_after = JOINERS.iter().any(|w| starts_with_word(next, w));
    let dash_after = after_number.starts_with(['-', '–', '—'])
        && after_number[after_number.chars().next().map_or(0, char::len_utf8)..]
            .trim_start()
            .chars()
            .next()
            .is_none_or(|c| c.is_ascii_digit());
    if joined_after || dash_after {
        return true;
    }
    // The other end: a number, then "to"/"or"/"and"/a dash, then this one.
    let after_joiner = JOINERS
        .iter()
        .find(|w| ends_with_word(prev, w))
        .map(|w| prev[..prev.len() - w.len()].trim_end_matches(is_filler))
        .or_else(|| {
            prev.strip_suffix(['-', '–', '—'])
                .map(|p| p.trim_end_matches(is_filler))
        });
    if after_joiner.is_some_and(|p| p.ends_with(|c: char| c.is_ascii_digit())) {
        return true;
    }
    // The top of a scale: "4.5 out of 5", "4/5" (the 4 of "4/5" is the answer; the 5 is not).
    if ends_with_word(prev, "out of")
        || prev
            .strip_suffix('/')
            .is_some_and(|p| p.trim_end().ends_with(|c: char| c.is_ascii_digit()))
    {
        return true;
    }
    // The start of a scale: "on a scale of 1", "from 0.0", "between 1".
    let lower_prev = prev.trim_end_matches([':', ',']);
    if OPENERS.iter().any(|w| ends_with_word(lower_prev, w)) {
        return true;
    }
    // What a level means: "1 being the worst", "1 = poor".
    if MEANINGS.iter().any(|w| starts_with_word(next, w)) {
        return true;
    }
    // A rating list: "- 1 Very Low Correctness: …", "0.0: The caption does not …", "1) …".
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let raw_lead = &text[line_start..start];
    let lead = raw_lead.trim();
    // "- 1 Very Low": a bullet, then a space ("-0.2" is a negative number).
    let bulleted = matches!(lead, "-" | "*" | "•" | "+") && raw_lead.ends_with(char::is_whitespace);
    let label = lead.is_empty() && (after.starts_with(':') || after.starts_with(')'));
    if bulleted || label {
        return true;
    }
    false
}

/// Whether the answer's text contains any number that [`is_scale_number`] rejects: a sign that
/// the judge repeated its instruction. Used to word a doubt, never to refuse a score.
pub fn has_scale_echo(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_digit()
                    || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)))
            {
                i += 1;
            }
            if is_scale_number(text, start, i) {
                return true;
            }
        } else {
            i += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every occurrence of the digit string `n` in `text`, each judged.
    fn verdicts(text: &str, n: &str) -> Vec<bool> {
        text.match_indices(n)
            .filter(|(i, _)| {
                let b = text.as_bytes();
                let j = i + n.len();
                (*i == 0 || !b[i - 1].is_ascii_digit()) && !b.get(j).is_some_and(u8::is_ascii_digit)
            })
            .map(|(i, _)| is_scale_number(text, i, i + n.len()))
            .collect()
    }

    #[test]
    fn both_ends_of_a_range_in_every_spelling() {
        for text in [
            "on a scale of 1 to 5",
            "on a scale of 1-5",
            "on a scale of 1 – 5",
            "rate it from 1 to 5",
            "between 1 and 5",
            "Score **1** to **5**",
            "ON A SCALE OF 1 TO 5",
        ] {
            assert_eq!(verdicts(text, "1"), [true], "{text}");
            assert_eq!(verdicts(text, "5"), [true], "{text}");
        }
        assert_eq!(verdicts("Choose a rating from 0.0 to 1.0):", "0.0"), [true]);
        assert_eq!(verdicts("Choose a rating from 0.0 to 1.0):", "1.0"), [true]);
        assert_eq!(verdicts("'Assistant Score': 0 or 2", "0"), [true]);
        assert_eq!(verdicts("'Assistant Score': 0 or 2", "2"), [true]);
    }

    #[test]
    fn cut_off_echoes_are_still_echoes() {
        // SmolLM2 at its token limit: "…on a scale of 1 to " and "…on a scale of 0."
        assert_eq!(verdicts("rate the text on a scale of 1 to ", "1"), [true]);
        assert_eq!(verdicts("rate the text on a scale of 1", "1"), [true]);
        assert_eq!(verdicts("rate the caption on a scale of 0.", "0"), [true]);
        assert_eq!(verdicts("rate it 1-", "1"), [true]);
    }

    #[test]
    fn scale_levels_and_rating_lists() {
        let list = "Rating Scale:\n\n- 1 Very Low Correctness: The caption is wrong.\n\n- 2 Low";
        assert_eq!(verdicts(list, "1"), [true]);
        assert_eq!(verdicts(list, "2"), [true]);
        assert_eq!(
            verdicts("0.0: The caption does not describe the image", "0.0"),
            [true]
        );
        assert_eq!(verdicts("with 1 being the worst", "1"), [true]);
        assert_eq!(verdicts("1 = poor", "1"), [true]);
        // SmolLM2: "Your rating is 4.5 out of 5." The 5 is the scale's top, not a rating.
        assert_eq!(verdicts("Your rating is 4.5 out of 5.", "5"), [false, true]);
        assert_eq!(verdicts("Score: 4/5", "5"), [true]);
    }

    #[test]
    fn answers_are_not_echoes() {
        for (text, n) in [
            ("4", "4"),
            ("Rating: 4", "4"),
            ("Rating:\n\n4", "4"),
            ("**4**", "4"),
            ("I would rate it 3.", "3"),
            ("Score: 4/5", "4"),
            ("0.85", "0.85"),
            ("The final score is $72$.", "72"),
            ("Assistant Score: \"2\"", "2"),
            ("4 High Correctness: the caption is mostly right", "4"),
            ("I give it 2 out of 5", "2"),
        ] {
            assert_eq!(verdicts(text, n), [false], "{text}");
        }
        // After an echoed scale, the answer itself still counts.
        let text = "On a scale of 1 to 5, I give it 2.";
        assert_eq!(verdicts(text, "2"), [false]);
        assert!(has_scale_echo(text));
        assert!(!has_scale_echo("Rating: 4"));
    }

    #[test]
    fn words_must_be_whole() {
        // "into", "order" and "tomato" are not joiners.
        assert_eq!(verdicts("4 tomatoes", "4"), [false]);
        assert_eq!(verdicts("3 orders", "3"), [false]);
        assert_eq!(verdicts("escalator 4", "4"), [false]);
    }
}
