//! A G-VEval export read back (open a result, a share link, the history): its settings, the
//! caption and references, and the result as it was. Each reading is checked against what
//! the file records: an integer-token score is recomputed from its stored distribution, a
//! parsed one must be the printed integer, and ACCR's score the mean of its four. (A
//! chained-digit score keeps no per-digit alternatives in the export, so only its range, 0 to
//! 100, can be checked.) Anything else is refused with a sentence.

use serde_json::{Map, Value};

use super::{GvevalResult, Input, Medium, Method, Mode, Reading, ACCR};

/// What the G-VEval panel needs to show a file as if it had just run.
#[derive(Clone, Debug, PartialEq)]
pub struct Reopened {
    /// Settings, caption and references (the image is the result file's own, if any).
    pub input: Input,
    pub result: GvevalResult,
}

fn bad(why: &str) -> String {
    format!("This G-VEval file {why}, so it cannot be shown.")
}

/// Reads a G-VEval export (`obj`), or says why it cannot be shown.
pub fn reopen(obj: &Map<String, Value>) -> Result<Reopened, String> {
    let text = |k: &str| obj.get(k).and_then(Value::as_str).unwrap_or_default();
    let stored = obj
        .get("score")
        .and_then(Value::as_f64)
        .ok_or_else(|| bad("holds no score (its run failed)"))?;
    let accr = obj.get("accr").and_then(Value::as_bool).unwrap_or(false);
    let unreadable = || bad("has a reading that cannot be read or does not give its score");
    let (score, final_reading, accr_readings) = if accr {
        let list = obj
            .get("accr_scores")
            .and_then(Value::as_array)
            .ok_or_else(unreadable)?;
        let readings: Vec<Reading> = ACCR
            .iter()
            .map(|(name, _)| {
                list.iter()
                    .find(|r| r.get("name").and_then(Value::as_str) == Some(name))
                    .and_then(reading)
            })
            .collect::<Option<_>>()
            .ok_or_else(unreadable)?;
        let readings: [Reading; 4] = readings.try_into().map_err(|_| unreadable())?;
        (
            readings.iter().map(|r| r.score).sum::<f64>() / 4.0,
            None,
            Some(readings),
        )
    } else {
        let r = obj
            .get("final_score")
            .and_then(reading)
            .ok_or_else(unreadable)?;
        (r.score, Some(r), None)
    };
    if (stored - score).abs() > 1e-9 {
        return Err(bad("records a score its readings do not give"));
    }
    let fidelity = crate::metrics::fidelity::Fidelity::from_export(obj.get("extensions"));
    Ok(Reopened {
        input: Input {
            medium: Medium::from_id(text("medium")).unwrap_or(Medium::Image),
            mode: Mode::from_id(text("mode")).unwrap_or(Mode::RefFree),
            accr,
            caption: text("caption").to_string(),
            references: obj
                .get("references")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            image: None,
            fidelity,
        },
        result: GvevalResult {
            score,
            final_reading,
            accr: accr_readings,
            reasoning: text("reasoning").to_string(),
            usage: obj
                .get("usage")
                .and_then(|u| serde_json::from_value(u.clone()).ok()),
            doubts: crate::answers::doubt::Doubt::from_export(obj.get("doubts")),
        },
    })
}

