//! The gate every result from outside the page passes (issue 30): a share link, an opened file,
//! a history entry, the lab's hand-over and a gallery example. It decides, before any work is
//! done on the bytes, whether they are small enough to be a result at all (the fragment's
//! length before inflating, the file's size before reading); how far inflating may go; and,
//! once the document is parsed, that it holds no text longer than a new evaluation accepts, no
//! list longer than any result has and no field longer than any answer. Each refusal is one
//! sentence. `web/` only moves the bytes (it inflates in small slices and stops at
//! [`MAX_DOC_BYTES`]); `result_file::read` calls [`check`] before any metric reads the document.
//!
//! Why: the page lays out whatever text it is given, and layout grows faster than the text (a
//! 3.9 MB text took 56 s of main-thread work), so nothing reaches the page unbounded.

use serde_json::{Map, Value};

use crate::inputs::text_checks::thousands;

/// Where a result comes from, for the sentence that refuses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Link,
    File,
    History,
    Lab,
    Example,
    /// Any of them, once in the page as text.
    Any,
}

impl Origin {
    fn noun(self) -> &'static str {
        match self {
            Origin::Link => "This share link's result",
            Origin::File => "This file",
            Origin::History => "This history entry",
            Origin::Lab => "The result sent from the lab",
            Origin::Example => "This example",
            Origin::Any => "This result",
        }
    }
}

/// The longest share-link fragment read: no link the page makes is longer
/// ([`crate::files::share::MAX_LINK_CHARS`] covers the whole URL), so a longer one is not ours and is
/// refused before it is decoded or inflated.
pub const MAX_FRAGMENT_CHARS: usize = 16_000;

/// The largest result document read, in bytes (a file's size, an inflated link, a history
/// record, the lab's hand-over, an example). A comparison of five 20,000-character texts with
/// every explanation is a few hundred KB; a result with its thumbnail, a few KB.
pub const MAX_DOC_BYTES: usize = 2 << 20;

/// How many bytes of a link's deflated data the browser inflates at a time: deflate expands at
/// most about 1,032 times, so one slice gives at most about 1 MB before the page can stop.
pub const INFLATE_SLICE: usize = 1024;

/// The longest string read in any other field (a model's answer, an explanation, a label, the
/// model's name): an answer of 8,192 tokens, the most the page asks for, fits.
pub const MAX_FIELD_CHARS: usize = 50_000;

/// The longest list read anywhere in a result (criteria, trials, candidates, references,
/// probabilities); no result the page writes comes near it.
pub const MAX_LIST_ITEMS: usize = 1_000;

/// The texts a new evaluation limits to [`crate::inputs::text_checks::MAX_CHARS`], by their key in a
/// result (any metric's) and what a sentence calls them.
const USER_TEXTS: [(&str, &str); 5] = [
    ("text", "text"),
    ("caption", "caption"),
    ("answer", "answer"),
    ("question", "question"),
    ("reference_answer", "reference answer"),
];

fn megabytes(bytes: f64) -> String {
    let mb = bytes / f64::from(1u32 << 20);
    if mb >= 10.0 {
        format!("{mb:.0} MB")
    } else {
        format!("{mb:.1} MB")
    }
}

/// A share link's fragment data (after `#r=`), checked before it is decoded.
pub fn fragment(data: &str) -> Result<(), String> {
    fragment_chars(data.chars().count())
}

/// A share link's fragment data by its length alone (`n` characters after `#r=`), so the page
/// can refuse a long one without copying it.
pub fn fragment_chars(n: usize) -> Result<(), String> {
    if n > MAX_FRAGMENT_CHARS {
        return Err(format!(
            "This share link is {} characters long; links made by this page stay under {}, so it \
             was not opened.",
            thousands(n),
            thousands(MAX_FRAGMENT_CHARS)
        ));
    }
    Ok(())
}

