//! What the evaluator's page, the metrics' folders and the lab share to run a judge: sending,
//! retrying, cancelling and explaining (`runner.rs`: the lab's batch runs fetch through it too),
//! the image's re-encoding when the size or the metric changes (`image_actions.rs`: the backend
//! panel and the metric picker call it), the key a provider needs, said before anything is sent
//! (`guidance.rs`), and several candidates: the buttons every metric shares
//! (`candidates_run.rs`), and the runner and panel of the metrics without γ
//! (`candidates_plain_run.rs`, `candidates_plain_panel.rs`; HarmonicEval's are in its folder).
//! Below the pages and the metrics' rooms: nothing here imports either (the buttons' entries
//! that dispatch to a metric are the registry's, `ui/metrics/mod.rs`); the state it works on is
//! `ui/state.rs`'s.

pub(crate) mod candidates_plain_panel;
pub(crate) mod candidates_plain_run;
pub(crate) mod candidates_run;
pub(crate) mod guidance;
pub(crate) mod image_actions;
pub(crate) mod runner;
