//! The facts the panel reads from a GGUF header before loading it: a model's quantization
//! (`general.file_type`), because llama.cpp's WebAssembly build has SIMD kernels for some
//! quantizations and not others, and that decides how fast the judge runs in the page; and
//! what the file is (`general.architecture`: `clip` for a vision projector), so that a projector
//! picked as the model, or a model as the projector, is refused before llama.cpp sees it.
//!
//! GGUF (llama.cpp's file format): the magic `GGUF`, a u32 version, a u64 tensor count, a u64
//! key count, then each key as a u64-length string, a u32 value type and the value; little
//! endian. The `general.*` keys come first, so the first few KB are enough; a header cut short
//! gives `None`, never a guess.

/// `general.file_type` of a model's header in `head`; `None` when the bytes do not reach it,
/// or for a projector (`general.architecture` = `clip`), whose quantization is not the judge's.
pub fn file_type(head: &[u8]) -> Option<u32> {
    match typed(head) {
        (Some(true), _) => None,
        (_, t) => t,
    }
}

/// `general.file_type` of a vision projector's header (`general.architecture` = `clip`);
/// `None` for a model, or when the bytes do not reach it.
pub fn projector_file_type(head: &[u8]) -> Option<u32> {
    match typed(head) {
        (Some(true), t) => t,
        _ => None,
    }
}

/// Whether the header says `clip` (once `general.architecture` is read) and its
/// `general.file_type`, each as far as the bytes reach.
fn typed(head: &[u8]) -> (Option<bool>, Option<u32>) {
    let (mut clip, mut file_type) = (None, None);
    let mut r = Reader { bytes: head, at: 0 };
    if r.take(4) != Some(b"GGUF".as_slice()) || r.u32().is_none_or(|v| v < 2) {
        return (None, None);
    }
    let (Some(_tensors), Some(keys)) = (r.u64(), r.u64()) else {
        return (None, None);
    };
    for _ in 0..keys {
        let (Some(key), Some(kind)) = (r.string(), r.u32()) else {
            break;
        };
        if key == b"general.file_type" && kind == 4 {
            file_type = r.u32();
        } else if key == b"general.architecture" && kind == 8 {
            clip = r.string().map(|a| a == b"clip");
        } else if r.skip_value(kind).is_none() {
            break;
        }
        if clip.is_some() && file_type.is_some() {
            break;
        }
    }
    (clip, file_type)
}

/// What our build did with a projector's F16 tensors as it loaded it: `"projector"` in the
/// engine's answer to a load (src/web/own_engine/engine.cpp, `widened_projector`). wllama's
/// builds say nothing (they keep F16).
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct F16Projector {
    /// How many of its tensors are F16.
    pub f16_tensors: u32,
    /// The bytes holding them as F32 adds (their F16 bytes).
    pub added_bytes: u64,
    /// Held as F32.
    #[serde(default)]
    pub widened: bool,
    /// Why F16 was kept: `too_large` (over [`WIDEN_MAX_ADDED_MB`]) or `no_memory`.
    #[serde(default)]
    pub kept: Option<String>,
}

impl F16Projector {
    /// The engine's facts as JSON text; `None` when absent or not these facts.
    pub fn read(facts: &str) -> Option<Self> {
        serde_json::from_str(facts).ok()
    }
}

/// The most memory, in MB, our build adds to hold a projector's F16 tensors as F32
/// (engine.cpp's `WIDEN_MAX_ADDED`).
pub const WIDEN_MAX_ADDED_MB: u64 = 512;

/// The note about a projector's form, or `None`. llama.cpp's WebAssembly build converts each
/// F16 element alone in F16 products and has SIMD products for F32 and Q8_0, so our build holds
/// an F16 projector's tensors as F32 (`f16`: what it did); one it kept in F16, or wllama's
/// builds (`f16` is `None`), encode each view several times slower than in Q8_0. Measured with
/// the SmolVLM-256M-shaped projector (scripts/make_smolvlm.py), one view in the page, one
/// thread (docs/performance.md).
pub fn projector_note(file_type: Option<u32>, f16: Option<&F16Projector>) -> Option<String> {
    let mb = |b: u64| (b as f64 / 1e6).round() as u64;
    let q8 = format!(
        "the same projector in Q8_0 encodes each image view about {PROJECTOR_Q8_SPEEDUP} faster \
         here (for SmolVLM-256M-Instruct: mmproj-SmolVLM-256M-Instruct-Q8_0.gguf; \
         docs/performance.md)"
    );
    match f16 {
        Some(f) if f.widened => Some(format!(
            "The projector's F16 matrices are held as F32 here ({} MB more memory): the page has \
             fast products for F32 and none for F16, so each image view encodes about as fast as \
             with a Q8_0 projector (docs/performance.md).",
            mb(f.added_bytes)
        )),
        Some(f) => Some(format!(
            "This projector's matrices are F16, which have no SIMD kernels in the page, and {}: \
             {q8}.",
            match f.kept.as_deref() {
                Some("too_large") => format!(
                    "holding them as F32 would take {} MB more memory, over the {WIDEN_MAX_ADDED_MB} \
                     MB the page allows for it",
                    mb(f.added_bytes)
                ),
                _ => format!(
                    "the page could not make room to hold them as F32 ({} MB more)",
                    mb(f.added_bytes)
                ),
            }
        )),
        None if file_type == Some(1) => Some(format!(
            "This projector's matrices are F16, which have no SIMD kernels in this build: {q8}."
        )),
        None => None,
    }
}

