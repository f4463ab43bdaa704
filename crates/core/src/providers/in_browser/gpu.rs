//! Where the in-page engine computes: the GPU setting (`auto`, `gpu`, `cpu`), what to ask the
//! engine for, which backend it then used (read from llama.cpp's own log lines), and the one
//! sentence that says so, with the reason when the GPU was asked for and not used.
//!
//! The browser's facts come from the bridge (`navigator.gpu`, the adapter and its features);
//! llama.cpp's WebGPU backend needs the adapter's `shader-f16` feature, so an adapter without
//! it (Chromium's SwiftShader, the software adapter of a machine with no GPU) is not offered
//! to the engine at all.

use serde::Serialize;

use super::gpu_check::{agreed_sentence, Agreed};
use super::placement::{adapter_name, Placement};

/// The GPU setting of the in-page judge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GpuChoice {
    /// The GPU once this browser's adapter has given the CPU's ratings for this model in
    /// Automatic's check ([`super::gpu_check`]), the CPU until then and where it did not.
    #[default]
    Auto,
    /// The GPU whenever the browser offers one that the engine can use (experimental).
    Gpu,
    /// The CPU always.
    Cpu,
}

/// What the panel says while Automatic's check runs.
pub const CHECKING: &str = "Checking the GPU against the CPU on two short questions, once for \
    this model and adapter…";

/// The adapter feature llama.cpp's WebGPU backend requires.
pub const NEEDED_FEATURE: &str = "shader-f16";

impl GpuChoice {
    pub const ALL: [GpuChoice; 3] = [GpuChoice::Auto, GpuChoice::Gpu, GpuChoice::Cpu];

    pub fn id(self) -> &'static str {
        match self {
            GpuChoice::Auto => "auto",
            GpuChoice::Gpu => "gpu",
            GpuChoice::Cpu => "cpu",
        }
    }

    /// Unknown or empty text is the default, `auto`.
    pub fn from_id(id: &str) -> GpuChoice {
        match id.trim() {
            "gpu" => GpuChoice::Gpu,
            "cpu" => GpuChoice::Cpu,
            _ => GpuChoice::Auto,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            GpuChoice::Auto => "Automatic (the GPU once checked against the CPU here)",
            GpuChoice::Gpu => "The GPU (WebGPU) unchecked, experimental",
            GpuChoice::Cpu => "The CPU",
        }
    }

    /// Whether the GPU may be asked for at all (Automatic's only after its check).
    pub fn wants_gpu(self) -> bool {
        self != GpuChoice::Cpu
    }
}

/// Where the engine computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compute {
    #[serde(rename = "webgpu")]
    WebGpu,
    Cpu,
}

impl Compute {
    pub fn id(self) -> &'static str {
        match self {
            Compute::WebGpu => "webgpu",
            Compute::Cpu => "cpu",
        }
    }

    pub fn from_id(id: &str) -> Option<Compute> {
        match id {
            "webgpu" => Some(Compute::WebGpu),
            "cpu" => Some(Compute::Cpu),
            _ => None,
        }
    }
}

/// How a result was computed by the in-page judge: recorded in exports, the history and share
/// links, and part of the answer cache's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Engine {
    pub backend: Compute,
    pub threads: u32,
}

/// What the browser offers, as the bridge read it before loading.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Probe {
    /// `navigator.gpu` exists (in a worker too).
    pub api: bool,
    /// `requestAdapter()` gave an adapter.
    pub adapter: bool,
    pub features: Vec<String>,
    /// The adapter's own words: vendor, architecture and device ("google", "swiftshader"; all
    /// empty for Firefox's software adapter).
    pub vendor: String,
    pub architecture: String,
    pub device: String,
}

impl Probe {
    fn has(&self, feature: &str) -> bool {
        self.features.iter().any(|f| f == feature)
    }

    /// "google swiftshader" (vendor and architecture), the device where those are empty, or ""
    /// when the adapter says nothing of itself.
    fn named(&self) -> String {
        let named = [self.vendor.trim(), self.architecture.trim()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        if named.is_empty() {
            self.device.trim().to_string()
        } else {
            named
        }
    }
}

/// Why the GPU is not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoGpu {
    /// The setting is `cpu`.
    Chosen,
    /// `auto`, and its check of this adapter against the CPU failed (the sentence, from
    /// [`super::gpu_check::Record::verdict`]).
    CheckFailed(String),
    /// The browser has no WebGPU.
    NoApi,
    /// WebGPU, but no adapter.
    NoAdapter,
    /// An adapter that lacks a feature the engine needs (named, with the adapter's name).
    MissingFeature {
        feature: &'static str,
        adapter: String,
    },
    /// Asked for, and llama.cpp still put every layer on the CPU (its log line, if any).
    EngineDeclined(String),
    /// The GPU ran out of memory loading the model; the CPU took over.
    OutOfMemory,
    /// Loading on the GPU failed otherwise; the CPU took over (the engine's words).
    Failed(String),
    /// The GPU failed while answering (a queue wait that timed out, a crash): the engine was
    /// started again on the CPU by itself, with the same files (the engine's words).
    FailedWhileAnswering(String),
}

