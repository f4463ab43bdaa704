use super::*;
use crate::metrics::fidelity::Fidelity;
use crate::metrics::harmonic_eval::reopen::Reopened as Harmonic;
use crate::metrics::harmonic_eval::weigh;
use crate::metrics::harmonic_eval::weighting::{sigma, smoothed_score};
use crate::metrics::harmonic_eval::{export_json, ExportInput};
use crate::metrics::harmonic_eval::{CriterionResult, CriterionSet};
use crate::metrics::Reopened;
use crate::providers::Backend;
use crate::scoring::task::Task;

fn result(p: [f64; 5], coverage: Option<f64>) -> CriterionResult {
    CriterionResult {
        distribution: p,
        score: smoothed_score(&p),
        sigma: coverage.map(|_| sigma(&p)),
        coverage,
        answer: "Rating: 4".into(),
        usage: None,
        doubts: vec![],
    }
}

fn exported(results: &[Option<Result<&CriterionResult, String>>; 5]) -> String {
    let backend = Backend {
        base_url: "https://user:hunter2@judge.example/v1".into(),
        model: "gpt-4o".into(),
        api_key: "sk-very-secret".into(),
        ..Backend::default()
    };
    export_json(&ExportInput {
        gamma: 0.3,
        task: Task::Vqa,
        text: "Two cats.",
        question: "How many cats?",
        backend: &backend,
        results: results.clone(),
        fidelity: &Fidelity::paper(),
        criteria: CriterionSet::default(),
    })
}

#[test]
fn an_export_read_back_gives_the_same_overall_score_at_every_gamma() {
    let a = result([0.0, 0.1, 0.2, 0.3, 0.4], Some(0.9));
    let b = result([0.6, 0.4, 0.0, 0.0, 0.0], Some(0.7));
    let c = result([0.0, 0.0, 0.0, 0.0, 1.0], None);
    let json = exported(&[
        Some(Ok(&a)),
        Some(Ok(&b)),
        Some(Ok(&c)),
        Some(Err("HTTP 401".into())),
        None,
    ]);
    let opened = read(&json).unwrap();
    let Body::Single(Reopened::HarmonicEval(h)) = opened.body else {
        panic!("not HarmonicEval")
    };
    assert_eq!(
        (h.task, h.text.as_str(), h.question.as_str(), h.gamma),
        (Task::Vqa, "Two cats.", "How many cats?", 0.3)
    );
    assert_eq!(h.results[3], Some(Err("HTTP 401".into())));
    assert_eq!(h.results[4], None);
    assert_eq!(
        h.results[2].as_ref().unwrap().as_ref().unwrap().sigma,
        None,
        "unsmoothed stays unsmoothed"
    );
    let before = [Some(&a), Some(&b), Some(&c), None, None];
    let after: Vec<Option<&CriterionResult>> = h
        .results
        .iter()
        .map(|r| r.as_ref().and_then(|r| r.as_ref().ok()))
        .collect();
    for g in [0.01, 0.25, 0.5, 0.75, 1.0] {
        let (x, y) = (weigh(&before, g).1.unwrap(), weigh(&after, g).1.unwrap());
        assert!((x - y).abs() < 1e-12, "γ = {g}: {x} vs {y}");
    }
    assert!(!json.contains("hunter2") && !json.contains("sk-very-secret"));
}

