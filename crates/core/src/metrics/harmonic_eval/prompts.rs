//! HarmonicEval's five criterion prompts.
//!
//! Quoted from Ohi et al., *HarmonicEval*, Appendix C.1 ("Full prompts"), with the paper's
//! task-dependent words turned into two slots:
//!
//! * `{noun}`: the judged text, "caption" in the paper; "answer" for VQA/VDU, "referring
//!   expression" for REG (see [`Task::text_noun`]);
//! * `{source}`: what the text is about, "image" in the paper (see [`Task::source_phrase`]).
//!
//! Clarity, Fluency and Conciseness are text-only in the paper and have no slots.
//!
//! The paper does not print how the inputs follow the rubric. We append them as labelled lines
//! (`Question:`, `Candidate {noun}:` or `Text:`) and end with `Rating:`, so that a model which
//! obeys "output the evaluation score first" produces the rating as its first token. The rating
//! extractor does not rely on that (see `crate::answers::rating`).

use crate::scoring::criteria::Criterion;
use crate::scoring::task::Task;

const CORRECTNESS: &str = "\
Your task is to rate the candidate {noun} for the given {source} on a scale of 1 to 5 on the following criterion and rating scale.

Evaluation Criterion:

- Correctness: How accurately does the {noun} describe the {source}?

Rating Scale:

- 1 Very Low Correctness: The {noun} is mostly or entirely incorrect; it fails to accurately describe the {source} or misses key elements.

- 2 Low Correctness: The {noun} includes some correct information but misses major aspects or includes incorrect details.

- 3 Moderate Correctness: The {noun} is generally accurate, capturing a basic understanding of the {source} but may omit some details or include minor inaccuracies.

- 4 High Correctness: The {noun} is mostly accurate, including key elements and details of the {source} with minimal inaccuracies.

- 5 Extremely High Correctness: The {noun} perfectly captures all relevant and discernible details of the {source} with complete accuracy.";

const COMPLETENESS: &str = "\
Your task is to rate the candidate {noun} for the given {source} on a scale of 1 to 5. Output the evaluation score first based on the following criteria and rating scale.

Evaluation Criteria:

- Completeness: How completely does the {noun} cover all the relevant and essential aspects of the {source}?

Rating Scale:

- 1 Very Low Completeness: The {noun} includes almost none of the essential aspects of the {source}, missing most key elements and details.

- 2 Low Completeness: The {noun} mentions a few essential aspects but omits many key elements and relevant details.

- 3 Moderate Completeness: The {noun} covers some of the essential aspects of the {source} but misses several important details.

- 4 High Completeness: The {noun} includes most of the essential aspects of the {source}, with only a few minor elements missing.

- 5 Extremely High Completeness: The {noun} fully covers all relevant and essential aspects of the {source}, leaving no important details unaddressed.";

const CLARITY: &str = "\
Your task is to rate the text on a scale of 1 to 5. Output the evaluation score first based on the following criteria and rating scale.

Evaluation Criteria:

- Clarity: How clear is the text?

Rating Scale:

- 1 Ambiguous: The text is very unclear and can be interpreted in multiple ways, leading to significant confusion about its intended meaning.

- 2 Somewhat ambiguous: The text includes phrases or structures that make it non-definitive, such as using ’or’ or other ambiguous language, allowing for multiple interpretations.

- 3 Neutral: The text is moderately clear but may still leave some room for interpretation.

- 4 Clear: The text clearly describes the subject matter and is easily understood, with only minor imperfections.

- 5 Very Clear: The text is exceptionally clear, leaving no room for misinterpretation.";

const FLUENCY: &str = "\
Your task is to rate the text on a scale of 1 to 5. Output the evaluation score first based on the following criteria and rating scale.

Evaluation Criteria:

- Fluency: How well the text is written in terms of grammar, punctuation, and phrasing.

Rating Scale:

- 1 Disfluent: The text contains numerous errors, making it difficult to understand.

- 2 Somewhat disfluent: The text has several noticeable errors that make it sound unnatural.

- 3 Moderately fluent: The text is generally understandable but contains errors that cause some discomfort while reading.

- 4 Fluent: The text flows well and is easy to understand with only minor imperfections.

- 5 Very fluent: The text is perfectly constructed with no grammatical errors or awkward phrasing.";

const CONCISENESS: &str = "\
Your task is to rate the text on a scale of 1 to 5. Output the evaluation score first based on the following criteria and rating scale.

Evaluation Criteria:

- Conciseness: How concise is the text?

Rating Scale:

- 1 Excessively verbose: The text is unnecessarily long-winded, containing redundant information or irrelevant details that significantly impair readability.

