//! The site file: `site.json` beside `index.html`, in which the owner of a static deploy
//! presets the judge, the metrics offered, the example opened first, whether the lab is linked,
//! and the page's title and tagline. Read here, natively tested; `ui::site` fetches it from the
//! page's own origin (absent: today's defaults) and `scripts/check_site_json.py` applies the
//! same rules at build time.
//!
//! It never holds a key: a field whose name looks like one (`key`, `api_key`, `apiKey`,
//! `authorization`, `token`, `secret`, `password`, …) anywhere in the file, or a value that
//! looks like one (`sk-…`, `Bearer …`, a URL with a user name or a `key=` parameter), refuses
//! the whole file with a sentence, and the page keeps its defaults.

use serde_json::{Map, Value};

use crate::metrics::Metric;
use crate::providers::PRESETS;

/// The judge the site presets for a visitor who has not chosen one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SiteJudge {
    /// One of `providers::PRESETS`' ids.
    pub provider: String,
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// For `in_browser`: the model's GGUF and its projector, absolute or relative to the page.
    pub model_url: Option<String>,
    pub projector_url: Option<String>,
}

/// What `site.json` says; every field optional.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    pub title: Option<String>,
    pub tagline: Option<String>,
    pub judge: Option<SiteJudge>,
    /// The metrics offered, in the owner's order (`None`: all of them).
    pub metrics: Option<Vec<Metric>>,
    /// An example's file stem (`examples/<stem>.json`), opened when the page opens.
    pub open_example: Option<String>,
    /// Whether the batch lab is linked from the page (default true).
    pub lab: bool,
}

impl Default for Site {
    fn default() -> Site {
        Site {
            title: None,
            tagline: None,
            judge: None,
            metrics: None,
            open_example: None,
            lab: true,
        }
    }
}

/// `isolation_worker` is read by the pages' start script, not here (src/web/isolation.js):
/// the page only checks that it is true or false.
const FIELDS: [&str; 7] = [
    "title",
    "tagline",
    "judge",
    "metrics",
    "open_example",
    "lab",
    "isolation_worker",
];
const JUDGE_FIELDS: [&str; 5] = [
    "provider",
    "base_url",
    "model",
    "model_url",
    "projector_url",
];

/// The sentence every refusal starts with, so the page and the build say it alike.
fn refuse(why: impl std::fmt::Display) -> String {
    format!("This site's site.json was not used ({why}); the page keeps its defaults.")
}

/// Whether a field name looks like it holds a secret (compared without case, `_` or `-`).
pub fn key_like_name(name: &str) -> bool {
    let n: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    [
        "key",
        "authorization",
        "auth",
        "token",
        "secret",
        "password",
        "passwd",
        "bearer",
        "credential",
        "cookie",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// Whether a string value looks like a key: an API key's usual prefixes, a bearer header, or
/// a URL that carries a user name or a `key=`/`token=` parameter.
fn key_like_value(s: &str) -> bool {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let url_secret = (lower.starts_with("http://") || lower.starts_with("https://"))
        && (t
            .split(['/', '?', '#'])
            .nth(2)
            .is_some_and(|host| host.contains('@'))
            || t.split_once('?').is_some_and(|(_, q)| {
                q.split(['&', '#'])
                    .any(|p| key_like_name(p.split('=').next().unwrap_or_default()))
            }));
    lower.starts_with("sk-")
        || lower.starts_with("bearer ")
        || lower.starts_with("aiza")
        || url_secret
}

/// The path of the first key-like field or value in `v` (`judge.api_key`), if any.
pub fn find_key(v: &Value, path: &str) -> Option<String> {
    match v {
        Value::Object(m) => m.iter().find_map(|(k, v)| {
            let here = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            if key_like_name(k) {
                Some(here)
            } else {
                find_key(v, &here)
            }
        }),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, v)| find_key(v, &format!("{path}[{i}]"))),
        Value::String(s) if key_like_value(s) => Some(path.to_string()),
        _ => None,
    }
}

