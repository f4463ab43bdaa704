//! Building items from rows: one row's fields become an [`Item`] or a sentence per problem;
//! duplicate ids, ignored columns and best-of-N groups are checked across rows.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::fields::*;
use super::{Dataset, Format, RowProblem};
use crate::batch::{normalize_path, Human, Item};
use crate::inputs::geometry::NormBox;
use crate::scoring::criteria::Criterion;
use crate::scoring::task::Task;

/// The state of an import: items so far, problems, ids seen, ignored names.
pub(super) struct Rows {
    format: Format,
    items: Vec<Item>,
    problems: Vec<RowProblem>,
    warnings: Vec<String>,
    refused: bool,
    /// id → line where it first appeared.
    ids: HashMap<String, usize>,
    /// Ignored field names in first-seen order, with the line they first appeared on.
    ignored: Vec<(String, usize)>,
    ignored_set: HashSet<String>,
}

impl Rows {
    pub(super) fn new(format: Format) -> Rows {
        Rows {
            format,
            items: Vec::new(),
            problems: Vec::new(),
            warnings: Vec::new(),
            refused: false,
            ids: HashMap::new(),
            ignored: Vec::new(),
            ignored_set: HashSet::new(),
        }
    }

    /// Refuses the whole file: no items, this one problem.
    pub(super) fn refuse(&mut self, line: usize, message: String) {
        self.items.clear();
        self.problems = vec![RowProblem { line, message }];
        self.warnings.clear();
        self.ignored.clear();
        self.refused = true;
    }

    pub(super) fn ignore(&mut self, name: &str, line: usize) {
        if self.ignored_set.insert(name.to_string()) {
            self.ignored.push((name.to_string(), line));
        }
    }

