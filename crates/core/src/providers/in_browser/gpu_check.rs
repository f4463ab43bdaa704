//! Automatic's check of a GPU against the CPU (issue 70): before Automatic puts a model on a
//! WebGPU adapter, the page asks the same two short questions of the same files on the CPU and
//! on the GPU, one text-only and one grounded (with an image), and compares the distribution
//! over the ratings 1–5 that a metric reads from the rating token's top log-probabilities. The
//! figures are remembered per adapter and model (`localStorage`, nothing secret); the verdict is
//! drawn from them each time, against the tolerance below.
//!
//! # The tolerance, from f16 arithmetic
//!
//! llama.cpp's WebGPU kernels compute in f16 where the adapter has `shader-f16`: each rounding
//! has a relative error of at most u = 2⁻¹¹ (f16's 11-bit significand). A dot product over the
//! hidden size d accumulates d such roundings; as independent errors of either sign they add in
//! quadrature, u·√d relative to the result, and the L layers' contributions to the residual
//! stream add theirs the same way: the hidden state that gives the logits carries a relative
//! error of about ρ = u·√(d·L) (SmolLM2-135M: d = 576, L = 30, ρ ≈ 0.064). A rating's
//! log-probability is a difference of logits, lp = z − logsumexp(z), so it moves by about
//! δ = ρ·|lp| (the largest of the ratings' |lp| on the CPU, Z, bounds them all). When every
//! rating's log-probability moves by at most δ, a rating's log-odds against the others move by
//! at most 2δ, and p = σ(x) moves by at most σ(δ) − σ(−δ) = tanh(δ/2). So the tolerance for
//! each question is ε = tanh(u·√(d·L)·Z / 2), with d and L from the engine's own lines and Z
//! from the CPU's answer: a difference beyond it is more than f16 rounding explains.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::gpu::{NoGpu, Probe};
use super::placement::adapter_name;
use crate::answers::completion::parse_chat_completion;
use crate::answers::rating::{rating_of_token, RATING_LEVELS};

/// f16's unit roundoff: 2⁻¹¹.
pub const F16_ROUNDING: f64 = 1.0 / 2048.0;

/// llama.cpp's WebGPU backend aborts when one wait on the queue passes 30 s
/// (`ggml_webgpu: Queue wait timed out after 30000 ms`).
pub const QUEUE_WAIT_MS: f64 = 30_000.0;

/// The prompt batch of the check's GPU engine, chosen before any speed is measured. On the
/// slowest adapter seen (Mesa's lavapipe, a CPU emulating a GPU, in Firefox) a step's time hardly
/// depends on its tokens: one token 8.4 s, then about 17 s for anything from 6 to 16 tokens and
/// about 20 s for 32, when the machine is quiet; 40 tokens in one step passed the 30 s queue wait.
/// So a step holds the questions' whole text before the image (23 tokens with SmolLM2's
/// template): 24 keeps about the margin 16 kept, in one step fewer (the questions below: 4 steps,
/// against 5 in steps of 16 and 8 in steps of 8). (32 left too little: round 56's CI, on a busier
/// machine, passed the 30 s on the first step.)
pub const CHECK_BATCH: u32 = 24;

/// Where a check's figures are remembered: this prefix, the adapter, the model.
pub const STORAGE_PREFIX: &str = "hj-gpu-check:";

/// A tolerance to use instead of the argued one, for tests only (a number in localStorage under
/// this key; `0` makes any difference a failed check). Documented in docs/performance.md.
pub const TOLERANCE_KEY: &str = "hj-gpu-check-tolerance";

/// A 16×12 PNG: a red square on white.
const IMAGE: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAMCAIAAADkharWAAAAG0lEQVR42mP4TyJgoEjDCTk5rGhUA3010CSmATfqv5CFBqMBAAAAAElFTkSuQmCC";

/// One question of the check.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    pub criterion: &'static str,
    pub grounded: bool,
    /// The OpenAI-format request (one token, its top log-probabilities).
    pub body: String,
}

/// What both questions ask.
const ASK: &str = "Rate \"A red square on white.\" from 1 to 5.";

/// The check's questions: a grounded one where the model reads images, asked first, then the
/// same words without the image (text-only). The text-only question is the grounded one's
/// beginning, so an engine that keeps its last prompt (wllama does) reads only its last few
/// tokens (6 of 29 with SmolLM2): on lavapipe one step instead of two. Short (45 and 29 tokens
/// with SmolLM2's template and the suite's projector; the system message is empty, which keeps
/// the template from adding its own, so that the text before the image fits one step of
/// [`CHECK_BATCH`]), and worded so that the first token's alternatives hold every rating
/// (SmolLM2-135M, native llama-server on the CPU, the top 20: 0.68/0.10/0.07/0.05/0.10 with the
/// image), not one rating alone, whose distribution would be 1 for any engine. The alternatives
/// asked for are the metrics'.
pub fn questions(vision: bool) -> Vec<Question> {
    let ask = |content: serde_json::Value| {
        json!({
            "messages": [
                {"role": "system", "content": ""},
                {"role": "user", "content": content},
            ],
            "max_tokens": 1,
            "temperature": 0,
            "logprobs": true,
            "top_logprobs": super::ALTERNATIVES,
        })
        .to_string()
    };
    let mut out = Vec::new();
    if vision {
        out.push(Question {
            criterion: "caption",
            grounded: true,
            body: ask(json!([
                {"type": "text", "text": ASK},
                {"type": "image_url", "image_url": {"url": IMAGE}},
            ])),
        });
    }
    out.push(Question {
        criterion: "caption",
        grounded: false,
        body: ask(json!(ASK)),
    });
    out
}