/// Reads `site.json`, or the one sentence that says why it was not used.
pub fn parse(text: &str) -> Result<Site, String> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| refuse(format_args!("it is not valid JSON: {e}")))?;
    if let Some(at) = find_key(&v, "") {
        return Err(refuse(format_args!(
            "it must never hold a key, and \"{at}\" looks like one: keep keys on your proxy's side"
        )));
    }
    let Value::Object(m) = v else {
        return Err(refuse("it must be one JSON object"));
    };
    only(&m, &FIELDS, "")?;
    if !matches!(
        m.get("isolation_worker"),
        None | Some(Value::Null | Value::Bool(_))
    ) {
        return Err(refuse("\"isolation_worker\" must be true or false"));
    }
    let judge = match m.get("judge") {
        None | Some(Value::Null) => None,
        Some(Value::Object(j)) => Some(judge(j)?),
        Some(_) => return Err(refuse("\"judge\" must be an object")),
    };
    Ok(Site {
        title: text_field(&m, "title", 80)?,
        tagline: text_field(&m, "tagline", 200)?,
        judge,
        metrics: metrics(m.get("metrics"))?,
        open_example: example(m.get("open_example"))?,
        lab: match m.get("lab") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(refuse("\"lab\" must be true or false")),
        },
    })
}

fn only(m: &Map<String, Value>, known: &[&str], within: &str) -> Result<(), String> {
    match m.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(refuse(format_args!(
            "it has an unknown field \"{within}{k}\"; known: {}",
            known.join(", ")
        ))),
        None => Ok(()),
    }
}

fn text_field(m: &Map<String, Value>, name: &str, max: usize) -> Result<Option<String>, String> {
    match m.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.chars().count() <= max => {
            Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty()))
        }
        Some(Value::String(_)) => Err(refuse(format_args!(
            "\"{name}\" is longer than {max} characters"
        ))),
        Some(_) => Err(refuse(format_args!("\"{name}\" must be text"))),
    }
}

fn is_http_url(s: &str) -> bool {
    let l = s.to_ascii_lowercase();
    (l.starts_with("https://") || l.starts_with("http://"))
        && l.len() > l.find("//").unwrap_or(0) + 2
}

/// A model file's URL: absolute http(s), or a path relative to the page (no other scheme).
fn is_file_url(s: &str) -> bool {
    is_http_url(s)
        || (!s.is_empty()
            && !s.contains(':')
            && !s.starts_with("//")
            && !s.contains(char::is_whitespace))
}

fn judge(j: &Map<String, Value>) -> Result<SiteJudge, String> {
    only(j, &JUDGE_FIELDS, "judge.")?;
    let text = |name: &str| text_field(j, name, 2000);
    let provider = text("provider")?.ok_or_else(|| refuse("\"judge\" needs a \"provider\""))?;
    if !PRESETS.iter().any(|p| p.id == provider) {
        let ids: Vec<&str> = PRESETS.iter().map(|p| p.id).collect();
        return Err(refuse(format_args!(
            "\"judge.provider\" \"{provider}\" is not one of {}",
            ids.join(", ")
        )));
    }
    let out = SiteJudge {
        provider,
        base_url: text("base_url")?,
        model: text("model")?,
        model_url: text("model_url")?,
        projector_url: text("projector_url")?,
    };
    let in_browser = crate::providers::preset(&out.provider).in_page();
    if let Some(u) = out.base_url.as_deref().filter(|u| !is_http_url(u)) {
        return Err(refuse(format_args!(
            "\"judge.base_url\" \"{u}\" is not an http(s) URL"
        )));
    }
    if in_browser && out.base_url.is_some() {
        return Err(refuse(
            "\"judge.base_url\" does not apply to in_browser, whose judge runs in the page",
        ));
    }
    if !in_browser && (out.model_url.is_some() || out.projector_url.is_some()) {
        return Err(refuse(
            "\"judge.model_url\" and \"judge.projector_url\" apply only to the provider in_browser",
        ));
    }
    for (name, u) in [
        ("model_url", &out.model_url),
        ("projector_url", &out.projector_url),
    ] {
        if let Some(u) = u.as_deref().filter(|u| !is_file_url(u)) {
            return Err(refuse(format_args!(
                "\"judge.{name}\" \"{u}\" is neither an http(s) URL nor a path on this site"
            )));
        }
    }
    if out.projector_url.is_some() && out.model_url.is_none() {
        return Err(refuse(
            "\"judge.projector_url\" needs a \"judge.model_url\"",
        ));
    }
    Ok(out)
}

