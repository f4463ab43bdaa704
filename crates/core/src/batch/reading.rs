//! A batch's answers read against its plan (issue 68): every answer must answer a planned
//! request (its `custom_id` exactly as [`plan::custom_id`] wrote it), each planned request is
//! answered once, and what is not so is said in a sentence. An item with a planned request left
//! unanswered is *incomplete*: it is never scored as if it were whole, it is counted apart, and
//! scoring again with the missing answers added (a second answers file: the batch's error file,
//! or the output of retrying those requests) completes it. The lab's Batch-API run, `hj score`
//! and the Python package all read answers through [`score`], so they say the same sentences.

use std::collections::BTreeMap;

use super::plan::{self, Answers, Plan};
use super::Item;
use crate::answers::completion::Completion;
use crate::answers::errors::JudgeError;
use crate::lab::ItemResult;
use crate::providers::Backend;

/// The requests a batch planned: for each planned item (by its index in the dataset) its slots,
/// in the plan's order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlannedRequests(pub BTreeMap<usize, Vec<String>>);

impl PlannedRequests {
    /// The requests `plan` makes for the `items` that `planned` accepts (the lab: those without
    /// a result yet); an item the plan refuses (MAEV without a question) has none. Slots do not
    /// depend on the image, so none is made.
    pub fn of(
        plan: &Plan,
        backend: &Backend,
        items: &[Item],
        planned: impl Fn(&Item) -> bool,
    ) -> PlannedRequests {
        let mut slots = BTreeMap::new();
        for (index, item) in items.iter().enumerate().filter(|(_, i)| planned(i)) {
            if let Ok(requests) = plan.requests(backend, item, None) {
                slots.insert(index, requests.into_iter().map(|(s, _)| s).collect());
            }
        }
        PlannedRequests(slots)
    }

    /// How many requests [`Self::of`] lists, counted without keeping their slots: what `hj plan`
    /// checks a runner's request limit with before writing (100,000 items' slots held at once
    /// were about 50 MB).
    pub fn count(
        plan: &Plan,
        backend: &Backend,
        items: &[Item],
        planned: impl Fn(&Item) -> bool,
    ) -> usize {
        items
            .iter()
            .filter(|i| planned(i))
            .filter_map(|item| plan.requests(backend, item, None).ok())
            .map(|requests| requests.len())
            .sum()
    }

    /// Where the planned request `custom_id` is (its item's index and its slot's position), or
    /// `None` when the plan has no such request: a `custom_id` is read exactly as written.
    fn find(&self, custom_id: &str) -> Option<(usize, usize)> {
        let (index, slot) = plan::parse_custom_id(custom_id)?;
        let position = self.0.get(&index)?.iter().position(|s| s == slot)?;
        Some((index, position))
    }
}

/// What reading a batch's answers gave.
#[derive(Clone, Debug, Default)]
pub struct BatchScores {
    /// One per planned item that has at least one answer, in item order.
    pub results: Vec<ItemResult>,
    /// PlannedRequests items with no answer at all (by id).
    pub unanswered: Vec<String>,
    /// Items with some planned request unanswered (by id): in `results`, never complete.
    pub incomplete: Vec<String>,
    /// One sentence each: lines that could not be read, answers to no planned request, second
    /// answers to one request, and items left incomplete.
    pub notes: Vec<String>,
}

impl BatchScores {
    /// Items scored on every criterion (every planned request answered and read).
    pub fn complete(&self) -> usize {
        self.results.iter().filter(|r| r.is_complete()).count()
    }

    /// Items answered in full whose answers could not all be read into a score.
    pub fn failed(&self) -> usize {
        self.results.len() - self.complete() - self.incomplete.len()
    }

    /// The counts, in the words every door uses: `total` is the dataset's item count.
    pub fn summary(&self, total: usize) -> String {
        format!(
            "{} of {total} items scored on every criterion, {} incomplete (a planned request \
             has no answer), {} failed, {} unanswered",
            self.complete(),
            self.incomplete.len(),
            self.failed(),
            self.unanswered.len()
        )
    }