/// What one answer says of the ratings at its first token.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratings {
    /// ln of each rating's mass among the top alternatives (`None`: not among them).
    pub lp: [Option<f64>; RATING_LEVELS],
    /// The prompt's tokens read and the milliseconds it took (llama.cpp's timings), if said.
    pub prompt: Option<(f64, f64)>,
}

impl Ratings {
    /// The distribution over the ratings a metric reads: the masses renormalised.
    pub fn p(&self) -> [f64; RATING_LEVELS] {
        let mass = self.lp.map(|l| l.map_or(0.0, f64::exp));
        let total: f64 = mass.iter().sum();
        mass.map(|m| if total > 0.0 { m / total } else { 0.0 })
    }

    /// Z: the largest |lp| of the ratings present.
    fn scale(&self) -> f64 {
        self.lp.iter().flatten().fold(0.0, |z, l| z.max(l.abs()))
    }
}

/// Reads an answer to a [`Question`]; `Err` (the reason) when it carries no rating among its
/// first token's alternatives.
pub fn read(body: &str) -> Result<Ratings, String> {
    let c = parse_chat_completion(body).map_err(|e| e.to_string())?;
    let step = c
        .steps
        .as_ref()
        .and_then(|s| s.first())
        .ok_or("no log-probabilities in the answer")?;
    let mut mass = [0.0; RATING_LEVELS];
    for (token, p) in step.alternatives() {
        if let Some(r) = rating_of_token(token) {
            mass[r - 1] += p;
        }
    }
    if mass.iter().sum::<f64>() <= 0.0 {
        return Err("no rating among the first token's alternatives".into());
    }
    let v: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    let t = &v["timings"];
    let prompt = t["prompt_n"].as_f64().zip(t["prompt_ms"].as_f64());
    Ok(Ratings {
        lp: mass.map(|m| (m > 0.0).then(|| m.ln())),
        prompt,
    })
}

/// The model's shape as the engine printed it (`print_info: n_embd = 576`, `n_layer = 30`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Shape {
    pub n_embd: u32,
    pub n_layer: u32,
}

impl Shape {
    pub fn read(lines: &[String]) -> Shape {
        let field = |name: &str| {
            lines.iter().find_map(|l| {
                let rest = l.split_once(&format!("{name} "))?.1.trim_start();
                rest.strip_prefix('=')?.trim().parse().ok()
            })
        };
        Shape {
            n_embd: field("n_embd").unwrap_or(0),
            n_layer: field("n_layer").unwrap_or(0),
        }
    }
}

/// ε = tanh(u·√(d·L)·Z / 2) (the module's argument). A shape the engine did not print counts as a
/// large model's (d = 8192, L = 80), which only widens the tolerance.
pub fn tolerance(shape: Shape, cpu: &Ratings) -> f64 {
    let d = if shape.n_embd > 0 { shape.n_embd } else { 8192 };
    let l = if shape.n_layer > 0 { shape.n_layer } else { 80 };
    (F16_ROUNDING * (f64::from(d) * f64::from(l)).sqrt() * cpu.scale() / 2.0).tanh()
}

/// One question's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Compared {
    pub criterion: String,
    pub grounded: bool,
    pub cpu: Ratings,
    pub gpu: Ratings,
    /// The largest difference of a rating's probability.
    pub diff: f64,
    pub tolerance: f64,
}

impl Compared {
    pub fn new(q: &Question, shape: Shape, cpu: Ratings, gpu: Ratings) -> Compared {
        let (a, b) = (cpu.p(), gpu.p());
        let diff = a
            .iter()
            .zip(b)
            .fold(0.0, |m: f64, (x, y)| m.max((x - y).abs()));
        Compared {
            criterion: q.criterion.into(),
            grounded: q.grounded,
            tolerance: tolerance(shape, &cpu),
            cpu,
            gpu,
            diff,
        }
    }
}

/// What a check found, as remembered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The adapter as named at the check (for the sentences).
    pub adapter: String,
    pub compared: Vec<Compared>,
    /// The GPU failed during the check (its words); then `compared` may be short.
    pub failed: Option<String>,
    /// Seconds the questions took on each (loads left out).
    pub gpu_s: f64,
    pub cpu_s: f64,
    /// The GPU's prompt speed, milliseconds a token (the questions' prompts together).
    pub ms_per_token: Option<f64>,
    /// The GPU failed while answering (the engine's words), after the check had agreed or under
    /// the GPU setting (then `compared` may be empty): from then on Automatic keeps this model
    /// on the CPU. Absent in records kept before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_answering: Option<String>,
}