#[test]
fn the_in_page_judges_backend_and_threads_are_recorded_and_read_back() {
    use crate::providers::in_browser::{
        gpu::{Compute, Engine},
        BASE_URL,
    };
    let a = result([0.0, 0.1, 0.2, 0.3, 0.4], Some(0.9));
    let results = [Some(Ok(&a)), None, None, None, None];
    let plain = exported(&results);
    assert!(
        !plain.contains("\"engine\""),
        "another provider records no engine"
    );
    assert_eq!(read(&plain).unwrap().engine, None);
    for engine in [
        Engine {
            backend: Compute::Cpu,
            threads: 1,
        },
        Engine {
            backend: Compute::WebGpu,
            threads: 4,
        },
    ] {
        let backend = Backend {
            base_url: BASE_URL.into(),
            model: "smollm2".into(),
            engine: Some(engine),
            ..Backend::default()
        };
        let json = export_json(&ExportInput {
            gamma: 0.5,
            task: Task::Ic,
            text: "A dog.",
            question: "",
            backend: &backend,
            results: results.clone(),
            fidelity: &Fidelity::paper(),
            criteria: CriterionSet::default(),
        });
        let v: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["engine"]["backend"], engine.backend.id());
        assert_eq!(v["engine"]["threads"], engine.threads);
        assert_eq!(read(&json).unwrap().engine, Some(engine));
        // What the page cannot read is not shown: an unknown backend or no threads.
        let odd = json.replace(&format!("\"{}\"", engine.backend.id()), "\"metal\"");
        assert_eq!(read(&odd).unwrap().engine, None);
    }
}

#[test]
fn extras_survive_the_round_trip_and_a_bad_image_url_is_dropped() {
    let a = result([0.0, 0.0, 0.5, 0.5, 0.0], Some(0.8));
    let json = exported(&[Some(Ok(&a)), None, None, None, None]);
    let mut expl: [Option<String>; 5] = Default::default();
    expl[0] = Some("Because.".into());
    let with = with_extras(
        &json,
        Some("data:image/jpeg;base64,AAAA"),
        &expl,
        Some("constructed"),
    );
    let o = read(&with).unwrap();
    assert_eq!(o.image.as_deref(), Some("data:image/jpeg;base64,AAAA"));
    assert_eq!(o.source.as_deref(), Some("constructed"));
    let Body::Single(Reopened::HarmonicEval(h)) = o.body else {
        panic!()
    };
    assert_eq!(h.explanations[0].as_deref(), Some("Because."));
    let js = with_extras(&json, Some("javascript:alert(1)"), &expl, None);
    assert_eq!(read(&js).unwrap().image, None);
}

#[test]
fn a_file_whose_numbers_do_not_add_up_is_refused_with_a_sentence() {
    let a = result([0.0, 0.0, 0.5, 0.5, 0.0], Some(0.8));
    let json = exported(&[Some(Ok(&a)), None, None, None, None]);
    let lied = json.replacen("\"score\": 3.5", "\"score\": 4.9", 1);
    assert_ne!(lied, json);
    assert!(read(&lied)
        .unwrap_err()
        .contains("score its probabilities do not give"));
    let spread = json.replacen("0.5", "0.7", 1);
    assert!(read(&spread).unwrap_err().contains("do not add up"));
    for bad in ["", "[]", "{\"metric\": \"nope\"}", "not json"] {
        let e = read(bad).unwrap_err();
        assert!(e.ends_with('.'), "{e}");
    }
}

#[test]
fn files_without_what_their_scores_come_from_are_refused() {
    let maev = r#"{"metric":"maev","answer":"A cat.","model":"m","provider":"openai","mean":1.5,"trials":[{"evidence":"Right."}]}"#;
    assert!(read(maev)
        .unwrap_err()
        .contains("MAEV file has a trial without its two examples"));
    let fleur = r#"{"metric":"fleur","caption":"A cat.","smoothed_score":0.72,"answer":"0.7"}"#;
    assert!(read(fleur)
        .unwrap_err()
        .contains("FLEUR file holds no score"));
}

