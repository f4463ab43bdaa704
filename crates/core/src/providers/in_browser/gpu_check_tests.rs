use super::*;
use crate::providers::in_browser::gpu::{status, Compute, Engine};
use crate::providers::in_browser::placement::Placement;

/// An answer as wllama gives it: the first token's alternatives (token, logprob) and timings.
fn answer(top: &[(&str, f64)], timings: Option<(f64, f64)>) -> String {
    let top: Vec<_> = top
        .iter()
        .map(|(t, l)| json!({"token": t, "logprob": l}))
        .collect();
    let mut v = json!({"choices": [{"message": {"content": top[0]["token"]},
        "logprobs": {"content": [{"token": top[0]["token"], "logprob": top[0]["logprob"],
        "top_logprobs": top}]}}]});
    if let Some((n, ms)) = timings {
        v["timings"] = json!({"prompt_n": n, "prompt_ms": ms});
    }
    v.to_string()
}

/// SmolLM2-135M's first token for the text-only question in Firefox's WebGPU (lavapipe), as
/// measured for issue 70 (rounded), and the same on the CPU a little apart.
fn smollm2(shift: f64) -> Ratings {
    read(&answer(
        &[
            ("A", -1.937),
            ("1", -1.984 + shift),
            ("5", -3.547),
            ("2", -3.731),
            ("4", -3.958),
            ("3", -3.968),
        ],
        Some((57.0, 21580.0)),
    ))
    .unwrap()
}

#[test]
fn the_ratings_are_read_from_the_first_tokens_alternatives_as_a_metric_reads_them() {
    let r = smollm2(0.0);
    assert_eq!(r.prompt, Some((57.0, 21580.0)));
    assert!((r.lp[0].unwrap() + 1.984).abs() < 1e-12);
    let p = r.p();
    assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    // "1" holds e^-1.984 of the ratings' mass e^-1.984 + e^-3.547 + ...
    let mass: f64 = [-1.984f64, -3.731, -3.968, -3.958, -3.547]
        .iter()
        .map(|l| l.exp())
        .sum();
    assert!((p[0] - (-1.984f64).exp() / mass).abs() < 1e-12, "{p:?}");
    assert!(read(&answer(&[("A", -0.1), ("The", -2.0)], None)).is_err());
    assert!(read("{\"choices\": []}").is_err());
}

#[test]
fn the_tolerance_follows_f16_rounding_over_the_models_shape() {
    let shape = Shape::read(&[
        "print_info: n_embd           = 576".to_string(),
        "print_info: n_layer          = 30".to_string(),
    ]);
    assert_eq!(
        shape,
        Shape {
            n_embd: 576,
            n_layer: 30
        }
    );
    let cpu = smollm2(0.0);
    // u·√(d·L) = 2^-11·√17280 ≈ 0.0642; Z = 3.968; ε = tanh(0.0642·3.968/2) ≈ 0.1267.
    let e = tolerance(shape, &cpu);
    assert!((e - (17280f64.sqrt() / 2048.0 * 3.968 / 2.0).tanh()).abs() < 1e-12);
    assert!((0.12..0.13).contains(&e), "{e}");
    // A shape the engine did not print widens it, never narrows it.
    assert!(tolerance(Shape::default(), &cpu) > e);
}

fn record(shift: f64, failed: Option<&str>) -> Record {
    let shape = Shape {
        n_embd: 576,
        n_layer: 30,
    };
    let q = &questions(true);
    Record {
        adapter: String::new(),
        compared: q
            .iter()
            .map(|q| Compared::new(q, shape, smollm2(0.0), smollm2(shift)))
            .collect(),
        failed: failed.map(str::to_string),
        gpu_s: 41.2,
        cpu_s: 3.4,
        ms_per_token: Some(470.0),
        failed_answering: None,
    }
}

#[test]
fn a_gpu_within_the_tolerance_is_chosen_and_the_status_says_so_with_the_figures() {
    let r = record(0.005, None);
    assert!(r.compared[0].diff > 0.0 && r.compared[0].diff < 0.01);
    let a = r.verdict(None).unwrap();
    assert_eq!(a.questions, 2);
    // 15 s at 470 ms a token: 31 tokens, 24 as a multiple of 8.
    assert_eq!(a.batch, 24);
    let engine = Engine {
        backend: Compute::WebGpu,
        threads: 1,
    };
    let s = status(
        engine,
        None,
        &Placement::default(),
        &Probe::default(),
        Some(&a),
        None,
    );
    assert!(
        s.starts_with(
            "Runs on the GPU (an unnamed adapter, probably a software one); Automatic chose it \
             after checking it against the CPU on 2 short questions: rating probabilities within 0.00"
        ),
        "{s}"
    );
    assert!(
        s.contains("GPU 41 s, CPU 3 s); prompt steps of at most 24 tokens; the CPU uses 1 thread."),
        "{s}"
    );
    assert!(!s.contains("experimental"), "{s}");
}

