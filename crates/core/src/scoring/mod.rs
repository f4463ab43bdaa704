//! Turning read scores into a result: HarmonicEval's criteria and tasks ([`criteria`],
//! [`task`]), criteria weighed at γ as shared code sees them ([`weighting`]; the weighting
//! itself is the metric's), the γ axis every plot and slider
//! shares, its range and default included ([`gamma_axis`]), the frame every chart draws in
//! ([`plot_frame`]), and a small stable sort for short
//! lists ([`small_sort`]).

pub mod criteria;
pub mod gamma_axis;
pub mod plot_frame;
pub mod small_sort;
pub mod task;
pub mod weighting;