fn metrics(v: Option<&Value>) -> Result<Option<Vec<Metric>>, String> {
    let ids: Vec<&str> = Metric::ALL.iter().map(|m| m.id()).collect();
    let bad = || {
        refuse(format_args!(
            "\"metrics\" must be a non-empty list of metric ids ({})",
            ids.join(", ")
        ))
    };
    let list = match v {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(a)) if !a.is_empty() => a,
        Some(_) => return Err(bad()),
    };
    let mut out = Vec::new();
    for item in list {
        let id = item.as_str().ok_or_else(bad)?;
        let m = Metric::from_id(id).ok_or_else(|| {
            refuse(format_args!(
                "\"metrics\" names \"{id}\", which is not one of {}",
                ids.join(", ")
            ))
        })?;
        if out.contains(&m) {
            return Err(refuse(format_args!("\"metrics\" names \"{id}\" twice")));
        }
        out.push(m);
    }
    Ok(Some(out))
}

/// Whether `s` is an example's file stem (letters, digits, `-` and `_`; nothing that could
/// leave `examples/`).
fn is_stem(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 100
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
}

fn example(v: Option<&Value>) -> Result<Option<String>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if is_stem(s) => Ok(Some(s.clone())),
        Some(_) => Err(refuse(
            "\"open_example\" must be an example's file stem (letters, digits, - and _, such as gamma-flip-a for examples/gamma-flip-a.json)",
        )),
    }
}

impl Site {
    /// The metrics offered, in order (every metric when the site names none).
    pub fn offered(&self) -> Vec<Metric> {
        self.metrics.clone().unwrap_or_else(|| Metric::ALL.to_vec())
    }

    /// Whether the site's judge needs no key from the visitor: the in-page engine, a keyless
    /// local preset, or any preset pointed at another host (the owner's proxy holds the key).
    pub fn keyless_judge(&self) -> bool {
        self.judge.as_ref().is_some_and(|j| {
            let p = crate::providers::preset(&j.provider);
            !p.needs_key
                || j.base_url
                    .as_deref()
                    .is_some_and(|u| !crate::inputs::first_visit::is_presets_host(p.base_url, u))
        })
    }
}

/// Whether the page was opened as the embed (`?embed` in its query, or `embed.html`, the copy
/// of the page that header-based hosts let any site frame).
pub fn is_embed(search: &str, path: &str) -> bool {
    // `/embed`: embed.html on hosts that drop `.html` (Cloudflare Pages' pretty URLs).
    path.ends_with("/embed.html")
        || path.ends_with("/embed")
        || search
            .trim_start_matches('?')
            .split('&')
            .any(|p| p == "embed" || p.starts_with("embed="))
}

/// The example an embed URL names (`?embed&example=<stem>`), if a valid stem.
pub fn embed_example(search: &str) -> Option<String> {
    let stem = search
        .trim_start_matches('?')
        .split('&')
        .find_map(|p| p.strip_prefix("example="))?;
    is_stem(stem).then(|| stem.to_string())
}

/// The embed's URL for the page at `page_url` (its query dropped, its fragment kept): the page's
/// `embed.html` beside it, with `?embed` (and the example, when it shows one).
pub fn embed_url(page_url: &str, example: Option<&str>) -> String {
    let (base, frag) = page_url
        .split_once('#')
        .map_or((page_url, ""), |(b, f)| (b, f));
    let base = base.split('?').next().unwrap_or_default();
    let dir = &base[..base.rfind('/').map_or(base.len(), |i| i + 1)];
    let ex = example.map(|e| format!("&example={e}")).unwrap_or_default();
    let frag = if frag.is_empty() {
        String::new()
    } else {
        format!("#{frag}")
    };
    format!("{dir}embed.html?embed{ex}{frag}")
}

/// The full evaluator's URL for an embed at `embed_url` (`./` beside it, with the fragment, so
/// a shared result opens there too; an example is named again for the full page to open).
pub fn full_url(embed_url: &str) -> String {
    let (base, frag) = embed_url
        .split_once('#')
        .map_or((embed_url, ""), |(b, f)| (b, f));
    let (path, query) = base.split_once('?').unwrap_or((base, ""));
    let dir = &path[..path.rfind('/').map_or(path.len(), |i| i + 1)];
    let ex = embed_example(query)
        .map(|e| format!("?example={e}"))
        .unwrap_or_default();
    let frag = if frag.is_empty() {
        String::new()
    } else {
        format!("#{frag}")
    };
    format!("{dir}{ex}{frag}")
}

/// The sentence the full evaluator shows instead of itself when another site frames it.
pub const FRAMED: &str =
    "This page holds an API key field, so it does not run inside another site's frame. \
    Open it in its own tab:";

#[cfg(test)]
#[path = "site_tests.rs"]
mod tests;