- 2 Overly verbose: The text includes unnecessary information or repetitive phrases that could be condensed without losing meaning.

- 3 Moderately verbose: The text is somewhat wordy but generally acceptable, with a few instances where information could be expressed more concisely.

- 4 Concise: The text is to-the-point and efficient, but there may be one or two phrases that could be slightly more condensed without losing meaning.

- 5 Optimally concise: The text conveys all necessary information using the minimum number of words possible, with no room for further condensation without losing meaning.";

/// The follow-up turn that asks for an explanation (FLEUR, Lee et al. 2024; reused by the
/// HarmonicEval paper, Section 5).
pub const EXPLAIN_TURN: &str = "Why? Tell me the reason.";

/// The rubric of one criterion with the task's words filled in.
pub fn rubric(criterion: Criterion, task: Task) -> String {
    let template = match criterion {
        Criterion::Correctness => CORRECTNESS,
        Criterion::Completeness => COMPLETENESS,
        Criterion::Clarity => CLARITY,
        Criterion::Fluency => FLUENCY,
        Criterion::Conciseness => CONCISENESS,
    };
    template
        .replace("{noun}", task.text_noun())
        .replace("{source}", task.source_phrase())
}

/// The full user prompt for one criterion: the rubric, then the inputs this criterion may see.
/// The question is only shown to image-grounded criteria of tasks that have one.
pub fn user_prompt(criterion: Criterion, task: Task, text: &str, question: &str) -> String {
    let mut prompt = rubric(criterion, task);
    prompt.push_str("\n\n");
    if criterion.sees_image() {
        if task.needs_question() {
            prompt.push_str("Question: ");
            prompt.push_str(question.trim());
            prompt.push('\n');
        }
        prompt.push_str("Candidate ");
        prompt.push_str(task.text_noun());
        prompt.push_str(": ");
    } else {
        prompt.push_str("Text: ");
    }
    prompt.push_str(text.trim());
    prompt.push_str("\n\nRating:");
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ic_correctness_is_the_papers_prompt_verbatim() {
        let p = rubric(Criterion::Correctness, Task::Ic);
        assert!(p.starts_with(
            "Your task is to rate the candidate caption for the given image on a scale of 1 to 5 \
             on the following criterion and rating scale."
        ));
        assert!(p.contains("- Correctness: How accurately does the caption describe the image?"));
        assert!(p.contains(
            "- 5 Extremely High Correctness: The caption perfectly captures all relevant and \
             discernible details of the image with complete accuracy."
        ));
        assert!(!p.contains('{'), "unfilled slot in {p}");
    }

    #[test]
    fn vqa_substitutes_answer_for_caption() {
        for c in [Criterion::Correctness, Criterion::Completeness] {
            let p = rubric(c, Task::Vqa);
            assert!(!p.contains("caption"), "{c:?} still says caption");
            assert!(p.contains("candidate answer for the given image and question"));
        }
    }

    #[test]
    fn reg_names_the_red_box() {
        let p = rubric(Criterion::Correctness, Task::Reg);
        assert!(p.contains("referring expression"));
        assert!(p.contains("red bounding box"));
    }

    #[test]
    fn text_only_criteria_never_see_question_or_source() {
        for c in [
            Criterion::Clarity,
            Criterion::Fluency,
            Criterion::Conciseness,
        ] {
            for t in Task::ALL {
                let p = user_prompt(c, t, "A dog.", "What animal?");
                assert!(
                    !p.contains("What animal?"),
                    "{c:?}/{t:?} leaks the question"
                );
                assert!(!p.contains("image"), "{c:?}/{t:?} mentions the image");
                assert!(p.ends_with("Text: A dog.\n\nRating:"));
            }
        }
    }

    #[test]
    fn question_goes_to_grounded_criteria_of_question_tasks_only() {
        let vqa = user_prompt(Criterion::Correctness, Task::Vqa, "Red.", "What colour?");
        assert!(vqa.ends_with("Question: What colour?\nCandidate answer: Red.\n\nRating:"));
        let ic = user_prompt(Criterion::Correctness, Task::Ic, "A dog.", "ignored");
        assert!(!ic.contains("ignored"));
        assert!(ic.ends_with("Candidate caption: A dog.\n\nRating:"));
    }

    #[test]
    fn every_prompt_is_filled() {
        for c in Criterion::ALL {
            for t in Task::ALL {
                let p = user_prompt(c, t, "x", "q");
                assert!(!p.contains("{noun}") && !p.contains("{source}"));
                assert!(p.contains(&format!("- {}:", c.label())));
            }
        }
    }
}