/// A check that agreed: what the status line says of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Agreed {
    pub diff: f64,
    pub tolerance: f64,
    pub questions: usize,
    pub gpu_s: f64,
    pub cpu_s: f64,
    pub batch: u32,
}

impl Record {
    /// The verdict: agreed (every question within its tolerance, or within `forced` when a test
    /// set one), or why Automatic stays on the CPU.
    pub fn verdict(&self, forced: Option<f64>) -> Result<Agreed, NoGpu> {
        let failed = |s: String| Err(NoGpu::CheckFailed(s));
        let gpu = adapter_name(&[&self.adapter]);
        if let Some(why) = &self.failed {
            return failed(format!(
                "Automatic checked the GPU ({gpu}) against the CPU and the GPU failed during the \
                 check ({why}), so it stays on the CPU for this model."
            ));
        }
        if let Some(why) = &self.failed_answering {
            return failed(after_answering(why, &gpu));
        }
        if self.compared.is_empty() {
            return failed(format!(
                "Automatic's check of the GPU ({gpu}) found no rating in this model's answers on \
                 the CPU, so nothing could be compared and it stays on the CPU for this model."
            ));
        }
        let limit = |c: &Compared| forced.unwrap_or(c.tolerance);
        if let Some(c) = self.compared.iter().find(|c| c.diff > limit(c)) {
            return failed(format!(
                "Automatic checked the GPU ({gpu}) against the CPU and a rating's probability \
                 differed by {:.4} on the {} question, beyond the tolerance of {:.4}{}, so it stays \
                 on the CPU for this model.",
                c.diff,
                if c.grounded { "grounded" } else { "text-only" },
                limit(c),
                if forced.is_some() {
                    format!(" set by {TOLERANCE_KEY}")
                } else {
                    " that f16 rounding explains".into()
                }
            ));
        }
        let worst = |f: fn(&Compared) -> f64| self.compared.iter().map(f).fold(0.0, f64::max);
        Ok(Agreed {
            diff: worst(|c| c.diff),
            tolerance: forced.unwrap_or_else(|| {
                self.compared
                    .iter()
                    .map(|c| c.tolerance)
                    .fold(f64::INFINITY, f64::min)
            }),
            questions: self.compared.len(),
            gpu_s: self.gpu_s,
            cpu_s: self.cpu_s,
            batch: batch(self.ms_per_token),
        })
    }
}

/// Why Automatic keeps a model on the CPU after the GPU (`adapter`, named) failed while
/// answering with it (`why`, the engine's words), whether Automatic's check or the GPU setting
/// had put it there.
pub fn after_answering(why: &str, adapter: &str) -> String {
    format!(
        "the GPU ({adapter}) failed while answering with this model ({why}), so Automatic keeps \
         the model on the CPU from now on; choose \"The GPU\" to try it anyway."
    )
}

/// The prompt batch for this adapter, from its measured speed: as many tokens as one step reads
/// in half the queue wait at `ms_per_token` (a multiple of 8, 8 to 512; the speed was measured
/// on a step that also paid the step's fixed cost, so the estimate errs long). 512 (llama.cpp's
/// default) when not measured.
pub fn batch(ms_per_token: Option<f64>) -> u32 {
    match ms_per_token {
        Some(ms) if ms > 0.0 => {
            let n = (QUEUE_WAIT_MS / 2.0 / ms).floor().clamp(8.0, 512.0) as u32;
            n / 8 * 8
        }
        _ => 512,
    }
}

/// What the status line adds on the GPU after an agreeing check.
pub fn agreed_sentence(a: &Agreed) -> String {
    format!(
        "Automatic chose it after checking it against the CPU on {} short question{}: rating \
         probabilities within {:.4} of the CPU's (tolerance {:.4}, from f16 rounding; GPU {:.0} s, \
         CPU {:.0} s); prompt steps of at most {} tokens",
        a.questions,
        if a.questions == 1 { "" } else { "s" },
        a.diff,
        a.tolerance,
        a.gpu_s,
        a.cpu_s,
        a.batch
    )
}

/// The key a check is remembered under: the adapter (its words and features) and the model.
pub fn key(probe: &Probe, model: &str) -> String {
    let mut features = probe.features.clone();
    features.sort();
    format!(
        "{STORAGE_PREFIX}{}|{}|{}|{}|{model}",
        probe.vendor,
        probe.architecture,
        probe.device,
        features.join(",")
    )
}

/// A tolerance forced by a test ([`TOLERANCE_KEY`]): a finite number from 0 to 1.
pub fn forced_tolerance(stored: Option<&str>) -> Option<f64> {
    stored?
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|t| (0.0..=1.0).contains(t))
}

#[cfg(test)]
#[path = "gpu_check_tests.rs"]
mod tests;
