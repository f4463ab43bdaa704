//! Real answers of a real judge: SmolLM2-135M-Instruct (Q4_1) behind llama.cpp's llama-server,
//! asked HarmonicEval's and FLEUR's prompts at temperature 0 with 20 alternatives per step, as
//! recorded in `tests/fixtures/smollm2/` (the `bytes` arrays dropped, nothing else changed).
//! The file names give the prompt and the output budget (`_20`: 20 tokens).
//!
//! A weak judge that echoes its instructions: these pin that no score is ever taken from an
//! echoed scale or range ("…on a scale of 1 to ", "4.5 out of 5", "…scale of 0."), and that a
//! score found at the end of a cut-off answer is marked doubtful.

use harmonic_judge_core::answers::completion::parse_chat_completion;
use harmonic_judge_core::answers::doubt::Doubt;
use harmonic_judge_core::answers::errors::JudgeError;
use harmonic_judge_core::metrics::{fleur, harmonic_eval};
use harmonic_judge_core::providers::Protocol;

macro_rules! answer {
    ($name:literal) => {
        parse_chat_completion(include_str!(concat!(
            "../../../tests/fixtures/smollm2/",
            $name,
            ".json"
        )))
        .expect("a real chat completion")
    };
}

fn argmax(p: &[f64; 5]) -> usize {
    (0..5).max_by(|&a, &b| p[a].total_cmp(&p[b])).unwrap() + 1
}

#[test]
fn the_cut_off_scale_of_one_to_is_no_rating() {
    // "Your task is to rate the candidate caption … on a scale of 1 to " (tokens " ", "1", " to", " ").
    let c = answer!("he_completeness_20");
    assert!(c.truncated && c.text.ends_with("scale of 1 to "));
    match harmonic_eval::interpret(&c, Protocol::OpenAi) {
        Err(JudgeError::NoRating {
            truncated: true, ..
        }) => {}
        other => panic!("expected no rating, got {other:?}"),
    }
    // With 64 tokens the whole scale is echoed ("1 to 5.") and then a rubric: still no rating.
    let c = answer!("he_completeness_64");
    assert!(c.text.contains("scale of 1 to 5."));
    let err = harmonic_eval::interpret(&c, Protocol::OpenAi).unwrap_err();
    assert!(err.to_string().contains("Output tokens"), "{err}");
}

#[test]
fn rating_cut_off_after_the_label_is_no_rating_and_names_the_setting() {
    // 20 tokens end exactly at "Rating: "; the digit would have been token 21.
    let c = answer!("he_clarity_20");
    assert!(c.text.ends_with("Rating: "));
    let err = harmonic_eval::interpret(&c, Protocol::OpenAi).unwrap_err();
    assert!(matches!(
        err,
        JudgeError::NoRating {
            truncated: true,
            ..
        }
    ));
    assert!(err.to_string().contains("Output tokens"));
}

#[test]
fn with_room_the_rating_after_the_label_is_read() {
    let c = answer!("he_clarity_64"); // "…provided.\n\nRating: 4." then end of turn
    let r = harmonic_eval::interpret(&c, Protocol::OpenAi).unwrap();
    assert_eq!(argmax(&r.distribution), 4);
    assert!(r.doubts.is_empty(), "{:?}", r.doubts);
    let c = answer!("he_conciseness_64"); // "Rating: 4\n\nThe evaluation score is 4 out of 5, …"
    let r = harmonic_eval::interpret(&c, Protocol::OpenAi).unwrap();
    assert_eq!(argmax(&r.distribution), 4);
    assert!(r.coverage.unwrap() > 0.0 && r.coverage.unwrap() <= 1.0);
}

#[test]
fn four_point_five_out_of_five_gives_no_rating_from_either_number() {
    // "Rating: 4.5\n\nThe evaluation score is 4.5 out of 5. …": 4.5 is not a rating of 1..5,
    // and the 5 of "out of 5" is the scale's top.
    let c = answer!("he_fluency_64");
    assert!(matches!(
        harmonic_eval::interpret(&c, Protocol::OpenAi),
        Err(JudgeError::NoRating { .. })
    ));
}

#[test]
fn a_rating_at_the_end_of_a_cut_off_answer_is_doubtful() {
    // "Your rating is 4.5 out of 5.\n\nYour rating is 4." cut at 20 tokens: the last "4." may
    // have been the start of another 4.5.
    let c = answer!("he_correctness_20");
    let r = harmonic_eval::interpret(&c, Protocol::OpenAi).unwrap();
    assert_eq!(argmax(&r.distribution), 4);
    assert!(r.doubts.contains(&Doubt::Truncated), "{:?}", r.doubts);
    // It also came after "out of 5": the scale, passed over.
    assert!(r.doubts.contains(&Doubt::Echo));
}

#[test]
fn fleur_never_scores_its_echoed_prompt() {
    // "Your task is to evaluate and rate the caption on a scale of 0." (16 tokens).
    let c = answer!("fleur_16");
    assert!(c.text.ends_with("scale of 0."));
    match fleur::interpret(&c) {
        Err(JudgeError::NoNumber {
            truncated: true, ..
        }) => {}
        other => panic!("expected no number, got {other:?}"),
    }
    // 64 tokens: the whole instruction twice, "0.0 to 1.0" each time, and no score.
    let c = answer!("fleur_64");
    assert!(c.text.matches("0.0 to 1.0").count() == 2);
    assert!(matches!(
        fleur::interpret(&c),
        Err(JudgeError::NoNumber { .. })
    ));
}
