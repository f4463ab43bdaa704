//! A MAEV export read back (open a result, a share link, the history): the question, caption,
//! reference and judged answer, and every trial as it was. The export keeps each trial's two
//! few-shot examples by content (score, question, answer), so the pool the trials point at is
//! rebuilt from them (kept with the run only: the user's own pool setting is not touched). A
//! trial's score must be 0 to 2 (and the printed number itself when read as printed), and the
//! recorded mean must be the trials' mean; anything else is refused with a sentence.

use serde_json::{Map, Value};

use super::{aggregate, Example, Input, ScoreSource, TrialReading};

/// What the MAEV panel needs to show a file as if it had just run.
#[derive(Clone, Debug, PartialEq)]
pub struct Reopened {
    pub input: Input,
    /// Per trial: its examples (indices into `input.pool`) and its reading or recorded error.
    pub trials: Vec<((usize, usize), Result<TrialReading, String>)>,
}

fn bad(why: &str) -> String {
    format!("This MAEV file {why}, so it cannot be shown.")
}

/// Reads a MAEV export (`obj`), or says why it cannot be shown.
pub fn reopen(obj: &Map<String, Value>) -> Result<Reopened, String> {
    let text = |k: &str| {
        obj.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let listed = obj
        .get("trials")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("has no trials"))?;
    let mut pool: Vec<Example> = Vec::new();
    let mut trials = Vec::with_capacity(listed.len());
    for t in listed {
        let examples = t
            .get("examples")
            .and_then(Value::as_array)
            .filter(|e| e.len() == 2);
        let examples = examples.ok_or_else(|| bad("has a trial without its two examples"))?;
        let zero = pool_index(&mut pool, &examples[0])
            .ok_or_else(|| bad("has an example that cannot be read"))?;
        let two = pool_index(&mut pool, &examples[1])
            .ok_or_else(|| bad("has an example that cannot be read"))?;
        let reading = match t.get("error").and_then(Value::as_str) {
            Some(e) => Err(e.to_string()),
            None => Ok(trial(t)
                .ok_or_else(|| bad("has a trial whose score cannot be read or is not 0 to 2"))?),
        };
        trials.push(((zero, two), reading));
    }
    let threshold = obj
        .get("threshold")
        .and_then(Value::as_f64)
        .unwrap_or(super::DEFAULT_THRESHOLD);
    let scores: Vec<f64> = trials
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok().map(|t| t.score))
        .collect();
    let Some((mean, _)) = aggregate(&scores, threshold) else {
        return Err(bad("holds no trial with a score (every trial failed)"));
    };
    if obj
        .get("mean")
        .and_then(Value::as_f64)
        .is_none_or(|m| (m - mean).abs() > 1e-9)
    {
        return Err(bad("records a mean its trials do not give"));
    }
    let fidelity = crate::metrics::fidelity::Fidelity::from_export(obj.get("extensions"));
    Ok(Reopened {
        input: Input {
            question: text("question"),
            caption: text("caption"),
            reference: text("reference_answer"),
            answer: text("answer"),
            trials: trials.len() as u32,
            threshold,
            seed: obj.get("seed").and_then(Value::as_u64).unwrap_or(1),
            pool,
            fidelity,
        },
        trials,
    })
}

/// The index in `pool` of the stored example `v`, added if it is new.
fn pool_index(pool: &mut Vec<Example>, v: &Value) -> Option<usize> {
    let score = u8::try_from(v.get("score")?.as_u64()?)
        .ok()
        .filter(|s| *s == 0 || *s == 2)?;
    let example = Example {
        question: v.get("question")?.as_str()?.to_string(),
        assistant: v.get("assistant")?.as_str()?.to_string(),
        score,
        caption: String::new(),
        reference: String::new(),
        evidence: String::new(),
    };
    let same = |e: &Example| {
        e.question == example.question && e.assistant == example.assistant && e.score == score
    };
    Some(match pool.iter().position(same) {
        Some(i) => i,
        None => {
            pool.push(example);
            pool.len() - 1
        }
    })
}

