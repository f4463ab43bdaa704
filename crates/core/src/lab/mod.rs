//! The meta-evaluation lab's pure parts: the stored per-item result, results files, and the γ
//! sweep. Statistics live in `crate::meta`; dataset import in `crate::batch`.

pub mod analysis;
pub mod compare;
pub mod figures;
pub mod io;
pub mod jsonl_reader;
pub mod open_doc;
pub mod overall;
pub mod pace;
pub mod progress;
pub mod ranges;
pub mod record;
pub mod rows;
pub mod stored_run;
pub mod uncertainty;

pub use record::{CriterionRecord, ItemResult};
