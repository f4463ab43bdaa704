//! Parsing an OpenAI-format chat completion (OpenAI, llama.cpp `llama-server`, vLLM, ...)
//! into the generated text and its per-token probabilities.
//!
//! Only the fields the metrics need are read; unknown fields are ignored so that servers which
//! add their own (llama.cpp's `timings`, OpenAI's `service_tier`) parse the same.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::answers::errors::JudgeError;

/// One generated token with the alternatives the server reported at that step.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenStep {
    pub token: String,
    pub logprob: f64,
    /// `(token, logprob)` of the top-k alternatives, most likely first as the server sent them.
    pub top: Vec<(String, f64)>,
}

impl TokenStep {
    /// Every alternative at this step with its probability, in the server's order, in one pass.
    /// Alternatives with the same text are different tokens that print the same (a byte-level
    /// and a merged "4", say), so their probabilities add up; the chosen token counts only when
    /// it is not among them. Empty tokens are never folded together: llama.cpp sends each
    /// partial UTF-8 byte as `""` with its own `bytes`, and those are different tokens.
    ///
    /// Each alternative is compared with the distinct ones before it: at most
    /// [`MAX_ALTERNATIVES`] (parsing refuses more), so this stays small without a hash map,
    /// which the first page's download would pay for.
    pub fn alternatives(&self) -> Vec<(&str, f64)> {
        let mut out: Vec<(&str, f64)> = Vec::with_capacity(self.top.len() + 1);
        for (token, logprob) in &self.top {
            let p = logprob.exp();
            if !p.is_finite() {
                continue;
            }
            let same = out
                .iter_mut()
                .find(|(t, _)| !token.is_empty() && *t == token.as_str());
            match same {
                Some(slot) => slot.1 += p,
                None => out.push((token, p)),
            }
        }
        let listed = self
            .top
            .iter()
            .any(|(t, lp)| *t == self.token && (!self.token.is_empty() || *lp == self.logprob));
        let p = self.logprob.exp();
        if !listed && p.is_finite() {
            out.push((&self.token, p));
        }
        out
    }
}

/// The most alternatives one step may list. OpenAI and Gemini send at most 20, and the app
/// asks llama.cpp and vLLM for 20; an answer listing more is refused rather than folded.
pub const MAX_ALTERNATIVES: usize = 1000;

/// Up to this much above 0 a logprob is read as 0 (rounding); beyond it, it is refused.
const LOGPROB_SLACK: f64 = 1e-6;
/// Alternatives at one step may add up to this much past 1 (float32 rounding) and no more.
const MASS_SLACK: f64 = 1e-2;

fn quoted(token: &str) -> String {
    let shown: String = token.chars().take(24).collect();
    let more = if token.chars().count() > 24 {
        "…"
    } else {
        ""
    };
    format!("\u{201c}{shown}{more}\u{201d}")
}

fn unusable(detail: String) -> JudgeError {
    JudgeError::BadResponse {
        detail: format!("{detail}, so none of this answer's token probabilities can be used"),
    }
}

/// A logprob as it arrived, before the rule is applied. OpenAI's format is read as typed JSON
/// (a logprob that is not a number there, `null` or a string, fails the whole answer as "not a
/// chat completion"); Gemini's reader holds each value as it came.
pub enum RawLogprob {
    /// The field was left out.
    Missing,
    Number(f64),
    /// Anything that is not a number, as the error names it (`null`, `"abc"`).
    Other(String),
}

impl RawLogprob {
    /// From the JSON value Gemini's reader holds (`None`: the field is absent).
    pub fn of(value: Option<&Value>) -> RawLogprob {
        match value {
            None => RawLogprob::Missing,
            Some(Value::Number(n)) => n
                .as_f64()
                .map_or_else(|| RawLogprob::Other(n.to_string()), RawLogprob::Number),
            Some(Value::String(s)) => RawLogprob::of_str(s),
            Some(Value::Null) => RawLogprob::Other("null".into()),
            Some(_) => RawLogprob::Other("a JSON object or list".into()),
        }
    }

