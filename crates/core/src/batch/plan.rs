//! Batch planning: what requests one dataset item needs under a metric, and how their answers
//! become its [`ItemResult`]; the OpenAI Batch API's `custom_id` scheme and what it saved (its
//! answers are read against the plan by [`super::reading`]). Pure, so the lab's in-browser run
//! and its Batch API run share one tested plan and keep only the wiring (images, sending,
//! storage) in `ui/`.

use super::Item;
use crate::answers::errors::JudgeError;
use crate::lab::ItemResult;
use crate::metrics::fidelity::Fidelity;
use crate::metrics::room::{ItemReading, Run, Subject};
use crate::metrics::{with_room, Metric, RunSettings};
use crate::providers::{Backend, HttpRequest, Image};

pub use crate::metrics::room::Answers;

/// What a batch run fixes when it starts: the metric and its settings (every metric's: the
/// plan uses only its metric's own; `Deref` reads them as `plan.fidelity`, `plan.chosen_criteria`).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub metric: Metric,
    pub settings: RunSettings,
}

impl std::ops::Deref for Plan {
    type Target = RunSettings;
    fn deref(&self) -> &RunSettings {
        &self.settings
    }
}

impl std::ops::DerefMut for Plan {
    fn deref_mut(&mut self) -> &mut RunSettings {
        &mut self.settings
    }
}

impl Item {
    /// What a metric reads of this item.
    pub fn subject(&self) -> Subject<'_> {
        Subject {
            task: self.task,
            text: &self.text,
            question: self.question.as_deref(),
            references: &self.references,
            caption: self.caption.as_deref(),
            reference_answer: self.reference_answer.as_deref(),
        }
    }
}

impl Plan {
    /// Whether the run sends each item's image (so it must be prepared first).
    pub fn sends_image(&self) -> bool {
        self.metric.sends_image(self.gv_mode)
    }

    /// The extensions this run's metric uses.
    pub fn fidelity(&self) -> Fidelity {
        self.settings.fidelity.for_metric(self.metric)
    }

    /// The result record of an item before any score: its identity and human judgments.
    pub fn blank_result(&self, item: &Item) -> ItemResult {
        blank_result(self.metric, item)
    }

    fn run<'a>(&'a self, backend: &'a Backend) -> Run<'a> {
        Run {
            metric: self.metric,
            settings: &self.settings,
            fidelity: self.fidelity(),
            backend,
        }
    }

    /// An item's requests, each under a slot name (a criterion id, `score`, or `trial-<i>`):
    /// the metric's room says which (`MetricCore::item_requests`). `image` is the item's image
    /// as sent, when [`Plan::sends_image`].
    pub fn requests(
        &self,
        backend: &Backend,
        item: &Item,
        image: Option<Image>,
    ) -> Result<Vec<(String, HttpRequest)>, JudgeError> {
        let (run, subject) = (self.run(backend), item.subject());
        with_room!(self.metric, M => M::item_requests(&run, subject, image))
    }

    /// Reads an item's answers (by slot) into its result, keeping what the evaluator needs to
    /// open it (`lab::record::Kept`); `say` words an error for the record (the caller redacts
    /// the key). The metric's room reads them (`MetricCore::read_item`).
    pub fn read(
        &self,
        backend: &Backend,
        item: &Item,
        mut result: ItemResult,
        answers: Answers,
        say: impl Fn(JudgeError) -> String,
    ) -> ItemResult {
        result.set_fidelity(&self.fidelity());
        let mut kept = super::kept::judge(backend);
        let (run, subject) = (self.run(backend), item.subject());
        let reading = with_room!(self.metric, M => M::read_item(&run, subject, answers, &say));
        match reading {
            // One record per criterion; failed only when every criterion failed.
            ItemReading::Criteria {
                criteria,
                coverage,
                question,
            } => {
                result.criteria.extend(criteria);
                if result.is_failed() {
                    result.error = result.criteria.iter().find_map(|c| c.error.clone());
                }
                kept.coverage = coverage;
                kept.question = question;
                result.kept = Some(Box::new(kept));
            }
            ItemReading::Score { outcome, fidelity } => match outcome {
                Ok((score, reading)) => {
                    if let Some(f) = fidelity {
                        result.set_fidelity(&f);
                    }
                    kept.reading = reading;
                    result.score = Some(score);
                    result.kept = Some(Box::new(kept));
                }
                Err(e) => result.error = Some(say(e)),
            },
        }
        result
    }
}

/// The result record of an item before any score: its identity and human judgments.
pub fn blank_result(metric: Metric, item: &Item) -> ItemResult {
    ItemResult {
        id: item.id.clone(),
        metric: metric.id().to_string(),
        task: item.task.id().into(),
        text: item.text.clone(),
        image: item.image.clone(),
        human: item.human.to_map(),
        group: item.group.clone(),
        chosen: item.chosen,
        ..ItemResult::default()
    }
}