/// The bridge's `gpuError` for an engine started again on the CPU after the GPU failed while
/// answering: this prefix, then the reason.
pub const ANSWERING: &str = "answering:";

/// What to ask the engine for: `Ok(())` = offload every layer to WebGPU (the engine's default),
/// `Err(why)` = CPU only (`n_gpu_layers: 0`, which also keeps the engine from touching WebGPU).
pub fn plan(choice: GpuChoice, probe: &Probe) -> Result<(), NoGpu> {
    if choice == GpuChoice::Cpu {
        return Err(NoGpu::Chosen);
    }
    if !probe.api {
        Err(NoGpu::NoApi)
    } else if !probe.adapter {
        Err(NoGpu::NoAdapter)
    } else if !probe.has(NEEDED_FEATURE) {
        Err(NoGpu::MissingFeature {
            feature: NEEDED_FEATURE,
            adapter: probe.named(),
        })
    } else {
        Ok(())
    }
}

/// Where the engine computes, from llama.cpp's own lines while loading ([`Placement`]): the
/// GPU when it offloaded layers to it or holds (some of) the weights in a buffer that is not the
/// CPU's (`load_tensors:       WebGPU model buffer size = 80 MiB`).
pub fn used(engine_lines: &[String]) -> Compute {
    if Placement::read(engine_lines).on_gpu() {
        Compute::WebGpu
    } else {
        Compute::Cpu
    }
}

/// The engine's own line about offloading, if it wrote one ("offloaded 0/31 layers to GPU").
pub fn offload_line(engine_lines: &[String]) -> Option<String> {
    engine_lines
        .iter()
        .find(|l| l.contains("layers to GPU"))
        .map(|l| l.trim().to_string())
}

/// The reason for a GPU load that failed, from what the engine threw.
pub fn failed(msg: &str) -> NoGpu {
    if let Some(reason) = msg.strip_prefix(ANSWERING) {
        return NoGpu::FailedWhileAnswering(reason.chars().take(200).collect());
    }
    if super::about_memory(msg) {
        NoGpu::OutOfMemory
    } else {
        NoGpu::Failed(msg.chars().take(200).collect())
    }
}

/// The `gpu-status` sentence: which backend runs, and when the GPU was asked for and is not
/// used, why. On the GPU it says what the engine put there (`placement`, from its own lines) and
/// on which adapter: as the engine named it, else as the browser did (`probe`), else
/// [`super::placement::UNNAMED`]; after Automatic's check (`agreed`), what it found, else that it
/// is experimental, and the prompt steps (`steps`) when a kept check's measured speed chose them.
pub fn status(
    engine: Engine,
    why: Option<&NoGpu>,
    placement: &Placement,
    probe: &Probe,
    agreed: Option<&Agreed>,
    steps: Option<u32>,
) -> String {
    let threads = match engine.threads {
        1 => "1 thread".to_string(),
        n => format!("{n} threads"),
    };
    match (engine.backend, why) {
        (Compute::WebGpu, _) => {
            let adapter =
                adapter_name(&[placement.adapter.as_deref().unwrap_or(""), &probe.named()]);
            let details = placement.details();
            format!(
                "Runs on the GPU ({adapter}){}{}; {}the CPU uses {threads}.",
                if agreed.is_some() {
                    ""
                } else {
                    ", experimental"
                },
                if details.is_empty() {
                    String::new()
                } else {
                    format!(": {details}")
                },
                match (agreed, steps) {
                    (Some(a), _) => format!("{}; ", agreed_sentence(a)),
                    (None, Some(n)) => format!(
                        "prompt steps of at most {n} tokens, from the speed Automatic's check \
                         measured; "
                    ),
                    (None, None) => String::new(),
                }
            )
        }
        (Compute::Cpu, None) | (Compute::Cpu, Some(NoGpu::Chosen)) => {
            format!("Runs on the CPU ({threads}).")
        }
        (Compute::Cpu, Some(why)) => format!("Runs on the CPU ({threads}): {}", reason(why)),
    }
}

