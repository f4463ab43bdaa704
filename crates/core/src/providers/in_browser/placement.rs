//! Where llama.cpp put the model, read from its own lines while loading (at every level: wllama
//! passes several of llama.cpp's INFO lines on at debug level, so the bridge keeps those too).
//! The lines, as llama.cpp writes them (`src/llama-model.cpp`, `src/llama-kv-cache.cpp`,
//! `ggml/src/ggml-webgpu/ggml-webgpu.cpp`):
//!
//! - `load_tensors: offloaded 31/31 layers to GPU`
//! - `load_tensors:       WebGPU model buffer size =    92.10 MiB` (and `CPU_Mapped` for the
//!   weights left on the CPU)
//! - `llama_kv_cache:     WebGPU KV buffer size =    90.00 MiB`
//! - `ggml_webgpu: adapter_info: vendor_id: 0 | vendor:  | architecture:  | device_id: 0 |
//!   name:  | device_desc: ` (the adapter's own words, empty on a software adapter)

/// What the engine said of where it put the model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Placement {
    /// The layers offloaded to the GPU, of all the model's layers.
    pub layers: Option<(u32, u32)>,
    /// The model's weights held by the GPU's buffers, in MiB (0 when none).
    pub model_mib: f64,
    /// The KV cache held by the GPU's buffers, in MiB (0 when none).
    pub kv_mib: f64,
    /// The adapter's words from the engine's `adapter_info` line (vendor, architecture, name,
    /// description; the empty ones left out); `None` when it wrote no such line.
    pub adapter: Option<String>,
}

/// The words for an adapter that says nothing of itself (Firefox's on a machine whose only
/// Vulkan device is Mesa's CPU implementation: vendor, architecture and device all empty).
pub const UNNAMED: &str = "an unnamed adapter, probably a software one";

/// The buffer's backend in a `<where>: <backend> <what> buffer size = <n> MiB` line and its
/// size, when `line` is such a line for `what` ("model", "KV").
fn buffer(line: &str, what: &str) -> Option<(String, f64)> {
    let at = line.find(&format!(" {what} buffer size ="))?;
    let name = line[..at]
        .rsplit(':')
        .next()
        .unwrap_or("")
        .trim()
        .to_string();
    let size = line[at..].split_once('=')?.1.trim();
    let size = size.strip_suffix("MiB").unwrap_or(size).trim();
    Some((name, size.parse().ok()?))
}

/// Whether a buffer's backend is the CPU's (`CPU`, `CPU_Mapped`, `CPU_REPACK`, ...).
fn on_cpu(backend: &str) -> bool {
    backend.to_ascii_uppercase().starts_with("CPU")
}

/// `31/31` of `load_tensors: offloaded 31/31 layers to GPU`.
fn offloaded(line: &str) -> Option<(u32, u32)> {
    let rest = &line[line.find("offloaded ")? + "offloaded ".len()..];
    let (counts, tail) = rest.split_once(' ')?;
    if !tail.starts_with("layers to GPU") {
        return None;
    }
    let (n, of) = counts.split_once('/')?;
    Some((n.trim().parse().ok()?, of.trim().parse().ok()?))
}

/// The adapter's words in `ggml_webgpu: adapter_info: vendor_id: 0 | vendor: ... | ...`.
fn adapter_info(line: &str) -> Option<String> {
    let rest = &line[line.find("adapter_info:")? + "adapter_info:".len()..];
    let mut words = Vec::new();
    for field in rest.split('|') {
        let (key, value) = field.split_once(':').unwrap_or((field, ""));
        let value = value.trim();
        if matches!(
            key.trim(),
            "vendor" | "architecture" | "name" | "device_desc"
        ) && !value.is_empty()
            && !words.contains(&value)
        {
            words.push(value);
        }
    }
    Some(words.join(" "))
}

impl Placement {
    /// Reads the engine's lines of one load (any order, other lines ignored).
    pub fn read(lines: &[String]) -> Placement {
        let mut p = Placement::default();
        for line in lines.iter().map(|l| l.trim()) {
            if let Some(counts) = offloaded(line) {
                p.layers = Some(counts);
            } else if let Some((backend, mib)) = buffer(line, "model") {
                if !backend.is_empty() && !on_cpu(&backend) {
                    p.model_mib += mib;
                }
            } else if let Some((backend, mib)) = buffer(line, "KV") {
                if !backend.is_empty() && !on_cpu(&backend) {
                    p.kv_mib += mib;
                }
            } else if let Some(words) = adapter_info(line) {
                p.adapter = Some(words);
            }
        }
        p
    }

    /// Whether the GPU holds (some of) the model: layers offloaded, or weights in a buffer that
    /// is not the CPU's. A KV or compute buffer alone is not the model.
    pub fn on_gpu(&self) -> bool {
        self.layers.is_some_and(|(n, _)| n > 0) || self.model_mib > 0.0
    }

