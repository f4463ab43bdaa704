//! The `hj` binary end to end, natively: planning and scoring the sample dataset give the
//! library's own results; a live run against a loopback server in OpenAI's wire format records
//! each item as it finishes, stops at a rejected key with nothing lost, and resumes with only the
//! items left; bad input gets a sentence and a non-zero exit. (The browser suite runs it against
//! the real llama-server and the Python fakes: tests/e2e/test_cli.py.)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use harmonic_judge_core::lab::io;
use harmonic_judge_core::native::{batch_files, files, settings};

const HJ: &str = env!("CARGO_BIN_EXE_hj");

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../public/sample-dataset.zip")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hj-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn hj(args: &[&str]) -> Output {
    Command::new(HJ)
        .args(args)
        .env_remove("HJ_API_KEY")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A chat completion printing `rating`, its token certain but for a little mass on "2".
fn completion(rating: &str) -> serde_json::Value {
    serde_json::json!({"model": "judge", "choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": rating},
        "logprobs": {"content": [{"token": rating, "logprob": -0.105,
            "top_logprobs": [{"token": rating, "logprob": -0.105}, {"token": "2", "logprob": -2.3}]}]}}]})
}

#[test]
fn plan_then_score_gives_the_librarys_results_and_the_labs_figures() {
    let dir = temp("plan");
    let requests = dir.join("requests.jsonl");
    let zip = sample();
    let o = hj(&[
        "plan",
        zip.to_str().unwrap(),
        "--provider",
        "vllm",
        "--out",
        requests.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&requests)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6 * 5, "six items, five criteria each");
    // Every request answered, as a batch's output file holds them.
    let answers: String = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let rating = ["3", "4", "5"][i % 3];
            serde_json::json!({"id": format!("r{i}"), "custom_id": l["custom_id"],
                "response": {"status_code": 200, "body": completion(rating)}, "error": null})
            .to_string()
                + "\n"
        })
        .collect();
    let answers_path = dir.join("answers.jsonl");
    std::fs::write(&answers_path, &answers).unwrap();
    let results = dir.join("results.jsonl");
    let agreement = dir.join("agreement.json");
    let o = hj(&[
        "score",
        zip.to_str().unwrap(),
        answers_path.to_str().unwrap(),
        "--provider",
        "vllm",
        "--out",
        results.to_str().unwrap(),
        "--agreement",
        agreement.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("Agreement with human judgments (6 items"),
        "{}",
        text(&o)
    );
    // The library's own reading of the same answers: the file is its results, byte for byte
    // (compared as text: serde_json reads floats back to within one unit in the last place,
    // in the page as here, so a parsed file is not the bit-exact test).
    let metric = settings::metric("harmonic_eval").unwrap();
    let plan = settings::plan(metric, false, &[], &[]).unwrap();
    let judge = settings::JudgeSettings {
        provider: "vllm".into(),
        ..Default::default()
    };
    let backend = judge.offline_backend(metric).unwrap();
    let loaded = files::load(&zip, None, false).unwrap();
    let want = batch_files::score(&plan, &backend, &loaded.items, &[&answers]).results;
    assert_eq!(want.len(), 6);
    assert!(want.iter().all(|r| r.is_complete()));
    assert_eq!(
        std::fs::read_to_string(&results).unwrap(),
        io::to_jsonl(&want, 0.75)
    );
    // The figures are those of the file as the lab's import reads it.
    let (got, problems) = io::from_jsonl(&std::fs::read_to_string(&results).unwrap());
    assert!(problems.is_empty(), "{problems:?}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&agreement).unwrap()).unwrap();
    let f =
        harmonic_judge_core::lab::figures::figures(&got, 0.75, Default::default(), false).unwrap();
    assert_eq!(
        doc["overall"]["tau_b"]["value"].as_f64(),
        f.report.overall.tau_b
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A loopback server in OpenAI's wire format: `answer(n)` gives the status and body of the
/// n-th chat request (0-based), counted in `hits`.
fn serve(
    answer: impl Fn(usize) -> (u16, String) + Send + Sync + 'static,
) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let (counter, answer) = (hits.clone(), Arc::new(answer));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (counter, answer) = (counter.clone(), answer.clone());
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut stream = stream;
                loop {
                    let mut length = 0;
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h).unwrap_or(0) == 0 {
                            return;
                        }
                        if h.trim().is_empty() {
                            break;
                        }
                        if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    let n = counter.fetch_add(1, Ordering::SeqCst);
                    let (status, text) = answer(n);
                    let head = format!(
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n{}content-length: {}\r\n\r\n",
                        if status == 429 { "retry-after: 0.2\r\n" } else { "" },
                        text.len()
                    );
                    if stream
                        .write_all(head.as_bytes())
                        .and_then(|()| stream.write_all(text.as_bytes()))
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    (url, hits)
}

#[test]
fn a_run_stops_at_a_rejected_key_and_resumes_with_nothing_lost() {
    let dir = temp("run");
    let out = dir.join("results.jsonl");
    let zip = sample();
    let ok = completion("4").to_string();
    // Two items' worth of answers (five criteria each), then the key is refused.
    let refused = r#"{"error":{"message":"Incorrect API key provided: sk-te***. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;
    // One server (a resume must reach the same judge at the same base URL), which accepts the
    // key again once `fixed`.
    let fixed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let key_fixed = fixed.clone();
    let (url, hits) = serve(move |n| {
        if n < 10 || key_fixed.load(Ordering::SeqCst) {
            (200, ok.clone())
        } else {
            (401, refused.to_string())
        }
    });
    let run = |url: &str| {
        hj(&[
            "run",
            zip.to_str().unwrap(),
            "--provider",
            "llama_server",
            "--base-url",
            url,
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let o = run(&url);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let said = text(&o);
    assert!(
        said.contains("API key was rejected") && said.contains("run the same command again"),
        "{said}"
    );
    let kept = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        kept.lines().count(),
        2,
        "the items done are kept, the refused one is not"
    );
    assert_eq!(hits.load(Ordering::SeqCst), 11);
    // Resumed once the server answers: only the four items left are sent.
    fixed.store(true, Ordering::SeqCst);
    let o = run(&url);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("Resuming: 2 of 6 items"), "{}", text(&o));
    assert_eq!(hits.load(Ordering::SeqCst), 11 + 4 * 5);
    let (results, problems) = io::from_jsonl(&std::fs::read_to_string(&out).unwrap());
    assert!(problems.is_empty());
    let mut ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 6, "every item once");
    assert!(results.iter().all(|r| r.is_complete()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_gets_a_sentence_and_a_non_zero_exit() {
    let dir = temp("bad");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "run".into(),
                "missing.jsonl".into(),
                "--provider".into(),
                "llama_server".into(),
                "--out".into(),
                "o.jsonl".into(),
            ],
            "there is no such file",
        ),
        (
            vec!["judge".into(), "--key".into(), "sk-123".into()],
            "--key-env",
        ),
        (
            vec![
                "judge".into(),
                "--text".into(),
                "A cat.".into(),
                "--image".into(),
                "nope.png".into(),
                "--provider".into(),
                "llama_server".into(),
            ],
            "cannot be read",
        ),
        (
            vec![
                "plan".into(),
                "x.jsonl".into(),
                "--metric".into(),
                "bleu".into(),
            ],
            "There is no metric",
        ),
        (
            vec![
                "judge".into(),
                "--provider".into(),
                "openai".into(),
                "--text".into(),
                "x".into(),
            ],
            "needs an API key",
        ),
        (vec!["frobnicate".into()], "There is no command"),
    ];
    for (args, sentence) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = hj(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(sentence), "{args:?}: {}", text(&o));
        assert!(!text(&o).contains("sk-123"));
    }
    // A bad dataset line: said with its number; the good rows still run.
    let data = dir.join("d.jsonl");
    std::fs::write(
        &data,
        "{\"id\":\"a\",\"text\":\"A cat.\",\"task\":\"ic\"}\n{\"text\":\"no id\"}\n",
    )
    .unwrap();
    let o = hj(&[
        "plan",
        data.to_str().unwrap(),
        "--metric",
        "fleur",
        "--provider",
        "vllm",
        "--out",
        dir.join("r.jsonl").to_str().unwrap(),
    ]);
    assert!(text(&o).contains("Line 2:"), "{}", text(&o));
    assert_ne!(o.status.code(), Some(0));
    let help = hj(&["--help"]);
    assert!(text(&help).contains("hj run DATASET"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_suggestions_and_completions_come_from_the_declared_options() {
    // Each command's help, with its defaults and the values it takes.
    let help = hj(&["run", "--help"]);
    assert_eq!(help.status.code(), Some(0), "{}", text(&help));
    for words in [
        "--boxes-drawn",
        "--concurrency <N>",
        "[default: 120]",
        "llama_server",
    ] {
        assert!(text(&help).contains(words), "{words}: {}", text(&help));
    }
    // A mistyped command or option: the one meant; a value that is not a number: a sentence.
    let cases: [(&[&str], &str); 5] = [
        (
            &["figure", "r.jsonl"],
            "Did you mean \u{201c}figures\u{201d}?",
        ),
        (&["rnu", "d.jsonl"], "Did you mean \u{201c}run\u{201d}?"),
        (&["run", "d.jsonl", "--concurency", "3"], "'--concurrency'"),
        (
            &["run", "d.jsonl", "--timeout", "soon"],
            "--timeout takes a number, not \u{201c}soon\u{201d}.",
        ),
        (
            &["figures", "r.jsonl", "--protocol", "mean"],
            "--protocol is repeated or averaged",
        ),
    ];
    for (args, sentence) in cases {
        let o = hj(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(sentence), "{args:?}: {}", text(&o));
    }
    let bash = hj(&["completions", "bash"]);
    assert_eq!(bash.status.code(), Some(0), "{}", text(&bash));
    assert!(text(&bash).contains("_hj()") && text(&bash).contains("--key-env"));
}

#[test]
fn a_rate_limit_that_outlasts_the_retries_stops_the_run_after_honouring_retry_after() {
    let dir = temp("429");
    let out = dir.join("results.jsonl");
    let limited = r#"{"error":{"message":"Rate limit reached for gpt-4o.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#;
    let (url, hits) = serve(move |_| (429, limited.to_string()));
    let started = std::time::Instant::now();
    let o = hj(&[
        "run",
        sample().to_str().unwrap(),
        "--metric",
        "fleur",
        "--provider",
        "llama_server",
        "--base-url",
        &url,
        "--retries",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let said = text(&o);
    assert!(said.contains("Retrying in 0.2 s (retry 1 of 2)"), "{said}");
    assert!(
        said.contains("HTTP 429") && said.contains("retry after 0.2 s"),
        "{said}"
    );
    assert_eq!(
        hits.load(Ordering::SeqCst),
        3,
        "one request and two retries, then the stop"
    );
    assert!(
        started.elapsed().as_secs_f64() >= 0.4,
        "each retry waited what the server asked"
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap_or_default(),
        "",
        "nothing recorded"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The sample planned for vLLM: its requests' `custom_id`s, in the file's order.
fn planned_ids(dir: &Path) -> Vec<String> {
    let requests = dir.join("requests.jsonl");
    let o = hj(&[
        "plan",
        sample().to_str().unwrap(),
        "--provider",
        "vllm",
        "--out",
        requests.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    std::fs::read_to_string(&requests)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["custom_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// An output line answering `custom_id` with `rating`.
fn answer(custom_id: &str, rating: &str) -> String {
    serde_json::json!({"custom_id": custom_id,
        "response": {"status_code": 200, "body": completion(rating)}, "error": null})
    .to_string()
        + "\n"
}

/// `hj score` of the sample with the answers files `answers` (texts); its output and results.
fn score_with(
    dir: &Path,
    answers: &[String],
) -> (Output, Vec<harmonic_judge_core::lab::ItemResult>) {
    let mut args: Vec<String> = vec!["score".into(), sample().to_str().unwrap().into()];
    for (i, a) in answers.iter().enumerate() {
        let path = dir.join(format!("answers-{i}.jsonl"));
        std::fs::write(&path, a).unwrap();
        args.push(path.to_str().unwrap().into());
    }
    let out = dir.join("results.jsonl");
    let _ = std::fs::remove_file(&out);
    args.extend(["--provider", "vllm", "--out", out.to_str().unwrap()].map(String::from));
    let o = hj(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let results = std::fs::read_to_string(&out)
        .map(|t| io::from_jsonl(&t).0)
        .unwrap_or_default();
    (o, results)
}

/// The line of `score_with`'s results file for item `id`, as written (with `overall`).
fn result_line(dir: &Path, id: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["id"] == id)
        .unwrap_or_else(|| panic!("no line for {id}"))
}

#[test]
fn score_reads_every_answer_against_the_plan() {
    let dir = temp("exact");
    let ids = planned_ids(&dir);
    assert_eq!(ids[0], "0:correctness");
    let all: Vec<String> = ids.iter().map(|id| answer(id, "4")).collect();
    // A missing answer: item 0 is incomplete, named, counted apart, and exit 1.
    let (o, results) = score_with(&dir, &[all[1..].concat()]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(
        said.contains("5 of 6 items scored on every criterion, 1 incomplete"),
        "{said}"
    );
    assert!(said.contains("no answer to 0:correctness"), "{said}");
    let first = results.iter().find(|r| {
        r.criteria
            .iter()
            .any(|c| c.name == "correctness" && c.score.is_none())
    });
    let first = first.expect("item 0's unanswered criterion is recorded");
    assert!(!first.is_complete());
    assert_eq!(results.iter().filter(|r| r.is_complete()).count(), 5);
    // Its line reports no overall, says why, and marks what is missing; the others have one.
    let line = result_line(&dir, &first.id);
    assert_eq!(line["overall"], serde_json::Value::Null, "{line}");
    assert_eq!(line["missing_answers"], serde_json::json!(["correctness"]));
    let why = line["incomplete"].as_str().unwrap_or_default();
    assert!(why.starts_with("No overall: no answer to its planned request for correctness"));
    let mut others = results.iter().filter(|r| r.id != first.id);
    assert!(others.all(|r| result_line(&dir, &r.id)["overall"].is_f64()));
    // Answered later, in a second answers file: complete, exit 0.
    let (o, results) = score_with(&dir, &[all[1..].concat(), all[0].clone()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("6 of 6 items scored on every criterion, 0 incomplete"));
    assert!(results.iter().all(|r| r.is_complete()));
    let line = result_line(&dir, &first.id);
    assert!(
        line["overall"].is_f64() && line.get("incomplete").is_none(),
        "{line}"
    );
    // A second answer to one request: the first kept, said, exit 1.
    let (o, dup) = score_with(&dir, &[all.concat() + &answer("0:correctness", "1")]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(
        said.contains("A second answer to \u{201c}0:correctness\u{201d}"),
        "{said}"
    );
    assert_eq!(dup, results, "the second answer changed nothing");
    // Stray slots and non-canonical item numbers answer nothing: said, no criterion added.
    for stray in [
        "0:nonsense",
        "0:Correctness",
        "0:correctness:extra",
        "00:correctness",
        "+0:correctness",
    ] {
        let (o, got) = score_with(&dir, &[all.concat() + &answer(stray, "1")]);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(1), "{stray}: {said}");
        assert!(
            said.contains(&format!(
                "\u{201c}{stray}\u{201d} answers no planned request"
            )),
            "{said}"
        );
        assert_eq!(got, results, "{stray}");
    }
    // A non-canonical number in place of the planned one leaves the item incomplete.
    let renamed = all
        .concat()
        .replacen("\"0:correctness\"", "\"00:correctness\"", 1);
    let (o, got) = score_with(&dir, &[renamed]);
    assert!(text(&o).contains("1 incomplete"), "{}", text(&o));
    let incomplete: Vec<_> = got.iter().filter(|r| r.overall(0.75).is_none()).collect();
    assert_eq!(incomplete.len(), 1, "only item 0 has no overall");
    assert_eq!(
        result_line(&dir, &incomplete[0].id)["overall"],
        serde_json::Value::Null
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_command_writes_over_one_of_its_inputs() {
    let dir = temp("inputs");
    // A copy: were the check missing, the repository's sample would be replaced.
    let zip = dir.join("d.zip");
    std::fs::copy(sample(), &zip).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let same_zip = dir.join("sub/../d.zip");
    let answers = dir.join("answers.jsonl");
    let answers_text = answer("0:correctness", "4");
    std::fs::write(&answers, &answers_text).unwrap();
    let zip_bytes = std::fs::read(&zip).unwrap();
    let (z, a, s) = (
        zip.to_str().unwrap(),
        answers.to_str().unwrap(),
        same_zip.to_str().unwrap(),
    );
    let url = "http://127.0.0.1:9/v1";
    let cases: Vec<Vec<&str>> = vec![
        vec!["plan", z, "--provider", "vllm", "--out", s],
        vec!["score", z, a, "--provider", "vllm", "--out", a],
        vec!["score", z, a, "--provider", "vllm", "--out", s],
        vec![
            "run",
            z,
            "--provider",
            "vllm",
            "--base-url",
            url,
            "--out",
            s,
        ],
    ];
    for case in cases {
        let o = hj(&case);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(2), "{case:?}: {said}");
        assert!(
            said.contains("is one of this command's inputs"),
            "{case:?}: {said}"
        );
        assert_eq!(std::fs::read(&zip).unwrap(), zip_bytes, "{case:?}");
        assert_eq!(std::fs::read_to_string(&answers).unwrap(), answers_text);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_refuses_a_file_that_is_not_its_results_and_another_judge() {
    let dir = temp("judge");
    let zip = sample();
    let z = zip.to_str().unwrap();
    let out = dir.join("results.jsonl");
    // A batch's answers where the results would go: refused, never rewritten, nothing sent.
    let answers_text: String = ["0:correctness", "0:fluency"]
        .iter()
        .map(|id| answer(id, "4"))
        .collect();
    std::fs::write(&out, &answers_text).unwrap();
    let ok = completion("4").to_string();
    let (url, hits) = serve(move |_| (200, ok.clone()));
    let run = |model: &str, provider: &str, url: &str| {
        hj(&[
            "run",
            z,
            "--provider",
            provider,
            "--base-url",
            url,
            "--model",
            model,
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let o = run("m", "custom", &url);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("is not a results file"), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), answers_text);
    assert_eq!(hits.load(Ordering::SeqCst), 0);
    // A run with one judge records it, `custom` as `custom`.
    std::fs::remove_file(&out).unwrap();
    let o = run("m", "custom", &url);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let written = std::fs::read_to_string(&out).unwrap();
    for line in written.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["judge"]["provider"], "custom", "{line}");
        assert_eq!(v["judge"]["model"], "m");
        assert_eq!(v["judge"]["base_url"], url.as_str());
        assert_eq!(v["judge"]["metric"], "harmonic_eval");
    }
    let (results, problems) = io::from_jsonl(&written);
    assert!(problems.is_empty() && results.len() == 6, "{problems:?}");
    // The same run again resumes (nothing left); another model, provider or base URL is refused.
    let o = run("m", "custom", &url);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let sent = hits.load(Ordering::SeqCst);
    let other_url = url.replace("/v1", "/v2");
    for (model, provider, url) in [
        ("other-model", "custom", url.as_str()),
        ("m", "vllm", url.as_str()),
        ("m", "custom", other_url.as_str()),
    ] {
        let o = run(model, provider, url);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(2), "{model} {provider} {url}: {said}");
        assert!(
            said.contains("another judge") && said.contains("start a new file with another --out"),
            "{said}"
        );
        assert_eq!(std::fs::read_to_string(&out).unwrap(), written);
    }
    assert_eq!(
        hits.load(Ordering::SeqCst),
        sent,
        "nothing sent by a refused resume"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gamma_outside_the_sliders_range_gets_the_cores_sentence() {
    let dir = temp("gamma");
    let ids = planned_ids(&dir);
    let all: String = ids.iter().map(|id| answer(id, "4")).collect();
    let (o, _) = score_with(&dir, &[all]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let results = dir.join("results.jsonl");
    let r = results.to_str().unwrap();
    for bad in ["nan", "NaN", "0", "1e-320", "0.009", "1.5", "-1", "inf"] {
        let o = hj(&["figures", r, "--gamma", bad]);
        let want =
            harmonic_judge_core::lab::overall::checked_gamma(bad.parse().unwrap()).unwrap_err();
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", text(&o));
        assert_eq!(String::from_utf8_lossy(&o.stderr).trim(), want, "{bad}");
    }
    for good in ["0.01", "1"] {
        let o = hj(&["figures", r, "--gamma", good]);
        assert_eq!(o.status.code(), Some(0), "{good}: {}", text(&o));
        assert!(!text(&o).contains("NaN"), "{}", text(&o));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plan_checks_openais_request_limit_before_writing_and_none_for_vllm() {
    let dir = temp("limits");
    std::fs::write(dir.join("p.png"), PNG).unwrap();
    // 10,001 items sharing one image, five requests each: 50,005, over OpenAI's 50,000.
    let rows: String = (0..10_001)
        .map(|i| format!("{{\"id\": \"i{i}\", \"task\": \"ic\", \"text\": \"A red square.\", \"image\": \"p.png\"}}\n"))
        .collect();
    let data = dir.join("d.jsonl");
    std::fs::write(&data, rows).unwrap();
    let out = dir.join("requests.jsonl");
    let plan = |provider: &str| {
        hj(&[
            "plan",
            data.to_str().unwrap(),
            "--provider",
            provider,
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let o = plan("openai");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("OpenAI accepts at most 50000"),
        "{}",
        text(&o)
    );
    assert!(!out.exists(), "nothing written");
    assert!(std::fs::read_dir(&dir).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .ends_with(".tmp")));
    let o = plan("vllm");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written.lines().count(), 50_005);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 1×1 PNG.
const PNG: [u8; 67] = [
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

/// `hj` with `args`, which must end within `secs` (killed and failed otherwise: a read that
/// waits on a pipe or runs on through a device would hang here).
fn hj_within(secs: u64, args: &[&str]) -> Output {
    let mut child = Command::new(HJ)
        .args(args)
        .env_remove("HJ_API_KEY")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hj {args:?} did not end within {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[cfg(unix)]
#[test]
fn every_file_read_is_a_regular_file_within_its_stated_limit() {
    let dir = temp("special");
    let fifo = dir.join("pipe.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo");
    let fifo_zip = dir.join("pipe.zip");
    assert!(Command::new("mkfifo")
        .arg(&fifo_zip)
        .status()
        .unwrap()
        .success());
    let zero = "/dev/zero";
    let sample = sample();
    let sample = sample.to_str().unwrap();
    let out = dir.join("out.jsonl");
    let out = out.to_str().unwrap();
    let (fifo, fifo_zip) = (fifo.to_str().unwrap(), fifo_zip.to_str().unwrap());
    let folder = dir.to_str().unwrap();
    let not_regular = "is not a regular file (a pipe, a device or a socket)";
    fn judge(image: &str) -> Vec<&str> {
        vec![
            "judge",
            "--text",
            "A cat.",
            "--image",
            image,
            "--provider",
            "llama_server",
        ]
    }
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["plan", fifo, "--provider", "vllm", "--out", out],
            not_regular,
        ),
        (
            vec!["plan", zero, "--provider", "vllm", "--out", out],
            not_regular,
        ),
        (
            vec!["plan", fifo_zip, "--provider", "vllm", "--out", out],
            not_regular,
        ),
        (
            vec!["plan", folder, "--provider", "vllm", "--out", out],
            "is a folder, not a file",
        ),
        (
            vec![
                "plan",
                sample,
                "--images",
                fifo_zip,
                "--provider",
                "vllm",
                "--out",
                out,
            ],
            not_regular,
        ),
        (
            vec!["score", sample, fifo, "--provider", "vllm", "--out", out],
            not_regular,
        ),
        (
            vec!["score", sample, zero, "--provider", "vllm", "--out", out],
            not_regular,
        ),
        (
            vec!["score", sample, folder, "--provider", "vllm", "--out", out],
            "is a folder",
        ),
        (vec!["figures", fifo], not_regular),
        (vec!["figures", zero], not_regular),
        (
            vec!["run", sample, "--provider", "llama_server", "--out", fifo],
            not_regular,
        ),
        (judge(fifo), not_regular),
        (judge(zero), not_regular),
        (judge(folder), "is a folder"),
    ];
    for (args, sentence) in cases {
        let o = hj_within(20, &args);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {said}");
        assert!(said.contains(sentence), "{args:?}: {said}");
    }
    // Over a stated limit: refused by its size before a byte is read (sparse files, so the
    // test writes nothing of them).
    let sparse = |name: &str, len: u64| {
        let p = dir.join(name);
        std::fs::File::create(&p).unwrap().set_len(len).unwrap();
        p.to_str().unwrap().to_string()
    };
    let big_image = sparse("big.png", 60 << 20);
    let o = hj_within(20, &judge(&big_image));
    assert!(
        text(&o).contains("is 60 MB, more than the 50 MB an image may be"),
        "{}",
        text(&o)
    );
    let big_data = sparse("big.jsonl", 300 << 20);
    let o = hj_within(20, &["plan", &big_data, "--provider", "vllm", "--out", out]);
    assert!(
        text(&o).contains("is 300 MB, more than the 256 MB a dataset file may be"),
        "{}",
        text(&o)
    );
    // An answers file is read a line at a time, each at most 64 MB: one endless line is
    // refused at the limit, not read to the end.
    let endless = sparse("answers.jsonl", 70 << 20);
    let o = hj_within(
        30,
        &[
            "score",
            sample,
            &endless,
            "--provider",
            "vllm",
            "--out",
            out,
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("Line 1 of") && text(&o).contains("is longer than 64 MB"),
        "{}",
        text(&o)
    );
    assert!(!Path::new(out).exists(), "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}