fn trial(t: &Value) -> Option<TrialReading> {
    let printed = u8::try_from(t.get("printed")?.as_u64()?)
        .ok()
        .filter(|p| *p <= 2)?;
    let score = t
        .get("score")?
        .as_f64()
        .filter(|s| s.is_finite() && (0.0..=2.0).contains(s))?;
    let source = match t.get("source")?.as_str()? {
        "printed" if score == f64::from(printed) => ScoreSource::Printed,
        "probabilities" => ScoreSource::Probabilities,
        _ => return None,
    };
    Some(TrialReading {
        evidence: t
            .get("evidence")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        printed,
        score,
        source,
        usage: None,
        doubts: crate::answers::doubt::Doubt::from_export(t.get("doubts")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::fidelity::Fidelity;
    use crate::metrics::maev::{default_pool, export_json, ExportInput};
    use crate::providers::Backend;

    fn reading(printed: u8, score: f64, source: ScoreSource) -> TrialReading {
        TrialReading {
            evidence: format!("Evidence {printed}."),
            printed,
            score,
            source,
            usage: None,
            doubts: vec![],
        }
    }

    fn exported() -> (Input, String) {
        let input = Input {
            question: "What animal?".into(),
            caption: "A cat on a sofa.".into(),
            reference: "A cat.".into(),
            answer: "A dog.".into(),
            trials: 3,
            threshold: 1.25,
            seed: 7,
            pool: default_pool(),
            fidelity: Fidelity::paper(),
        };
        let (a, b) = (
            reading(0, 0.0, ScoreSource::Printed),
            reading(2, 1.4, ScoreSource::Probabilities),
        );
        let doc = export_json(&ExportInput {
            input: &input,
            backend: &Backend::default(),
            trials: vec![
                ((0, 2), Ok(&a)),
                ((1, 2), Ok(&b)),
                ((0, 3), Err("HTTP 500")),
            ],
        });
        (input, doc)
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
    fn trials_and_their_examples_read_back_and_re_export_the_same() {
        let (input, doc) = exported();
        let back = read(&doc).unwrap();
        assert_eq!(back.input.question, "What animal?");
        assert_eq!(
            (
                back.input.answer.as_str(),
                back.input.seed,
                back.input.threshold
            ),
            ("A dog.", 7, 1.25)
        );
        assert_eq!(back.input.pool.len(), 4, "four distinct examples were used");
        assert_eq!(back.trials[0].0, (0, 1));
        assert_eq!(
            back.trials[1].0,
            (2, 1),
            "a repeated example keeps one index"
        );
        assert_eq!(back.trials[1].1.as_ref().unwrap().score, 1.4);
        assert_eq!(back.trials[2].1, Err("HTTP 500".to_string()));
        let outcomes: Vec<_> = back
            .trials
            .iter()
            .map(|(e, r)| (*e, r.as_ref().map_err(String::as_str)))
            .collect();
        let again = export_json(&ExportInput {
            input: &back.input,
            backend: &Backend::default(),
            trials: outcomes,
        });
        let strip = |d: &str| {
            let mut v: Value = serde_json::from_str(d).unwrap();
            v["settings"]["pool_size"] = Value::Null;
            v
        };
        assert_eq!(
            strip(&again),
            strip(&doc),
            "the same document but for the pool's size"
        );
        assert_eq!(input.pool[0].question, back.input.pool[0].question);
    }

    #[test]
    fn a_mean_or_a_printed_score_the_file_does_not_support_is_refused() {
        let (_, doc) = exported();
        let mut v: Value = serde_json::from_str(&doc).unwrap();
        v["mean"] = Value::from(2.0);
        assert!(read(&v.to_string())
            .unwrap_err()
            .contains("mean its trials do not give"));
        let mut v: Value = serde_json::from_str(&doc).unwrap();
        v["trials"][0]["score"] = Value::from(1.0);
        assert!(read(&v.to_string()).unwrap_err().contains("not 0 to 2"));
        let mut v: Value = serde_json::from_str(&doc).unwrap();
        v["trials"][1]["score"] = Value::from(2.5);
        assert!(read(&v.to_string()).is_err());
        let none = r#"{"metric":"maev","trials":[{"examples":[{"score":0,"question":"q","assistant":"a"},{"score":2,"question":"q","assistant":"b"}],"error":"HTTP 401"}]}"#;
        assert!(read(none).unwrap_err().contains("every trial failed"));
    }
}
