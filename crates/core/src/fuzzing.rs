//! Fuzz harnesses: each turns arbitrary bytes into an input for one parser of untrusted data
//! and checks what must hold for any input (no panic, and the invariants the app relies on).
//!
//! The same functions back the cargo-fuzz targets in `crates/core/fuzz/` (coverage-guided, nightly) and
//! the short deterministic property runs of `crates/core/tests/fuzz_smoke.rs` (stable, in CI).

use crate::answers::completion::{parse_chat_completion, TokenStep};
use crate::answers::rating::{rating_distribution, rating_in_text};
use crate::providers::{read_chat, read_models, Protocol};

/// A harness: takes any bytes, must not panic.
pub type Harness = fn(&[u8]);

/// The harnesses of shared readers, by the name of their cargo-fuzz target; each metric's
/// own (its answer readers) are its room's `MetricCore::FUZZ`, see [`targets`].
pub const SHARED: [(&str, Harness); 4] = [
    ("response_parsers", response_parsers),
    ("rating", rating),
    ("dataset_import", dataset_import),
    ("image_sniff", image_sniff),
];

/// A fuzz target: a harness over bytes, or a metric's harness over an answer (its bytes read
/// as token steps by [`steps_from`]).
#[derive(Clone, Copy)]
pub enum Target {
    Bytes(Harness),
    Answer(crate::metrics::room::StepsHarness),
}

impl Target {
    /// Runs the harness on `data`.
    pub fn run(self, data: &[u8]) {
        match self {
            Target::Bytes(h) => h(data),
            Target::Answer(h) => {
                let (steps, text) = steps_from(data);
                h(&steps, &text)
            }
        }
    }
}

/// Every fuzz target by name: the shared ones, then each metric room's (once per room).
pub fn targets() -> Vec<(&'static str, Target)> {
    let mut all: Vec<(&'static str, Target)> =
        SHARED.iter().map(|&(n, h)| (n, Target::Bytes(h))).collect();
    for metric in crate::metrics::Metric::ALL {
        let own = crate::metrics::with_room!(metric, M => M::FUZZ);
        for &(name, h) in own {
            if !all.iter().any(|(n, _)| *n == name) {
                all.push((name, Target::Answer(h)));
            }
        }
    }
    all
}

/// Runs the target called `name` on `data` (what each cargo-fuzz target in `crates/core/fuzz/` calls).
///
/// # Panics
/// When no target has that name, and wherever the harness finds a broken property.
pub fn run(name: &str, data: &[u8]) {
    let target = targets().into_iter().find(|(n, _)| *n == name);
    match target {
        Some((_, t)) => t.run(data),
        None => panic!("no fuzz target called {name}"),
    }
}

/// Bytes as tokens with top-k alternatives: pieces separated by `\n` are steps; within a
/// step, `\t` separates the token and its alternatives; a byte after `\x01` sets a logprob.
pub fn steps_from(data: &[u8]) -> (Vec<TokenStep>, String) {
    let text = String::from_utf8_lossy(data);
    let mut steps = Vec::new();
    let mut joined = String::new();
    for line in text.split('\n') {
        let mut parts = line.split('\t').map(|p| {
            let (tok, lp) = p.split_once('\u{1}').unwrap_or((p, ""));
            // Any byte pattern maps to a log probability in [-25.5, 0] (or -inf/NaN edge cases).
            let logprob = match lp.bytes().next() {
                None => -0.5,
                Some(0xFF) => f64::NEG_INFINITY,
                Some(0xFE) => f64::NAN,
                Some(b) => -f64::from(b) / 10.0,
            };
            (tok.to_string(), logprob)
        });
        let Some((token, logprob)) = parts.next() else {
            continue;
        };
        joined.push_str(&token);
        steps.push(TokenStep {
            token,
            logprob,
            top: parts.collect(),
        });
    }
    (steps, joined)
}

fn probability(p: f64) -> bool {
    (-1e-9..=1.0 + 1e-9).contains(&p)
}

/// OpenAI-format, Gemini and Anthropic response bodies and model lists, with any status.
pub fn response_parsers(data: &[u8]) {
    let body = String::from_utf8_lossy(data);
    let _ = parse_chat_completion(&body);
    let status = data
        .first()
        .map_or(200, |&b| if b < 128 { 200 } else { 300 + u16::from(b) });
    for protocol in [Protocol::OpenAi, Protocol::Gemini, Protocol::Anthropic] {
        if let Ok(c) = read_chat(protocol, status, None, &body) {
            // A completion read from any body is usable: its steps form its text.
            let _ = rating_in_text(&c.text);
        }
        let _ = read_models(protocol, &body);
    }
}

/// Finding the rating step and renormalising p(1..5).
pub fn rating(data: &[u8]) {
    let (steps, text) = steps_from(data);
    if let Ok(d) = rating_distribution(&steps, &text) {
        let sum: f64 = d.p.iter().sum();
        assert!(d.p.iter().all(|&p| probability(p)), "{d:?}");
        assert!((sum - 1.0).abs() < 1e-9, "p sums to {sum}");
        assert!(d.coverage > 0.0 && d.coverage <= 1.0 + 1e-9, "{d:?}");
        assert!(d.step < steps.len());
    }
    if let Some(r) = rating_in_text(&text) {
        assert!((1..=5).contains(&r));
    }
}

/// Dataset (JSONL and CSV) and results-file import: unique ids, every problem on a real line.
pub fn dataset_import(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    // CSV ends a line at \n, \r\n or a lone \r: at most one line per such byte, plus one.
    let lines = text.bytes().filter(|&b| b == b'\n' || b == b'\r').count() + 1;
    for name in ["data.jsonl", "data.csv"] {
        let ds = crate::batch::dataset::parse(name, &text);
        let mut ids: Vec<&str> = ds.items.iter().map(|i| i.id.as_str()).collect();
        ids.sort_unstable();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n, "duplicate ids accepted");
        assert!(
            ds.problems.iter().all(|p| p.line <= lines + 1),
            "{:?}",
            ds.problems
        );
    }
    let _ = crate::lab::io::from_jsonl(&text);
    let records = crate::batch::dataset::csv_records(&text);
    let _ = crate::lab::io::from_csv_records(&records);
    let _ = crate::batch::zip::ZipArchive::parse(data);
}

/// The image header sniffer.
pub fn image_sniff(data: &[u8]) {
    let s = crate::inputs::sniff::sniff(data);
    let _ = (
        crate::inputs::sniff::refusal(&s),
        crate::inputs::sniff::note(&s),
    );
    let _ = crate::inputs::sniff::is_cut_short(&s, data);
}