#[test]
fn the_constructed_fleur_g_veval_and_maev_examples_open_fully_with_their_scores() {
    let open = |name: &str| {
        let path = format!("{}/public/examples/{name}.json", crate::REPO);
        read(&std::fs::read_to_string(path).unwrap()).unwrap().body
    };
    match open("fleur-constructed") {
        Body::Single(Reopened::Fleur(f)) => {
            assert!((f.result.smoothed.score - 0.784).abs() < 1e-12 && f.explanation.is_some())
        }
        other => panic!("{other:?}"),
    }
    match open("g-veval-constructed") {
        Body::Single(Reopened::GVeval(g)) => assert!((g.result.score - 83.5).abs() < 1e-12),
        other => panic!("{other:?}"),
    }
    match open("maev-constructed") {
        Body::Single(Reopened::Maev(m)) => assert_eq!(m.trials.len(), 2),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_manifest_skips_entries_that_could_leave_the_examples_folder() {
    let m = r#"[{"name":"dog","title":"A dog","file":"dog.json"},{"name":"x","file":"../secret.json"},{"name":"y","file":"y.txt"},{"file":"z.json"}]"#;
    let list = read_manifest(m).unwrap();
    let dog = Example {
        name: "dog".into(),
        title: "A dog".into(),
        file: "dog.json".into(),
        ..Example::default()
    };
    assert_eq!(list, vec![dog]);
    assert!(read_manifest("{").is_err());
}

#[test]
fn each_example_says_where_its_numbers_come_from_and_no_more() {
    let m = r#"[{"name":"a","file":"a.json","origin":"constructed","model":"(none: constructed)","start":true},
               {"name":"b","file":"b.json","origin":"recorded","model":"smollm2-135m"},
               {"name":"c","file":"c.json","origin":"file","model":"gpt-4o"},
               {"name":"d","file":"d.json"}]"#;
    let list = read_manifest(m).unwrap();
    let lines: Vec<String> = list.iter().map(Example::provenance).collect();
    assert_eq!(lines[0], "Constructed by hand, not a model's answer");
    assert_eq!(lines[1], "Recorded from smollm2-135m (the file says)");
    assert_eq!(lines[2], "A result file; it says it is from gpt-4o");
    assert_eq!(
        lines[3],
        "A result file; it does not say where its numbers come from"
    );
    assert_eq!(list.iter().filter(|e| e.start).count(), 1);
    assert!(list[0].start);
}

/// The gallery's manifest as the build writes it: every shipped example is labelled by where
/// its own file says its numbers come from, and six of the seven are constructed.
#[test]
fn the_shipped_examples_are_labelled_by_their_own_files() {
    let dir = format!("{}/public/examples", crate::REPO);
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys, json; sys.path.insert(0, 'scripts'); import examples_manifest as m; from pathlib import Path; print(json.dumps(m.mark_start(m.manifest(Path(sys.argv[1])))))", &dir])
        .current_dir(crate::REPO)
        .output()
        .expect("python3 runs the manifest script");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list = read_manifest(&String::from_utf8(out.stdout).unwrap()).unwrap();
    let constructed = list.iter().filter(|e| e.origin == "constructed").count();
    let recorded: Vec<&Example> = list.iter().filter(|e| e.origin == "recorded").collect();
    assert_eq!((list.len(), constructed, recorded.len()), (7, 6, 1));
    assert_eq!(
        recorded[0].provenance(),
        "Recorded from smollm2-135m (the file says)"
    );
    assert_eq!(
        list.iter()
            .filter(|e| e.start)
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>(),
        ["gamma-flip-a"]
    );
}

fn example(name: &str) -> Harmonic {
    let path = format!("{}/public/examples/{name}.json", crate::REPO);
    let o = read(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(
        o.source.is_some_and(|s| !s.is_empty()),
        "{name} says where its numbers come from"
    );
    assert!(o.image.is_some(), "{name} carries its image");
    match o.body {
        Body::Single(Reopened::HarmonicEval(h)) => *h,
        _ => panic!("{name} is not HarmonicEval"),
    }
}

fn overall(h: &Harmonic, gamma: f64) -> f64 {
    let r: Vec<Option<&CriterionResult>> = h
        .results
        .iter()
        .map(|r| r.as_ref().and_then(|r| r.as_ref().ok()))
        .collect();
    weigh(&r, gamma).1.unwrap()
}

#[test]
fn every_gallery_file_opens_and_the_teachers_pair_swaps_order_as_gamma_moves() {
    let dir = format!("{}/public/examples", crate::REPO);
    for f in std::fs::read_dir(dir).unwrap() {
        let path = f.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") && !path.ends_with("manifest.json") {
            let o = read(&std::fs::read_to_string(&path).unwrap());
            assert!(o.is_ok(), "{}: {:?}", path.display(), o.err());
        }
    }
    let (a, b) = (example("gamma-flip-a"), example("gamma-flip-b"));
    assert!(
        a.explanations.iter().all(Option::is_some) && b.explanations.iter().all(Option::is_some)
    );
    let selective = (overall(&a, 0.01), overall(&b, 0.01));
    let uniform = (overall(&a, 1.0), overall(&b, 1.0));
    assert!(
        selective.0 > selective.1,
        "A first when γ is small: {selective:?}"
    );
    assert!(uniform.0 < uniform.1, "B first at γ = 1: {uniform:?}");
}

/// Three candidates' comparison (the export's document), each candidate's result its own
/// HarmonicEval export.
fn comparison_doc(chosen: Option<usize>) -> (String, Vec<[CriterionResult; 5]>) {
    use crate::candidates::export::{comparison_json, Judged};
    let r = |p: [f64; 5]| result(p, Some(0.95));
    let all = vec![
        [
            r([0.0, 0.9, 0.1, 0.0, 0.0]),
            r([0.0, 0.9, 0.1, 0.0, 0.0]),
            r([0.0, 0.0, 0.1, 0.3, 0.6]),
            r([0.0, 0.0, 0.1, 0.3, 0.6]),
            r([0.0, 0.0, 0.1, 0.3, 0.6]),
        ],
        std::array::from_fn(|_| r([0.0, 0.2, 0.4, 0.3, 0.1])),
        std::array::from_fn(|_| r([0.4, 0.5, 0.1, 0.0, 0.0])),
    ];
    let texts = ["A dog leaps.", "Some animal.", "Two cats."];
    let singles: Vec<String> = all
        .iter()
        .zip(texts)
        .map(|(rs, t)| {
            let json = exported(&std::array::from_fn(|k| Some(Ok(&rs[k]))));
            json.replace("\"Two cats.\"", &format!("{t:?}"))
        })
        .collect();
    let judged: Vec<Judged<'_, CriterionResult>> = all
        .iter()
        .zip(["A", "B", "C"])
        .zip(texts)
        .map(|((rs, label), text)| Judged {
            label,
            text,
            criteria: std::array::from_fn(|k| Some(Ok(&rs[k]))),
        })
        .collect();
    (
        comparison_json(
            "harmonic_eval",
            &crate::metrics::harmonic_eval::weighting::Harmonic,
            0.9,
            &judged,
            &singles,
            chosen,
            None,
        ),
        all,
    )
}

#[test]
fn a_comparison_reads_back_with_its_labels_pick_gamma_and_every_score() {
    let (json, all) = comparison_doc(Some(0));
    let shared = crate::files::share::for_link(&with_extras(
        &json,
        Some("data:image/jpeg;base64,/9j/"),
        &Default::default(),
        None,
    ));
    assert!(
        !shared.contains("hunter2")
            && !shared.contains("judge.example")
            && !shared.contains("sk-very-secret")
    );
    let opened = read(&shared).unwrap();
    assert_eq!(
        (opened.model.as_str(), opened.image.as_deref()),
        ("gpt-4o", Some("data:image/jpeg;base64,/9j/"))
    );
    let Body::Candidates(c) = opened.body else {
        panic!("not a comparison")
    };
    assert_eq!(c.labels, ["A", "B", "C"]);
    assert_eq!((c.chosen, c.gamma), (Some(0), 0.9));
    assert_eq!(c.candidates[1].text, "Some animal.");
    // Every number rebuilt from the distributions: the ranking at γ is the one exported.
    let scored: Vec<Vec<crate::scoring::weighting::Scored>> = c
        .candidates
        .iter()
        .map(|h| {
            h.results
                .iter()
                .flatten()
                .flatten()
                .map(CriterionResult::scored)
                .collect()
        })
        .collect();
    let before: Vec<Vec<crate::scoring::weighting::Scored>> = all
        .iter()
        .map(|rs| rs.iter().map(CriterionResult::scored).collect())
        .collect();
    for g in [0.5, 0.75, 0.9] {
        assert_eq!(
            crate::candidates::order(&crate::candidates::scores_at(
                &crate::metrics::harmonic_eval::weighting::Harmonic,
                &scored,
                g
            )),
            crate::candidates::order(&crate::candidates::scores_at(
                &crate::metrics::harmonic_eval::weighting::Harmonic,
                &before,
                g
            ))
        );
    }
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["ranking"], serde_json::json!(["A", "B", "C"]));
    let none = read(&comparison_doc(None).0).unwrap();
    let Body::Candidates(c) = none.body else {
        panic!()
    };
    assert_eq!(c.chosen, None);
}