    /// "31 of 31 layers, model 92.1 MiB, KV cache 90.0 MiB": what the engine said it put on the
    /// GPU ("" when it said nothing).
    pub fn details(&self) -> String {
        let mut parts = Vec::new();
        if let Some((n, of)) = self.layers {
            parts.push(format!("{n} of {of} layers"));
        }
        if self.model_mib > 0.0 {
            parts.push(format!("model {}", size(self.model_mib)));
        }
        if self.kv_mib > 0.0 {
            parts.push(format!("KV cache {}", size(self.kv_mib)));
        }
        parts.join(", ")
    }
}

/// "92.1 MiB", "1.25 GiB".
fn size(mib: f64) -> String {
    if mib >= 1024.0 {
        format!("{:.2} GiB", mib / 1024.0)
    } else {
        format!("{mib:.1} MiB")
    }
}

/// The adapter's name from its own words, the first that says something; [`UNNAMED`] when
/// none does (never "()").
pub fn adapter_name(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| w.trim())
        .find(|w| !w.is_empty())
        .map_or_else(|| UNNAMED.to_string(), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// wllama's Memory64 build in Firefox ESR 153 with WebGPU on, SmolLM2 and its projector, on a
    /// machine whose only Vulkan device is Mesa's CPU implementation (issue 70).
    fn firefox() -> Vec<String> {
        lines(&[
            "ggml_webgpu: adapter_info: vendor_id: 0 | vendor:  | architecture:  | device_id: 0 | name:  | device_desc: ",
            "load_tensors: offloading 30 repeating layers to GPU",
            "load_tensors: offloaded 31/31 layers to GPU",
            "load_tensors:   CPU_Mapped model buffer size =    28.12 MiB",
            "load_tensors:       WebGPU model buffer size =    92.10 MiB",
            "llama_kv_cache:     WebGPU KV buffer size =    90.00 MiB",
            "llama_context:     WebGPU compute buffer size =   130.50 MiB",
            "llama_context: WebGPU_Host compute buffer size =    11.01 MiB",
            "mtmd_subcontext: using WebGPU",
        ])
    }

    #[test]
    fn the_layers_and_buffers_on_the_gpu_are_read_from_the_engines_lines() {
        let p = Placement::read(&firefox());
        assert_eq!(p.layers, Some((31, 31)));
        assert!((p.model_mib - 92.10).abs() < 1e-9, "{}", p.model_mib);
        assert!((p.kv_mib - 90.0).abs() < 1e-9, "{}", p.kv_mib);
        assert_eq!(p.adapter.as_deref(), Some(""));
        assert!(p.on_gpu());
        assert_eq!(
            p.details(),
            "31 of 31 layers, model 92.1 MiB, KV cache 90.0 MiB"
        );
    }

    #[test]
    fn a_model_kept_on_the_cpu_is_not_on_the_gpu() {
        let p = Placement::read(&lines(&[
            "load_tensors: offloaded 0/31 layers to GPU",
            "load_tensors:   CPU_Mapped model buffer size =    81.00 MiB",
            "llama_kv_cache:        CPU KV buffer size =    90.00 MiB",
        ]));
        assert_eq!(p.layers, Some((0, 31)));
        assert_eq!((p.model_mib, p.kv_mib), (0.0, 0.0));
        assert!(!p.on_gpu());
        assert_eq!(p.details(), "0 of 31 layers");
        let none = Placement::read(&[]);
        assert!(!none.on_gpu());
        assert_eq!(none.details(), "");
        assert_eq!(none.adapter, None);
        // A KV buffer alone is not the model's weights.
        assert!(
            !Placement::read(&lines(&["llama_kv_cache: WebGPU KV buffer size = 9 MiB"])).on_gpu()
        );
    }

    #[test]
    fn part_of_a_model_and_a_large_one_are_told_as_such() {
        let p = Placement::read(&lines(&[
            "load_tensors: offloaded 20/33 layers to GPU",
            "load_tensors:       WebGPU model buffer size =  2560.00 MiB",
            "llama_kv_cache:     WebGPU KV buffer size =   256.00 MiB",
            "llama_kv_cache:     WebGPU KV buffer size =   256.00 MiB",
        ]));
        assert_eq!(
            p.details(),
            "20 of 33 layers, model 2.50 GiB, KV cache 512.0 MiB"
        );
        // The layers line alone says the GPU holds them.
        assert!(Placement::read(&lines(&["load_tensors: offloaded 5/31 layers to GPU"])).on_gpu());
    }

    #[test]
    fn a_named_adapter_is_named_and_an_empty_one_never_shows_as_empty_brackets() {
        let p = Placement::read(&lines(&[
            "ggml_webgpu: adapter_info: vendor_id: 4318 | vendor: nvidia | architecture: ada | device_id: 10114 | name: NVIDIA GeForce RTX 4060 | device_desc: NVIDIA GeForce RTX 4060",
        ]));
        assert_eq!(
            p.adapter.as_deref(),
            Some("nvidia ada NVIDIA GeForce RTX 4060")
        );
        assert_eq!(adapter_name(&["", "  "]), UNNAMED);
        assert_eq!(
            adapter_name(&["", "google swiftshader"]),
            "google swiftshader"
        );
    }
}