#[test]
fn a_gpu_beyond_the_tolerance_or_that_failed_keeps_the_cpu_and_says_why() {
    let far = record(1.5, None).verdict(None).unwrap_err();
    let NoGpu::CheckFailed(s) = &far else {
        panic!("{far:?}")
    };
    assert!(s.starts_with("Automatic checked the GPU (an unnamed adapter, probably a software one) against the CPU and a rating's probability differed by 0."), "{s}");
    assert!(s.contains("on the grounded question, beyond the tolerance of 0.1267 that f16 rounding explains, so it stays on the CPU for this model."), "{s}");
    // A test's tolerance of 0 fails any difference, and says where it came from.
    let forced = record(0.005, None).verdict(forced_tolerance(Some("0")));
    assert!(
        matches!(&forced, Err(NoGpu::CheckFailed(s)) if s.contains("tolerance of 0.0000 set by hj-gpu-check-tolerance")),
        "{forced:?}"
    );
    assert!(record(0.005, None)
        .verdict(forced_tolerance(Some("0.5")))
        .is_ok());
    assert_eq!(forced_tolerance(Some("-1")), None);
    assert_eq!(forced_tolerance(Some("x")), None);
    let failed = record(
        0.0,
        Some("ggml_webgpu: Queue wait timed out after 30000 ms"),
    )
    .verdict(None);
    assert!(
        matches!(&failed, Err(NoGpu::CheckFailed(s)) if s.contains("the GPU failed during the check (ggml_webgpu: Queue wait timed out after 30000 ms), so it stays on the CPU")),
        "{failed:?}"
    );
    // Remembered as JSON and read back the same.
    let r = record(0.005, None);
    let back: Record = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back, r);
}

#[test]
fn a_gpu_that_failed_while_answering_after_an_agreeing_check_keeps_the_model_on_the_cpu() {
    let mut r = record(0.005, None);
    r.adapter = "lavapipe".into();
    assert!(r.verdict(None).is_ok());
    // A record kept before the field existed reads as one without a failure.
    let mut old: serde_json::Value = serde_json::to_value(&r).unwrap();
    assert!(old.get("failed_answering").is_none(), "{old}");
    old.as_object_mut().unwrap().remove("failed_answering");
    assert_eq!(serde_json::from_value::<Record>(old).unwrap(), r);
    r.failed_answering = Some("ggml_webgpu: Queue wait timed out after 30000 ms".into());
    let back: Record = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back, r);
    // Even a forced tolerance that any GPU meets does not bring it back.
    for forced in [None, forced_tolerance(Some("1"))] {
        let why = r.verdict(forced).unwrap_err();
        let engine = Engine {
            backend: Compute::Cpu,
            threads: 1,
        };
        let s = status(
            engine,
            Some(&why),
            &Placement::default(),
            &Probe::default(),
            None,
            None,
        );
        assert_eq!(
            s,
            "Runs on the CPU (1 thread): the GPU (lavapipe) failed while answering with this model \
             (ggml_webgpu: Queue wait timed out after 30000 ms), so Automatic keeps the model on \
             the CPU from now on; choose \"The GPU\" to try it anyway."
        );
    }
}

#[test]
fn the_check_asks_a_grounded_question_then_its_words_alone_where_images_are_read() {
    let q = questions(true);
    assert_eq!(
        q.iter().map(|q| q.grounded).collect::<Vec<_>>(),
        [true, false]
    );
    assert!(q[0].body.contains("data:image/png;base64,"));
    assert!(!q[1].body.contains("image"));
    assert_eq!(questions(false).len(), 1);
    assert!(!questions(false)[0].grounded);
    let v: serde_json::Value = serde_json::from_str(&q[0].body).unwrap();
    let t: serde_json::Value = serde_json::from_str(&q[1].body).unwrap();
    assert_eq!(
        (v["max_tokens"].as_u64(), v["logprobs"].as_bool()),
        (Some(1), Some(true))
    );
    // The text-only question is the grounded one's beginning: the same system message, and the
    // user's words before the image; an engine that keeps its last prompt reads only the end.
    assert_eq!(v["messages"][0], t["messages"][0]);
    assert_eq!(
        v["messages"][1]["content"][0]["text"],
        t["messages"][1]["content"]
    );
    assert_eq!(v["messages"][1]["content"][1]["type"], "image_url");
    // The key names the adapter's words and features (sorted) and the model.
    let probe = Probe {
        features: vec!["shader-f16".into(), "core".into()],
        ..Probe::default()
    };
    assert_eq!(
        key(&probe, "url:m|p"),
        "hj-gpu-check:|||core,shader-f16|url:m|p"
    );
    assert_eq!(batch(None), 512);
    assert_eq!(batch(Some(0.01)), 512);
    assert_eq!(batch(Some(10_000.0)), 8);
}

#[test]
fn a_failure_under_the_gpu_setting_without_a_check_keeps_automatic_on_the_cpu() {
    // The record the page starts when the GPU setting's GPU fails and nothing was checked:
    // nothing compared, the failure kept; Automatic reads the failure, not "no rating".
    let r = Record {
        adapter: String::new(),
        compared: Vec::new(),
        failed: None,
        gpu_s: 0.0,
        cpu_s: 0.0,
        ms_per_token: None,
        failed_answering: Some("ggml_webgpu: Queue wait timed out after 30000 ms".into()),
    };
    let Err(NoGpu::CheckFailed(s)) = r.verdict(None) else {
        panic!("{:?}", r.verdict(None))
    };
    assert_eq!(
        s,
        "the GPU (an unnamed adapter, probably a software one) failed while answering with this \
         model (ggml_webgpu: Queue wait timed out after 30000 ms), so Automatic keeps the model \
         on the CPU from now on; choose \"The GPU\" to try it anyway."
    );
}
