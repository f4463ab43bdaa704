//! Short deterministic property runs of every fuzz harness (`crates/core/src/fuzzing.rs`), on stable Rust,
//! in `cargo test`: each target gets its seed corpus (`crates/core/fuzz/corpus/<target>/`) plus random
//! mutations of it (bit flips, byte insertions and deletions, splices, truncations).
//! `HJ_FUZZ_ITERS` sets the mutations per target (default 3,000). The coverage-guided
//! cargo-fuzz targets in `crates/core/fuzz/` run the same harnesses for as long as you like.

use std::path::Path;

use harmonic_judge_core::fuzzing::targets;

/// xorshift64*: reproducible without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Bytes that matter to these parsers, spliced in often.
const DICTIONARY: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b":",
    b",",
    b"\n",
    b"\t",
    b"\x01",
    b"0.",
    b"1",
    b"5",
    b"$",
    b"\xce\xb1",
    b"null",
    b"true",
    b"\"logprobs\"",
    b"\"content\"",
    b"\"top_logprobs\"",
    b"\"choices\"",
    b"\"candidates\"",
    b"\xff\xd8\xff",
    b"\x89PNG\r\n\x1a\n",
    b"IHDR",
    b"GIF89a",
    b"RIFF\0\0\0\0WEBPVP8X",
    b"PK\x03\x04",
    b"The final score is $",
    b"Rating: ",
    b"id,text\n",
];

fn mutate(rng: &mut Rng, seed: &[u8], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(6) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = rng.below(v.len() + 1);
                v.insert(i, rng.next() as u8);
            }
            2 if !v.is_empty() => {
                let i = rng.below(v.len());
                let n = 1 + rng.below(16.min(v.len() - i));
                v.drain(i..i + n);
            }
            3 => {
                let i = rng.below(v.len() + 1);
                let word = DICTIONARY[rng.below(DICTIONARY.len())];
                v.splice(i..i, word.iter().copied());
            }
            4 if !corpus.is_empty() => {
                let other = &corpus[rng.below(corpus.len())];
                let (i, j) = (rng.below(v.len() + 1), rng.below(other.len() + 1));
                v.truncate(i);
                v.extend_from_slice(&other[j..]);
            }
            _ => v.truncate(rng.below(v.len() + 1)),
        }
    }
    v
}

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

#[test]
fn every_harness_survives_its_corpus_and_random_mutations() {
    let iters: usize = std::env::var("HJ_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3_000);
    let all = targets();
    assert_eq!(
        all.len(),
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets"))
            .map_or(0, Iterator::count),
        "one cargo-fuzz target in crates/core/fuzz/fuzz_targets/ per harness"
    );
    for (name, target) in all {
        let seeds = corpus(name);
        assert!(!seeds.is_empty(), "crates/core/fuzz/corpus/{name} is empty");
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ name.len() as u64);
        for s in &seeds {
            target.run(s);
        }
        for _ in 0..iters {
            let seed = &seeds[rng.below(seeds.len())];
            let input = mutate(&mut rng, seed, &seeds);
            let outcome = std::panic::catch_unwind(|| target.run(&input));
            assert!(
                outcome.is_ok(),
                "{name} panicked on {:?}",
                String::from_utf8_lossy(&input)
            );
        }
        println!("{name}: {} executions", seeds.len() + iters);
    }
}
