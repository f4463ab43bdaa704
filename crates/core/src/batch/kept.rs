//! What a lab result keeps so that the evaluator can open it as if it had just run
//! ([`crate::lab::record::Kept`]): who judged it (here) and what its metric's room keeps
//! (`MetricCore::read_item`: HarmonicEval its coverages and question beside the record's
//! criteria, the other metrics their own export document made by their own exporter from the
//! answers just read, compact and without what the record holds already:
//! `crate::metrics::room::reading_of`).

use crate::lab::record::Kept;
use crate::providers::Backend;

/// The judge's model and wire format, as an export names them.
pub fn judge(backend: &Backend) -> Kept {
    Kept {
        model: backend.model.clone(),
        provider: backend.provider_id().to_string(),
        ..Kept::default()
    }
}
