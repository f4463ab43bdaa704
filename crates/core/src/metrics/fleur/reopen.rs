//! A FLEUR / RefFLEUR export read back (open a result, a share link, the history): the
//! caption, its references and the smoothed result as it was, the score recomputed from the
//! stored digit probabilities by the paper's rule (or ours, for multi-digit tokens). A file
//! whose recorded score its probabilities do not give, or with no score at all, is refused
//! with a sentence.

use serde_json::{Map, Value};

use super::smoothing::{Place, PlaceDistribution, Scheme, Smoothed};
use super::{FleurResult, Input};

/// What the FLEUR panel needs to show a file as if it had just run.
#[derive(Clone, Debug, PartialEq)]
pub struct Reopened {
    /// The caption and references (the image is the result file's own, if any).
    pub input: Input,
    pub result: FleurResult,
    pub explanation: Option<String>,
}

fn bad(why: &str) -> String {
    format!("This FLEUR file {why}, so it cannot be shown.")
}

/// Reads a FLEUR or RefFLEUR export (`obj`), or says why it cannot be shown.
pub fn reopen(obj: &Map<String, Value>) -> Result<Reopened, String> {
    let text = |k: &str| obj.get(k).and_then(Value::as_str);
    let scheme = match text("scheme") {
        Some("per_digit") => Scheme::PerDigit,
        Some("multi_digit") => Scheme::MultiDigit,
        Some("units") => Scheme::Units,
        _ => {
            return Err(bad(
                "holds no score (its run failed, or it records no digit probabilities)",
            ))
        }
    };
    let printed = text("printed").ok_or_else(|| bad("does not say what the judge printed"))?;
    let raw: f64 = printed
        .parse()
        .map_err(|_| bad("records a printed score that is not a number"))?;
    let places = obj
        .get("places")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("has no digit probabilities"))?
        .iter()
        .map(place)
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| bad("has digit probabilities that cannot be read"))?;
    let score = score_of(scheme, printed, &places)
        .ok_or_else(|| bad("has digit probabilities that are not probabilities"))?;
    match obj.get("smoothed_score").and_then(Value::as_f64) {
        Some(stored) if (stored - score).abs() <= 1e-9 => {}
        _ => return Err(bad("records a score its digit probabilities do not give")),
    }
    let references = obj.get("references").and_then(Value::as_array).map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect::<Vec<_>>()
    });
    let references = references.filter(|_| text("metric") == Some(super::REF_FLEUR_INFO.id));
    Ok(Reopened {
        input: Input {
            caption: text("caption").unwrap_or_default().to_string(),
            references,
            image: None,
        },
        result: FleurResult {
            smoothed: Smoothed {
                printed: printed.to_string(),
                raw,
                score,
                scheme,
                places,
                after_echo: false,
            },
            answer: text("answer").unwrap_or_default().to_string(),
            usage: obj
                .get("usage")
                .and_then(|u| serde_json::from_value(u.clone()).ok()),
            doubts: crate::answers::doubt::Doubt::from_export(obj.get("doubts")),
        },
        explanation: text("explanation").map(str::to_string),
    })
}

fn place(v: &Value) -> Option<PlaceDistribution> {
    let place = match v.get("place")?.as_str()? {
        "units" => Place::Units,
        "tenths" => Place::Tenths,
        "hundredths" => Place::Hundredths,
        _ => return None,
    };
    let digits: Vec<f64> = v
        .get("digits")?
        .as_array()?
        .iter()
        .map(Value::as_f64)
        .collect::<Option<_>>()?;
    let readings = match v.get("readings").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .map(|r| {
                Some((
                    r.get("token")?.as_str()?.to_string(),
                    r.get("value")?.as_f64()?,
                    r.get("p")?.as_f64()?,
                ))
            })
            .collect::<Option<Vec<_>>>()?,
        None => Vec::new(),
    };
    Some(PlaceDistribution {
        place,
        step: v.get("step").and_then(Value::as_u64).unwrap_or(0) as usize,
        token: v
            .get("token")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        digits: digits.try_into().ok()?,
        readings,
    })
}

/// Whether `ps` are probabilities (finite, in [0, 1], adding up to at most 1).
fn probabilities(ps: impl Iterator<Item = f64>) -> bool {
    let mut sum = 0.0;
    for p in ps {
        if !p.is_finite() || !(0.0..=1.0).contains(&p) {
            return false;
        }
        sum += p;
    }
    sum <= 1.0 + 1e-6
}

