//! Automatic's check of the GPU against the CPU (issue 70), as the page runs it: once per
//! adapter and model, the same files are loaded on the CPU and on the GPU and asked the core's
//! short questions ([`gpu_check::questions`]); the figures are remembered in localStorage (no
//! secret: the adapter's words and features, the model's URLs or file names, probabilities and
//! seconds) and the core's verdict decides where the model runs. What is compared, the tolerance
//! and the sentences are the core's (`providers::in_browser::gpu_check`).

use wasm_bindgen::JsValue;

use super::storage::{load_setting, save_setting};
use crate::providers::in_browser::gpu::{self, Compute, NoGpu, Probe};
use crate::providers::in_browser::gpu_check::{
    self as check, Agreed, Compared, Record, Shape, CHECK_BATCH,
};
use crate::providers::in_browser::placement::{adapter_name, Placement};

/// The most one question of the check may take: up to four steps of CHECK_BATCH tokens on a
/// slow adapter, with room (the engine's own queue wait, 30 s a step, ends a GPU slower than that
/// first).
const ASK_MS: u32 = 300_000;

/// What the check needs of the engine's bridge (`web::in_browser` gives it).
pub(crate) trait Bridge {
    /// Loads the model (on the GPU when `gpu`, prompt steps of `batch` tokens there, 0 for the
    /// engine's default): the bridge's facts of it.
    async fn load(&self, gpu: bool, batch: u32) -> Result<JsValue, String>;
    /// One question to the loaded engine: its answer's JSON text or the bridge's error word.
    async fn ask(&self, body: &str, limit_ms: u32) -> Result<String, String>;
    /// The engine's lines of a load.
    fn lines(&self, loaded: &JsValue) -> Vec<String>;
    /// Whether the loaded model reads images.
    fn vision(&self, loaded: &JsValue) -> bool;
    /// Why a load asked for the GPU is not on it.
    fn why_not(&self, loaded: &JsValue) -> Option<NoGpu>;
}

/// What Automatic loads: the bridge's facts of the engine it leaves loaded, why it is not on the
/// GPU (if not), and the check's figures when it is.
type Outcome = (JsValue, Option<NoGpu>, Option<Agreed>);

/// Automatic with a usable adapter: the remembered check for this adapter and model, or a new
/// one, then the GPU (it agreed) or the CPU (it did not, and why).
pub(super) async fn automatic(
    loader: &impl Bridge,
    probe: &Probe,
    model: &str,
    progress: &dyn Fn(String, f64),
) -> Result<Outcome, String> {
    let key = check::key(probe, model);
    let forced = check::forced_tolerance(load_setting(check::TOLERANCE_KEY).as_deref());
    let remembered = kept(&key);
    let (record, engine) = match remembered {
        Some(r) => (r, None),
        None => match run(loader, probe, progress).await? {
            Ran::Checked(record, engine) => {
                if let Ok(json) = serde_json::to_string(&record) {
                    // Not kept (storage full or off): the check runs again next time.
                    let _ = save_setting(&key, &json);
                }
                (record, engine)
            }
            // The GPU did not load (the reason is the load's): nothing to remember.
            Ran::NoGpu(loaded, why) => return Ok((loaded, Some(why), None)),
        },
    };
    match (record.verdict(forced), engine) {
        // The check's own engine reads in steps of CHECK_BATCH; the steps chosen from the
        // measured speed apply from the next load.
        (Ok(agreed), Some(engine)) => Ok((
            engine,
            None,
            Some(Agreed {
                batch: CHECK_BATCH,
                ..agreed
            }),
        )),
        (Ok(agreed), None) => {
            let loaded = loader.load(true, agreed.batch).await?;
            if gpu::used(&loader.lines(&loaded)) == Compute::WebGpu {
                Ok((loaded, None, Some(agreed)))
            } else {
                let why = loader.why_not(&loaded);
                Ok((loaded, why, None))
            }
        }
        (Err(why), _) => Ok((loader.load(false, 0).await?, Some(why), None)),
    }
}

/// The check's figures kept under `key`, if any (and readable).
fn kept(key: &str) -> Option<Record> {
    load_setting(key).and_then(|s| serde_json::from_str::<Record>(&s).ok())
}

/// The prompt steps for the GPU setting from the check kept under `key` (its measured speed),
/// if one was kept and measured it.
pub(super) fn kept_steps(key: &str) -> Option<u32> {
    kept(key)?.ms_per_token.map(|ms| check::batch(Some(ms)))
}

