//! FLEUR's and RefFLEUR's part in the code every metric shares ([`MetricCore`]): one `score`
//! request (RefFLEUR with the item's references), its answer read, and the export document a
//! lab item keeps so the evaluator can open it.

use super::{export_json, fidelity_of, interpret, score_request, ExportInput, FleurResult, Input};
use crate::answers::errors::JudgeError;
use crate::metrics::room::{
    first_answer, reading_of, Answers, ItemReading, MetricCore, Run, Subject,
};
use crate::metrics::Metric;
use crate::providers::{Backend, HttpRequest, Image};

/// FLEUR's room type, RefFLEUR's with `REFS` (judged against the item's references).
pub struct Room<const REFS: bool>;

impl<const REFS: bool> MetricCore for Room<REFS> {
    const INFO: &'static crate::metrics::MetricInfo = if REFS {
        &super::REF_FLEUR_INFO
    } else {
        &super::FLEUR_INFO
    };
    /// FLEUR or RefFLEUR: the file's `references` say which.
    type Reopened = super::reopen::Reopened;

    fn reopen(obj: &serde_json::Map<String, serde_json::Value>) -> Result<Self::Reopened, String> {
        super::reopen::reopen(obj)
    }

    #[cfg(not(target_arch = "wasm32"))]
    const FUZZ: &'static [(&'static str, crate::metrics::room::StepsHarness)] =
        &[("fleur_smoothing", super::smoothing::fuzz)];

    fn item_requests(
        run: &Run,
        item: Subject,
        image: Option<Image>,
    ) -> Result<Vec<(String, HttpRequest)>, JudgeError> {
        let input = Input {
            caption: item.text.to_string(),
            references: REFS.then(|| item.references.to_vec()),
            image,
        };
        Ok(vec![("score".into(), score_request(run.backend, &input)?)])
    }

    fn read_item<F: Fn(JudgeError) -> String>(
        run: &Run,
        item: Subject,
        answers: Answers,
        _say: &F,
    ) -> ItemReading {
        let mut fidelity = None;
        let outcome = first_answer(answers).and_then(|a| interpret(&a)).map(|r| {
            fidelity = Some(fidelity_of(Some(&r)));
            (
                r.smoothed.score,
                kept(run.metric, REFS, run.backend, item, &r),
            )
        });
        ItemReading::Score { outcome, fidelity }
    }
}

/// FLEUR's or RefFLEUR's (`refs`: judged against the references) reading of `item`, kept for
/// the evaluator.
fn kept(metric: Metric, refs: bool, backend: &Backend, item: Subject, r: &FleurResult) -> String {
    let refs = refs.then_some(item.references);
    let doc = export_json(&ExportInput {
        caption: item.text,
        references: refs,
        backend,
        result: Ok(r),
        explanation: None,
    });
    reading_of(metric, &doc)
}
