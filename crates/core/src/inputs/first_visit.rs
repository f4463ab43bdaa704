//! What keeps a first visit from dead ends, decided natively: whether Evaluate must not send
//! (the provider needs a key and there is none) and whether the criteria of a run all failed
//! for one reason (shown once above the cards instead of five times).

/// The sentence shown next to Evaluate, and the reason it does not send, when the chosen
/// provider needs a key and none is entered.
pub fn key_missing(needs_key: bool, key: &str, provider: &str) -> Option<String> {
    (needs_key && key.trim().is_empty()).then(|| {
        format!(
            "{provider} needs an API key: paste it in the Judge settings before Evaluate sends \
             anything (or try an example, which needs none)."
        )
    })
}

/// Whether the base URL in use is the preset's own host (its default base URL, give or take a
/// trailing slash). Pointed elsewhere (a proxy, a gateway, a local server speaking the same wire
/// format), the preset no longer says whether a key is needed, so nothing is refused before
/// sending; the server's own answer says it.
pub fn is_presets_host(preset_base_url: &str, base_url: &str) -> bool {
    let norm = |u: &str| u.trim().trim_end_matches('/').to_ascii_lowercase();
    norm(preset_base_url) == norm(base_url)
}

/// The one failure every requested criterion shares, if they all failed with the same
/// message (a rejected key, an unknown model, a server that is down). `None` when fewer than
/// two criteria ran, when any succeeded or is still running, or when the messages differ.
/// `outcomes`: one per requested criterion, `Some(message)` for a failure, `None` otherwise.
pub fn shared_failure(outcomes: &[Option<&str>]) -> Option<String> {
    let first = outcomes.first().copied().flatten()?;
    (outcomes.len() >= 2 && outcomes.iter().all(|o| *o == Some(first))).then(|| first.to_string())
}

/// Whether the judge has the key it needs, for the one-line summary of the judge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyState {
    /// The provider needs a key and none is entered.
    Needed,
    /// A key is entered.
    Set,
    /// This backend needs none (a local server, the in-page judge, a proxy).
    NotNeeded,
}

/// The judge in one line, shown above its settings while they are folded away: provider ·
/// model · key · procedure, e.g. "OpenAI · gpt-4o · key needed · paper procedure".
pub fn judge_summary(provider: &str, model: &str, key: KeyState, extensions: usize) -> String {
    let model = model.trim();
    let model = if model.is_empty() {
        "no model chosen"
    } else {
        model
    };
    let key = match key {
        KeyState::Needed => "key needed",
        KeyState::Set => "key set",
        KeyState::NotNeeded => "no key needed",
    };
    let procedure = match extensions {
        0 => "paper procedure".to_string(),
        1 => "extended (1 option)".to_string(),
        n => format!("extended ({n} options)"),
    };
    format!("{provider} · {model} · {key} · {procedure}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provider_that_needs_a_key_says_so_before_sending() {
        let m = key_missing(true, "  ", "OpenAI").unwrap();
        assert!(
            m.starts_with("OpenAI needs an API key") && m.ends_with(")."),
            "{m}"
        );
        assert_eq!(key_missing(true, "sk-1", "OpenAI"), None);
        assert_eq!(
            key_missing(false, "", "llama.cpp"),
            None,
            "a local server needs none"
        );
        assert!(is_presets_host(
            "https://api.openai.com/v1",
            "https://api.openai.com/v1/"
        ));
        assert!(!is_presets_host(
            "https://api.openai.com/v1",
            "http://127.0.0.1:8080/v1"
        ));
    }

    #[test]
    fn one_reason_for_every_criterion_is_shown_once() {
        let e = "The server rejected the API key (HTTP 401).";
        assert_eq!(shared_failure(&[Some(e); 5]).as_deref(), Some(e));
        assert_eq!(
            shared_failure(&[Some(e), Some(e)]).as_deref(),
            Some(e),
            "two of five requested"
        );
        assert_eq!(
            shared_failure(&[Some(e)]),
            None,
            "a single criterion is not shared"
        );
        assert_eq!(
            shared_failure(&[Some(e), None, Some(e)]),
            None,
            "one scored"
        );
        assert_eq!(
            shared_failure(&[Some(e), Some("HTTP 404")]),
            None,
            "different reasons"
        );
        assert_eq!(shared_failure(&[]), None);
    }

    #[test]
    fn the_judge_in_one_line_says_what_is_missing() {
        assert_eq!(
            judge_summary("OpenAI", "gpt-4o", KeyState::Needed, 0),
            "OpenAI · gpt-4o · key needed · paper procedure"
        );
        assert_eq!(
            judge_summary("llama.cpp server", "  ", KeyState::NotNeeded, 2),
            "llama.cpp server · no model chosen · no key needed · extended (2 options)"
        );
        assert!(judge_summary("Gemini", "g", KeyState::Set, 1)
            .ends_with("key set · extended (1 option)"));
    }
}
