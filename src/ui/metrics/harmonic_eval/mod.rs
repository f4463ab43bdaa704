//! HarmonicEval: the per-criterion cards, the overall score and the γ panel.

pub(crate) mod criterion_card;
pub(crate) mod gamma_panel;
pub(crate) mod overall_score;
pub(crate) mod weights_chart;