/// A document's size in bytes (a file's `size`, a stored text's length), checked before it is
/// read or parsed.
pub fn size(origin: Origin, bytes: f64) -> Result<(), String> {
    if bytes.is_nan() || bytes > MAX_DOC_BYTES as f64 {
        return Err(format!(
            "{} is {}; a result is at most {}, so it was not read.",
            origin.noun(),
            megabytes(bytes),
            megabytes(MAX_DOC_BYTES as f64)
        ));
    }
    Ok(())
}

/// What a link says when its data unpacks past [`MAX_DOC_BYTES`] (inflating stopped there).
pub fn unpacked_too_far() -> String {
    format!(
        "This share link unpacks to more than {}, more than any result needs, so it was not \
         unpacked further.",
        megabytes(MAX_DOC_BYTES as f64)
    )
}

/// A parsed result document: no user text past a new evaluation's limit, no list past
/// [`MAX_LIST_ITEMS`], no other string past [`MAX_FIELD_CHARS`] (the top-level `image`, a data
/// URL, is bounded by the document's size). Candidates' texts and results count as texts.
pub fn check(doc: &Value) -> Result<(), String> {
    let bad = |why: String| format!("This result cannot be opened: {why}.");
    if let Value::Object(obj) = doc {
        user_texts(obj).map_err(bad)?;
        if let Some(Value::Array(list)) = obj.get("candidates") {
            for c in list.iter().take(MAX_LIST_ITEMS) {
                if let Value::Object(c) = c {
                    user_texts(c).map_err(bad)?;
                    if let Some(Value::Object(r)) = c.get("result") {
                        user_texts(r).map_err(bad)?;
                    }
                }
            }
        }
    }
    // Depth-first without recursion; serde_json already refuses nesting past 128.
    let mut stack: Vec<(Option<&str>, &Value, bool)> = vec![(None, doc, true)];
    while let Some((key, v, top)) = stack.pop() {
        match v {
            Value::String(s) if !(top && key == Some("image")) && s.len() > MAX_FIELD_CHARS => {
                let n = s.chars().count();
                if n > MAX_FIELD_CHARS {
                    return Err(bad(format!(
                        "its field \u{201c}{}\u{201d} is {} characters long, and at most {} are read",
                        key.unwrap_or("?").chars().take(40).collect::<String>(),
                        thousands(n),
                        thousands(MAX_FIELD_CHARS)
                    )));
                }
            }
            Value::Array(list) => {
                if list.len() > MAX_LIST_ITEMS {
                    return Err(bad(format!(
                        "it holds a list of {} items under \u{201c}{}\u{201d}, and at most {} are read",
                        thousands(list.len()),
                        key.unwrap_or("?").chars().take(40).collect::<String>(),
                        thousands(MAX_LIST_ITEMS)
                    )));
                }
                stack.extend(list.iter().map(|x| (key, x, false)));
            }
            Value::Object(m) => stack.extend(
                m.iter()
                    .map(|(k, x)| (Some(k.as_str()), x, top && key.is_none())),
            ),
            _ => {}
        }
    }
    Ok(())
}

