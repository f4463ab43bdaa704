//! What a site suggests and what the visitor chose, kept apart (issue 43).
//!
//! A site's `site.json` suggests a judge (provider, base URL, model) and a metric (the first it
//! offers). The page stores a setting only where the visitor's value differs from what is
//! suggested now ([`keep`]), so a value the visitor never set follows the owner's next edit of
//! `site.json`, and a value they did set stays. The suggestion itself is remembered
//! ([`Suggested`], stored as JSON), so that when the owner changes it while the visitor keeps
//! their own value, the page says so once ([`changed_note`]).
//!
//! The trade: a visitor who typed exactly what the site suggested is treated as one who
//! accepted the suggestion, and follows the site's next change of it.

use serde_json::{json, Value};

use super::site::Site;
use crate::metrics::Metric;
use crate::providers::{preset, PRESETS};

/// What the page suggests where the visitor has chosen nothing: the site's judge and first
/// metric, else the app's own defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Suggested {
    pub preset: String,
    pub base_url: String,
    pub model: String,
    pub metric: String,
}

impl Suggested {
    /// What `site` suggests (its judge's preset, base URL and model; its first metric).
    pub fn of(site: &Site) -> Suggested {
        let preset_id = site
            .judge
            .as_ref()
            .map_or(PRESETS[0].id, |j| j.provider.as_str())
            .to_string();
        Suggested {
            base_url: suggested_base_url(site, &preset_id),
            model: suggested_model(site, &preset_id),
            metric: site.offered()[0].id().to_string(),
            preset: preset_id,
        }
    }

    /// As stored (`serde_json::Value`, not a derive: a derive's reader and writer cost the
    /// first visit about 2 KB of wasm, where `Value` is there already).
    pub fn to_json(&self) -> String {
        json!({"preset": self.preset, "base_url": self.base_url, "model": self.model, "metric": self.metric}).to_string()
    }

    /// The suggestion remembered from an earlier visit; `None` for none or an unreadable one.
    pub fn from_json(text: &str) -> Option<Suggested> {
        let v: Value = serde_json::from_str(text).ok()?;
        let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Some(Suggested {
            preset: field("preset")?,
            base_url: field("base_url")?,
            model: field("model")?,
            metric: field("metric")?,
        })
    }
}

/// The site's judge, where it presets `preset_id`.
fn judge_for<'a>(site: &'a Site, preset_id: &str) -> Option<&'a super::site::SiteJudge> {
    site.judge.as_ref().filter(|j| j.provider == preset_id)
}

/// The base URL suggested for `preset_id`: the site's where its judge presets that provider,
/// else the preset's own.
pub fn suggested_base_url(site: &Site, preset_id: &str) -> String {
    judge_for(site, preset_id)
        .and_then(|j| j.base_url.clone())
        .unwrap_or_else(|| preset(preset_id).base_url.to_string())
}

/// The model suggested for `preset_id`, likewise.
pub fn suggested_model(site: &Site, preset_id: &str) -> String {
    judge_for(site, preset_id)
        .and_then(|j| j.model.clone())
        .unwrap_or_else(|| preset(preset_id).model.to_string())
}

/// What to store for a setting whose value is `value` where `suggested` is suggested: the
/// value when the visitor's differs, `None` (forget any stored one) when it is the suggestion.
pub fn keep<'a>(value: &'a str, suggested: &str) -> Option<&'a str> {
    (value != suggested).then_some(value)
}

/// What the visitor set themselves (the stored values; `None` where they set nothing).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Own {
    pub preset: Option<String>,
    /// Their base URL and model for the provider the site now suggests.
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub metric: Option<String>,
}