/// How much faster a Q8_0 projector encodes a view in the page than the same one in F16: the
/// benchmark's table of issue 57 (round 50, one run, our build; docs/performance.md): 12.7 s
/// against 45.5 s a view on one thread (3.6×), 7.0 s against 27.2 s on two (3.9×).
pub const PROJECTOR_Q8_SPEEDUP: &str = "3.5×";

/// `general.architecture` of the header in `head` (`"llama"` for SmolLM2, `"clip"` for a vision
/// projector); `None` when the bytes do not reach it or are not GGUF.
pub fn architecture(head: &[u8]) -> Option<String> {
    let mut r = Reader { bytes: head, at: 0 };
    if r.take(4)? != b"GGUF" || r.u32()? < 2 {
        return None;
    }
    let _tensors = r.u64()?;
    let keys = r.u64()?;
    for _ in 0..keys {
        let key = r.string()?;
        let kind = r.u32()?;
        if key == b"general.architecture" && kind == 8 {
            return Some(String::from_utf8_lossy(r.string()?).into_owned());
        }
        r.skip_value(kind)?;
    }
    None
}

/// llama.cpp's name for a file type (`LLAMA_FTYPE_MOSTLY_*`), for the ones a judge is likely
/// to be quantized in.
pub fn type_name(file_type: u32) -> Option<&'static str> {
    Some(match file_type {
        0 => "F32",
        1 => "F16",
        2 => "Q4_0",
        3 => "Q4_1",
        7 => "Q8_0",
        8 => "Q5_0",
        9 => "Q5_1",
        10 => "Q2_K",
        11..=13 => "Q3_K",
        14..=15 => "Q4_K",
        16..=17 => "Q5_K",
        18 => "Q6_K",
        32 => "BF16",
        _ => return None,
    })
}

/// The quantization suggested for the judge in the page: the fastest there of those measured
/// (Q4_0, Q4_1, Q4_K_M, Q8_0 of SmolLM2-135M; docs/performance.md), and one that kept the
/// published weights' ratings.
pub const SUGGESTED: &str = "Q8_0";