    /// The sentence naming the items with no answer at all (the first five), if any.
    pub fn unanswered_sentence(&self) -> Option<String> {
        let n = self.unanswered.len();
        (n > 0).then(|| {
            let shown: Vec<&str> = self.unanswered.iter().take(5).map(String::as_str).collect();
            format!(
                "{n} planned item{} no answer in the answers read: {}{}.",
                if n == 1 { " has" } else { "s have" },
                shown.join(", "),
                if n > 5 { ", …" } else { "" }
            )
        })
    }
}

/// The error a criterion records for its unanswered request.
fn unanswered(custom_id: &str) -> String {
    format!(
        "No answer to the planned request \u{201c}{custom_id}\u{201d} in the answers read: score \
         again with its answer added."
    )
}

/// One planned item's answers while they come in.
enum Answering {
    /// One per planned request, in the plan's order: `None` while unanswered.
    Waiting(Vec<Option<Result<Completion, JudgeError>>>),
    /// Every planned request had a good answer, so the item was read into its result at once
    /// and its answers let go: a later answer to it is a second answer.
    Read,
}

/// Reads a batch's answers against its plan as they come, one at a time ([`Reader::add`]): an
/// item is read into its result as soon as each of its planned requests has a good answer, so
/// memory holds the answers of the items still waiting (answers mostly come item by item),
/// not every answer of the batch. [`score`] is this reader over answers already in memory.
pub struct Reader<'a, F: Fn(JudgeError) -> String> {
    plan: &'a Plan,
    backend: &'a Backend,
    items: &'a [Item],
    planned: &'a PlannedRequests,
    say: F,
    /// Items with at least one answer, by index.
    answering: BTreeMap<usize, Answering>,
    /// Results of the items read, by index.
    read: BTreeMap<usize, ItemResult>,
    notes: Vec<String>,
}

impl<'a, F: Fn(JudgeError) -> String> Reader<'a, F> {
    /// `say` words an error for a record (the caller redacts the key).
    pub fn new(
        plan: &'a Plan,
        backend: &'a Backend,
        items: &'a [Item],
        planned: &'a PlannedRequests,
        say: F,
    ) -> Self {
        Reader {
            plan,
            backend,
            items,
            planned,
            say,
            answering: BTreeMap::new(),
            read: BTreeMap::new(),
            notes: Vec::new(),
        }
    }

    /// One answer, in file order (several files one after the other). The first answer to a
    /// request is kept, except that a failed one gives way to a later answer that is not (a
    /// retried request's); a second answer, and an answer to no planned request, is said and
    /// ignored.
    pub fn add(&mut self, id: String, answer: Result<Completion, JudgeError>) {
        if id.is_empty() {
            // A line with no custom_id that could be read: its error names the line.
            if let Err(e) = answer {
                self.notes.push(e.to_string());
            }
            return;
        }
        let Some((index, position)) = self.planned.find(&id) else {
            self.notes.push(format!(
                "The answer \u{201c}{id}\u{201d} answers no planned request (a custom_id is \
                 <item>:<slot> exactly as the plan wrote it: the item's number without leading \
                 zeros or sign, the slot as planned): ignored. Was the file planned from another \
                 dataset or with other options?"
            ));
            return;
        };
        let second = || {
            format!("A second answer to \u{201c}{id}\u{201d}: the first is kept, this one ignored.")
        };
        let state = self.answering.entry(index).or_insert_with(|| {
            Answering::Waiting(self.planned.0[&index].iter().map(|_| None).collect())
        });
        let Answering::Waiting(answers) = state else {
            self.notes.push(second());
            return;
        };
        let slot = &mut answers[position];
        match slot {
            None => *slot = Some(answer),
            Some(Err(_)) if answer.is_ok() => *slot = Some(answer),
            Some(_) => return self.notes.push(second()),
        }
        if answers.iter().all(|a| matches!(a, Some(Ok(_)))) {
            let Answering::Waiting(answers) = std::mem::replace(state, Answering::Read) else {
                unreachable!("waiting above")
            };
            let (result, _) = self.read_item(index, answers);
            self.read.insert(index, result);
        }
    }