    /// Proto3 JSON writes floats as strings too (`"-0.5"`, `"NaN"`, `"-Infinity"`).
    fn of_str(s: &str) -> RawLogprob {
        match s.trim().parse::<f64>() {
            Ok(v) => RawLogprob::Number(v),
            Err(_) => RawLogprob::Other(format!("\"{}\"", s.chars().take(24).collect::<String>())),
        }
    }

    /// The logprob held to the one rule every provider follows: a finite number ≤ 0, the log of
    /// a probability between 0 and 1. A left-out field reads as `missing` (Gemini's proto3 JSON
    /// leaves out a logprob of exactly 0; OpenAI's format always sends one, so there it is
    /// refused). `null`, strings that are not numbers, `"NaN"`, `"-Infinity"` and positive
    /// numbers are refused, with the token named.
    pub fn check(self, missing: Option<f64>, token: &str) -> Result<f64, JudgeError> {
        let bad = |what: &str| {
            unusable(format!(
                "it gives the token {} a log-probability of {what}, but a log-probability must \
                 be a finite number \u{2264} 0",
                quoted(token)
            ))
        };
        let v = match self {
            RawLogprob::Missing => return missing.ok_or_else(|| bad("nothing")),
            RawLogprob::Number(v) => v,
            RawLogprob::Other(what) => return Err(bad(&what)),
        };
        if v.is_nan() || v.is_infinite() || v > LOGPROB_SLACK {
            return Err(bad(&format!("{v}")));
        }
        Ok(v.min(0.0))
    }
}

/// The other half of the rule: the alternatives listed at one step are different tokens, so
/// their probabilities cannot add up past 1.
pub fn check_steps(steps: &[TokenStep]) -> Result<(), JudgeError> {
    for step in steps {
        if step.top.len() > MAX_ALTERNATIVES {
            return Err(unusable(format!(
                "it lists {} alternatives for the token {}, more than the {MAX_ALTERNATIVES} \
                 any provider sends",
                step.top.len(),
                quoted(&step.token)
            )));
        }
        let mass: f64 = step.top.iter().map(|(_, lp)| lp.exp()).sum();
        if mass > 1.0 + MASS_SLACK {
            return Err(unusable(format!(
                "the alternatives it lists for the token {} have probabilities adding up to \
                 {mass:.3}, more than 1",
                quoted(&step.token)
            )));
        }
    }
    Ok(())
}

/// Token counts the provider reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
}

/// The parts of a chat completion the metrics use.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    pub text: String,
    /// `None` when the server sent no `logprobs` at all.
    pub steps: Option<Vec<TokenStep>>,
    pub usage: Option<Usage>,
    pub model: Option<String>,
    /// The server stopped at `max_tokens` (`finish_reason: "length"`).
    pub truncated: bool,
}

