//! What the evaluator's page, the metrics' folders and the lab share to run a judge: sending,
//! retrying, cancelling and explaining (`runner.rs`: the lab's batch runs fetch through it too),
//! the buttons' lazily loaded entries (`chunks.rs`) and what they dispatch per metric
//! (`actions.rs`), the image's re-encoding when the size or the metric changes
//! (`image_actions.rs`: the backend panel and the metric picker call it), the notes about a
//! missing key or a failure every criterion shares (`guidance.rs`), the inputs every metric
//! reads (`inputs_state.rs`), and several candidates: their state, the buttons every metric
//! shares (`candidates_run.rs`), and the runner and panel of the metrics without γ
//! (`candidates_plain_run.rs`, `candidates_plain_panel.rs`; HarmonicEval's are in its folder).
//! A page folder (`evaluator/`, `lab/`) and a metric's folder import from here; nothing here
//! imports a page.

pub(crate) mod actions;
pub(crate) mod candidates_plain_panel;
pub(crate) mod candidates_plain_run;
pub(crate) mod candidates_run;
pub(crate) mod candidates_state;
pub(crate) mod chunks;
pub(crate) mod guidance;
pub(crate) mod image_actions;
pub(crate) mod inputs_state;
pub(crate) mod runner;