#[test]
fn a_comparison_that_does_not_add_up_is_refused_with_a_sentence() {
    let (json, _) = comparison_doc(Some(1));
    // A stored score that its distribution does not give.
    let forged = json.replacen("\"score\": 2.1", "\"score\": 4.9", 1);
    assert_ne!(forged, json);
    assert!(read(&forged).unwrap_err().contains("cannot be shown"));
    let mut doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    doc["candidates"][1]["label"] = "A".into();
    assert!(read(&doc.to_string())
        .unwrap_err()
        .contains("distinct labels"));
    doc["candidates"] = serde_json::json!([doc["candidates"][0].clone()]);
    assert!(read(&doc.to_string()).unwrap_err().contains("not 2 to 5"));
    let plain = r#"{"metric":"fleur","kind":"candidates","candidates":[]}"#;
    assert!(read(plain)
        .unwrap_err()
        .contains("only HarmonicEval comparisons open"));
}

#[test]
fn the_request_settings_an_export_records_come_back_so_a_re_export_records_them_again() {
    let a = result([0.0, 0.1, 0.2, 0.3, 0.4], Some(0.9));
    let mut backend = Backend {
        model: "gpt-4o".into(),
        image_detail: crate::providers::ImageDetail::Low,
        ..Backend::default()
    };
    backend.tuning.max_tokens = Some(77);
    let export = |backend: &Backend| {
        export_json(&ExportInput {
            gamma: 0.5,
            task: Task::Ic,
            text: "A cat.",
            question: "",
            backend,
            results: [Some(Ok(&a)), None, None, None, None],
            fidelity: &Fidelity::paper(),
            criteria: CriterionSet::default(),
        })
    };
    let first = export(&backend);
    let opened = read(&first).unwrap();
    assert_eq!(
        opened.sent,
        Sent {
            max_tokens: Some(77),
            image_detail: Some(crate::providers::ImageDetail::Low)
        }
    );
    // The page rebuilds the backend from the file: its export records the same settings.
    let mut again = Backend {
        model: opened.model.clone(),
        ..Backend::default()
    };
    opened.sent.apply(&mut again);
    assert_eq!(export(&again), first);
    // A file without settings keeps the defaults.
    let bare = read(r#"{"metric":"fleur","scheme":"units","printed":"1","places":[{"place":"units","digits":[0,1,0,0,0,0,0,0,0,0]}],"smoothed_score":1.0}"#).unwrap();
    assert_eq!(bare.sent, Sent::default());
}

#[test]
fn the_gate_refuses_a_result_larger_than_any_or_with_a_longer_text_than_a_new_evaluation() {
    let a = std::fs::read_to_string(format!("{}/public/examples/gamma-flip-a.json", crate::REPO))
        .unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&a).unwrap();
    // The probe's link: gamma-flip-a with a 3.9 MB text, refused before it is parsed.
    doc["text"] = serde_json::Value::from("word ".repeat(780_000));
    let e = read(&doc.to_string()).unwrap_err();
    assert!(
        e.starts_with("This result is 3.7 MB; a result is at most 2.0 MB"),
        "{e}"
    );
    // Under the size, over the text limit: the same limit as a new evaluation.
    doc["text"] = serde_json::Value::from("x".repeat(crate::inputs::text_checks::MAX_CHARS + 1));
    let e = read(&doc.to_string()).unwrap_err();
    assert!(e.contains("its text is 20,001 characters long"), "{e}");
    doc["text"] = serde_json::Value::from("x".repeat(crate::inputs::text_checks::MAX_CHARS));
    assert!(read(&doc.to_string()).is_ok());
}
