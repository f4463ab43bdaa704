//! G-VEval's part in the code every metric shares ([`MetricCore`]): one `score` request in the
//! run's mode (image items, no ACCR), its answer read, and the export document a lab item keeps
//! so the evaluator can open it.

use super::{export_json, interpret, request, ExportInput, GvevalResult, Input, Medium, Mode};
use crate::answers::errors::JudgeError;
use crate::metrics::fidelity::Fidelity;
use crate::metrics::room::{
    first_answer, reading_of, Answers, ItemReading, MetricCore, Run, Subject,
};
use crate::metrics::Metric;
use crate::providers::{Backend, HttpRequest, Image};

/// G-VEval's room type.
pub struct Room;

/// The input an item is judged with (`image` as sent; `None` in what is kept).
fn input(mode: Mode, fidelity: Fidelity, item: Subject, image: Option<Image>) -> Input {
    Input {
        medium: Medium::Image,
        mode,
        accr: false,
        caption: item.text.to_string(),
        references: item.references.to_vec(),
        image,
        fidelity,
    }
}

impl MetricCore for Room {
    const INFO: &'static crate::metrics::MetricInfo = &super::INFO;
    type Reopened = super::reopen::Reopened;

    fn reopen(obj: &serde_json::Map<String, serde_json::Value>) -> Result<Self::Reopened, String> {
        super::reopen::reopen(obj)
    }

    #[cfg(not(target_arch = "wasm32"))]
    const FUZZ: &'static [(&'static str, crate::metrics::room::StepsHarness)] =
        &[("g_veval_extract", super::extract::fuzz)];

    fn item_requests(
        run: &Run,
        item: Subject,
        image: Option<Image>,
    ) -> Result<Vec<(String, HttpRequest)>, JudgeError> {
        let input = input(run.settings.gv_mode, run.fidelity.clone(), item, image);
        Ok(vec![("score".into(), request(run.backend, &input)?)])
    }

    fn read_item<F: Fn(JudgeError) -> String>(
        run: &Run,
        item: Subject,
        answers: Answers,
        _say: &F,
    ) -> ItemReading {
        let outcome = first_answer(answers)
            .and_then(|a| interpret(&a, false))
            .map(|r| {
                let reading = kept(
                    run.settings.gv_mode,
                    run.fidelity.clone(),
                    run.backend,
                    item,
                    &r,
                );
                (r.score, reading)
            });
        ItemReading::Score {
            outcome,
            fidelity: None,
        }
    }
}

/// G-VEval's reading of `item` (judged in `mode` with `fidelity`), kept for the evaluator.
pub fn kept(
    mode: Mode,
    fidelity: Fidelity,
    backend: &Backend,
    item: Subject,
    r: &GvevalResult,
) -> String {
    let input = input(mode, fidelity, item, None);
    let doc = export_json(&ExportInput {
        input: &input,
        backend,
        result: Ok(r),
    });
    reading_of(Metric::GVeval, &doc)
}
