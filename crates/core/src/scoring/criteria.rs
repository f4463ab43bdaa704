//! The five HarmonicEval criteria (paper, Table 1 and Appendix B).

use serde::Serialize;

/// One evaluation criterion. The order of [`Criterion::ALL`] is the paper's order and the order
/// of every per-criterion array in the crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Criterion {
    Correctness,
    Completeness,
    Clarity,
    Fluency,
    Conciseness,
}

impl Criterion {
    pub const ALL: [Criterion; 5] = [
        Criterion::Correctness,
        Criterion::Completeness,
        Criterion::Clarity,
        Criterion::Fluency,
        Criterion::Conciseness,
    ];

    /// Stable lower-case identifier, used in test ids and exports.
    pub fn id(self) -> &'static str {
        match self {
            Criterion::Correctness => "correctness",
            Criterion::Completeness => "completeness",
            Criterion::Clarity => "clarity",
            Criterion::Fluency => "fluency",
            Criterion::Conciseness => "conciseness",
        }
    }

    /// Human-readable name.
    pub fn label(self) -> &'static str {
        match self {
            Criterion::Correctness => "Correctness",
            Criterion::Completeness => "Completeness",
            Criterion::Clarity => "Clarity",
            Criterion::Fluency => "Fluency",
            Criterion::Conciseness => "Conciseness",
        }
    }

    /// One-line definition shown in the UI (paper, Appendix C.1).
    pub fn definition(self) -> &'static str {
        match self {
            Criterion::Correctness => "How accurately the text reflects the image (and question).",
            Criterion::Completeness => {
                "How fully the text covers the relevant, significant details."
            }
            Criterion::Clarity => "How easily a reader understands the text.",
            Criterion::Fluency => "Grammar, punctuation and natural phrasing.",
            Criterion::Conciseness => "Conveying the information without needless words.",
        }
    }

    /// Whether the judge sees the image (and question) for this criterion. Clarity, Fluency and
    /// Conciseness judge the text alone (paper, Appendix C.4), so no image is sent for them.
    pub fn sees_image(self) -> bool {
        matches!(self, Criterion::Correctness | Criterion::Completeness)
    }

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn from_id(id: &str) -> Option<Criterion> {
        Criterion::ALL.into_iter().find(|c| c.id() == id)
    }
}