/// The sentence said once when the site's suggestion changed since the visitor's last visit
/// (`before`) and they keep a value of their own where it changed; `None` otherwise (the first
/// visit, nothing changed, or nothing of theirs differs: they simply follow the site).
pub fn changed_note(before: Option<&Suggested>, now: &Suggested, own: &Own) -> Option<String> {
    let before = before?;
    let mut kept = Vec::new();
    let mut field = |what: &str, old: &str, new: &str, mine: &Option<String>| {
        if let Some(mine) = mine.as_deref().filter(|m| old != new && *m != new) {
            kept.push(format!("{what} \u{201c}{new}\u{201d} (it suggested \u{201c}{old}\u{201d}); you keep \u{201c}{mine}\u{201d}"));
        }
    };
    let label = |id: &str| preset(id).label.to_string();
    field(
        "the provider",
        &label(&before.preset),
        &label(&now.preset),
        &own.preset.as_deref().map(label),
    );
    if before.preset == now.preset {
        field("the model", &before.model, &now.model, &own.model);
        field(
            "the base URL",
            &before.base_url,
            &now.base_url,
            &own.base_url,
        );
    }
    let name = |id: &str| Metric::from_id(id).map_or(id.to_string(), |m| m.info().name.to_string());
    field(
        "the metric",
        &name(&before.metric),
        &name(&now.metric),
        &own.metric.as_deref().map(name),
    );
    if kept.is_empty() {
        return None;
    }
    Some(format!(
        "This site's suggestion changed: it now suggests {}. Choose theirs in the judge's settings if you like.",
        kept.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::site::parse;

    fn site(model: &str, metrics: &str) -> Site {
        parse(&format!(
            r#"{{"judge": {{"provider": "openai", "base_url": "https://judge.example.org/v1", "model": "{model}"}}, "metrics": {metrics}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn a_site_suggests_its_judge_and_first_metric_and_no_site_the_apps_defaults() {
        let s = Suggested::of(&site("gpt-4o-mini", r#"["fleur", "harmonic_eval"]"#));
        assert_eq!(
            (
                s.preset.as_str(),
                s.base_url.as_str(),
                s.model.as_str(),
                s.metric.as_str()
            ),
            (
                "openai",
                "https://judge.example.org/v1",
                "gpt-4o-mini",
                "fleur"
            )
        );
        let none = Suggested::of(&Site::default());
        assert_eq!(none.preset, PRESETS[0].id);
        assert_eq!(none.model, PRESETS[0].model);
        assert_eq!(none.metric, "harmonic_eval");
        assert_eq!(Suggested::from_json(&s.to_json()), Some(s));
        assert_eq!(Suggested::from_json("{not json"), None);
        // Another provider than the site's keeps its preset's own suggestions.
        let other = site("gpt-4o-mini", r#"["fleur"]"#);
        assert_eq!(
            suggested_model(&other, "anthropic"),
            preset("anthropic").model
        );
        assert_eq!(
            suggested_base_url(&other, "anthropic"),
            preset("anthropic").base_url
        );
    }

    #[test]
    fn only_what_differs_from_the_suggestion_is_stored() {
        assert_eq!(keep("gpt-4o-mini", "gpt-4o-mini"), None);
        assert_eq!(keep("my-model", "gpt-4o-mini"), Some("my-model"));
        assert_eq!(
            keep("", "gpt-4o-mini"),
            Some(""),
            "an emptied field is a choice too"
        );
    }

    #[test]
    fn the_note_names_what_changed_where_the_visitor_keeps_their_own() {
        let before = Suggested::of(&site("gpt-4o-mini", r#"["harmonic_eval", "fleur"]"#));
        let now = Suggested::of(&site("gpt-4.1", r#"["fleur"]"#));
        // First visit, or nothing changed: no note.
        assert_eq!(
            changed_note(
                None,
                &now,
                &Own {
                    model: Some("mine".into()),
                    ..Own::default()
                }
            ),
            None
        );
        assert_eq!(
            changed_note(
                Some(&now),
                &now,
                &Own {
                    model: Some("mine".into()),
                    ..Own::default()
                }
            ),
            None
        );
        // Changed, but the visitor set nothing: they follow the site, silently.
        assert_eq!(changed_note(Some(&before), &now, &Own::default()), None);
        // Their own model stays, and the note says what the site suggests now.
        let note = changed_note(
            Some(&before),
            &now,
            &Own {
                model: Some("my-model".into()),
                ..Own::default()
            },
        )
        .unwrap();
        assert!(note.contains("the model \u{201c}gpt-4.1\u{201d} (it suggested \u{201c}gpt-4o-mini\u{201d}); you keep \u{201c}my-model\u{201d}"), "{note}");
        assert!(!note.contains("metric"), "{note}");
        // Their metric too.
        let own = Own {
            model: Some("my-model".into()),
            metric: Some("harmonic_eval".into()),
            ..Own::default()
        };
        let note = changed_note(Some(&before), &now, &own).unwrap();
        assert!(note.contains("the metric \u{201c}FLEUR\u{201d} (it suggested \u{201c}HarmonicEval\u{201d}); you keep \u{201c}HarmonicEval\u{201d}"), "{note}");
        // A visitor whose own value is the new suggestion needs no note.
        assert_eq!(
            changed_note(
                Some(&before),
                &now,
                &Own {
                    model: Some("gpt-4.1".into()),
                    ..Own::default()
                }
            ),
            None
        );
    }
}
