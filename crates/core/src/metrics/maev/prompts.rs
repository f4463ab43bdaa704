//! The MAEV judge prompt and its few-shot examples, quoted from the paper (MAEV: Multimodal
//! Automatic Evaluation Framework, Appendix A: the prompt listing after Table 3, and the
//! examples of Figures 4 and 5). The listing's line breaks are kept as printed. The paper
//! prints four of its pool of ten examples (two per score); those four are the default pool,
//! and users add their own.

/// The prompt up to the examples (the paper's f-string, which opens with a newline).
const TEMPLATE: &str = "
[Question]
{question}
[Image Caption]
{caption}
[Reference Answer]
{reference}
[Assistant Answer]
{assistant}
[Instruction]
You are to evaluate the Answers provided by a multimodal AI assistant above.
Score the responses based on the following criteria and only the following
criteria:
[Evaluation Rubric]
**Accuracy**: Did the assistant's response correctly reference the main
object in the *caption* and *reference* without adding non-existent details?
Score 0: The response contains information that is not present in the caption
or reference answer.
Score 2: The response contains the main object in the caption or reference
answer and only includes accurate details.
[Your Evaluation] Respond in the following json format
'Evaluation Evidence': <Your analysis>
'Assistant Score': <Your score>";

/// One few-shot example: a judged case with its evidence and score (0 or 2).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Example {
    pub question: String,
    pub caption: String,
    pub reference: String,
    pub assistant: String,
    pub evidence: String,
    /// 0 (hallucination) or 2 (accurate).
    pub score: u8,
}

impl Example {
    /// The example as the paper's figures lay it out.
    pub fn render(&self) -> String {
        format!(
            "[Question]\n\"{}\"\n[Image Caption]\n\"{}\"\n[Reference Answer]\n\"{}\"\n[Assistant Answer]\n\"{}\"\n[Output]\nEvaluation Evidence: {}\nAssistant Score: \"{}\"",
            self.question, self.caption, self.reference, self.assistant, self.evidence, self.score
        )
    }
}

fn example(q: &str, c: &str, r: &str, a: &str, e: &str, score: u8) -> Example {
    Example {
        question: q.into(),
        caption: c.into(),
        reference: r.into(),
        assistant: a.into(),
        evidence: e.into(),
        score,
    }
}

/// The paper's printed examples (Figure 4: score 0; Figure 5: score 2). The emoji in the first
/// are as the paper's text gives them.
pub fn default_pool() -> Vec<Example> {
    vec![
        example(
            "Write an Instagram caption for this image.",
            "A busy urban street scene at night, highlighted by neon signs and a diverse crowd.",
            "City lights and starry nights: the urban jungle comes to life! 🚟 🕂 #CityThatNeverSleeps",
            "Tranquility in nature's embrace, away from the urban race. 🌲 🜌 #IntoTheWild",
            "The assistant's caption contrasts with the urban scene, inaccurately portraying a nature setting.",
            0,
        ),
        example(
            "Describe the emotion conveyed in the painting.",
            "A somber mood is depicted through deep blue hues.",
            "The painting showcases a profound sense of melancholy, with deep blue hues dominating the scene, reflecting the subject's inner turmoil.",
            "The painting, with its bright reds and yellows, depicts a sense of intense passion and joy.",
            "Incorrect colors and emotions cited, conflicting with the painting's described mood.",
            0,
        ),
        example(
            "What's the mood in the picture?",
            "A bright sunny day at the park with people picnicking and playing around.",
            "The picture portrays a cheerful mood, highlighted by people engaging in various\nrecreational activities in the park under the bright sun.",
            "The photo captures a joyful day, sunshine illuminating the park, while individuals\nenjoy picnics and games in the warmth.",
            "The response correctly mirrors the cheerful atmosphere\ndepicted, with no inaccuracies.",
            2,
        ),
        example(
            "What does the image depict?",
            "An old, rustic bridge over a calm river, surrounded by autumn-colored trees.",
            "The image depicts a quaint, old bridge crossing over a serene river, with trees\nshowcasing a spectrum of autumn hues, creating a peaceful scenery.",
            "Displayed is a rustic bridge, aged by time, spanning a tranquil river, while trees\ndressed in autumn's palette complement the serene vista.",
            "The assistant's description aligns with the image, accurately\ndetailing the bridge, river, and trees.",
            2,
        ),
    ]
}

/// The judge prompt for one trial: the case, the rubric, then one score-0 and one score-2
/// example appended exactly as the paper's code does.
pub fn prompt(
    question: &str,
    caption: &str,
    reference: &str,
    assistant: &str,
    hallucination: &Example,
    accurate: &Example,
) -> String {
    let mut p = TEMPLATE
        .replace("{question}", question)
        .replace("{caption}", caption)
        .replace("{reference}", reference)
        .replace("{assistant}", assistant);
    p.push_str(&format!("\n\n[Example]\n{}\n\n", hallucination.render()));
    p.push_str(&format!("\n\n[Example]\n{}", accurate.render()));
    p
}

/// Our own wording (the paper's captions came with its dataset): a dense caption for the
/// "caption the image first" helper.
pub const CAPTION_REQUEST: &str = "Describe this image in one dense paragraph for someone who \
cannot see it: the main objects and people, their attributes, actions and positions, any \
visible text, and the setting. Describe only what is visible.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_has_the_case_the_rubric_and_two_examples_in_order() {
        let pool = default_pool();
        let p = prompt("Q?", "A cat.", "A cat sits.", "A dog.", &pool[0], &pool[2]);
        assert!(p.starts_with("\n[Question]\nQ?\n[Image Caption]\nA cat.\n[Reference Answer]\nA cat sits.\n[Assistant Answer]\nA dog.\n[Instruction]\n"));
        assert!(p.contains("'Assistant Score': <Your score>\n\n[Example]\n[Question]\n\"Write an Instagram caption"));
        let zero = p.find("Assistant Score: \"0\"").unwrap();
        let two = p.find("Assistant Score: \"2\"").unwrap();
        assert!(zero < two);
        assert!(p.ends_with("Assistant Score: \"2\""));
    }

    #[test]
    fn default_pool_has_both_scores() {
        let pool = default_pool();
        assert_eq!(pool.iter().filter(|e| e.score == 0).count(), 2);
        assert_eq!(pool.iter().filter(|e| e.score == 2).count(), 2);
    }
}
