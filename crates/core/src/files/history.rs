//! The evaluator's history: the last [`MAX_ENTRIES`] single evaluations, each kept as its result
//! file (the same document as the export, read back by `crate::files::result_file`), with a name the
//! user may change. What is kept, how an entry is written and read, which entries fall out past
//! the limit and in what order they are listed is decided here; `web::history` only moves the
//! records in and out of IndexedDB.
//!
//! Never kept: the API key (exports never hold it) and the base URL (not even without its
//! credentials: a gateway's URL may carry a token in its path or query).

use serde_json::{Map, Value};

/// How many evaluations are kept; the oldest is dropped when one more is added.
pub const MAX_ENTRIES: usize = 50;

/// The longest name kept, in characters.
pub const MAX_NAME_CHARS: usize = 80;

/// One kept evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The IndexedDB key: the time it was saved, zero-padded, so keys sort by age.
    pub id: String,
    pub name: String,
    /// The metric's id, for the list.
    pub metric: String,
    /// When it was saved, in local time as the list shows it ("2026-11-23 04:12").
    pub saved: String,
    /// The result file, as an export writes it (without `base_url`).
    pub file: String,
}

/// The key of an entry saved at `epoch_ms` (milliseconds since 1970), the `n`th that
/// millisecond: keys sort by age as strings.
pub fn entry_id(epoch_ms: f64, n: u32) -> String {
    let ms = if epoch_ms.is_finite() && epoch_ms > 0.0 {
        epoch_ms as u64
    } else {
        0
    };
    format!("{ms:015}-{n:03}")
}

/// A new entry for the result file `result_json`, or the sentence saying why it is not kept (a
/// run with no result to show, such as one whose every criterion failed, is not worth a row).
pub fn new_entry(id: String, saved: String, result_json: &str) -> Result<Entry, String> {
    let opened = crate::files::result_file::read(result_json)?;
    let Ok(Value::Object(mut doc)) = serde_json::from_str::<Value>(result_json) else {
        return Err("This result could not be kept in the history.".into());
    };
    doc.remove("base_url");
    doc.remove("api_key");
    let doc = Value::Object(doc);
    let name = default_name(&opened.metric, crate::files::export_name::judged_text(&doc));
    let file = serde_json::to_string(&doc).unwrap_or_default();
    Ok(Entry {
        id,
        name,
        metric: opened.metric,
        saved,
        file,
    })
}

/// "HarmonicEval: A dog runs across…": the metric's name and the text's first words.
pub fn default_name(metric: &str, text: &str) -> String {
    let metric = crate::metrics::info(metric).map_or(metric, |i| i.name);
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut start = words.iter().take(8).copied().collect::<Vec<_>>().join(" ");
    if start.chars().count() > 48 {
        start = start
            .chars()
            .take(48)
            .collect::<String>()
            .trim_end()
            .to_string();
    }
    if start.is_empty() {
        metric.to_string()
    } else if start.len() < words.join(" ").len() {
        format!("{metric}: {start}\u{2026}")
    } else {
        format!("{metric}: {start}")
    }
}

/// The entry renamed to `name` (trimmed, at most [`MAX_NAME_CHARS`]), or why not.
pub fn renamed(entry: &Entry, name: &str) -> Result<Entry, String> {
    let name: String = name.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        return Err("A name cannot be empty: type one, or keep the old one.".into());
    }
    Ok(Entry {
        name: name.chars().take(MAX_NAME_CHARS).collect(),
        ..entry.clone()
    })
}

/// The stored record of an entry (JSON text; its key is `entry.id`).
pub fn to_record(entry: &Entry) -> String {
    let mut m = Map::new();
    for (k, v) in [
        ("name", &entry.name),
        ("metric", &entry.metric),
        ("saved", &entry.saved),
        ("file", &entry.file),
    ] {
        m.insert(k.into(), Value::from(v.as_str()));
    }
    Value::Object(m).to_string()
}

/// An entry read back from its key and record; `None` if the record is not one, or is larger
/// than any result (`crate::files::gate::MAX_DOC_BYTES`, with room for the name and time).
pub fn from_record(id: &str, record: &str) -> Option<Entry> {
    if record.len() > crate::files::gate::MAX_DOC_BYTES + 4096 || id.len() > 64 {
        return None;
    }
    let v: Value = serde_json::from_str(record).ok()?;
    let get = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    Some(Entry {
        id: id.to_string(),
        name: get("name")?,
        metric: get("metric")?,
        saved: get("saved")?,
        file: get("file")?,
    })
}