/// The smoothed score the stored places give, by the rule `scheme` names (the same arithmetic,
/// in the same order, as `smoothing::smooth`); `None` if they are not probabilities or do not
/// fit the scheme.
pub fn score_of(scheme: Scheme, printed: &str, places: &[PlaceDistribution]) -> Option<f64> {
    let expectation = |d: &PlaceDistribution| -> f64 {
        d.digits.iter().enumerate().map(|(i, p)| i as f64 * p).sum()
    };
    match (scheme, places) {
        (Scheme::Units, [d])
            if d.place == Place::Units && probabilities(d.digits.iter().copied()) =>
        {
            let (units, frac) = printed.split_once('.').unwrap_or((printed, ""));
            let one = units.trim_start_matches('0') == "1" && frac.bytes().all(|b| b == b'0');
            Some(if one {
                0.9 * d.digits[0] + d.digits[1]
            } else {
                0.1 * expectation(d)
            })
        }
        (Scheme::MultiDigit, [d]) if probabilities(d.readings.iter().map(|r| r.2)) => {
            if d.readings.iter().any(|r| !(0.0..=1.0).contains(&r.1)) {
                return None;
            }
            let mut score = 0.0;
            for (_, value, p) in &d.readings {
                score += p * value;
            }
            Some(score)
        }
        (Scheme::PerDigit, [t, rest @ ..]) if t.place == Place::Tenths && rest.len() <= 1 => {
            let mut score = 0.1 * expectation(t);
            for h in rest {
                if h.place != Place::Hundredths || !probabilities(h.digits.iter().copied()) {
                    return None;
                }
                score += 0.01 * expectation(h);
            }
            probabilities(t.digits.iter().copied()).then_some(score)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::completion::TokenStep;
    use crate::answers::doubt::Doubt;
    use crate::metrics::fleur::{export_json, ExportInput};
    use crate::providers::Backend;

    fn step(token: &str, top: &[(&str, f64)]) -> TokenStep {
        TokenStep {
            token: token.into(),
            logprob: top
                .iter()
                .find(|(t, _)| *t == token)
                .map_or(0.0, |(_, p)| p.ln()),
            top: top.iter().map(|(t, p)| (t.to_string(), p.ln())).collect(),
        }
    }

    fn exported(
        steps: &[TokenStep],
        text: &str,
        references: Option<&[String]>,
    ) -> (FleurResult, String) {
        let smoothed = crate::metrics::fleur::smoothing::smooth(steps, text, false).unwrap();
        let result = FleurResult {
            smoothed,
            answer: text.into(),
            usage: None,
            doubts: vec![Doubt::LowCoverage],
        };
        let doc = export_json(&ExportInput {
            caption: "A cat.",
            references,
            backend: &Backend::default(),
            result: Ok(&result),
            explanation: Some("Because."),
        });
        (result, doc)
    }

    fn read(doc: &str) -> Result<Reopened, String> {
        reopen(
            serde_json::from_str::<Value>(doc)
                .unwrap()
                .as_object()
                .unwrap(),
        )
    }

    #[test]
    fn every_scheme_reads_back_to_the_same_result() {
        let per_digit = [
            step("0", &[("0", 1.0)]),
            step(".", &[(".", 1.0)]),
            step("8", &[("8", 0.7), ("7", 0.2), ("9", 0.05)]),
            step("5", &[("5", 0.6), ("0", 0.3)]),
        ];
        let multi = [
            step("0", &[("0", 1.0)]),
            step(".", &[(".", 1.0)]),
            step("85", &[("85", 0.6), ("9", 0.3), ("75", 0.05)]),
        ];
        let one = [
            step("1", &[("1", 0.8), ("0", 0.15)]),
            step(".", &[(".", 1.0)]),
            step("0", &[("0", 1.0)]),
        ];
        for (steps, text) in [
            (&per_digit[..], "0.85"),
            (&multi[..], "0.85"),
            (&one[..], "1.0"),
        ] {
            let (result, doc) = exported(steps, text, None);
            let back = read(&doc).unwrap();
            assert_eq!(
                back.result,
                FleurResult {
                    smoothed: Smoothed {
                        after_echo: false,
                        ..result.smoothed.clone()
                    },
                    ..result
                }
            );
            assert_eq!(back.input.caption, "A cat.");
            assert_eq!(back.input.references, None);
            assert_eq!(back.explanation.as_deref(), Some("Because."));
        }
    }

    #[test]
    fn references_come_back_for_ref_fleur() {
        let steps = [
            step("0", &[("0", 1.0)]),
            step(".", &[(".", 1.0)]),
            step("6", &[("6", 0.9)]),
        ];
        let refs = vec!["A cat sleeps.".to_string()];
        let (_, doc) = exported(&steps, "0.6", Some(&refs));
        assert_eq!(read(&doc).unwrap().input.references, Some(refs));
    }

    #[test]
    fn a_score_its_probabilities_do_not_give_or_no_score_is_refused() {
        let steps = [
            step("0", &[("0", 1.0)]),
            step(".", &[(".", 1.0)]),
            step("8", &[("8", 0.7), ("7", 0.2)]),
        ];
        let (_, doc) = exported(&steps, "0.8", None);
        let mut v: Value = serde_json::from_str(&doc).unwrap();
        v["smoothed_score"] = Value::from(0.99);
        assert!(read(&v.to_string())
            .unwrap_err()
            .contains("score its digit probabilities do not give"));
        let mut v: Value = serde_json::from_str(&doc).unwrap();
        v["places"][0]["digits"][8] = Value::from(1.5);
        assert!(read(&v.to_string())
            .unwrap_err()
            .contains("not probabilities"));
        let failed = r#"{"metric":"fleur","caption":"A cat.","error":"HTTP 401"}"#;
        assert!(read(failed).unwrap_err().contains("holds no score"));
    }
}