/// The Batch API's `custom_id` of an item's request: `"<index>:<slot>"`, the item's index in
/// the dataset and the request's slot.
pub fn custom_id(index: usize, slot: &str) -> String {
    format!("{index}:{slot}")
}

/// The item index and slot of a `custom_id` exactly as [`custom_id`] writes it: the index in
/// its canonical decimal form (no leading zero, no sign) and a non-empty slot; `None` for any
/// other. Whether the slot is one the plan made is [`super::reading`]'s to check.
pub fn parse_custom_id(id: &str) -> Option<(usize, &str)> {
    let (index, slot) = id.split_once(':')?;
    let number: usize = index.parse().ok()?;
    (number.to_string() == index && !slot.is_empty()).then_some((number, slot))
}

/// The tokens a finished Batch API run was billed for, and what they would cost live.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Saving {
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// At the live price, when the price table knows the model.
    pub live_usd: Option<f64>,
}

impl Saving {
    /// Adds up the reported usage of every answer; `price` is the model's live price.
    pub fn of(output: &Answers, price: Option<&crate::transport::cost::Price>) -> Saving {
        let (tokens_in, tokens_out) = output
            .iter()
            .filter_map(|(_, a)| a.as_ref().ok().and_then(|c| c.usage))
            .fold((0, 0), |(i, o), u| {
                (i + u.prompt_tokens, o + u.completion_tokens)
            });
        Saving {
            tokens_in,
            tokens_out,
            live_usd: crate::transport::cost::Cost::priced(tokens_in, tokens_out, price).usd,
        }
    }

    /// The sentence that ends the run's message.
    pub fn sentence(&self) -> String {
        let (tokens_in, tokens_out) = (self.tokens_in, self.tokens_out);
        match self.live_usd {
            Some(live) => format!(
                " {tokens_in} input + {tokens_out} output tokens: ${:.4} at the Batch API's half price instead of ${live:.4} live (saved ${:.4}).",
                super::openai_batch::batch_cost(live),
                live - super::openai_batch::batch_cost(live)
            ),
            None => format!(
                " {tokens_in} input + {tokens_out} output tokens, billed at half the live price."
            ),
        }
    }
}

/// The plan the tests judge with (here and in `lab::open_doc`): the paper's settings, MAEV's
/// three trials from its built-in pool.
#[cfg(test)]
pub(crate) fn test_plan(metric: Metric) -> Plan {
    use crate::metrics::{g_veval, maev, CriterionSet, MaevSettings};
    Plan {
        metric,
        settings: RunSettings {
            fidelity: Fidelity::paper(),
            chosen_criteria: CriterionSet::default(),
            gv_mode: g_veval::Mode::RefFree,
            maev: MaevSettings {
                trials: 3,
                threshold: 1.25,
                seed: 7,
                pool: maev::default_pool(),
            },
        },
    }
}

/// The item the core's tests judge: a VQA item with an image, references, a human rating and a
/// best-of-N group (the lab's tests use it too).
#[cfg(test)]
pub(crate) fn test_item() -> Item {
    Item {
        line: 2,
        id: "a".into(),
        task: crate::scoring::task::Task::Vqa,
        text: "A dog.".into(),
        question: Some("What is shown?".into()),
        references: vec!["A dog on grass.".into()],
        image: Some("a.png".into()),
        bbox: None,
        human: crate::batch::Human {
            overall: vec![4.0],
            ..crate::batch::Human::default()
        },
        group: Some("g".into()),
        chosen: true,
        caption: Some("A dog on grass.".into()),
        reference_answer: Some("A dog.".into()),
    }
}

/// The judge the batch tests plan for (here and in `batch::reading`).
#[cfg(test)]
pub(crate) fn test_backend() -> Backend {
    Backend {
        base_url: "http://h/v1".into(),
        model: "m".into(),
        ..Backend::default()
    }
}

#[cfg(test)]
mod tests {
    use super::test_backend as backend;
    use super::test_plan as plan;
    use super::*;
    use crate::answers::completion::parse_chat_completion;
    use crate::answers::completion::Completion;
    use crate::metrics::fidelity::Extension;
    use crate::metrics::g_veval;
    use crate::metrics::CriterionSet;
    use crate::scoring::criteria::Criterion;

    use super::test_item as item;

    const IMAGE: &str = "data:image/jpeg;base64,AAAA";

    fn slots(r: &[(String, HttpRequest)]) -> Vec<&str> {
        r.iter().map(|(s, _)| s.as_str()).collect()
    }