/// The note for a quantization measured slower in the page than [`SUGGESTED`], or `None`.
/// llama.cpp's WebAssembly build has SIMD kernels for Q8_0's dot products; Q4_0 and Q4_1 run
/// scalar code there, and Q4_K_M was no faster than them.
pub fn slow_note(file_type: Option<u32>) -> Option<String> {
    let name = match file_type? {
        t @ (2 | 3 | 14 | 15) => type_name(t)?,
        _ => return None,
    };
    Some(format!(
        "This model is quantized {name}. The suggested quantization here is {SUGGESTED}: of Q4_0, \
         Q4_1, Q4_K_M and Q8_0 of the same weights, it read prompts fastest in the page and kept \
         the ratings (SmolLM2-135M with 2 threads: one HarmonicEval evaluation 77 s against 83 s \
         in Q4_1; docs/performance.md)."
    ))
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn string(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        self.take(n)
    }

    /// Skips one value of GGUF type `kind` (arrays element by element).
    fn skip_value(&mut self, kind: u32) -> Option<()> {
        match kind {
            0 | 1 | 7 => self.take(1).map(drop),
            2 | 3 => self.take(2).map(drop),
            4..=6 => self.take(4).map(drop),
            10..=12 => self.take(8).map(drop),
            8 => self.string().map(drop),
            9 => {
                let inner = self.u32()?;
                let n = self.u64()?;
                for _ in 0..n {
                    self.skip_value(inner)?;
                }
                Some(())
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GGUF header with the given keys, each written as (name, type, value bytes).
    fn header(keys: &[(&str, u32, Vec<u8>)]) -> Vec<u8> {
        let mut out = b"GGUF".to_vec();
        out.extend(3u32.to_le_bytes());
        out.extend(0u64.to_le_bytes());
        out.extend((keys.len() as u64).to_le_bytes());
        for (k, t, v) in keys {
            out.extend((k.len() as u64).to_le_bytes());
            out.extend(k.as_bytes());
            out.extend(t.to_le_bytes());
            out.extend(v);
        }
        out
    }

    fn string(s: &str) -> Vec<u8> {
        let mut v = (s.len() as u64).to_le_bytes().to_vec();
        v.extend(s.as_bytes());
        v
    }

    #[test]
    fn the_file_type_is_found_past_strings_numbers_and_arrays() {
        let mut names = 9u32.to_le_bytes().to_vec(); // an array of strings
        names.extend(8u32.to_le_bytes());
        names.extend(2u64.to_le_bytes());
        names.extend(string("en"));
        names.extend(string("fr"));
        let h = header(&[
            ("general.architecture", 8, string("llama")),
            ("general.languages", 9, names[4..].to_vec()),
            ("llama.block_count", 4, 30u32.to_le_bytes().to_vec()),
            ("llama.rope.freq_base", 6, 1e5f32.to_le_bytes().to_vec()),
            ("general.file_type", 4, 3u32.to_le_bytes().to_vec()),
        ]);
        assert_eq!(file_type(&h), Some(3));
        assert_eq!(type_name(3), Some("Q4_1"));
        assert!(slow_note(file_type(&h)).unwrap().contains("Q4_1"));
        assert_eq!(slow_note(Some(7)), None, "Q8_0 is the suggested one");
        assert!(slow_note(Some(15))
            .unwrap()
            .starts_with("This model is quantized Q4_K. The suggested quantization here is Q8_0"));
        assert!(slow_note(Some(2)).unwrap().contains("Q4_0"));
        assert_eq!(slow_note(Some(8)), None, "Q5_0 was not measured");
        assert_eq!(slow_note(None), None);
    }

    #[test]
    fn a_header_cut_short_or_not_gguf_gives_nothing() {
        let h = header(&[
            ("general.architecture", 8, string("llama")),
            ("general.file_type", 4, 7u32.to_le_bytes().to_vec()),
        ]);
        assert_eq!(file_type(&h), Some(7));
        for cut in 0..h.len() - 1 {
            assert_eq!(file_type(&h[..cut]), None, "cut at {cut}");
        }
        assert_eq!(file_type(b"\x89PNG\r\n\x1a\n"), None);
        // A projector's quantization is not the judge's.
        let clip = header(&[
            ("general.architecture", 8, string("clip")),
            ("general.file_type", 4, 1u32.to_le_bytes().to_vec()),
        ]);
        assert_eq!(file_type(&clip), None);
        assert_eq!(projector_file_type(&clip), Some(1));
        assert_eq!(projector_file_type(&h), None, "a model is not a projector");
        for cut in 0..clip.len() - 1 {
            assert_eq!(projector_file_type(&clip[..cut]), None, "cut at {cut}");
        }
        // wllama's builds keep F16 (no facts from the engine): the Q8_0 advice.
        assert!(projector_note(projector_file_type(&clip), None)
            .unwrap()
            .starts_with(
                "This projector's matrices are F16, which have no SIMD kernels in this build"
            ));
        // F32 and Q8_0 have SIMD products; nothing to say.
        assert_eq!(projector_note(Some(0), None), None);
        assert_eq!(projector_note(Some(7), None), None);
        assert_eq!(projector_note(None, None), None);
        assert_eq!(architecture(&clip).as_deref(), Some("clip"));
        assert_eq!(architecture(&h).as_deref(), Some("llama"));
        assert_eq!(architecture(&h[..30]), None, "cut short");
        assert_eq!(architecture(b"\x89PNG\r\n\x1a\n"), None);
        // A length beyond the bytes, and an unknown type, end the search.
        let mut bad = header(&[("x", 99, vec![])]);
        assert_eq!(file_type(&bad), None);
        bad.truncate(24);
        bad.extend(u64::MAX.to_le_bytes());
        assert_eq!(file_type(&bad), None);
    }

    #[test]
    fn an_f16_projector_held_as_f32_or_kept_says_so_from_the_engines_facts() {
        // engine.cpp's answer for the SmolVLM-256M-shaped projector (74 F16 matrices)
        let widened = F16Projector::read(
            r#"{"f16_tensors":74,"added_bytes":183500800,"widened":true,"ms":912.5}"#,
        )
        .unwrap();
        assert_eq!(widened.f16_tensors, 74);
        let note = projector_note(Some(1), Some(&widened)).unwrap();
        assert!(
            note.starts_with(
                "The projector's F16 matrices are held as F32 here (184 MB more memory)"
            ),
            "{note}"
        );
        assert!(
            !note.contains(PROJECTOR_Q8_SPEEDUP),
            "no advice to convert it: {note}"
        );
        let big =
            F16Projector::read(r#"{"f16_tensors":300,"added_bytes":856000000,"kept":"too_large"}"#)
                .unwrap();
        let note = projector_note(Some(1), Some(&big)).unwrap();
        assert!(
            note.contains("would take 856 MB more memory, over the 512 MB"),
            "{note}"
        );
        assert!(
            note.contains(&format!("about {PROJECTOR_Q8_SPEEDUP} faster")),
            "{note}"
        );
        let short =
            F16Projector::read(r#"{"f16_tensors":74,"added_bytes":183500800,"kept":"no_memory"}"#)
                .unwrap();
        assert!(projector_note(Some(1), Some(&short))
            .unwrap()
            .contains("could not make room to hold them as F32 (184 MB more)"));
        // No facts (a projector without F16 tensors, or wllama's builds' answer) and not JSON.
        assert_eq!(F16Projector::read("undefined"), None);
        assert_eq!(F16Projector::read(r#"{"widened":true}"#), None);
    }
}
