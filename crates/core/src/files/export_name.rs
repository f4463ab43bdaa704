//! What an export from the evaluator is called: the metric, the judged text's first words and
//! the local time it was saved, e.g. `harmonic_eval-a-dog-runs-across-the-2026-11-23-0412.json`,
//! so a folder of exports sorts and reads at a glance. The clock is read by the page
//! (`web::clock`); the name is decided here.

/// The local time of an export, to the minute.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalTime {
    pub year: i32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
}

impl LocalTime {
    /// `2026-11-23 04:12`, as the history lists it.
    pub fn label(&self) -> String {
        format!(
            "{:04}-{:02}-{:02} {:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute
        )
    }

    /// `2026-11-23-0412`.
    pub fn stamp(&self) -> String {
        format!(
            "{:04}-{:02}-{:02}-{:02}{:02}",
            self.year, self.month, self.day, self.hour, self.minute
        )
    }
}

/// How many of the text's words the name keeps, and its longest slug in characters.
const WORDS: usize = 6;
const MAX_SLUG_CHARS: usize = 40;

/// A letter or digit for a file name, lower-cased where that is cheap: ASCII, and Latin-1's
/// capitals (`É` → `é`). Any other script's characters are kept as they are, but for
/// punctuation, spaces and symbols of the common blocks. Written without `char::is_alphanumeric`
/// and `char::to_lowercase`, whose Unicode tables cost about 9 KB of the evaluator's
/// gzipped wasm.
fn word_char(c: char) -> Option<char> {
    match c {
        'a'..='z' | '0'..='9' => Some(c),
        'A'..='Z' => Some(c.to_ascii_lowercase()),
        '\u{0}'..='\u{bf}' | '\u{d7}' | '\u{f7}' => None,
        '\u{c0}'..='\u{de}' => char::from_u32(c as u32 + 32),
        // General punctuation, super/subscripts, currency, letterlike symbols, arrows, maths,
        // technical and box drawing, CJK and full-width punctuation, variation selectors,
        // specials (U+FFFD).
        '\u{2000}'..='\u{2bff}'
        | '\u{3000}'..='\u{303f}'
        | '\u{fe00}'..='\u{fe6f}'
        | '\u{ff00}'..='\u{ff0f}'
        | '\u{fff0}'..='\u{ffff}' => None,
        _ => Some(c),
    }
}

/// The slug of the text's first words: lower-case letters and digits of any script (see
/// `word_char`), one `-` between words, nothing a file system or a shell could read as a path,
/// a drive, a wildcard, a hidden file or an option (no `/ \ : * ? " < > |`, no control
/// character, no leading `.` or `-`).
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    let mut words = 0;
    let mut gap = false;
    for c in text.chars() {
        if let Some(c) = word_char(c) {
            if gap && !out.is_empty() {
                if words + 1 >= WORDS || out.chars().count() + 1 >= MAX_SLUG_CHARS {
                    break;
                }
                words += 1;
                out.push('-');
            }
            gap = false;
            if out.chars().count() >= MAX_SLUG_CHARS {
                break;
            }
            out.push(c);
        } else {
            gap = true;
        }
    }
    out
}

/// The export's file name: `<metric id>[-<slug>]-<time>.json`.
pub fn export_name(metric_id: &str, text: &str, time: LocalTime) -> String {
    let metric = slug_keeping_underscores(metric_id);
    let s = slug(text);
    if s.is_empty() {
        format!("{metric}-{}.json", time.stamp())
    } else {
        format!("{metric}-{s}-{}.json", time.stamp())
    }
}

/// The name of a result file (any metric's export): its metric and the text it judged.
pub fn for_result(json: &str, time: LocalTime) -> String {
    let doc: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
    let metric = doc
        .get("metric")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    export_name(
        if metric.is_empty() { "result" } else { metric },
        judged_text(&doc),
        time,
    )
}