/// The GPU (chosen by Automatic's check, or by the GPU setting) failed while answering (`why`,
/// the engine's words): the record under `key` keeps it (one is started where the GPU setting
/// ran without a check, naming `adapter`), so Automatic keeps this model on the CPU from now on
/// and does not check again; the status line's reason under Automatic.
pub(super) fn remember_failure(key: &str, adapter: &str, why: &str) -> NoGpu {
    let why: String = why.chars().take(200).collect();
    let mut record = kept(key).unwrap_or_else(|| Record {
        adapter: adapter.to_string(),
        compared: Vec::new(),
        failed: None,
        gpu_s: 0.0,
        cpu_s: 0.0,
        ms_per_token: None,
        failed_answering: None,
    });
    record.failed_answering = Some(why.clone());
    if let Ok(json) = serde_json::to_string(&record) {
        // Not kept (storage full or off): the next load checks again, as for a new model.
        let _ = save_setting(key, &json);
    }
    NoGpu::CheckFailed(check::after_answering(
        &why,
        &adapter_name(&[&record.adapter]),
    ))
}

enum Ran {
    /// The figures, and the GPU engine when it is still loaded.
    Checked(Record, Option<JsValue>),
    /// The GPU did not load; the bridge's facts of the CPU engine it loaded instead.
    NoGpu(JsValue, NoGpu),
}

/// Loads the model on the CPU and asks the questions, then on the GPU (prompt steps of
/// [`CHECK_BATCH`]) and asks them again.
async fn run(
    loader: &impl Bridge,
    probe: &Probe,
    progress: &dyn Fn(String, f64),
) -> Result<Ran, String> {
    let cpu = loader.load(false, 0).await?;
    let questions = check::questions(loader.vision(&cpu));
    progress("checking".into(), 0.0);
    let start = js_sys::Date::now();
    let mut asked = Vec::new();
    for q in questions {
        // A question the model answers with no rating on the CPU compares nothing.
        if let Ok(r) = check::read(&loader.ask(&q.body, ASK_MS).await?) {
            asked.push((q, r));
        }
    }
    let cpu_s = (js_sys::Date::now() - start) / 1000.0;
    let mut record = Record {
        adapter: gpu::adapter_words(&Placement::default(), probe),
        compared: Vec::new(),
        failed: None,
        gpu_s: 0.0,
        cpu_s,
        ms_per_token: None,
        failed_answering: None,
    };
    if asked.is_empty() {
        return Ok(Ran::Checked(record, None));
    }
    progress("checking".into(), 0.3);
    let gpu = loader.load(true, CHECK_BATCH).await?;
    let lines = loader.lines(&gpu);
    if gpu::used(&lines) != Compute::WebGpu {
        let why = loader
            .why_not(&gpu)
            .unwrap_or(NoGpu::EngineDeclined(String::new()));
        return Ok(Ran::NoGpu(gpu, why));
    }
    progress("checking".into(), 0.6);
    let shape = Shape::read(&lines);
    let start = js_sys::Date::now();
    record.adapter = gpu::adapter_words(&Placement::read(&lines), probe);
    let mut engine = Some(gpu);
    // The GPU's prompt tokens and milliseconds, over the questions answered.
    let mut read = (0.0, 0.0);
    for (q, cpu) in asked {
        let answer = match loader.ask(&q.body, ASK_MS).await {
            Ok(a) => check::read(&a).map_err(|e| format!("its answer: {e}")),
            // The bridge started the engine again on the CPU by itself.
            Err(e) if e.starts_with("gpu-failed:") => {
                engine = None;
                Err(e["gpu-failed:".len()..].to_string())
            }
            Err(e) if e == "idle-timeout" => Err(format!("no answer within {} s", ASK_MS / 1000)),
            Err(e) => return Err(e),
        };
        match answer {
            Ok(g) => {
                if let Some((n, ms)) = g.prompt.filter(|(n, _)| *n > 0.0) {
                    read = (read.0 + n, read.1 + ms);
                    record.ms_per_token = Some(read.1 / read.0);
                }
                record.compared.push(Compared::new(&q, shape, cpu, g));
            }
            Err(why) => {
                record.failed = Some(why);
                engine = None;
                break;
            }
        }
        progress("checking".into(), 0.8);
    }
    record.gpu_s = (js_sys::Date::now() - start) / 1000.0;
    Ok(Ran::Checked(record, engine))
}
