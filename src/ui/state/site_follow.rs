//! The host's site file, when it arrives after the page mounted (issue 58).
//!
//! The page starts with the site file it has without waiting (the copy the build wrote in, or
//! the host's learned on an earlier visit); the loader's request for the host's `site.json`
//! may answer later, on a slow host or a busy first visit. `crate::ui::site::revalidate` then
//! applies it, and what the visitor never chose follows it here, at once: the metric, the
//! provider, its base URL and model. A value the visitor chose (stored, because it differs
//! from what was suggested: `files::site_suggested`) stays, and the existing note says the
//! suggestion changed. The title, tagline and the metrics offered are views of
//! `site::tracked` and follow by themselves. One line says what changed.

use std::rc::Rc;

use leptos::prelude::*;

use crate::files::site::Site;
use crate::files::site_suggested::{suggested_base_url, suggested_model, Suggested};
use crate::metrics::Metric;
use crate::ui::state::settings::Settings;
use crate::web::storage;

/// Follows each site file applied after `state` was set up (both pages call it beside
/// `persist_settings`).
pub fn follow_site(state: Settings) {
    let initial = crate::ui::site::get();
    Effect::new(move |last: Option<Rc<Site>>| {
        let site = crate::ui::site::tracked();
        let last = last.unwrap_or_else(|| initial.clone());
        if !Rc::ptr_eq(&site, &last) {
            let mut changed = shown_changes(&last, &site);
            changed.extend(untrack(|| follow(state, &site)));
            leptos::task::spawn_local(say(state, changed));
        }
        site
    });
}

/// What the site file shows by itself that differs between `before` and `now`.
fn shown_changes(before: &Site, now: &Site) -> Vec<&'static str> {
    let mut changed = Vec::new();
    if before.title != now.title || before.tagline != now.tagline {
        changed.push("the title");
    }
    if before.offered() != now.offered() {
        changed.push("the metrics offered");
    }
    changed
}

/// Sets what the visitor never chose to what `site` suggests; returns what changed.
fn follow(state: Settings, site: &Site) -> Vec<&'static str> {
    let mut changed = Vec::new();
    let now = Suggested::of(site);
    // The metric: the visitor's own where the site offers it, else the site's first.
    let offered = site.offered();
    let metric = storage::load_setting("hj.metric")
        .and_then(|m| Metric::from_id(&m))
        .filter(|m| offered.contains(m))
        .unwrap_or(offered[0]);
    if state.metric.get_untracked() != metric {
        state.metric.set(metric);
        changed.push("the metric");
    }
    // The judge: the visitor's own provider, else the site's; then, on the same provider, the
    // base URL and model where the visitor set none.
    let preset = storage::load_setting("hj.preset").unwrap_or(now.preset);
    let p = state.provider;
    if p.preset.get_untracked() != preset {
        state.switch_provider(preset);
        changed.push("the judge");
        return changed;
    }
    let own = |name: &str| storage::load_provider_setting(&preset, name).is_some();
    let url = suggested_base_url(site, &preset);
    if !own("base_url") && p.base_url.get_untracked() != url {
        p.base_url.set(url);
        changed.push("the judge's address");
    }
    let model = suggested_model(site, &preset);
    if !own("model") && p.model.get_untracked() != model {
        p.model.set(model);
        changed.push("the judge's model");
    }
    changed
}

/// One line: the note that the suggestion changed where the visitor keeps their own value,
/// else what followed the site's file; nothing where nothing shown changed.
async fn say(state: Settings, changed: Vec<&'static str>) {
    let note = match crate::ui::site::note_after_change().await {
        Some(kept) => Some(kept),
        None => arrived(&changed),
    };
    if note.is_some() {
        state.site_note.try_set(note);
    }
}

/// The sentence for `changed` (`None` for nothing).
fn arrived(changed: &[&str]) -> Option<String> {
    let (last, rest) = changed.split_last()?;
    let list = if rest.is_empty() {
        last.to_string()
    } else {
        format!("{} and {last}", rest.join(", "))
    };
    Some(format!(
        "This site's settings (site.json) arrived after the page opened: {list} now follow them."
    ))
}
