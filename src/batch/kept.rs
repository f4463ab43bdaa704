//! What a lab result keeps so that the evaluator can open it as if it had just run
//! ([`crate::lab::record::Kept`]): who judged it and, for FLEUR / RefFLEUR, G-VEval and MAEV,
//! the metric's own export document made by its own exporter from the answers just read,
//! compact and without what the record holds already (`crate::lab::open_doc::reading_of`).
//! HarmonicEval keeps its distributions and coverages in the record's criteria instead.

use super::Item;
use crate::lab::open_doc::reading_of;
use crate::lab::record::Kept;
use crate::metrics::{fleur, g_veval, maev, Metric};
use crate::providers::Backend;

/// The judge's model and wire format, as an export names them.
pub fn judge(backend: &Backend) -> Kept {
    Kept {
        model: backend.model.clone(),
        provider: backend.protocol.id().to_string(),
        ..Kept::default()
    }
}

/// FLEUR's or RefFLEUR's reading of `item`.
pub fn fleur(metric: Metric, backend: &Backend, item: &Item, r: &fleur::FleurResult) -> String {
    let refs = (metric == Metric::RefFleur).then_some(item.references.as_slice());
    let doc = fleur::export_json(&fleur::ExportInput {
        caption: &item.text,
        references: refs,
        backend,
        result: Ok(r),
        explanation: None,
    });
    reading_of(metric, &doc)
}

/// G-VEval's reading of `item` (judged in `mode` with `fidelity`).
pub fn gveval(
    mode: g_veval::Mode,
    fidelity: crate::metrics::fidelity::Fidelity,
    backend: &Backend,
    item: &Item,
    r: &g_veval::GvevalResult,
) -> String {
    let input = g_veval::Input {
        medium: g_veval::Medium::Image,
        mode,
        accr: false,
        caption: item.text.clone(),
        references: item.references.clone(),
        image: None,
        fidelity,
    };
    let doc = g_veval::export_json(&g_veval::ExportInput {
        input: &input,
        backend,
        result: Ok(r),
    });
    reading_of(Metric::GVeval, &doc)
}

/// MAEV's reading: every trial with its two examples (by the run's seed, as they were sent)
/// and its reading or error. `trials` holds each trial's index and outcome.
pub fn maev(
    input: &maev::Input,
    backend: &Backend,
    trials: &[(usize, Result<maev::TrialReading, String>)],
) -> String {
    let Ok(pairs) = maev::sampling::sample_pairs(&input.pool, input.trials as usize, input.seed)
    else {
        return String::new();
    };
    let outcomes: Vec<maev::TrialOutcome> = trials
        .iter()
        .filter_map(|(i, r)| Some((*pairs.get(*i)?, r.as_ref().map_err(String::as_str))))
        .collect();
    let doc = maev::export_json(&maev::ExportInput {
        input,
        backend,
        trials: outcomes,
    });
    reading_of(Metric::Maev, &doc)
}