    /// Builds one row's item, or records why not.
    pub(super) fn row(&mut self, line: usize, cells: &[(Field, Raw<'_>)]) {
        let mut d = Draft::default();
        for &(field, raw) in cells {
            d.read(field, raw);
        }
        // The `human` object last, so that it can be checked against the flat columns.
        for &(field, raw) in cells {
            if field == Field::HumanObject {
                self.human_object(line, raw, &mut d.human, &d.flat_seen, &mut d.errors);
            }
        }
        d.missing();
        if let Some(id) = d.id.clone() {
            match self.ids.entry(id) {
                Entry::Occupied(first) => d.errors.push(format!(
                    "duplicate id {} (first on line {})",
                    quote(first.key()),
                    first.get()
                )),
                Entry::Vacant(v) => {
                    v.insert(line);
                }
            }
        }
        if d.errors.is_empty() {
            self.items.push(d.into_item(line));
        } else {
            self.problem(line, &d.errors);
        }
    }

    pub(super) fn problem(&mut self, line: usize, errors: &[String]) {
        let mut message = errors.join("; ");
        if !message.ends_with('.') {
            message.push('.');
        }
        self.problems.push(RowProblem { line, message });
    }

    /// `human: {"correctness": 4, "overall": [3, 3.5]}`.
    pub(super) fn human_object(
        &mut self,
        line: usize,
        raw: Raw<'_>,
        human: &mut Human,
        flat_seen: &[bool; 6],
        errors: &mut Vec<String>,
    ) {
        let parsed;
        let value = match raw {
            Raw::Json(v) => v,
            Raw::Csv(s) if s.trim().is_empty() => return,
            Raw::Csv(s) => match serde_json::from_str::<Value>(s.trim()) {
                Ok(v) => {
                    parsed = v;
                    &parsed
                }
                Err(e) => {
                    errors.push(format!(
                        "human is not valid JSON ({}); write e.g. {{\"overall\": 3}}",
                        json_message(&e)
                    ));
                    return;
                }
            },
        };
        let map = match value {
            Value::Null => return,
            Value::Object(map) => map,
            v => {
                errors.push(wrong_type(
                    "human",
                    "an object like {\"correctness\": 4, \"overall\": 3.5}",
                    v,
                ));
                return;
            }
        };
        for (key, v) in map {
            let k = key.trim().to_ascii_lowercase();
            let c = if k == "overall" {
                None
            } else if let Some(c) = Criterion::from_id(&k) {
                Some(c)
            } else {
                self.ignore(&format!("human.{key}"), line);
                continue;
            };
            let name = format!("human.{k}");
            match Raw::Json(v).numbers(&name) {
                Ok(values) if values.is_empty() => {}
                Ok(values) => {
                    if flat_seen[c.map_or(5, Criterion::index)] {
                        errors.push(format!("{name} is also given as human_{k}; give it once"));
                    } else {
                        *human_slot(human, c) = values;
                    }
                }
                Err(e) => errors.push(e),
            }
        }
    }

    pub(super) fn finish(mut self) -> Dataset {
        if !self.refused {
            if !self.ignored.is_empty() {
                let names: Vec<String> = self
                    .ignored
                    .iter()
                    .map(|(name, line)| {
                        let mut s = format!("\u{201c}{name}\u{201d}");
                        if self.format == Format::Jsonl {
                            s.push_str(&format!(" (first on line {line})"));
                        }
                        if let Some(h) = hint(&name.trim().to_ascii_lowercase()) {
                            s.push_str(&format!(" (did you mean \u{201c}{h}\u{201d}?)"));
                        }
                        s
                    })
                    .collect();
                let what = match self.format {
                    Format::Jsonl => "fields",
                    Format::Csv => "columns",
                };
                self.warnings.insert(
                    0,
                    format!("Ignored {what} the app does not use: {}.", names.join(", ")),
                );
            }
            self.best_of_n_warnings();
        }
        Dataset {
            format: self.format,
            items: self.items,
            problems: self.problems,
            warnings: self.warnings,
        }
    }

    fn best_of_n_warnings(&mut self) {
        let orphans = self
            .items
            .iter()
            .filter(|i| i.chosen && i.group.is_none())
            .count();
        if orphans > 0 {
            self.warnings.push(format!(
                "{orphans} item{} marked chosen but without a group; chosen only counts within \
                 a group.",
                if orphans == 1 { " is" } else { "s are" }
            ));
        }
        if !self.items.iter().any(|i| i.chosen && i.group.is_some()) {
            return;
        }
        // Groups in first-seen order, each with whether a candidate is chosen.
        let mut order: Vec<&str> = Vec::new();
        let mut chosen: HashMap<&str, bool> = HashMap::new();
        for item in &self.items {
            if let Some(g) = item.group.as_deref() {
                let e = chosen.entry(g).or_insert_with(|| {
                    order.push(g);
                    false
                });
                *e |= item.chosen;
            }
        }
        let without: Vec<&str> = order.into_iter().filter(|g| !chosen[g]).collect();
        if !without.is_empty() {
            let shown: Vec<String> = without.iter().take(5).map(|g| quote(g)).collect();
            let more = if without.len() > 5 { ", \u{2026}" } else { "" };
            self.warnings.push(format!(
                "{} group{} no chosen candidate: {}{more}.",
                without.len(),
                if without.len() == 1 { " has" } else { "s have" },
                shown.join(", ")
            ));
        }
    }
}

pub(super) fn human_slot(human: &mut Human, c: Option<Criterion>) -> &mut Vec<f64> {
    match c {
        Some(c) => &mut human.criteria[c.index()],
        None => &mut human.overall,
    }
}

/// One row's fields as read so far, and what was wrong with them.
#[derive(Default)]
struct Draft {
    errors: Vec<String>,
    id: Option<String>,
    task: Task,
    text: Option<String>,
    question: Option<String>,
    references: Vec<String>,
    image: Option<String>,
    bbox: Option<NormBox>,
    human: Human,
    /// Which flat `human_*` columns were given, in [`Criterion::ALL`] order then overall.
    flat_seen: [bool; 6],
    group: Option<String>,
    chosen: bool,
    caption: Option<String>,
    reference_answer: Option<String>,
}

impl Draft {
    /// A text field's value, or `None` with the error recorded.
    fn put(&mut self, r: Result<Option<String>, String>) -> Option<String> {
        r.unwrap_or_else(|e| {
            self.errors.push(e);
            None
        })
    }

    /// Reads one cell (the `human` object is read by the caller, after the flat columns).
    fn read(&mut self, field: Field, raw: Raw<'_>) {
        match field {
            Field::Id => self.id = self.put(raw.text_or_number("id")),
            Field::Task => match raw.text("task") {
                Ok(None) => {}
                Ok(Some(t)) => match Task::from_id(&t.to_ascii_lowercase()) {
                    Some(found) => self.task = found,
                    None => self.errors.push(format!(
                        "unknown task {} (expected ic, vqa, vdu or reg)",
                        quote(&t)
                    )),
                },
                Err(e) => self.errors.push(e),
            },
            Field::Text => self.text = self.put(raw.text("text")),
            Field::Question => self.question = self.put(raw.text("question")),
            Field::References => match raw.strings("references") {
                Ok(v) => self.references = v,
                Err(e) => self.errors.push(e),
            },
            Field::Image => {
                self.image = self
                    .put(raw.text("image"))
                    .map(|s| normalize_path(&s))
                    .filter(|s| !s.is_empty())
            }
            Field::Box => match raw.bbox("box") {
                Ok(b) => self.bbox = b,
                Err(e) => self.errors.push(e),
            },
            Field::HumanFlat(c) => self.human_flat(c, raw),
            // Read after the loop, to check it against the flat columns.
            Field::HumanObject => {}
            Field::Group => self.group = self.put(raw.text_or_number("group")),
            Field::Chosen => match raw.boolean("chosen") {
                Ok(b) => self.chosen = b,
                Err(e) => self.errors.push(e),
            },
            Field::Caption => self.caption = self.put(raw.text("caption")),
            Field::ReferenceAnswer => {
                self.reference_answer = self.put(raw.text("reference_answer"))
            }
        }
    }

    /// A flat `human_<criterion>` or `human_overall` column.
    fn human_flat(&mut self, c: Option<Criterion>, raw: Raw<'_>) {
        let name = match c {
            Some(c) => format!("human_{}", c.id()),
            None => "human_overall".to_string(),
        };
        match raw.numbers(&name) {
            Ok(v) if !v.is_empty() => {
                self.flat_seen[c.map_or(5, Criterion::index)] = true;
                *human_slot(&mut self.human, c) = v;
            }
            Ok(_) => {}
            Err(e) => self.errors.push(e),
        }
    }

    /// Reports the required fields that are missing (a field with a wrong value is not also
    /// reported as missing).
    fn missing(&mut self) {
        let bad = |errors: &[String], name: &str| {
            errors.iter().any(|e| {
                e.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(' '))
            })
        };
        let task = self.task;
        if self.id.is_none() && !bad(&self.errors, "id") {
            self.errors.push("missing id".to_string());
        }
        if self.text.is_none() && !bad(&self.errors, "text") {
            self.errors
                .push("missing text (the output to judge)".to_string());
        }
        if task.needs_question() && self.question.is_none() && !bad(&self.errors, "question") {
            self.errors
                .push(format!("task {} needs a question", task.id()));
        }
        if task.needs_box() && self.bbox.is_none() && !bad(&self.errors, "box") {
            self.errors.push(format!(
                "task {} needs a box [left, top, right, bottom]",
                task.id()
            ));
        }
    }

    fn into_item(self, line: usize) -> Item {
        Item {
            line,
            id: self.id.unwrap_or_default(),
            task: self.task,
            text: self.text.unwrap_or_default(),
            question: self.question,
            references: self.references,
            image: self.image,
            bbox: self.bbox,
            human: self.human,
            group: self.group,
            chosen: self.chosen,
            caption: self.caption,
            reference_answer: self.reference_answer,
        }
    }
}