#[derive(Deserialize)]
struct Wire {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    choices: Vec<WireChoice>,
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct WireChoice {
    #[serde(default)]
    message: Option<WireMessage>,
    #[serde(default)]
    finish_reason: Option<String>,
    #[serde(default)]
    logprobs: Option<WireLogprobs>,
}

#[derive(Deserialize)]
struct WireMessage {
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct WireLogprobs {
    #[serde(default)]
    content: Option<Vec<WireToken>>,
}

#[derive(Deserialize)]
struct WireToken {
    token: String,
    logprob: f64,
    #[serde(default)]
    top_logprobs: Vec<WireTop>,
}

#[derive(Deserialize)]
struct WireTop {
    token: String,
    logprob: f64,
}

/// Parses a successful (HTTP 2xx) chat completion body.
pub fn parse_chat_completion(body: &str) -> Result<Completion, JudgeError> {
    let wire: Wire = serde_json::from_str(body).map_err(|e| JudgeError::BadResponse {
        detail: format!("not a chat completion ({e})"),
    })?;
    let Some(choice) = wire.choices.into_iter().next() else {
        // Some proxies answer 200 with an error object instead of an error status.
        let detail = crate::answers::errors::error_body_message(body)
            .map(|m| format!("no choices; the server said: {m}"))
            .unwrap_or_else(|| "the response has no choices".into());
        return Err(JudgeError::BadResponse { detail });
    };
    let truncated = choice.finish_reason.as_deref() == Some("length");
    let text = choice.message.and_then(|m| m.content).unwrap_or_default();
    let steps = match choice.logprobs.and_then(|l| l.content) {
        None => None,
        Some(tokens) => {
            // Plain loops: the `collect::<Result<…>>` they replace cost the download more.
            let mut steps = Vec::with_capacity(tokens.len());
            for t in tokens {
                let mut top = Vec::with_capacity(t.top_logprobs.len());
                for a in t.top_logprobs {
                    let logprob = RawLogprob::Number(a.logprob).check(None, &a.token)?;
                    top.push((a.token, logprob));
                }
                let logprob = RawLogprob::Number(t.logprob).check(None, &t.token)?;
                steps.push(TokenStep {
                    token: t.token,
                    logprob,
                    top,
                });
            }
            check_steps(&steps)?;
            Some(steps)
        }
    };
    Ok(Completion {
        text,
        steps,
        usage: wire.usage,
        model: wire.model,
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Shape as OpenAI returns it (fields trimmed to one top alternative per step).
    const OPENAI: &str = r#"{
      "id": "chatcmpl-AbC", "object": "chat.completion", "created": 1732000000,
      "model": "gpt-4o-2024-08-06",
      "choices": [{
        "index": 0,
        "message": {"role": "assistant", "content": "4", "refusal": null, "annotations": []},
        "logprobs": {"content": [{"token": "4", "logprob": -0.3, "bytes": [52],
          "top_logprobs": [{"token": "4", "logprob": -0.3, "bytes": [52]},
                           {"token": "5", "logprob": -1.5, "bytes": [53]}]}],
          "refusal": null},
        "finish_reason": "stop"}],
      "usage": {"prompt_tokens": 321, "completion_tokens": 1, "total_tokens": 322},
      "service_tier": "default", "system_fingerprint": "fp_x"
    }"#;

    #[test]
    fn reads_text_tokens_and_usage() {
        let c = parse_chat_completion(OPENAI).unwrap();
        assert_eq!(c.text, "4");
        assert_eq!(c.model.as_deref(), Some("gpt-4o-2024-08-06"));
        let steps = c.steps.unwrap();
        assert_eq!(steps.len(), 1);
        assert_eq!(
            steps[0].top,
            vec![("4".to_string(), -0.3), ("5".to_string(), -1.5)]
        );
        assert_eq!(c.usage.unwrap().prompt_tokens, 321);
        assert!(!c.truncated);
    }

    #[test]
    fn missing_logprobs_is_none_not_error() {
        let body = r#"{"choices":[{"message":{"content":"4"},"logprobs":null}]}"#;
        assert_eq!(parse_chat_completion(body).unwrap().steps, None);
        let body = r#"{"choices":[{"message":{"content":"4"}}]}"#;
        assert_eq!(parse_chat_completion(body).unwrap().steps, None);
    }

    #[test]
    fn error_object_with_status_200_is_reported() {
        let err =
            parse_chat_completion(r#"{"error":{"message":"upstream overloaded"}}"#).unwrap_err();
        assert!(err.to_string().contains("upstream overloaded"), "{err}");
    }

    #[test]
    fn garbage_and_empty_choices_are_errors() {
        assert!(matches!(
            parse_chat_completion("<html>"),
            Err(JudgeError::BadResponse { .. })
        ));
        assert!(matches!(
            parse_chat_completion(r#"{"choices":[]}"#),
            Err(JudgeError::BadResponse { .. })
        ));
    }

    fn with_logprobs(chosen: &str, tops: &[&str]) -> String {
        let tops: Vec<String> = tops
            .iter()
            .enumerate()
            .map(|(i, lp)| format!(r#"{{"token": "{}", "logprob": {lp}}}"#, i + 1))
            .collect();
        format!(
            r#"{{"choices": [{{"message": {{"content": "4"}}, "logprobs": {{"content": [
                {{"token": "4", "logprob": {chosen}, "top_logprobs": [{}]}}]}}}}]}}"#,
            tops.join(",")
        )
    }

    #[test]
    fn impossible_logprobs_make_the_answer_unusable_with_a_sentence() {
        assert!(parse_chat_completion(&with_logprobs("-0.3", &["-1.5", "-0.3"])).is_ok());
        // Exactly 0 and a rounding hair above it are probability 1.
        let c = parse_chat_completion(&with_logprobs("1e-9", &["0", "-30"])).unwrap();
        assert_eq!(c.steps.unwrap()[0].logprob, 0.0);
        // Numbers that are no log-probability: the rule's sentence, naming the token.
        for (chosen, tops) in [
            ("0.5", vec!["-1.0"]),
            ("-0.3", vec!["0.7", "-2"]),
            ("1e308", vec!["-0.3"]),
            // Two alternatives at p = 0.74 each: 1.48, more than 1.
            ("-0.3", vec!["-0.3", "-0.3"]),
        ] {
            let body = with_logprobs(chosen, &tops);
            let err = parse_chat_completion(&body).unwrap_err();
            let text = err.to_string();
            assert!(
                matches!(err, JudgeError::BadResponse { .. }),
                "{chosen} {tops:?}: {err:?}"
            );
            assert!(
                text.contains("none of this answer's token probabilities can be used"),
                "{text}"
            );
        }
        // Not numbers at all (this format's logprob is a JSON number): the answer is not a
        // chat completion, also a failed criterion with a sentence, never probability 1.
        for (chosen, tops) in [
            ("null", vec!["-0.3"]),
            ("\"NaN\"", vec!["-0.3"]),
            ("-0.3", vec!["\"-Infinity\""]),
            ("-0.3", vec!["null"]),
            ("-0.3", vec!["\"abc\""]),
            ("-0.3", vec!["true"]),
        ] {
            let err = parse_chat_completion(&with_logprobs(chosen, &tops)).unwrap_err();
            assert!(
                err.to_string()
                    .contains("not a chat completion (invalid type"),
                "{chosen} {tops:?}: {err}"
            );
        }
        let err = parse_chat_completion(&with_logprobs("0.5", &[])).unwrap_err();
        assert!(
            err.to_string()
                .contains("\u{201c}4\u{201d} a log-probability of 0.5"),
            "{err}"
        );
        // A logprob field left out is refused in this format (it always sends one).
        let body =
            r#"{"choices":[{"message":{"content":"4"},"logprobs":{"content":[{"token":"4"}]}}]}"#;
        assert!(parse_chat_completion(body).is_err());
        // Overflowing numbers are not JSON numbers serde can read: refused too.
        assert!(parse_chat_completion(&with_logprobs("-0.3", &["1e400"])).is_err());
    }

    fn step(token: &str, logprob: f64, top: &[(&str, f64)]) -> TokenStep {
        TokenStep {
            token: token.into(),
            logprob,
            top: top.iter().map(|(t, p)| (t.to_string(), p.ln())).collect(),
        }
    }

    #[test]
    fn duplicate_alternatives_add_up_the_chosen_counts_once_and_empty_tokens_stay_apart() {
        let s = step(
            "4",
            0.5f64.ln(),
            &[("4", 0.5), ("5", 0.2), ("4", 0.1), ("5", 0.05)],
        );
        let alts = s.alternatives();
        assert_eq!(alts.len(), 2, "{alts:?}");
        assert!((alts[0].1 - 0.6).abs() < 1e-12 && (alts[1].1 - 0.25).abs() < 1e-12);
        // Chosen but not listed: counted once.
        let s = step("3", 0.1f64.ln(), &[("4", 0.5)]);
        assert_eq!(s.alternatives().len(), 2);
        // llama.cpp: several "" alternatives (partial UTF-8 bytes, distinct `bytes`) are
        // different tokens and are not folded into one.
        let s = step(
            "",
            0.3f64.ln(),
            &[("", 0.3), ("", 0.2), ("", 0.1), ("4", 0.05)],
        );
        let alts = s.alternatives();
        assert_eq!(alts.len(), 4, "{alts:?}");
        assert!((alts.iter().map(|a| a.1).sum::<f64>() - 0.65).abs() < 1e-12);
    }

    #[test]
    fn llama_cpp_partial_utf8_alternatives_are_read_and_kept_distinct() {
        // As llama-server sends an emoji split over byte tokens: the text of a partial
        // character is "" and only `bytes` tells the tokens apart.
        let body = r#"{"choices":[{"finish_reason":"stop","index":0,"message":{"role":"assistant","content":"4"},
            "logprobs":{"content":[{"id":28781,"token":"4","bytes":[52],"logprob":-0.4,
              "top_logprobs":[{"id":28781,"token":"4","bytes":[52],"logprob":-0.4},
                {"id":227,"token":"","bytes":[240],"logprob":-2.5},
                {"id":228,"token":"","bytes":[241],"logprob":-2.6},
                {"id":229,"token":"","bytes":[226],"logprob":-2.7},
                {"id":28782,"token":"5","bytes":[53],"logprob":-3.0}]}]}}],
            "model":"smolvlm","object":"chat.completion"}"#;
        let steps = parse_chat_completion(body).unwrap().steps.unwrap();
        assert_eq!(steps[0].alternatives().len(), 5);
        let d = crate::answers::rating::rating_distribution(&steps, "4").unwrap();
        let (p4, p5) = ((-0.4f64).exp(), (-3.0f64).exp());
        assert!((d.p[3] - p4 / (p4 + p5)).abs() < 1e-12);
        assert!((d.coverage - (p4 + p5)).abs() < 1e-12);
    }

    #[test]
    fn a_hundred_thousand_alternatives_are_refused_in_one_pass_and_a_thousand_folded() {
        // The old first-copy check compared every pair (50k alternatives took 10 s in the
        // browser). Parsing is one pass; more than MAX_ALTERNATIVES at a step is refused.
        let body = |n: usize| {
            let tops: Vec<String> = (0..n)
                .map(|i| format!(r#"{{"token":"t{i}","logprob":-20}}"#))
                .collect();
            format!(
                r#"{{"choices":[{{"message":{{"content":"4"}},"logprobs":{{"content":[
                {{"token":"4","logprob":-0.1,"top_logprobs":[{{"token":"4","logprob":-0.1}},{}]}}]}}}}]}}"#,
                tops.join(",")
            )
        };
        let started = std::time::Instant::now();
        let err = parse_chat_completion(&body(100_000)).unwrap_err();
        assert!(err.to_string().contains("100001 alternatives"), "{err}");
        let steps = parse_chat_completion(&body(MAX_ALTERNATIVES - 1))
            .unwrap()
            .steps
            .unwrap();
        assert_eq!(steps[0].alternatives().len(), MAX_ALTERNATIVES);
        let d = crate::answers::rating::rating_distribution(&steps, "4").unwrap();
        assert_eq!(d.p[3], 1.0);
        // Generous for a debug build on a loaded machine (well under 1 s idle); comparing
        // every pair of 100k alternatives would be 5 * 10^9 string comparisons.
        assert!(
            started.elapsed().as_secs_f64() < 30.0,
            "{:?}",
            started.elapsed()
        );
    }
}
