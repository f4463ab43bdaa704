//! `hj`'s commands and help (a native program: `main.rs` gives wasm32 a stub, since a
//! `cargo build --target wasm32-unknown-unknown` builds every binary).
use crate::{dataset, one};
use harmonic_judge_core::metrics::Metric;
use harmonic_judge_core::native::settings::providers;

/// Usage errors and input that cannot be read at all.
const BAD_INPUT: i32 = 2;

fn help() -> String {
    let metrics: Vec<&str> = Metric::ALL.iter().map(|m| m.id()).collect();
    let providers: Vec<&str> = providers().map(|p| p.id).collect();
    format!(
        "hj: score what a vision-language model wrote about an image, as harmonic-judge's page does.

USAGE
  hj judge --image IMG --text TEXT [options]       judge one text, print its scores
  hj run DATASET --out results.jsonl [options]     judge a dataset live (resumable)
  hj plan DATASET --out requests.jsonl [options]   write its requests as batch JSONL
  hj score DATASET ANSWERS... --out results.jsonl  read a batch's answers into results
  hj figures results.jsonl                         the lab's agreement figures of a results file

DATASET is the lab's: a .jsonl, .csv or .tsv file (images beside it, or --images ZIP|DIR), or a
.zip holding the dataset file and its images. Results files are the lab's: Import results opens
them there. Requests are OpenAI Batch API lines (custom_id <item>:<slot>), which vLLM's run_batch
reads too; ANSWERS is that API's (or vLLM's) output, error lines included; a later ANSWERS file
answers what an earlier one left unanswered or failed.

THE JUDGE (as on the page)
  --metric ID          {metrics} (default {metric})
  --provider ID        (default {provider}) {providers}
  --base-url URL       the server's API root (default: the provider's)
  --model NAME         (default: the provider's)
  --key-env NAME       the environment variable holding the API key (default HJ_API_KEY);
                       a key is never given on the command line
  --max-tokens N       output budget of a scoring request (default: the metric's on this provider)
  --detail auto|low|high   OpenAI's image detail
  --repeatable | --no-repeatable   fixed seed, one request at a time (default on for local servers)
  --extended           every extension of ours that can be switched; --extension ID one of them
  --criteria a,b       HarmonicEval: the criteria judged (default all five)

RUNS
  --concurrency N      items at once (default 5; 1 in repeatable mode)
  --retries N          retries of a rate limit or server failure, Retry-After honoured (default 3)
  --timeout S          seconds per request (default 120)
  --retry-failed       run: judge the failed items of the results file again
  --boxes-drawn        REG: the images already show their boxes (the page draws them in)
  --gamma G            γ of the overall score (default 0.75)
  --protocol repeated|averaged   several human ratings per item (default repeated)
  --keep-partial       figures: keep items scored on fewer than all criteria
  --agreement FILE     also write the figures as the lab's agreement JSON

ONE ITEM (hj judge)
  --task ic|vqa|vdu|reg  --question Q  --reference R (repeat)  --caption C
  --reference-answer A  --box l,t,r,b  --json FILE (the result file the page opens)

Exit status: 0 all scored; 1 some items failed or were left out (written, and said);
2 bad input; 3 stopped early (a rejected key, an unreachable server, a rate limit that outlasted
the retries): nothing was lost, run the same command again to resume.",
        metrics = metrics.join(", "),
        metric = Metric::ALL[0].id(),
        providers = providers.join(", "),
        provider = harmonic_judge_core::providers::PRESETS[0].id,
    )
}

pub fn main() {
    let words: Vec<String> = std::env::args().skip(1).collect();
    let (command, rest) = match words.split_first() {
        Some((c, rest)) => (c.as_str(), rest),
        None => ("--help", &words[..]),
    };
    if rest.iter().any(|w| w == "--help" || w == "-h")
        || matches!(command, "--help" | "-h" | "help")
    {
        use std::io::Write;
        // A closed pipe (hj --help | head) is not an error worth a panic.
        let _ = writeln!(std::io::stdout(), "{}", help());
        return;
    }
    let outcome = match command {
        "judge" => one::judge(rest),
        "run" => dataset::run(rest),
        "plan" => dataset::plan(rest),
        "score" => dataset::score(rest),
        "figures" => dataset::figures(rest),
        "--version" | "-V" => {
            println!("hj {}", env!("CARGO_PKG_VERSION"));
            return;
        }
        other => Err(format!(
            "There is no command \u{201c}{other}\u{201d}: hj judge, run, plan, score or figures \
             (hj --help says more)."
        )),
    };
    match outcome {
        Ok(code) => std::process::exit(code),
        Err(sentence) => {
            eprintln!("{sentence}");
            std::process::exit(BAD_INPUT);
        }
    }
}
