//! *Stop at the rating* (issue 71): the in-page judge stops writing once a HarmonicEval
//! criterion's rating is settled, instead of running to the token limit. A small local judge
//! often writes a rating and then a paragraph nobody scores; on one WebAssembly thread those
//! tokens were most of an answer's time.
//!
//! The rule is the core's, sent with the request (`hj_stop`), and our build's worker applies it
//! after each token (src/web/own_engine/worker.js): once the answer so far matches
//! [`SETTLED`], the answer ends there and [`NOTE`] is added to its displayed text. Other
//! providers and wllama's builds never see it (they answer in full).
//!
//! Faithful: [`SETTLED`] only matches an answer whose rating the core reads the same way
//! whatever follows (`answers::rating::locate_rating`): no digit before a line that holds the
//! rating alone (after at most a `Rating:` or `Score:` label and Markdown bold, a full stop
//! after it at most), and that line ended. Past its newline nothing can make the digit part of
//! a range ("1 to 5"), a list ("- 1 …"), a longer number or a meaning ("1 being …"); no earlier
//! step can be a rating (there is no digit before it); and its probabilities are those of the
//! step that wrote it. An answer that does not go so is written to the token limit as before.
//! The tests below check the rule against continuations that would change a less settled
//! rating, and on a real SmolLM2 answer.

use serde_json::{json, Value};

use super::handles;
use crate::providers::HttpRequest;

/// The behaviour's name, as the docs and the displayed note say it.
pub const NAME: &str = "Stop at the rating";

/// The answer so far, as an ECMAScript regular expression (case-insensitive), once the
/// rating is settled.
pub const SETTLED: &str = r"^(?:[^0-9]*\n)?[ \t]*(?:\*\*)?(?:(?:rating|score)(?:\*\*)?:(?:\*\*)?[ \t]*)?(?:\*\*)?[1-5](?:\*\*)?\.?[ \t]*\n";

/// Added to the displayed answer where the judge stopped (no digit in it: the rating is read
/// from the answer's tokens, and a note must not look like one).
pub const NOTE: &str =
    "[Stop at the rating: the in-page judge stopped writing here, once the rating was read.]";