/// The user texts of one result (or candidate): each within a new evaluation's limit, and the
/// references together, as the references box sends them.
fn user_texts(obj: &Map<String, Value>) -> Result<(), String> {
    let max = crate::inputs::text_checks::MAX_CHARS;
    let over = |what: &str, text: &str| {
        let n = text.chars().count();
        (n > max).then(|| {
            format!(
                "its {what} is {} characters long, and up to {} are accepted, as for a new evaluation",
                thousands(n),
                thousands(max)
            )
        })
    };
    for (key, what) in USER_TEXTS {
        if let Some(Value::String(s)) = obj.get(key) {
            if let Some(e) = over(what, s) {
                return Err(e);
            }
        }
    }
    if let Some(Value::Array(refs)) = obj.get("references") {
        let joined: Vec<&str> = refs
            .iter()
            .take(MAX_LIST_ITEMS + 1)
            .filter_map(Value::as_str)
            .collect();
        if let Some(e) = over("list of references", &joined.join("\n")) {
            return Err(e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_fragment_longer_than_any_link_of_ours_is_refused_before_decoding() {
        assert_eq!(MAX_FRAGMENT_CHARS, crate::files::share::MAX_LINK_CHARS);
        assert!(fragment(&"A".repeat(MAX_FRAGMENT_CHARS)).is_ok());
        let e = fragment(&"A".repeat(2_079_185)).unwrap_err();
        assert_eq!(e, "This share link is 2,079,185 characters long; links made by this page stay under 16,000, so it was not opened.");
    }

    #[test]
    fn sizes_are_checked_before_reading_and_say_what_and_how_large() {
        assert!(size(Origin::File, MAX_DOC_BYTES as f64).is_ok());
        assert!(size(Origin::File, 0.0).is_ok());
        let e = size(Origin::File, 100.0 * 1024.0 * 1024.0).unwrap_err();
        assert_eq!(
            e,
            "This file is 100 MB; a result is at most 2.0 MB, so it was not read."
        );
        assert!(size(Origin::Lab, 2_200_000.0)
            .unwrap_err()
            .starts_with("The result sent from the lab is 2.1 MB"));
        assert!(
            size(Origin::History, f64::NAN).is_err(),
            "a size that is not a number is not small"
        );
        assert!(unpacked_too_far().contains("more than 2.0 MB"));
    }

    #[test]
    fn user_texts_get_a_new_evaluations_limit_in_every_metric_and_candidate() {
        let max = crate::inputs::text_checks::MAX_CHARS;
        let ok = json!({"metric": "harmonic_eval", "text": "x".repeat(max), "question": "q"});
        assert!(check(&ok).is_ok());
        for key in ["text", "caption", "answer", "question", "reference_answer"] {
            let doc = json!({"metric": "m", key: "é".repeat(max + 1)});
            let e = check(&doc).unwrap_err();
            assert!(
                e.starts_with("This result cannot be opened: its ")
                    && e.contains("20,001 characters long")
                    && e.ends_with("as for a new evaluation."),
                "{e}"
            );
        }
        let refs = json!({"metric": "ref_fleur", "references": vec!["r".repeat(10_000); 3]});
        assert!(check(&refs)
            .unwrap_err()
            .contains("list of references is 30,002 characters"));
        let cand = json!({"kind": "candidates", "candidates": [{"label": "A", "text": "x".repeat(max + 1)}]});
        assert!(check(&cand).unwrap_err().contains("its text is 20,001"));
        let inner = json!({"kind": "candidates", "candidates": [{"label": "A", "result": {"text": "x".repeat(max + 1)}}]});
        assert!(check(&inner).is_err());
    }

    #[test]
    fn every_list_and_field_is_capped_but_the_image_is_bounded_only_by_the_size() {
        let long_list = json!({"metric": "maev", "trials": vec![0; MAX_LIST_ITEMS + 1]});
        assert!(check(&long_list)
            .unwrap_err()
            .contains("a list of 1,001 items under \u{201c}trials\u{201d}"));
        let nested = json!({"criteria": [{"distribution": vec![0.1; MAX_LIST_ITEMS + 1]}]});
        assert!(check(&nested)
            .unwrap_err()
            .contains("under \u{201c}distribution\u{201d}"));
        let answer =
            json!({"criteria": [{"name": "clarity", "answer": "a".repeat(MAX_FIELD_CHARS + 1)}]});
        assert!(check(&answer)
            .unwrap_err()
            .contains("its field \u{201c}answer\u{201d} is 50,001 characters long"));
        let image =
            json!({"image": format!("data:image/jpeg;base64,{}", "A".repeat(MAX_FIELD_CHARS * 4))});
        assert!(check(&image).is_ok());
        let nested_image = json!({"x": {"image": "A".repeat(MAX_FIELD_CHARS + 1)}});
        assert!(
            check(&nested_image).is_err(),
            "only the document's own image may be long"
        );
        assert!(check(&json!([1, 2, "x"])).is_ok());
    }

    #[test]
    fn every_shipped_example_passes() {
        let dir = format!("{}/public/examples", crate::REPO);
        for entry in std::fs::read_dir(dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            assert!(size(Origin::Example, text.len() as f64).is_ok());
            assert_eq!(check(&serde_json::from_str(&text).unwrap()), Ok(()));
        }
    }
}
