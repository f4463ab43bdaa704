use super::*;

const PROXY: &str = r#"{
  "title": "Caption lab",
  "tagline": "Judged through our proxy.",
  "judge": {"provider": "openai", "base_url": "https://judge.example.org/v1", "model": "gpt-4o-mini"},
  "metrics": ["harmonic_eval", "fleur"],
  "open_example": "gamma-flip-a",
  "lab": false
}"#;

const IN_PAGE: &str = r#"{
  "judge": {"provider": "in_browser", "model_url": "models/SmolLM2.gguf",
            "projector_url": "https://cdn.example.org/mmproj.gguf"},
  "metrics": ["fleur"]
}"#;

fn refused(text: &str) -> String {
    let e = parse(text).unwrap_err();
    assert!(
        e.starts_with("This site's site.json was not used (")
            && e.ends_with("the page keeps its defaults."),
        "{e}"
    );
    e
}

#[test]
fn the_two_worked_examples_are_read_whole() {
    let s = parse(PROXY).unwrap();
    assert_eq!(s.title.as_deref(), Some("Caption lab"));
    assert_eq!(s.tagline.as_deref(), Some("Judged through our proxy."));
    let j = s.judge.clone().unwrap();
    assert_eq!(
        (
            j.provider.as_str(),
            j.base_url.as_deref(),
            j.model.as_deref()
        ),
        (
            "openai",
            Some("https://judge.example.org/v1"),
            Some("gpt-4o-mini")
        )
    );
    assert_eq!(s.offered(), vec![Metric::HarmonicEval, Metric::Fleur]);
    assert_eq!(s.open_example.as_deref(), Some("gamma-flip-a"));
    assert!(
        !s.lab && s.keyless_judge(),
        "a proxy on another host needs no key from the visitor"
    );
    let s = parse(IN_PAGE).unwrap();
    let j = s.judge.clone().unwrap();
    assert_eq!(j.model_url.as_deref(), Some("models/SmolLM2.gguf"));
    assert!(s.lab && s.keyless_judge() && s.title.is_none());
    assert_eq!(s.offered(), vec![Metric::Fleur]);
}