    #[test]
    fn each_metric_asks_for_its_own_slots() {
        let he = plan(Metric::HarmonicEval)
            .requests(&backend(), &item(), Image::from_data_url(IMAGE))
            .unwrap();
        let ids: Vec<&str> = Criterion::ALL.iter().map(|c| c.id()).collect();
        assert_eq!(slots(&he), ids);
        assert!(he[0].1.body.contains(IMAGE));
        let mut two = plan(Metric::HarmonicEval);
        two.chosen_criteria = CriterionSet::table7();
        assert_eq!(
            two.requests(&backend(), &item(), None)
                .map(|r| r.len())
                .ok(),
            Some(2)
        );
        for m in [Metric::Fleur, Metric::RefFleur, Metric::GVeval] {
            let r = plan(m)
                .requests(&backend(), &item(), Image::from_data_url(IMAGE))
                .unwrap();
            assert_eq!(slots(&r), ["score"], "{m:?}");
        }
        let fleur = plan(Metric::Fleur)
            .requests(&backend(), &item(), None)
            .unwrap();
        let ref_fleur = plan(Metric::RefFleur)
            .requests(&backend(), &item(), None)
            .unwrap();
        assert!(!fleur[0].1.body.contains("A dog on grass."));
        assert!(ref_fleur[0].1.body.contains("A dog on grass."));
        let maev = plan(Metric::Maev)
            .requests(&backend(), &item(), None)
            .unwrap();
        assert_eq!(slots(&maev), ["trial-0", "trial-1", "trial-2"]);
    }

    #[test]
    fn an_item_missing_what_maev_needs_gets_a_sentence_not_requests() {
        let mut i = item();
        i.question = None;
        let err = plan(Metric::Maev)
            .requests(&backend(), &i, None)
            .unwrap_err();
        assert!(matches!(err, JudgeError::Setting { ref message } if message.contains("question")));
    }

    #[test]
    fn only_metrics_that_look_at_the_image_send_it() {
        assert!(plan(Metric::HarmonicEval).sends_image());
        assert!(plan(Metric::RefFleur).sends_image());
        assert!(!plan(Metric::Maev).sends_image());
        let mut text_only = plan(Metric::GVeval);
        text_only.gv_mode = g_veval::Mode::RefOnly;
        assert!(!text_only.sends_image());
        assert!(Metric::GVeval.needs_image_file() && !Metric::Maev.needs_image_file());
    }

    #[test]
    fn a_blank_result_carries_the_items_identity_and_human_ratings() {
        let r = plan(Metric::RefFleur).blank_result(&item());
        assert_eq!(
            (r.id.as_str(), r.metric.as_str(), r.task.as_str()),
            ("a", "ref_fleur", "vqa")
        );
        assert_eq!(r.human.get("overall"), Some(&vec![4.0]));
        assert_eq!((r.group.as_deref(), r.chosen), (Some("g"), true));
        assert_eq!((r.score, r.error), (None, None));
    }

