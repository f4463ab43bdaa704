//! The FLEUR and RefFLEUR prompts, quoted from the authors' code (github.com/Yebin46/FLEUR,
//! `fleur.py` and `reffleur.py`; the same text is printed in the paper, Lee et al., "FLEUR: An
//! Explainable Reference-Free Evaluation Metric for Image Captioning Using a Large Multimodal
//! Model", ACL 2024, §3.1 and §3.3). Reference captions are joined by newlines, as in
//! `reffleur.py`.

/// FLEUR (reference-free); `{caption}` is replaced by the candidate.
pub const FLEUR: &str = "Your task is to evaluate and rate the caption on a scale of 0.0 to 1.0 \
based on the given Grading Criteria. (Print Real Number Score ONLY)\n\nGrading Criteria:\n\n\
0.0: The caption does not describe the image at all.\n\
1.0: The caption accurately and clearly describes the image.\n\n\
Caption: {caption}\n\nScore(Choose a rating from 0.0 to 1.0):";

/// RefFLEUR; `{references}` is the reference set, one per line.
pub const REF_FLEUR: &str = "Your task is to evaluate and rate the candidate caption on a scale \
of 0.0 to 1.0 based on the given Grading Criteria. (Print Real Number Score ONLY)\n\n\
Grading Criteria:\n\n\
0.0: The caption does not describe the image at all.\n\
1.0: The caption accurately and clearly describes the image.\n\n\
Reference Captions: {references}\n\nCandidate Caption: {caption}\n\n\
Score(Choose a rating from 0.0 to 1.0):";

/// The follow-up turn that asks for the explanation (paper §3.4).
pub const EXPLAIN_TURN: &str = "Why? Tell me the reason.";

/// The scoring prompt. The caption's whitespace runs are collapsed to single spaces, as the
/// authors' code does (`' '.join(caption.split())`).
pub fn prompt(caption: &str, references: Option<&[String]>) -> String {
    let caption = caption.split_whitespace().collect::<Vec<_>>().join(" ");
    match references {
        None => FLEUR.replace("{caption}", &caption),
        Some(refs) => REF_FLEUR
            .replace("{references}", &refs.join("\n"))
            .replace("{caption}", &caption),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fleur_prompt_matches_the_authors_text() {
        let p = prompt("a  dog\nruns", None);
        assert!(p.starts_with("Your task is to evaluate and rate the caption on a scale of 0.0 to 1.0 based on the given Grading Criteria. (Print Real Number Score ONLY)\n\nGrading Criteria:\n\n0.0: "));
        assert!(p.ends_with("\n\nCaption: a dog runs\n\nScore(Choose a rating from 0.0 to 1.0):"));
    }

    #[test]
    fn ref_fleur_lists_references_one_per_line() {
        let refs = vec!["A dog.".to_string(), "A brown dog running.".to_string()];
        let p = prompt("a dog", Some(&refs));
        assert!(p.contains("rate the candidate caption on a scale"));
        assert!(p.contains("\n\nReference Captions: A dog.\nA brown dog running.\n\nCandidate Caption: a dog\n\nScore(Choose a rating from 0.0 to 1.0):"));
    }
}