/// The entries as the list shows them: newest first, at most [`MAX_ENTRIES`] of them, whatever
/// the store holds (another tab, an older version or a hand-edited store may hold thousands).
pub fn newest_first(mut entries: Vec<Entry>) -> Vec<Entry> {
    crate::scoring::small_sort::sort_by_key(&mut entries, |e| std::cmp::Reverse(e.id.clone()));
    entries.truncate(MAX_ENTRIES);
    entries
}

/// The oldest key that stays when the store holds more than [`MAX_ENTRIES`] (`None` when all
/// stay): the store is read from it on, and everything older is deleted in one range.
pub fn oldest_kept(ids: &[String]) -> Option<String> {
    if ids.len() <= MAX_ENTRIES {
        return None;
    }
    // The newest MAX_ENTRIES, newest first, by insertion into a list that never grows past
    // them: at most 50 comparisons per key and no copy (sorting all 5,005 keys of a flooded
    // store with `small_sort`, an insertion sort, took 1.8 s).
    let mut newest: Vec<&String> = Vec::with_capacity(MAX_ENTRIES + 1);
    for id in ids {
        if newest.len() == MAX_ENTRIES && newest.last().is_some_and(|last| id <= *last) {
            continue;
        }
        let at = newest.iter().position(|n| id > *n).unwrap_or(newest.len());
        newest.insert(at, id);
        newest.truncate(MAX_ENTRIES);
    }
    newest.last().map(|id| (*id).clone())
}

