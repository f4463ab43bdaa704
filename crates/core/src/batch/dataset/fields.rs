//! Dataset fields: the known columns and reading one raw value (JSON or CSV text) as text,
//! numbers, a boolean, a list or a box, with a sentence for every wrong type.

use serde_json::Value;

use crate::inputs::geometry::NormBox;
use crate::scoring::criteria::Criterion;

/// A known column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Field {
    Id,
    Task,
    Text,
    Question,
    References,
    Image,
    Box,
    /// `human_<criterion>`, or `human_overall` (`None`).
    HumanFlat(Option<Criterion>),
    /// `human`: an object of ratings.
    HumanObject,
    Group,
    Chosen,
    Caption,
    ReferenceAnswer,
}

impl Field {
    /// From a lower-cased, trimmed name.
    pub(super) fn from_name(name: &str) -> Option<Field> {
        Some(match name {
            "id" => Field::Id,
            "task" => Field::Task,
            "text" => Field::Text,
            "question" => Field::Question,
            "references" => Field::References,
            "image" => Field::Image,
            "box" => Field::Box,
            "human" => Field::HumanObject,
            "human_overall" => Field::HumanFlat(None),
            "group" => Field::Group,
            "chosen" => Field::Chosen,
            "caption" => Field::Caption,
            "reference_answer" => Field::ReferenceAnswer,
            other => {
                let c = other.strip_prefix("human_").and_then(Criterion::from_id)?;
                Field::HumanFlat(Some(c))
            }
        })
    }
}

/// A hint for a column name that looks like one we know.
pub(super) fn hint(name: &str) -> Option<&'static str> {
    Some(match name {
        "bbox" | "boxes" | "bounding_box" => "box",
        "reference" | "refs" | "ref" | "gt" | "ground_truth" => "references",
        "img" | "image_file" | "image_path" | "file_name" | "filename" | "file" | "path" => "image",
        "output" | "prediction" | "candidate" | "answer" | "response" | "generated" => "text",
        "type" | "task_type" => "task",
        "name" | "item" | "item_id" | "uid" => "id",
        "best" | "selected" | "preferred" => "chosen",
        "score" | "rating" | "human_score" | "overall" => "human_overall",
        _ => return None,
    })
}