/// The adapter's own words: as the engine named it, else as the browser did; "" when neither
/// said anything.
pub fn adapter_words(placement: &Placement, probe: &Probe) -> String {
    let named = probe.named();
    [placement.adapter.as_deref().unwrap_or(""), &named]
        .iter()
        .map(|w| w.trim())
        .find(|w| !w.is_empty())
        .unwrap_or("")
        .to_string()
}

/// The answer cache's part of a loaded model's identity: the bridge's (files and threads) and
/// where it computes, so an answer from one backend is never returned for the other.
pub fn identity(bridge: &str, backend: Compute) -> String {
    format!("{bridge}|backend:{}", backend.id())
}

/// What the setting will do, before a model is loaded.
pub fn expect(choice: GpuChoice, probe: &Probe) -> String {
    match plan(choice, probe) {
        Ok(()) if choice == GpuChoice::Auto => format!(
            "Will check the GPU ({}) against the CPU once for this model (two short questions) \
             and use it if its ratings agree; the CPU otherwise, and this line says why.",
            adapter_name(&[&probe.named()])
        ),
        Ok(()) => format!(
            "Will try the GPU ({}); if it fails to start, the CPU takes over and this line says why.",
            adapter_name(&[&probe.named()])
        ),
        Err(NoGpu::Chosen) => "Will run on the CPU.".into(),
        Err(why) => format!("Will run on the CPU: {}", reason(&why)),
    }
}