#[test]
fn an_empty_file_is_every_default() {
    assert_eq!(parse("{}").unwrap(), Site::default());
    // The start script reads the isolation worker's switch; the page only checks it.
    assert_eq!(
        parse(r#"{"isolation_worker": true}"#).unwrap(),
        Site::default()
    );
    assert_eq!(Site::default().offered(), Metric::ALL.to_vec());
    assert!(!Site::default().keyless_judge());
    let openai = parse(r#"{"judge": {"provider": "openai"}}"#).unwrap();
    assert!(
        !openai.keyless_judge(),
        "OpenAI's own host needs the visitor's key"
    );
}

#[test]
fn a_key_anywhere_refuses_the_whole_file() {
    for (text, at) in [
        (
            r#"{"judge": {"provider": "openai", "api_key": "x"}}"#,
            "judge.api_key",
        ),
        (r#"{"apiKey": "x"}"#, "apiKey"),
        (r#"{"key": "x"}"#, "\"key\""),
        (
            r#"{"judge": {"provider": "openai", "headers": {"Authorization": "x"}}}"#,
            "judge.headers.Authorization",
        ),
        (r#"{"x-api-key": 1}"#, "x-api-key"),
        (r#"{"access_token": "x"}"#, "access_token"),
        (r#"{"title": "sk-proj-abc"}"#, "\"title\""),
        (r#"{"tagline": "Bearer abc"}"#, "\"tagline\""),
        (
            r#"{"judge": {"provider": "gemini", "base_url": "https://g.example/v1?key=AIza1"}}"#,
            "judge.base_url",
        ),
        (
            r#"{"judge": {"provider": "openai", "base_url": "https://user:pw@proxy.example/v1"}}"#,
            "judge.base_url",
        ),
        (r#"{"metrics": [{"secret": 1}]}"#, "metrics[0].secret"),
    ] {
        let e = refused(text);
        assert!(
            e.contains("must never hold a key") && e.contains(at),
            "{text}: {e}"
        );
    }
    assert!(
        !key_like_name("model_url")
            && !key_like_name("projector_url")
            && !key_like_name("base_url")
    );
}

#[test]
fn each_bad_field_is_named_in_one_sentence() {
    for (text, says) in [
        ("not json", "not valid JSON"),
        ("[1]", "one JSON object"),
        (r#"{"titel": "x"}"#, "unknown field \"titel\""),
        (
            r#"{"judge": {"provider": "openai", "url": "x"}}"#,
            "unknown field \"judge.url\"",
        ),
        (
            r#"{"judge": {"provider": "mystery"}}"#,
            "\"mystery\" is not one of openai, gemini",
        ),
        (r#"{"judge": {"model": "m"}}"#, "needs a \"provider\""),
        (r#"{"judge": "openai"}"#, "must be an object"),
        (
            r#"{"judge": {"provider": "openai", "base_url": "ftp://x"}}"#,
            "not an http(s) URL",
        ),
        (
            r#"{"judge": {"provider": "in_browser", "base_url": "https://x"}}"#,
            "does not apply to in_browser",
        ),
        (
            r#"{"judge": {"provider": "openai", "model_url": "https://x/m.gguf"}}"#,
            "apply only to the provider in_browser",
        ),
        (
            r#"{"judge": {"provider": "in_browser", "model_url": "javascript:alert(1)"}}"#,
            "neither an http(s) URL",
        ),
        (
            r#"{"judge": {"provider": "in_browser", "projector_url": "p.gguf"}}"#,
            "needs a \"judge.model_url\"",
        ),
        (r#"{"metrics": []}"#, "non-empty list"),
        (
            r#"{"metrics": ["bleu"]}"#,
            "\"bleu\", which is not one of harmonic_eval",
        ),
        (r#"{"metrics": ["fleur", "fleur"]}"#, "twice"),
        (r#"{"open_example": "../secret"}"#, "file stem"),
        (r#"{"lab": "no"}"#, "true or false"),
        (
            r#"{"isolation_worker": "yes"}"#,
            "\"isolation_worker\" must be true or false",
        ),
        (r#"{"title": 3}"#, "must be text"),
    ] {
        let e = refused(text);
        assert!(e.contains(says), "{text}: {e}");
        assert_eq!(e.matches(". ").count(), 0, "one sentence: {e}");
    }
    let long = format!(r#"{{"title": "{}"}}"#, "a".repeat(81));
    assert!(refused(&long).contains("longer than 80"));
}

#[test]
fn the_embed_is_recognised_and_its_urls_round_trip() {
    assert!(is_embed("?embed", "/app/"));
    assert!(is_embed("?x=1&embed&example=a", "/"));
    assert!(is_embed("", "/app/embed.html") && is_embed("", "/app/embed"));
    assert!(!is_embed("?embedded=1", "/"));
    assert!(!is_embed("", "/app/index.html"));
    assert_eq!(
        embed_example("?embed&example=gamma-flip-a").as_deref(),
        Some("gamma-flip-a")
    );
    assert_eq!(embed_example("?embed&example=../x"), None);
    assert_eq!(
        embed_url("https://s.example/app/?x=1#r=AQID", None),
        "https://s.example/app/embed.html?embed#r=AQID"
    );
    assert_eq!(
        embed_url("https://s.example/app/index.html", Some("a")),
        "https://s.example/app/embed.html?embed&example=a"
    );
    assert_eq!(
        full_url("https://s.example/app/embed.html?embed#r=AQID"),
        "https://s.example/app/#r=AQID"
    );
    assert_eq!(
        full_url("https://s.example/app/embed.html?embed&example=a"),
        "https://s.example/app/?example=a"
    );
}

#[test]
fn the_build_time_check_knows_every_preset_and_metric() {
    let script = include_str!("../../../../scripts/check_site_json.py");
    let list = |name: &str| {
        let line = script
            .lines()
            .find(|l| l.starts_with(&format!("{name} = [")))
            .unwrap();
        line.split('"')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        list("PRESETS"),
        PRESETS.iter().map(|p| p.id.to_string()).collect::<Vec<_>>()
    );
    // Its metric ids are read from the registry's list by scripts/metric_list.py.
    assert!(script.contains("METRICS = metric_list.ids()"));
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; sys.path.insert(0, 'scripts'); import check_site_json as c; print(' '.join(c.METRICS))"])
        .current_dir(crate::REPO)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ids: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    assert_eq!(
        ids,
        Metric::ALL
            .iter()
            .map(|m| m.id().to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(list("FIELDS"), FIELDS.to_vec());
    assert_eq!(list("JUDGE_FIELDS"), JUDGE_FIELDS.to_vec());
}
