//! The site file the build put into the page, and an owner's later edit of `dist/site.json`.
//!
//! `scripts/finish_dist.py` writes the site file into each page as
//! `<meta name="hj-site" id="hj-site" content="…">` (a JSON string, `null` for a site built
//! without one; a `<meta>`, since the pages hold no inline script element), so the page needs no request before its first paint. After the page is up it asks for
//! `site.json` once more, revalidating (a later task, never before the first paint). Where the
//! host's file differs from the built-in one (an owner who edited `dist/site.json` without
//! rebuilding), the host's is kept on the device with the built-in text it was learned against
//! (`{"built": …, "text": …}`); from the next visit on the page uses it. A rebuild (another built-in text) makes
//! the kept copy stale, and it is dropped.

use serde_json::{json, Value};

/// A host's site file learned against one build, as kept: `{"built": …, "text": …}`, where
/// `built` is the built-in text it differed from (`null`: built without a site file) and
/// `text` the host's (`null`: the host has none). Read and written through
/// `serde_json::Value`, which the first visit has already (a derive would add to it).
fn kept_of(text: &str) -> Option<(Option<String>, Option<String>)> {
    let v: Value = serde_json::from_str(text).ok()?;
    let field = |k: &str| match v.get(k)? {
        Value::Null => Some(None),
        Value::String(s) => Some(Some(s.clone())),
        _ => None,
    };
    Some((field("built")?, field("text")?))
}

/// The site file text the page starts with: the host's copy kept from an earlier visit when it
/// was learned against this very build, else the built-in one. `None`: no site file.
pub fn to_use(built: Option<&str>, kept: Option<&str>) -> Option<String> {
    match kept.and_then(kept_of) {
        Some((kept_built, text)) if kept_built.as_deref() == built => text,
        _ => built.map(str::to_string),
    }
}

/// What to keep after the host answered `fetched` (`None`: it has no site file): `None` when it
/// is the built-in one (forget any kept copy), else what to keep (`{"built": …, "text": …}`).
pub fn to_keep(built: Option<&str>, fetched: Option<&str>) -> Option<String> {
    let same = match (built, fetched) {
        (Some(b), Some(f)) => b.trim() == f.trim(),
        (None, None) => true,
        _ => false,
    };
    (!same).then(|| json!({"built": built, "text": fetched}).to_string())
}

/// What the build writes into the page for `text` (`None`: no site file): a JSON string with
/// `<` written `\u003c` (valid in any JSON string, the only place it can occur), so no markup
/// survives even before the attribute's own escaping. The Python twin is
/// `scripts/finish_dist.py`'s `embed_site`.
pub fn embedded(text: Option<&str>) -> String {
    match text {
        None => "null".to_string(),
        Some(t) => Value::from(t).to_string().replace('<', "\\u003c"),
    }
}

/// Reads what the build wrote ([`embedded`]): `Some(None)` for `null`, `Some(Some(text))` for
/// a site file, `None` for anything else (unreadable: taken as no site file).
pub fn read_embedded(raw: &str) -> Option<Option<String>> {
    match serde_json::from_str::<Value>(raw.trim()).ok()? {
        Value::Null => Some(None),
        Value::String(s) => Some(Some(s)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1: &str = r#"{"title": "One"}"#;
    const V2: &str = r#"{"title": "Two"}"#;

    #[test]
    fn the_built_in_file_is_used_until_the_host_has_another() {
        assert_eq!(to_use(Some(V1), None), Some(V1.to_string()));
        assert_eq!(to_use(None, None), None);
        // The host has the same file: nothing is kept.
        assert_eq!(to_keep(Some(V1), Some(&format!("{V1}\n"))), None);
        assert_eq!(to_keep(None, None), None);
    }

    #[test]
    fn an_owners_edit_is_used_from_the_next_visit_until_a_rebuild() {
        let kept = to_keep(Some(V1), Some(V2)).unwrap();
        assert_eq!(to_use(Some(V1), Some(&kept)), Some(V2.to_string()));
        // A site file added on the host to a site built without one, and one removed.
        let added = to_keep(None, Some(V2)).unwrap();
        assert_eq!(to_use(None, Some(&added)), Some(V2.to_string()));
        let removed = to_keep(Some(V1), None).unwrap();
        assert_eq!(to_use(Some(V1), Some(&removed)), None);
        // After a rebuild the kept copy is stale: the new built-in file wins.
        assert_eq!(to_use(Some(V2), Some(&kept)), Some(V2.to_string()));
        assert_eq!(to_use(Some("{}"), Some(&kept)), Some("{}".to_string()));
        // An unreadable kept copy is ignored.
        assert_eq!(to_use(Some(V1), Some("{oops")), Some(V1.to_string()));
    }

    #[test]
    fn what_the_build_writes_reads_back_and_cannot_close_the_script() {
        let nasty = r#"{"title": "</script><script>alert(1)</script>"}"#;
        let e = embedded(Some(nasty));
        assert!(!e.contains('<'), "{e}");
        assert_eq!(read_embedded(&e), Some(Some(nasty.to_string())));
        assert_eq!(read_embedded(&embedded(None)), Some(None));
        assert_eq!(read_embedded(" null\n"), Some(None));
        assert_eq!(read_embedded("{\"title\": 1}"), None);
        assert_eq!(read_embedded(""), None);
    }
}
