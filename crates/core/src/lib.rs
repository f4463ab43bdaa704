//! harmonic-judge's pure core: VLM-as-a-judge metrics with no browser dependency.
//!
//! The metric math, prompt templates, provider request building and response parsing, batch
//! planning and reading, the lab's statistics, and the result and dataset files. Every door calls
//! it: the page (the repository's root package, which adds `ui` and `web`), `hj` (crates/hj) and
//! the Python package (crates/python); `native` holds what the two native doors share. It
//! compiles on the host and is tested with a plain `cargo test`.
//!
//! The method is HarmonicEval (Ohi et al., "HarmonicEval: Multi-modal, Multi-task, Multi-criteria
//! Automatic Evaluation Using a Vision Language Model"); see `metrics::harmonic_eval`.

pub mod answers;
pub mod batch;
pub mod candidates;
pub mod files;
#[cfg(not(target_arch = "wasm32"))]
#[doc(hidden)]
pub mod fuzzing;
pub mod inputs;
pub mod lab;
pub mod meta;
pub mod metrics;
/// Native only: what the command line (crates/hj) and the Python package (crates/python) share.
#[cfg(not(target_arch = "wasm32"))]
pub mod native;
pub mod providers;
pub mod scoring;
pub mod transport;

/// The repository's top folder, for tests that read its files (the examples, the sample dataset,
/// the fixtures, the scripts).
#[cfg(test)]
pub(crate) const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