/// The text a result file judged: what its metric's `MetricInfo::text_key` names (MAEV's
/// `answer`, whose `caption` describes the image; HarmonicEval's `text`; FLEUR's and G-VEval's
/// `caption`, where FLEUR's `answer` is the judge's), else `text` or `caption`.
pub fn judged_text(doc: &serde_json::Value) -> &str {
    let field = |k: &str| {
        doc.get(k)
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
    };
    let key = crate::metrics::Metric::from_id(field("metric")).map(|m| m.info().text_key);
    let keys: &[&str] = match &key {
        Some(k) => std::slice::from_ref(k),
        None => &["text", "caption"],
    };
    keys.iter()
        .map(|k| field(k))
        .find(|t| !t.is_empty())
        .unwrap_or_default()
}

/// A metric id (`harmonic_eval`, `ref_fleur`) as it is, anything else dropped.
fn slug_keeping_underscores(id: &str) -> String {
    id.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: LocalTime = LocalTime {
        year: 2026,
        month: 11,
        day: 3,
        hour: 4,
        minute: 7,
    };

    #[test]
    fn names_the_metric_the_first_words_and_the_local_time() {
        assert_eq!(T.stamp(), "2026-11-03-0407");
        assert_eq!(T.label(), "2026-11-03 04:07");
        assert_eq!(
            export_name(
                "harmonic_eval",
                "A dog runs across the park, chasing a red ball.",
                T
            ),
            "harmonic_eval-a-dog-runs-across-the-park-2026-11-03-0407.json"
        );
        assert_eq!(
            export_name("ref_fleur", "Two cats.", T),
            "ref_fleur-two-cats-2026-11-03-0407.json"
        );
        // A result file: FLEUR keeps its text as `caption`, MAEV as `answer`.
        assert_eq!(
            for_result(
                r#"{"metric":"fleur","caption":"A cat sleeps.","answer":"0.8"}"#,
                T
            ),
            "fleur-a-cat-sleeps-2026-11-03-0407.json"
        );
        assert_eq!(
            for_result(
                r#"{"metric":"maev","caption":"A sky.","answer":"Blue."}"#,
                T
            ),
            "maev-blue-2026-11-03-0407.json"
        );
        assert_eq!(for_result("not json", T), "result-2026-11-03-0407.json");
    }

    #[test]
    fn an_empty_or_symbol_only_text_leaves_the_slug_out() {
        assert_eq!(export_name("maev", "", T), "maev-2026-11-03-0407.json");
        assert_eq!(
            export_name("maev", " ... !!! ", T),
            "maev-2026-11-03-0407.json"
        );
    }

    #[test]
    fn unicode_words_stay_lower_cased_and_path_hostile_characters_go() {
        assert_eq!(
            slug("Ein Hund läuft über die Wiese"),
            "ein-hund-läuft-über-die-wiese"
        );
        assert_eq!(slug("ÉTÉ à Paris"), "été-à-paris");
        assert_eq!(slug("一只狗，在公园里。"), "一只狗-在公园里");
        assert_eq!(slug("“Quoted” — and… ½ × 3 ÷ 4 ¿sí?"), "quoted-and-3-4-sí");
        let hostile = slug("../../etc/passwd: C:\\x *?\"<>| \u{0}\u{7}-rf .hidden");
        assert_eq!(hostile, "etc-passwd-c-x-rf-hidden");
        for bad in ['/', '\\', ':', '*', '?', '"', '<', '>', '|', '.', '\0'] {
            assert!(!hostile.contains(bad), "{hostile}");
        }
        assert!(!slug("-rf --all").starts_with('-'));
    }

    #[test]
    fn the_slug_is_capped_in_words_and_characters() {
        assert_eq!(
            slug("one two three four five six seven eight"),
            "one-two-three-four-five-six"
        );
        let long = slug(&"Donaudampfschifffahrtsgesellschaftskapitän ".repeat(3));
        assert_eq!(long.chars().count(), MAX_SLUG_CHARS, "{long}");
        let long_unicode = slug(&"ü".repeat(300));
        assert_eq!(long_unicode.chars().count(), MAX_SLUG_CHARS);
        assert!(!slug("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbb").ends_with('-'));
    }
}