/// `req` with the rule, when it goes to the in-page judge; unchanged otherwise.
pub fn at_rating(mut req: HttpRequest) -> HttpRequest {
    if !handles(&req.url) {
        return req;
    }
    if let Ok(Value::Object(mut body)) = serde_json::from_str::<Value>(&req.body) {
        body.insert(
            "hj_stop".into(),
            json!({"after": SETTLED, "flags": "i", "note": NOTE}),
        );
        req.body = Value::Object(body).to_string();
    }
    req
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::completion::TokenStep;
    use crate::answers::rating::locate_rating;

    /// [`SETTLED`] read by hand for the test's answers (the core has no regex engine): the
    /// forms it accepts, each with the step split a tokenizer might make.
    fn settled_openings() -> Vec<Vec<&'static str>> {
        vec![
            vec!["4", "\n"],
            vec![" ", "4", "\n"],
            vec!["5", " ", "\n"],
            vec!["**", "3", "**", "\n"],
            vec!["Rating", ":", " ", "4", "\n"],
            vec!["Rating", ":", " 2", "\n"],
            vec!["**", "Rating", ":**", " ", "1", "\n"],
            vec!["Score", ":", " **", "5", "**", "\n"],
            vec!["rating", ":", "4", "\n"],
            vec!["4", ".", "\n"],
            vec!["4.", "\n"],
            vec![
                "Your", " task", " is", " to", " rate", ".", "\n", "\n", "Rating", ":", " ", "4",
                "\n",
            ],
            vec!["I", " would", " say", ":", "\n", "**", "3", "**", ".", "\n"],
        ]
    }

    fn steps(tokens: &[&str]) -> Vec<TokenStep> {
        tokens
            .iter()
            .map(|t| TokenStep {
                token: (*t).to_string(),
                logprob: 0.0,
                top: vec![],
            })
            .collect()
    }

    #[test]
    fn a_settled_rating_stays_the_rating_whatever_the_answer_goes_on_to_say() {
        // What follows a rating that is not settled and moves it: a range, a list, a longer
        // number, a meaning, a later rating.
        let continuations: [&[&str]; 7] = [
            &[],
            &["The", " caption", " is", " accurate", "."],
            &["1", " to", " 5"],
            &["-", " ", "2", " Poor"],
            &["1", " being", " the", " worst"],
            &["Rating", ":", " ", "2"],
            &["5", "/", "5", "\n", "0", ".", "5"],
        ];
        for opening in settled_openings() {
            let head = locate_rating(&steps(&opening)).expect("a settled opening holds a rating");
            assert!(!head.after_echo, "{opening:?}");
            for more in continuations {
                let whole: Vec<&str> = opening.iter().chain(more.iter()).copied().collect();
                assert_eq!(
                    locate_rating(&steps(&whole)),
                    Some(head),
                    "{opening:?} then {more:?}"
                );
            }
        }
    }

    #[test]
    fn openings_the_rule_leaves_alone_are_those_a_continuation_could_change() {
        // Not matched by SETTLED (no newline yet, a digit before, a list's bullet, a range):
        // each read differently once more text comes, which is why the rule waits.
        let moved = [
            (vec!["4"], vec!["5"]),                          // "45": a longer number
            (vec!["1"], vec![" to", " 5", ":", " 3"]),       // a range, then the rating
            (vec!["-", " ", "1"], vec![" Poor", "\n", "3"]), // a rating list
        ];
        for (opening, more) in moved {
            let alone = locate_rating(&steps(&opening));
            let whole: Vec<&str> = opening.iter().chain(more.iter()).copied().collect();
            assert_ne!(
                locate_rating(&steps(&whole)),
                alone,
                "{opening:?} then {more:?}"
            );
        }
    }

    #[test]
    fn a_real_answer_stopped_where_the_rule_matches_is_scored_the_same() {
        // SmolLM2-135M (tests/fixtures/smollm2): "Your task is to rate the text based on the
        // evaluation criteria provided.\n\nRating: 4\n\nThe evaluation score is 4 out of 5, …"
        // to its 64-token limit. The rule matches once "Rating: 4\n" is written.
        let full = crate::answers::completion::parse_chat_completion(include_str!(
            "../../../../../tests/fixtures/smollm2/he_conciseness_64.json"
        ))
        .unwrap();
        let steps = full.steps.clone().unwrap();
        let mut text = String::new();
        let cut = steps
            .iter()
            .position(|s| {
                text.push_str(&s.token);
                text.contains("Rating: 4\n")
            })
            .expect("the answer has its rating line")
            + 1;
        assert!(cut < steps.len() / 2, "{cut} of {}", steps.len());
        let stopped = crate::answers::completion::Completion {
            text: format!("{text}{NOTE}"),
            steps: Some(steps[..cut].to_vec()),
            truncated: false,
            ..full.clone()
        };
        let protocol = crate::providers::Protocol::OpenAi;
        let (a, b) = (
            crate::metrics::harmonic_eval::interpret(&full, protocol).unwrap(),
            crate::metrics::harmonic_eval::interpret(&stopped, protocol).unwrap(),
        );
        assert_eq!(
            (a.distribution, a.score, a.doubts),
            (b.distribution, b.score, b.doubts)
        );
    }

    #[test]
    fn the_rule_goes_only_to_the_in_page_judge() {
        let req = |url: &str| HttpRequest {
            method: crate::providers::Method::Post,
            url: url.into(),
            headers: vec![],
            body: r#"{"max_tokens":64}"#.into(),
        };
        let ours = at_rating(req(&format!("{}/chat/completions", super::super::BASE_URL)));
        let body: Value = serde_json::from_str(&ours.body).unwrap();
        assert_eq!(body["hj_stop"]["after"], SETTLED);
        assert_eq!(body["hj_stop"]["note"], NOTE);
        assert!(!NOTE.chars().any(|c| c.is_ascii_digit()));
        assert!(NOTE.starts_with(&format!("[{NAME}:")));
        let remote = req("https://api.openai.com/v1/chat/completions");
        assert_eq!(at_rating(remote.clone()), remote);
    }
}