/// One cell: a JSON value (JSONL) or the text of a CSV field.
#[derive(Clone, Copy)]
pub(super) enum Raw<'a> {
    Json(&'a Value),
    Csv(&'a str),
}

pub(super) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true/false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

pub(super) fn wrong_type(name: &str, expected: &str, v: &Value) -> String {
    format!("{name} should be {expected}, not {}", kind(v))
}

pub(super) fn quote(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() > MAX {
        let cut: String = s.chars().take(MAX).collect();
        format!("\u{201c}{cut}\u{2026}\u{201d}")
    } else {
        format!("\u{201c}{s}\u{201d}")
    }
}

pub(super) fn non_empty(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

impl<'a> Raw<'a> {
    /// Text, trimmed; `None` when empty or null.
    pub(super) fn text(self, name: &str) -> Result<Option<String>, String> {
        match self {
            Raw::Csv(s) => Ok(non_empty(s)),
            Raw::Json(Value::Null) => Ok(None),
            Raw::Json(Value::String(s)) => Ok(non_empty(s)),
            Raw::Json(v) => Err(wrong_type(name, "text", v)),
        }
    }

    /// Text, or a JSON number kept as written (ids, groups).
    pub(super) fn text_or_number(self, name: &str) -> Result<Option<String>, String> {
        match self {
            Raw::Json(Value::Number(n)) => Ok(Some(n.to_string())),
            Raw::Json(v @ (Value::Bool(_) | Value::Array(_) | Value::Object(_))) => {
                Err(wrong_type(name, "text or a number", v))
            }
            other => other.text(name),
        }
    }

    /// One or more numbers: a number, a JSON array of numbers, or text `3` / `3|4` / `[3, 4]`.
    pub(super) fn numbers(self, name: &str) -> Result<Vec<f64>, String> {
        match self {
            Raw::Csv(s) => numbers_from_text(name, s),
            Raw::Json(Value::Null) => Ok(Vec::new()),
            Raw::Json(Value::String(s)) => numbers_from_text(name, s),
            Raw::Json(Value::Number(n)) => Ok(vec![json_number(name, n)?]),
            Raw::Json(Value::Array(a)) => numbers_from_array(name, a),
            Raw::Json(v) => Err(wrong_type(name, "a number or a list of numbers", v)),
        }
    }

    pub(super) fn boolean(self, name: &str) -> Result<bool, String> {
        match self {
            Raw::Json(Value::Null) => Ok(false),
            Raw::Json(Value::Bool(b)) => Ok(*b),
            Raw::Json(Value::Number(n)) => match n.as_u64() {
                Some(0) => Ok(false),
                Some(1) => Ok(true),
                _ => Err(format!("{name} should be true or false, not {n}")),
            },
            Raw::Json(Value::String(s)) => boolean_from_text(name, s),
            Raw::Csv(s) => boolean_from_text(name, s),
            Raw::Json(v) => Err(wrong_type(name, "true or false", v)),
        }
    }

    /// References: JSON array of strings; CSV text: a JSON array or `|`-separated.
    pub(super) fn strings(self, name: &str) -> Result<Vec<String>, String> {
        match self {
            Raw::Json(Value::Null) => Ok(Vec::new()),
            Raw::Json(Value::String(s)) => Ok(non_empty(s).into_iter().collect()),
            Raw::Json(Value::Array(a)) => strings_from_array(name, a),
            Raw::Json(v) => Err(wrong_type(name, "a list of texts", v)),
            Raw::Csv(s) => {
                let t = s.trim();
                if t.starts_with('[') {
                    match serde_json::from_str::<Value>(t) {
                        Ok(Value::Array(a)) => strings_from_array(name, &a),
                        Ok(v) => Err(wrong_type(name, "a list of texts", &v)),
                        Err(e) => Err(format!(
                            "{name} starts with [ but is not a valid JSON array ({})",
                            json_message(&e)
                        )),
                    }
                } else {
                    Ok(t.split('|').filter_map(non_empty).collect())
                }
            }
        }
    }

    pub(super) fn bbox(self, name: &str) -> Result<Option<NormBox>, String> {
        let text = match self {
            Raw::Json(Value::String(s)) => Some(s.as_str()),
            Raw::Csv(s) => Some(s),
            _ => None,
        };
        let values = match (self, text) {
            (Raw::Json(Value::Null), _) => return Ok(None),
            (Raw::Json(Value::Array(a)), _) => numbers_from_array(name, a)?,
            (_, Some(s)) => {
                let t = s.trim();
                if t.is_empty() {
                    return Ok(None);
                }
                let inner = t
                    .trim_start_matches(['[', '('])
                    .trim_end_matches([']', ')'])
                    .trim();
                let mut values = Vec::new();
                for part in inner
                    .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
                    .filter(|p| !p.is_empty())
                {
                    values.push(number(name, part).map_err(|_| {
                        format!(
                            "{name} {} should be four numbers \u{201c}left,top,right,bottom\u{201d}",
                            quote(t)
                        )
                    })?);
                }
                values
            }
            (Raw::Json(v), None) => {
                return Err(wrong_type(name, "a list [left, top, right, bottom]", v));
            }
            (Raw::Csv(_), None) => return Ok(None),
        };
        make_box(name, &values).map(Some)
    }
}

pub(super) fn boolean_from_text(name: &str, s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "" | "false" | "0" | "no" => Ok(false),
        "true" | "1" | "yes" => Ok(true),
        _ => Err(format!(
            "{name} {} is not one of true/false/1/0/yes/no",
            quote(s.trim())
        )),
    }
}

pub(super) fn make_box(name: &str, v: &[f64]) -> Result<NormBox, String> {
    if v.len() != 4 {
        return Err(format!(
            "{name} should have 4 numbers [left, top, right, bottom], not {}",
            v.len()
        ));
    }
    if let Some(x) = v.iter().find(|x| !(0.0..=1.0).contains(*x)) {
        return Err(format!(
            "{name} values must be fractions of the image size between 0 and 1 (found {x}; \
             divide pixel coordinates by the image width and height)"
        ));
    }
    let b = NormBox {
        x0: v[0],
        y0: v[1],
        x1: v[2],
        y1: v[3],
    };
    if b.x0 >= b.x1 || b.y0 >= b.y1 {
        return Err(format!(
            "{name} must be [left, top, right, bottom] with left < right and top < bottom"
        ));
    }
    Ok(b)
}

pub(super) fn number(name: &str, s: &str) -> Result<f64, String> {
    let t = s.trim();
    match t.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("{name} {} is not a number", quote(t))),
    }
}

pub(super) fn json_number(name: &str, n: &serde_json::Number) -> Result<f64, String> {
    n.as_f64()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("{name} {n} is not a usable number"))
}

pub(super) fn numbers_from_array(name: &str, a: &[Value]) -> Result<Vec<f64>, String> {
    a.iter()
        .map(|v| match v {
            Value::Number(n) => json_number(name, n),
            Value::String(s) => number(name, s),
            v => Err(wrong_type(&format!("each value of {name}"), "a number", v)),
        })
        .collect()
}

pub(super) fn numbers_from_text(name: &str, s: &str) -> Result<Vec<f64>, String> {
    let t = s.trim();
    if t.starts_with('[') {
        return match serde_json::from_str::<Value>(t) {
            Ok(Value::Array(a)) => numbers_from_array(name, &a),
            _ => Err(format!("{name} {} is not a list of numbers", quote(t))),
        };
    }
    t.split('|')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            number(name, p).map_err(|e| {
                if p.contains(',') {
                    format!("{e} (separate several ratings with |; decimals use a point)")
                } else {
                    e
                }
            })
        })
        .collect()
}

pub(super) fn strings_from_array(name: &str, a: &[Value]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for v in a {
        match v {
            Value::String(s) => out.extend(non_empty(s)),
            v => return Err(wrong_type(&format!("each value of {name}"), "text", v)),
        }
    }
    Ok(out)
}

/// serde_json's message without its "at line 1 column N" (the line is ours).
pub(super) fn json_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match full.strip_suffix(&suffix) {
        Some(msg) => format!("{msg}, at column {}", e.column()),
        None => full,
    }
}