/// The list's items as markup (one `<li>` per entry, newest first, `history-item-<n>`), every
/// user text escaped. Buttons carry `data-act` (`open`, `rename`, `delete`) and `data-id`; the
/// name is an input the Rename button reads. One string per redraw, as the candidates' table.
pub fn list_markup(entries: &[Entry]) -> String {
    use crate::candidates::render::escape;
    let mut out = String::new();
    for (n, e) in entries.iter().enumerate() {
        let (id, name) = (escape(&e.id), escape(&e.name));
        let metric = crate::metrics::info(&e.metric).map_or(e.metric.as_str(), |i| i.name);
        out.push_str(&format!(
            "<li data-testid=\"history-item-{n}\" data-id=\"{id}\">\
             <input type=\"text\" value=\"{name}\" maxlength=\"{MAX_NAME_CHARS}\" aria-label=\"Name of the evaluation saved {saved}\" data-testid=\"history-name-{n}\">\
             <small>{metric}, {saved}</small>\
             <span class=\"history-actions\">\
             <button type=\"button\" data-act=\"open\" data-id=\"{id}\" data-testid=\"history-open-{n}\">Open</button>\
             <button type=\"button\" data-act=\"rename\" data-id=\"{id}\" data-testid=\"history-rename-{n}\">Rename</button>\
             <button type=\"button\" data-act=\"delete\" data-id=\"{id}\" data-testid=\"history-delete-{n}\">Delete</button>\
             </span></li>",
            metric = escape(metric),
            saved = escape(&e.saved),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored FLEUR entry with an empty result file.
    fn small_entry() -> Entry {
        Entry {
            id: "1".into(),
            name: "x".into(),
            metric: "fleur".into(),
            saved: "t".into(),
            file: "{}".into(),
        }
    }

    fn example(name: &str) -> String {
        std::fs::read_to_string(format!("{}/public/examples/{name}", crate::REPO)).unwrap()
    }

    #[test]
    fn keys_sort_by_age_and_only_the_newest_fifty_stay() {
        assert_eq!(entry_id(1_779_510_720_123.0, 2), "001779510720123-002");
        assert!(
            entry_id(999.0, 0) < entry_id(1000.0, 0),
            "zero-padded: string order is time order"
        );
        assert!(entry_id(1000.0, 0) < entry_id(1000.0, 1));
        assert_eq!(entry_id(f64::NAN, 0), "000000000000000-000");
        // Shuffled ids of 53 saves: the three oldest go, whatever the order they come in.
        let mut ids: Vec<String> = (0..53u32)
            .map(|i| entry_id(1000.0 + f64::from(i * 7 % 53), 0))
            .collect();
        ids.reverse();
        // The store is read from the 50th newest key on, and everything older (the three
        // oldest) is deleted; nothing is cut at 50 or fewer.
        assert_eq!(oldest_kept(&ids), Some(entry_id(1003.0, 0)));
        let dropped: Vec<&String> = ids.iter().filter(|id| **id < entry_id(1003.0, 0)).collect();
        assert_eq!(dropped.len(), 3);
        assert_eq!(oldest_kept(&ids[..MAX_ENTRIES]), None);
        assert_eq!(oldest_kept(&[]), None);
        // A flooded store, in the order IndexedDB gives its keys and reversed.
        let mut flood: Vec<String> = (0..5_005).map(|i| entry_id(f64::from(i), 0)).collect();
        assert_eq!(oldest_kept(&flood), Some(entry_id(4_955.0, 0)));
        flood.reverse();
        assert_eq!(oldest_kept(&flood), Some(entry_id(4_955.0, 0)));
    }

    #[test]
    fn the_list_shows_at_most_fifty_whatever_the_store_holds_and_no_oversized_record() {
        let e = small_entry();
        let many: Vec<Entry> = (0..5_005)
            .map(|i| Entry {
                id: entry_id(f64::from(i), 0),
                ..e.clone()
            })
            .collect();
        let listed = newest_first(many);
        assert_eq!(listed.len(), MAX_ENTRIES);
        assert_eq!(listed[0].id, entry_id(5_004.0, 0));
        let huge = Entry {
            file: "x".repeat(crate::files::gate::MAX_DOC_BYTES + 8192),
            ..e.clone()
        };
        assert!(
            from_record("1", &to_record(&huge)).is_none(),
            "a record larger than any result"
        );
        assert_eq!(from_record("1", &to_record(&e)), Some(e));
    }

    #[test]
    fn an_entry_keeps_the_export_without_base_url_or_key_and_reads_back() {
        let mut doc: Value = serde_json::from_str(&example("gamma-flip-a.json")).unwrap();
        doc["base_url"] = Value::from("https://gateway.example/v1?token=abc");
        doc["api_key"] = Value::from("sk-should-never-be-here");
        let e = new_entry(
            entry_id(5.0, 0),
            "2026-11-23 04:12".into(),
            &doc.to_string(),
        )
        .unwrap();
        assert!(
            !e.file.contains("gateway.example") && !e.file.contains("sk-should"),
            "{}",
            e.file
        );
        assert_eq!(e.metric, "harmonic_eval");
        assert_eq!(
            e.name,
            "HarmonicEval: A red square and a yellow square on\u{2026}"
        );
        // Reopened, it is the same result as the file it came from.
        let back = from_record(&e.id, &to_record(&e)).unwrap();
        assert_eq!(back, e);
        assert_eq!(
            crate::files::result_file::read(&back.file).unwrap().body,
            crate::files::result_file::read(&doc.to_string())
                .unwrap()
                .body
        );
        assert_eq!(from_record("x", "{\"name\":1}"), None);
        assert_eq!(from_record("x", "not json"), None);
    }

    #[test]
    fn a_run_with_nothing_to_show_is_not_kept() {
        let mut doc: Value = serde_json::from_str(&example("gamma-flip-a.json")).unwrap();
        for c in doc["criteria"].as_array_mut().unwrap() {
            *c = serde_json::json!({"name": c["name"], "error": "HTTP 401: invalid key"});
        }
        let e = new_entry("1".into(), "t".into(), &doc.to_string()).unwrap_err();
        assert!(e.contains("no criterion with a score"), "{e}");
        assert!(new_entry("1".into(), "t".into(), "[]").is_err());
    }

    #[test]
    fn names_are_the_metric_and_the_first_words_and_renames_are_trimmed_and_capped() {
        assert_eq!(default_name("fleur", "A cat."), "FLEUR: A cat.");
        assert_eq!(default_name("maev", "   "), "MAEV");
        let long = default_name(
            "g_veval",
            "one two three four five six seven eight nine ten",
        );
        assert_eq!(
            long,
            "G-VEval: one two three four five six seven eight\u{2026}"
        );
        let e = small_entry();
        assert_eq!(renamed(&e, "  Class\n demo  ").unwrap().name, "Class demo");
        assert!(renamed(&e, " \t ").unwrap_err().contains("cannot be empty"));
        assert_eq!(
            renamed(&e, &"é".repeat(200)).unwrap().name.chars().count(),
            MAX_NAME_CHARS
        );
        let hostile = Entry {
            name: "<img src=x onerror=alert(1)> \"q\"".into(),
            ..e.clone()
        };
        let html = list_markup(&[
            hostile,
            Entry {
                id: "0".into(),
                ..e.clone()
            },
        ]);
        assert!(
            html.contains("value=\"&lt;img src=x onerror=alert(1)&gt; &quot;q&quot;\""),
            "{html}"
        );
        assert!(!html.contains("<img"));
        assert!(
            html.contains("data-testid=\"history-item-0\" data-id=\"1\"")
                && html.contains("history-item-1\" data-id=\"0\"")
        );
        assert_eq!(html.matches("<li").count(), 2);
        assert!(html.contains(">FLEUR, t</small>"));
        assert_eq!(list_markup(&[]), "");
        let listed = newest_first(vec![
            Entry {
                id: "2".into(),
                ..e.clone()
            },
            Entry {
                id: "9".into(),
                ..e.clone()
            },
            e,
        ]);
        assert_eq!(
            listed.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
            ["9", "2", "1"]
        );
    }
}
