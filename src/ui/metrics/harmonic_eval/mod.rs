//! HarmonicEval: the per-criterion cards, the overall score, the γ panel and its runner.

pub(crate) mod criterion_card;
pub(crate) mod gamma_panel;
pub(crate) mod overall_score;
pub(crate) mod run;