    const FOUR: &str = r#"{"choices":[{"message":{"content":"4"},"logprobs":{"content":[
        {"token":"4","logprob":-0.5108256237659907,"top_logprobs":[
          {"token":"4","logprob":-0.5108256237659907},{"token":"5","logprob":-1.6094379124341003},
          {"token":"3","logprob":-1.8971199848858813},{"token":"2","logprob":-2.995732273553991}]}]}}],
        "usage":{"prompt_tokens":1000,"completion_tokens":10}}"#;

    fn say(e: JudgeError) -> String {
        format!("said: {e}")
    }

    #[test]
    fn harmonic_answers_become_criteria_and_all_failed_is_an_error() {
        let p = plan(Metric::HarmonicEval);
        let answers = vec![
            ("correctness".to_string(), parse_chat_completion(FOUR)),
            (
                "fluency".to_string(),
                Err(JudgeError::Timeout { seconds: 5 }),
            ),
        ];
        let r = p.read(&backend(), &item(), p.blank_result(&item()), answers, say);
        assert_eq!(r.criteria.len(), 2);
        assert!((r.criteria[0].score.unwrap() - 3.95).abs() < 1e-12);
        assert!(r.criteria[1]
            .error
            .as_deref()
            .unwrap()
            .starts_with("said: "));
        assert_eq!(r.error, None, "one criterion scored: partial, not failed");
        assert!(r.is_partial());
        assert_eq!(r.fidelity.as_deref(), Some("paper"));
        let failed = p.read(
            &backend(),
            &item(),
            p.blank_result(&item()),
            vec![("fluency".into(), Err(JudgeError::Timeout { seconds: 5 }))],
            say,
        );
        assert!(failed.is_failed());
        assert!(failed.error.unwrap().starts_with("said: "));
    }

    fn maev_answer(printed: u8) -> Result<Completion, JudgeError> {
        let text = format!("Evidence: fine. Assistant Score: {printed}");
        parse_chat_completion(
            &serde_json::json!({"choices":[{"message":{"content":text}}]}).to_string(),
        )
    }

    #[test]
    fn maev_averages_the_trials_it_can_read_and_records_its_extensions() {
        let mut p = plan(Metric::Maev);
        let answers = vec![
            ("trial-0".into(), maev_answer(2)),
            ("trial-1".into(), maev_answer(0)),
            ("trial-2".into(), Err(JudgeError::Timeout { seconds: 5 })),
        ];
        let r = p.read(&backend(), &item(), p.blank_result(&item()), answers, say);
        assert_eq!(r.score, Some(1.0));
        assert_eq!(r.fidelity.as_deref(), Some("paper"));
        let none = p.read(
            &backend(),
            &item(),
            p.blank_result(&item()),
            vec![("trial-0".into(), maev_answer(1))],
            say,
        );
        assert_eq!(none.score, None, "a printed 1 is not on the paper's scale");
        assert!(none.error.unwrap().contains("no MAEV trial could be read"));
        // Extensions of other metrics are not recorded as this run's.
        p.fidelity = Fidelity::paper()
            .with(Extension::MaevExpectedScore, true)
            .with(Extension::GvevalTop20, true);
        let ext = p.read(
            &backend(),
            &item(),
            p.blank_result(&item()),
            vec![("trial-0".into(), maev_answer(1))],
            say,
        );
        assert_eq!(ext.score, Some(1.0));
        assert_eq!(ext.extensions, ["maev-expected-score"]);
    }

    #[test]
    fn a_single_score_metric_without_an_answer_is_an_error_not_a_number() {
        for m in [Metric::Fleur, Metric::GVeval] {
            let p = plan(m);
            let r = p.read(
                &backend(),
                &item(),
                p.blank_result(&item()),
                Vec::new(),
                say,
            );
            assert_eq!(r.score, None);
            assert!(r.error.unwrap().contains("no answer"), "{m:?}");
        }
        let p = plan(Metric::GVeval);
        let r = p.read(
            &backend(),
            &item(),
            p.blank_result(&item()),
            vec![("score".into(), Err(JudgeError::Timeout { seconds: 9 }))],
            say,
        );
        assert!(r.error.unwrap().starts_with("said: "));
    }

    #[test]
    fn custom_ids_round_trip_and_others_are_ignored() {
        assert_eq!(custom_id(12, "fluency"), "12:fluency");
        assert_eq!(parse_custom_id("12:fluency"), Some((12, "fluency")));
        assert_eq!(parse_custom_id("12:trial-0"), Some((12, "trial-0")));
        assert_eq!(parse_custom_id("x:score"), None);
        assert_eq!(parse_custom_id("12"), None);
        assert_eq!(parse_custom_id("-1:score"), None);
        // Only the form the plan writes: no leading zero, no sign, a slot.
        for other in [
            "00:score",
            "+0:score",
            "01:score",
            "0:",
            " 0:score",
            "0x1:score",
        ] {
            assert_eq!(parse_custom_id(other), None, "{other}");
        }
        assert_eq!(parse_custom_id("0:score"), Some((0, "score")));
        assert_eq!(
            parse_custom_id("0:a:b"),
            Some((0, "a:b")),
            "the plan checks the slot"
        );
    }

    #[test]
    fn the_saving_adds_up_reported_usage_at_half_the_live_price() {
        let ok = || parse_chat_completion(FOUR);
        let output: Answers = vec![
            ("0:score".into(), ok()),
            ("1:score".into(), ok()),
            ("2:score".into(), Err(JudgeError::Timeout { seconds: 1 })),
        ];
        let price = crate::transport::cost::Price {
            model_prefix: "m".into(),
            input_per_million: 2.0,
            output_per_million: 10.0,
        };
        let s = Saving::of(&output, Some(&price));
        assert_eq!((s.tokens_in, s.tokens_out), (2000, 20));
        let live = s.live_usd.unwrap();
        assert!((live - (2000.0 * 2.0 + 20.0 * 10.0) / 1e6).abs() < 1e-15);
        assert!(
            s.sentence()
                .contains("2000 input + 20 output tokens: $0.0021"),
            "{}",
            s.sentence()
        );
        assert!(s.sentence().contains("instead of $0.0042 live"));
        let unpriced = Saving::of(&output, None);
        assert_eq!(unpriced.live_usd, None);
        assert!(unpriced
            .sentence()
            .ends_with("billed at half the live price."));
        assert_eq!(
            Saving::of(&Vec::new(), Some(&price)),
            Saving {
                tokens_in: 0,
                tokens_out: 0,
                live_usd: Some(0.0)
            }
        );
    }
}