    /// Item `index`'s result from its `answers` (one per planned request, `None` unanswered),
    /// with the sentence saying it is incomplete when some are.
    fn read_item(
        &self,
        index: usize,
        answers: Vec<Option<Result<Completion, JudgeError>>>,
    ) -> (ItemResult, Option<String>) {
        let item = &self.items[index];
        let names = &self.planned.0[&index];
        let mut missing = Vec::new();
        let mut missing_slots = Vec::new();
        let answers: Answers = names
            .iter()
            .zip(answers)
            .map(|(slot, answer)| {
                let answer = answer.unwrap_or_else(|| {
                    let id = plan::custom_id(index, slot);
                    let message = unanswered(&id);
                    missing.push(id);
                    missing_slots.push(slot.clone());
                    Err(JudgeError::Setting { message })
                });
                (slot.clone(), answer)
            })
            .collect();
        let plan = self.plan;
        let mut result = plan.read(
            self.backend,
            item,
            plan.blank_result(item),
            answers,
            &self.say,
        );
        // Marked, so that no door reports an overall from the rest (`ItemResult::overall`).
        result.missing_answers = missing_slots;
        if missing.is_empty() {
            return (result, None);
        }
        let sentence = format!(
            "Item \u{201c}{}\u{201d} is incomplete: no answer to {}. It is not scored as if it \
             were whole; score again with those answers added (the batch's error file, or the \
             output of retrying those requests).",
            item.id,
            missing.join(", ")
        );
        if result.criteria.is_empty() {
            // One score from several requests (MAEV's trials): none from a part of them.
            result.score = None;
            result.kept = None;
            result.error = Some(sentence.clone());
        }
        (result, Some(sentence))
    }

    /// What the answers gave: every planned item with an answer read (in item order), the
    /// items with none named.
    pub fn finish(mut self) -> BatchScores {
        let mut scored = BatchScores {
            notes: std::mem::take(&mut self.notes),
            ..BatchScores::default()
        };
        let mut answering = std::mem::take(&mut self.answering);
        for &index in self.planned.0.keys() {
            let Some(item) = self.items.get(index) else {
                continue;
            };
            match answering.remove(&index) {
                None => scored.unanswered.push(item.id.clone()),
                Some(Answering::Read) => {
                    scored.results.extend(self.read.remove(&index));
                }
                Some(Answering::Waiting(answers)) => {
                    let (result, incomplete) = self.read_item(index, answers);
                    if let Some(sentence) = incomplete {
                        scored.incomplete.push(item.id.clone());
                        scored.notes.push(sentence);
                    }
                    scored.results.push(result);
                }
            }
        }
        scored
    }
}

