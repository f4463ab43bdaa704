//! The four multi-modal tasks HarmonicEval covers and the words that change with them.

use serde::Serialize;

/// The task whose output text is judged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Task {
    /// Image captioning.
    #[default]
    Ic,
    /// Visual question answering.
    Vqa,
    /// Visual document understanding (questions about a document image).
    Vdu,
    /// Referring expression generation: the target is marked by a red box drawn on the image.
    Reg,
}

impl Task {
    pub const ALL: [Task; 4] = [Task::Ic, Task::Vqa, Task::Vdu, Task::Reg];

    pub fn id(self) -> &'static str {
        match self {
            Task::Ic => "ic",
            Task::Vqa => "vqa",
            Task::Vdu => "vdu",
            Task::Reg => "reg",
        }
    }

    pub fn from_id(id: &str) -> Option<Task> {
        Task::ALL.into_iter().find(|t| t.id() == id)
    }

    pub fn label(self) -> &'static str {
        match self {
            Task::Ic => "Image captioning",
            Task::Vqa => "Visual question answering",
            Task::Vdu => "Visual document understanding",
            Task::Reg => "Referring expression (red box)",
        }
    }

    /// VQA and VDU judge an answer to a question, which the judge must see.
    pub fn needs_question(self) -> bool {
        matches!(self, Task::Vqa | Task::Vdu)
    }

    /// REG needs a bounding box drawn in red into the image pixels.
    pub fn needs_box(self) -> bool {
        matches!(self, Task::Reg)
    }

    /// The noun for the judged text in the prompts: the paper's "caption" becomes "answer" for
    /// VQA (Appendix C.1); we apply the same substitution to VDU and use "referring expression"
    /// for REG.
    pub fn text_noun(self) -> &'static str {
        match self {
            Task::Ic => "caption",
            Task::Vqa | Task::Vdu => "answer",
            Task::Reg => "referring expression",
        }
    }

    /// What the judged text is about, replacing the paper's "image" in the image-grounded
    /// prompts (Correctness, Completeness).
    pub fn source_phrase(self) -> &'static str {
        match self {
            Task::Ic => "image",
            Task::Vqa => "image and question",
            Task::Vdu => "document image and question",
            Task::Reg => "object in the red bounding box of the image",
        }
    }
}