/// One stored reading, if its score is what its method gives.
fn reading(v: &Value) -> Option<Reading> {
    let printed = u32::try_from(v.get("printed")?.as_u64()?)
        .ok()
        .filter(|p| *p <= 100)?;
    let score = v
        .get("score")?
        .as_f64()
        .filter(|s| s.is_finite() && (0.0..=100.0).contains(s))?;
    let distribution: Vec<(u32, f64)> = match v.get("distribution").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .map(|pair| {
                let value = u32::try_from(pair.get(0)?.as_u64()?)
                    .ok()
                    .filter(|x| *x <= 100)?;
                let p = pair
                    .get(1)?
                    .as_f64()
                    .filter(|p| p.is_finite() && (0.0..=1.0).contains(p))?;
                Some((value, p))
            })
            .collect::<Option<_>>()?,
        None => Vec::new(),
    };
    let method = match v.get("method")?.as_str()? {
        "parsed" if score == f64::from(printed) => Method::Parsed,
        "integer_tokens" => {
            let total: f64 = distribution.iter().map(|(_, p)| p).sum();
            let expected: f64 = distribution.iter().map(|(x, p)| f64::from(*x) * p).sum();
            ((total - 1.0).abs() <= 1e-6 && (expected - score).abs() <= 1e-9)
                .then_some(Method::IntegerTokens)?
        }
        "chained_digits" => Method::ChainedDigits,
        _ => return None,
    };
    Some(Reading {
        printed,
        score,
        method,
        step: None,
        distribution,
        near_end: false,
        after_echo: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::doubt::Doubt;
    use crate::metrics::fidelity::Fidelity;
    use crate::metrics::g_veval::{export_json, ExportInput};
    use crate::providers::Backend;

    fn r(printed: u32, score: f64, method: Method, distribution: Vec<(u32, f64)>) -> Reading {
        Reading {
            printed,
            score,
            method,
            step: None,
            distribution,
            near_end: false,
            after_echo: false,
        }
    }

    fn input(accr: bool) -> Input {
        Input {
            medium: if accr { Medium::Video } else { Medium::Image },
            mode: Mode::Combined,
            accr,
            caption: "A cat.".into(),
            references: vec!["A cat sleeps.".into()],
            image: None,
            fidelity: Fidelity::paper(),
        }
    }

    fn round_trip(input: &Input, result: &GvevalResult) -> Result<Reopened, String> {
        let doc = export_json(&ExportInput {
            input,
            backend: &Backend::default(),
            result: Ok(result),
        });
        reopen(
            serde_json::from_str::<Value>(&doc)
                .unwrap()
                .as_object()
                .unwrap(),
        )
    }

    #[test]
    fn a_final_score_and_accrs_four_read_back_as_they_were() {
        let tokens = r(
            85,
            85.0 * 0.7 + 80.0 * 0.3,
            Method::IntegerTokens,
            vec![(80, 0.3), (85, 0.7)],
        );
        let result = GvevalResult {
            score: tokens.score,
            final_reading: Some(tokens),
            accr: None,
            reasoning: "Fine. Final score: 85".into(),
            usage: None,
            doubts: vec![Doubt::Truncated],
        };
        let back = round_trip(&input(false), &result).unwrap();
        assert_eq!(back.result, result);
        assert_eq!(back.input, input(false));
        let four = [
            r(90, 90.0, Method::Parsed, vec![]),
            r(70, 70.5, Method::ChainedDigits, vec![]),
            r(60, 60.0, Method::Parsed, vec![]),
            r(80, 80.0, Method::Parsed, vec![]),
        ];
        let accr = GvevalResult {
            score: 75.125,
            final_reading: None,
            accr: Some(four),
            ..result
        };
        assert_eq!(round_trip(&input(true), &accr).unwrap().result, accr);
    }

    #[test]
    fn a_score_its_readings_do_not_give_or_no_score_is_refused() {
        let bent = GvevalResult {
            score: 85.0,
            final_reading: Some(r(
                85,
                85.0,
                Method::IntegerTokens,
                vec![(80, 0.3), (85, 0.7)],
            )),
            accr: None,
            reasoning: String::new(),
            usage: None,
            doubts: vec![],
        };
        assert!(round_trip(&input(false), &bent)
            .unwrap_err()
            .contains("cannot be read or does not give"));
        let parsed_off = GvevalResult {
            score: 84.0,
            final_reading: Some(r(85, 84.0, Method::Parsed, vec![])),
            ..bent.clone()
        };
        assert!(round_trip(&input(false), &parsed_off).is_err());
        let mean_off = GvevalResult {
            score: 1.0,
            final_reading: Some(r(85, 85.0, Method::Parsed, vec![])),
            ..bent
        };
        assert!(round_trip(&input(false), &mean_off)
            .unwrap_err()
            .contains("readings do not give"));
        let failed = serde_json::json!({"metric": "g_veval", "error": "HTTP 500"});
        assert!(reopen(failed.as_object().unwrap())
            .unwrap_err()
            .contains("holds no score"));
    }
}