/// Reads `output` (a batch's answers in file order, as `openai_batch::read_output` gives them;
/// several files one after the other) against the `planned` requests into the items' results,
/// as the lab reads a finished batch; `say` words an error for a record (the caller redacts the
/// key).
pub fn score(
    plan: &Plan,
    backend: &Backend,
    items: &[Item],
    planned: &PlannedRequests,
    output: Answers,
    say: impl Fn(JudgeError) -> String,
) -> BatchScores {
    let mut reader = Reader::new(plan, backend, items, planned, say);
    for (id, answer) in output {
        reader.add(id, answer);
    }
    reader.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answers::completion::parse_chat_completion;
    use crate::batch::plan::{test_backend as backend, test_item, test_plan};
    use crate::metrics::Metric;
    use crate::scoring::criteria::Criterion;

    /// An answer printing `rating`, its token certain but for a little mass on "2".
    fn rated(rating: &str) -> Result<Completion, JudgeError> {
        parse_chat_completion(
            &serde_json::json!({"choices": [{"message": {"content": rating}, "logprobs":
                {"content": [{"token": rating, "logprob": -0.105, "top_logprobs": [
                    {"token": rating, "logprob": -0.105}, {"token": "2", "logprob": -2.3}]}]}}]})
            .to_string(),
        )
    }

    fn items(n: usize) -> Vec<Item> {
        (0..n)
            .map(|i| Item {
                id: format!("item-{i}"),
                ..test_item()
            })
            .collect()
    }

    /// Every planned request of `items` answered `rating`, in the plan's order.
    fn all_answered(planned: &PlannedRequests, rating: &str) -> Answers {
        planned
            .0
            .iter()
            .flat_map(|(&i, slots)| {
                slots
                    .iter()
                    .map(move |s| (plan::custom_id(i, s), rated(rating)))
            })
            .collect()
    }

    fn read(metric: Metric, n: usize, output: Answers) -> (BatchScores, PlannedRequests) {
        let p = test_plan(metric);
        let items = items(n);
        let planned = PlannedRequests::of(&p, &backend(), &items, |_| true);
        let scored = score(&p, &backend(), &items, &planned, output, |e| e.to_string());
        (scored, planned)
    }

    fn planned_he(n: usize) -> PlannedRequests {
        PlannedRequests::of(
            &test_plan(Metric::HarmonicEval),
            &backend(),
            &items(n),
            |_| true,
        )
    }

    #[test]
    fn the_plan_knows_every_items_slots() {
        let planned = planned_he(2);
        let ids: Vec<&str> = Criterion::ALL.iter().map(|c| c.id()).collect();
        assert_eq!(planned.0[&1], ids);
        let only_second = PlannedRequests::of(
            &test_plan(Metric::HarmonicEval),
            &backend(),
            &items(2),
            |i| i.id == "item-1",
        );
        assert_eq!(only_second.0.keys().copied().collect::<Vec<_>>(), [1]);
        let count = |n, planned: &dyn Fn(&Item) -> bool| {
            PlannedRequests::count(
                &test_plan(Metric::HarmonicEval),
                &backend(),
                &items(n),
                planned,
            )
        };
        assert_eq!(count(3, &|_| true), 3 * ids.len());
        assert_eq!(count(2, &|i| i.id == "item-1"), ids.len());
        // MAEV refuses an item without its question: no requests, none counted.
        let maev = test_plan(Metric::Maev);
        let listed = PlannedRequests::of(&maev, &backend(), &items(2), |_| true);
        let listed: usize = listed.0.values().map(Vec::len).sum();
        assert_eq!(
            PlannedRequests::count(&maev, &backend(), &items(2), |_| true),
            listed
        );
    }

    #[test]
    fn every_request_answered_gives_complete_items_and_no_sentence() {
        let planned = planned_he(2);
        let (s, _) = read(Metric::HarmonicEval, 2, all_answered(&planned, "4"));
        assert_eq!(s.results.len(), 2);
        assert!(s.results.iter().all(|r| r.is_complete()));
        assert!(s.notes.is_empty() && s.incomplete.is_empty() && s.unanswered.is_empty());
        assert!(s
            .summary(2)
            .starts_with("2 of 2 items scored on every criterion, 0 incomplete"));
    }

    #[test]
    fn a_missing_answer_leaves_the_item_incomplete_and_named() {
        let planned = planned_he(2);
        let mut output = all_answered(&planned, "4");
        let dropped = output.remove(0).0;
        assert_eq!(dropped, "0:correctness");
        let (s, _) = read(Metric::HarmonicEval, 2, output);
        assert_eq!(s.incomplete, ["item-0"]);
        let r = &s.results[0];
        assert!(!r.is_complete(), "{r:?}");
        assert_eq!(r.criteria.len(), 5, "the unanswered criterion is recorded");
        let missing = r.criteria.iter().find(|c| c.name == "correctness").unwrap();
        assert_eq!(missing.score, None);
        assert!(missing
            .error
            .as_deref()
            .unwrap()
            .contains("\u{201c}0:correctness\u{201d}"));
        assert_eq!(r.failed_criteria(), 1);
        assert_eq!(r.missing_answers, ["correctness"]);
        assert_eq!(r.overall(0.75), None, "no overall from the other four");
        assert!(r.scored_overall(0.75).is_some());
        assert!(s.results[1].is_complete() && s.results[1].overall(0.75).is_some());
        assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
        assert!(s.notes[0].contains("item-0") && s.notes[0].contains("0:correctness"));
        assert_eq!(
            s.summary(2),
            "1 of 2 items scored on every criterion, 1 incomplete (a planned request has no \
             answer), 0 failed, 0 unanswered"
        );
        // Answered later (a second file read after the first): complete.
        let mut both = all_answered(&planned, "4");
        both.retain(|(id, _)| id != "0:correctness");
        both.push(("0:correctness".into(), rated("4")));
        let (later, _) = read(Metric::HarmonicEval, 2, both);
        assert!(later.incomplete.is_empty() && later.results[0].is_complete());
        assert!(later.results[0].missing_answers.is_empty());
        assert!(later.results[0].overall(0.75).is_some());
    }

    #[test]
    fn an_item_with_no_answer_at_all_is_unanswered_not_a_result() {
        let planned = planned_he(3);
        let mut output = all_answered(&planned, "4");
        output.retain(|(id, _)| !id.starts_with("2:"));
        let (s, _) = read(Metric::HarmonicEval, 3, output);
        assert_eq!(s.results.len(), 2);
        assert_eq!(s.unanswered, ["item-2"]);
        assert!(s.unanswered_sentence().unwrap().contains("item-2"));
        assert!(s.summary(3).ends_with("1 unanswered"));
    }

    #[test]
    fn a_second_answer_is_ignored_and_said_the_first_kept() {
        let planned = planned_he(1);
        let mut output = all_answered(&planned, "4");
        output.push(("0:correctness".into(), rated("1")));
        let (s, _) = read(Metric::HarmonicEval, 1, output);
        let r = &s.results[0];
        assert_eq!(r.criteria.len(), 5, "one record per planned criterion");
        let first = r.criterion_score("correctness").unwrap();
        assert!(
            first > 3.0,
            "the first answer (4) is kept, not the second (1): {first}"
        );
        assert_eq!(s.notes.len(), 1);
        assert!(s.notes[0].contains("second answer to \u{201c}0:correctness\u{201d}"));
        assert!(r.is_complete());
        // A failed answer gives way to a later one that is not (a retried request).
        let mut retried = all_answered(&planned, "4");
        retried[0].1 = Err(JudgeError::Timeout { seconds: 1 });
        retried.push(("0:correctness".into(), rated("4")));
        let (s, _) = read(Metric::HarmonicEval, 1, retried);
        assert!(
            s.results[0].is_complete() && s.notes.is_empty(),
            "{:?}",
            s.notes
        );
    }

    #[test]
    fn an_item_is_read_as_soon_as_its_answers_are_in_and_they_are_let_go() {
        let p = test_plan(Metric::HarmonicEval);
        let items = items(2);
        let planned = PlannedRequests::of(&p, &backend(), &items, |_| true);
        let mut output = all_answered(&planned, "4");
        // Item 1's first answer failed: it waits for a retry, read only at the end.
        output[5].1 = Err(JudgeError::Timeout { seconds: 1 });
        let b = backend();
        let mut reader = Reader::new(&p, &b, &items, &planned, |e| e.to_string());
        for (id, answer) in output {
            reader.add(id, answer);
        }
        assert!(matches!(reader.answering[&0], Answering::Read));
        assert!(
            reader.read.contains_key(&0),
            "item 0 read, its answers dropped"
        );
        assert!(matches!(reader.answering[&1], Answering::Waiting(_)));
        assert!(!reader.read.contains_key(&1));
        // In item order, item 1 read at the end with its failed criterion.
        let whole = reader.finish();
        let ids: Vec<&str> = whole.results.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["item-0", "item-1"]);
        assert!(whole.results[0].is_complete());
        assert_eq!(whole.results[1].failed_criteria(), 1);
        assert!(
            whole.results[1].missing_answers.is_empty(),
            "answered, but failed"
        );
    }

    #[test]
    fn a_stray_slot_or_item_number_answers_nothing_and_is_said() {
        for stray in [
            "0:nonsense",
            "0:Correctness",
            "0:correctness:extra",
            "00:correctness",
            "+0:correctness",
            "0: correctness",
            "7:correctness",
            "x",
        ] {
            let planned = planned_he(1);
            let mut output = all_answered(&planned, "4");
            output.push((stray.into(), rated("1")));
            let (s, _) = read(Metric::HarmonicEval, 1, output);
            let r = &s.results[0];
            assert_eq!(r.criteria.len(), 5, "{stray}: no criterion of its own");
            assert!(r.is_complete(), "{stray}");
            assert_eq!(s.notes.len(), 1, "{stray}: {:?}", s.notes);
            assert!(
                s.notes[0].contains(&format!(
                    "\u{201c}{stray}\u{201d} answers no planned request"
                )),
                "{}",
                s.notes[0]
            );
        }
        // A non-canonical number in place of the planned one: the item stays incomplete.
        let planned = planned_he(1);
        let mut output = all_answered(&planned, "4");
        output[0].0 = "00:correctness".into();
        let (s, _) = read(Metric::HarmonicEval, 1, output);
        assert_eq!(s.incomplete, ["item-0"]);
        assert_eq!(s.notes.len(), 2, "{:?}", s.notes);
    }

    #[test]
    fn a_trial_left_unanswered_gives_no_score_from_the_rest() {
        let p = test_plan(Metric::Maev);
        let planned = PlannedRequests::of(&p, &backend(), &items(1), |_| true);
        assert_eq!(planned.0[&0], ["trial-0", "trial-1", "trial-2"]);
        let answer = |printed: u8| {
            let text = format!("Evidence: fine. Assistant Score: {printed}");
            parse_chat_completion(
                &serde_json::json!({"choices":[{"message":{"content":text}}]}).to_string(),
            )
        };
        let whole = vec![
            ("0:trial-0".to_string(), answer(2)),
            ("0:trial-1".to_string(), answer(0)),
            ("0:trial-2".to_string(), answer(2)),
        ];
        let (s, _) = read(Metric::Maev, 1, whole.clone());
        assert!(s.results[0].score.is_some() && s.incomplete.is_empty());
        let (s, _) = read(Metric::Maev, 1, whole[..2].to_vec());
        assert_eq!(
            s.results[0].score, None,
            "not the mean of two trials as if whole"
        );
        assert!(s.results[0].error.as_deref().unwrap().contains("0:trial-2"));
        assert_eq!(s.results[0].missing_answers, ["trial-2"]);
        assert_eq!(s.incomplete, ["item-0"]);
        assert_eq!(s.failed(), 0, "counted as incomplete, not failed");
    }

    #[test]
    fn an_unreadable_line_is_said() {
        let output: Answers = vec![(
            String::new(),
            Err(JudgeError::BadResponse {
                detail: "line 3 of the batch results is not JSON".into(),
            }),
        )];
        let (s, _) = read(Metric::HarmonicEval, 1, output);
        assert!(s.results.is_empty());
        assert!(s.notes[0].contains("line 3"));
    }
}