/// Why the GPU is not used, as a sentence.
pub fn reason(why: &NoGpu) -> String {
    match why {
        NoGpu::Chosen => "the CPU was chosen.".into(),
        NoGpu::CheckFailed(sentence) => sentence.clone(),
        NoGpu::NoApi => "this browser has no WebGPU (navigator.gpu is missing).".into(),
        NoGpu::NoAdapter => "this browser has WebGPU but offered no GPU adapter (none, or it is \
            blocked; Chrome's chrome://gpu says why)."
            .into(),
        NoGpu::MissingFeature { feature, adapter } => format!(
            "the GPU adapter{} lacks the {feature} feature, which llama.cpp's WebGPU backend needs.",
            if adapter.is_empty() { String::new() } else { format!(" ({adapter})") }
        ),
        NoGpu::EngineDeclined(line) => format!(
            "llama.cpp was asked for the GPU but kept every layer on the CPU{}.",
            if line.is_empty() { String::new() } else { format!(" (it said: {line})") }
        ),
        NoGpu::OutOfMemory => "the GPU ran out of memory loading this model, so the CPU took over.".into(),
        NoGpu::Failed(msg) => format!("the GPU failed to start ({msg}), so the CPU took over."),
        NoGpu::FailedWhileAnswering(msg) => format!(
            "the GPU failed while answering ({msg}), so the engine started again on the CPU by \
             itself, with the same model. Load the model again to try the GPU once more."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(features: &[&str]) -> Probe {
        Probe {
            api: true,
            adapter: true,
            features: features.iter().map(|s| s.to_string()).collect(),
            vendor: "google".into(),
            architecture: "swiftshader".into(),
            device: String::new(),
        }
    }

    #[test]
    fn a_gpu_that_failed_while_answering_is_said_with_the_engines_words() {
        let why = failed("answering:ggml_webgpu: Queue wait timed out after 30000 ms");
        assert_eq!(
            why,
            NoGpu::FailedWhileAnswering("ggml_webgpu: Queue wait timed out after 30000 ms".into())
        );
        let engine = Engine {
            backend: Compute::Cpu,
            threads: 1,
        };
        assert_eq!(
            status(
                engine,
                Some(&why),
                &Placement::default(),
                &Probe::default(),
                None,
                None
            ),
            "Runs on the CPU (1 thread): the GPU failed while answering (ggml_webgpu: Queue wait \
             timed out after 30000 ms), so the engine started again on the CPU by itself, with \
             the same model. Load the model again to try the GPU once more."
        );
        // A failure at load time keeps its own sentence.
        assert_eq!(failed("(ABORT)"), NoGpu::Failed("(ABORT)".into()));
    }

    #[test]
    fn the_setting_round_trips_and_defaults_to_auto() {
        for c in GpuChoice::ALL {
            assert_eq!(GpuChoice::from_id(c.id()), c);
        }
        assert_eq!(GpuChoice::from_id(""), GpuChoice::Auto);
        assert_eq!(GpuChoice::from_id("metal"), GpuChoice::Auto);
        assert_eq!(GpuChoice::default(), GpuChoice::Auto);
    }

    #[test]
    fn auto_asks_for_a_usable_gpu_after_its_check_and_the_forced_gpu_is_labelled_experimental() {
        // Automatic plans the GPU where the engine can use it; the page checks it against the
        // CPU first (gpu_check) and says so before loading.
        assert_eq!(plan(GpuChoice::Auto, &probe(&[NEEDED_FEATURE])), Ok(()));
        assert!(
            expect(GpuChoice::Auto, &probe(&[NEEDED_FEATURE]))
                .starts_with("Will check the GPU (google swiftshader) against the CPU once"),
            "{}",
            expect(GpuChoice::Auto, &probe(&[NEEDED_FEATURE]))
        );
        assert!(matches!(
            plan(GpuChoice::Auto, &probe(&[])),
            Err(NoGpu::MissingFeature { .. })
        ));
        assert!(GpuChoice::Gpu.label().contains("experimental"));
        assert!(GpuChoice::Auto.wants_gpu() && GpuChoice::Gpu.wants_gpu());
        assert!(!GpuChoice::Cpu.wants_gpu());
        assert_eq!(
            plan(GpuChoice::Cpu, &probe(&[NEEDED_FEATURE])),
            Err(NoGpu::Chosen)
        );
    }

    #[test]
    fn the_gpu_is_asked_for_only_where_the_engine_can_use_it() {
        assert_eq!(
            plan(GpuChoice::Gpu, &probe(&[NEEDED_FEATURE, "timestamp-query"])),
            Ok(())
        );
        assert_eq!(plan(GpuChoice::Gpu, &Probe::default()), Err(NoGpu::NoApi));
        let no_adapter = Probe {
            api: true,
            ..Probe::default()
        };
        assert_eq!(plan(GpuChoice::Gpu, &no_adapter), Err(NoGpu::NoAdapter));
        // Chromium's SwiftShader adapter, as seen on this project's test machine.
        let why = plan(GpuChoice::Gpu, &probe(&["float32-filterable"])).unwrap_err();
        assert_eq!(
            why,
            NoGpu::MissingFeature {
                feature: "shader-f16",
                adapter: "google swiftshader".into()
            }
        );
        assert!(
            reason(&why).contains("(google swiftshader) lacks the shader-f16 feature"),
            "{}",
            reason(&why)
        );
    }

    #[test]
    fn the_backend_used_is_read_from_the_engines_buffer_lines() {
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cpu = lines(&[
            "load_tensors: offloaded 0/31 layers to GPU",
            "load_tensors:   CPU_Mapped model buffer size =    81.00 MiB",
            "llama_kv_cache:        CPU KV buffer size =    90.00 MiB",
        ]);
        assert_eq!(used(&cpu), Compute::Cpu);
        assert_eq!(
            offload_line(&cpu).as_deref(),
            Some("load_tensors: offloaded 0/31 layers to GPU")
        );
        let gpu = lines(&[
            "load_tensors: offloaded 31/31 layers to GPU",
            "load_tensors:   CPU_Mapped model buffer size =    21.00 MiB",
            "load_tensors:       WebGPU model buffer size =    60.00 MiB",
        ]);
        assert_eq!(used(&gpu), Compute::WebGpu);
        assert_eq!(used(&[]), Compute::Cpu);
        // A KV or compute buffer alone is not the model's weights.
        assert_eq!(
            used(&lines(&["llama_kv_cache: WebGPU KV buffer size = 9 MiB"])),
            Compute::Cpu
        );
    }

    #[test]
    fn the_status_says_which_backend_runs_and_why_not_the_gpu() {
        let cpu1 = Engine {
            backend: Compute::Cpu,
            threads: 1,
        };
        assert_eq!(
            status(
                cpu1,
                Some(&NoGpu::Chosen),
                &Placement::default(),
                &Probe::default(),
                None,
                None
            ),
            "Runs on the CPU (1 thread)."
        );
        let s = status(
            cpu1,
            Some(&NoGpu::OutOfMemory),
            &Placement::default(),
            &Probe::default(),
            None,
            None,
        );
        assert!(
            s.starts_with("Runs on the CPU (1 thread): the GPU ran out of memory"),
            "{s}"
        );
        let gpu = Engine {
            backend: Compute::WebGpu,
            threads: 4,
        };
        assert_eq!(
            status(
                gpu,
                None,
                &Placement::default(),
                &probe(&[NEEDED_FEATURE]),
                None,
                None
            ),
            "Runs on the GPU (google swiftshader), experimental; the CPU uses 4 threads."
        );
        assert!(reason(&failed("failed to allocate buffer")).contains("out of memory"));
        assert!(reason(&failed("device lost")).contains("(device lost)"));
        assert!(expect(GpuChoice::Gpu, &probe(&[NEEDED_FEATURE]))
            .starts_with("Will try the GPU (google swiftshader)"));
        assert_eq!(expect(GpuChoice::Cpu, &probe(&[])), "Will run on the CPU.");
    }

    /// Firefox ESR 153's WebGPU adapter on a machine with no GPU (issue 70): vendor,
    /// architecture and device empty, `shader-f16` offered; llama.cpp put every layer there.
    #[test]
    fn firefoxs_unnamed_adapter_is_named_as_such_and_the_layers_on_it_are_said() {
        let firefox = Probe {
            api: true,
            adapter: true,
            features: vec![NEEDED_FEATURE.into()],
            ..Probe::default()
        };
        assert_eq!(
            expect(GpuChoice::Gpu, &firefox),
            "Will try the GPU (an unnamed adapter, probably a software one); if it fails to \
             start, the CPU takes over and this line says why."
        );
        let lines: Vec<String> = [
            "ggml_webgpu: adapter_info: vendor_id: 0 | vendor:  | architecture:  | device_id: 0 | name:  | device_desc: ",
            "load_tensors: offloaded 31/31 layers to GPU",
            "load_tensors:   CPU_Mapped model buffer size =    28.12 MiB",
            "load_tensors:       WebGPU model buffer size =    92.10 MiB",
            "llama_kv_cache:     WebGPU KV buffer size =    90.00 MiB",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let backend = used(&lines);
        assert_eq!(backend, Compute::WebGpu);
        let engine = Engine {
            backend,
            threads: 2,
        };
        assert_eq!(
            status(engine, None, &Placement::read(&lines), &firefox, None, None),
            "Runs on the GPU (an unnamed adapter, probably a software one), experimental: 31 of \
             31 layers, model 92.1 MiB, KV cache 90.0 MiB; the CPU uses 2 threads."
        );
        // The GPU setting with steps a kept check's speed chose: said, still experimental.
        assert_eq!(
            status(
                engine,
                None,
                &Placement::read(&lines),
                &firefox,
                None,
                Some(128)
            ),
            "Runs on the GPU (an unnamed adapter, probably a software one), experimental: 31 of \
             31 layers, model 92.1 MiB, KV cache 90.0 MiB; prompt steps of at most 128 tokens, \
             from the speed Automatic's check measured; the CPU uses 2 threads."
        );
        // The engine's name for the adapter comes first, the browser's where it gave none.
        let named = Placement::read(&[
            "ggml_webgpu: adapter_info: vendor_id: 1 | vendor: intel | architecture: xe | device_id: 2 | name:  | device_desc: ".to_string(),
        ]);
        assert!(status(engine, None, &named, &firefox, None, None)
            .starts_with("Runs on the GPU (intel xe),"));
        assert!(
            status(engine, None, &Placement::default(), &probe(&[]), None, None)
                .starts_with("Runs on the GPU (google swiftshader),")
        );
        let device_only = Probe {
            device: "Mesa lavapipe".into(),
            ..firefox.clone()
        };
        assert!(
            expect(GpuChoice::Gpu, &device_only).starts_with("Will try the GPU (Mesa lavapipe);")
        );
    }

    #[test]
    fn an_answer_from_one_backend_is_never_the_cached_answer_for_the_other() {
        use crate::transport::request_key::with_engine;
        let bridge = "url:http://h/m.gguf|http://h/p.gguf|threads:1";
        let (cpu, gpu) = (
            identity(bridge, Compute::Cpu),
            identity(bridge, Compute::WebGpu),
        );
        assert_ne!(with_engine("k", Some(&cpu)), with_engine("k", Some(&gpu)));
        assert_eq!(
            with_engine("k", Some(&cpu)),
            with_engine("k", Some(&identity(bridge, Compute::Cpu)))
        );
    }

    #[test]
    fn the_engine_is_recorded_as_backend_and_threads() {
        let v = serde_json::to_value(Engine {
            backend: Compute::WebGpu,
            threads: 2,
        })
        .unwrap();
        assert_eq!(v, serde_json::json!({"backend": "webgpu", "threads": 2}));
        assert_eq!(Compute::from_id("cpu"), Some(Compute::Cpu));
        assert_eq!(Compute::from_id("metal"), None);
    }
}
