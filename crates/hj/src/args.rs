//! A command's options as the commands read them (by name: `args.value("out")`), taken from
//! what clap parsed against `options`' declarations (the values given, and the defaults
//! declared there); and the judge's options every command shares, turned into the page's
//! settings.

use std::collections::BTreeMap;

use clap::{ArgAction, ArgMatches, CommandFactory};
use harmonic_judge_core::batch::plan::Plan;
use harmonic_judge_core::metrics::Metric;
use harmonic_judge_core::native::settings::{self, JudgeSettings};
use harmonic_judge_core::providers::ImageDetail;
use harmonic_judge_core::scoring::gamma_axis::GAMMA_DEFAULT;

use crate::options::Cli;

/// The options every command that judges takes (values).
pub const JUDGE_VALUES: [&str; 9] = [
    "metric",
    "provider",
    "base-url",
    "model",
    "key-env",
    "max-tokens",
    "detail",
    "extension",
    "criteria",
];
/// The switches every command that judges takes.
pub const JUDGE_SWITCHES: [&str; 3] = ["extended", "repeatable", "no-repeatable"];

/// A command's options, parsed.
#[derive(Debug, Default)]
pub struct Args {
    values: BTreeMap<String, Vec<String>>,
    switches: Vec<String>,
    pub positional: Vec<String>,
}

/// The sentence for an API key given on the command line, where other users and the shell's
/// history could read it (said before anything else is parsed, so the key is never echoed).
pub fn refuse_key(words: &[String]) -> Result<(), String> {
    let named = |w: &str| {
        let name = w.strip_prefix("--")?;
        let name = name.split_once('=').map_or(name, |(n, _)| n);
        matches!(name, "key" | "api-key" | "token").then_some(())
    };
    match words
        .iter()
        .take_while(|w| *w != "--")
        .find_map(|w| named(w))
    {
        Some(()) => Err(
            "An API key is never given on the command line (other users and the shell's \
             history could read it): put it in an environment variable and name that \
             variable with --key-env NAME."
                .into(),
        ),
        None => Ok(()),
    }
}

/// The options of the command line `words` (the command's name first, as `hj` was given it),
/// which `cli` has parsed already; `values` and `switches` are the options the command reads,
/// which must be those `options` declares for it.
pub fn parse(words: &[String], values: &[&str], switches: &[&str]) -> Result<Args, String> {
    refuse_key(words)?;
    let matches = Cli::command()
        .try_get_matches_from(std::iter::once("hj").chain(words.iter().map(String::as_str)))
        .map_err(|e| crate::cli::said(&e))?;
    let (name, sub) = matches
        .subcommand()
        .ok_or("Name a command (hj --help lists them).")?;
    let command = Cli::command();
    let declared = command
        .find_subcommand(name)
        .ok_or("Name a command (hj --help lists them).")?;
    let args = of(declared, sub);
    debug_assert!(
        args.values.keys().all(|k| values.contains(&k.as_str()))
            && args.switches.iter().all(|k| switches.contains(&k.as_str())),
        "hj {name}: {args:?} against {values:?} and {switches:?}"
    );
    Ok(args)
}

/// The options `declared` names, as `matches` holds them.
fn of(declared: &clap::Command, matches: &ArgMatches) -> Args {
    let mut args = Args::default();
    for arg in declared.get_arguments() {
        let id = arg.get_id().as_str();
        let raw = || -> Vec<String> {
            matches
                .get_raw(id)
                .into_iter()
                .flatten()
                .map(|v| v.to_string_lossy().into_owned())
                .collect()
        };
        match (arg.get_long(), arg.get_action()) {
            (None, _) if arg.is_positional() => args.positional.extend(raw()),
            (Some(long), ArgAction::SetTrue) if matches.get_flag(id) => {
                args.switches.push(long.to_string())
            }
            (Some(long), ArgAction::Set | ArgAction::Append) if matches.contains_id(id) => {
                args.values.insert(long.to_string(), raw());
            }
            _ => {}
        }
    }
    args
}

impl Args {
    /// The option's last value.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values.get(name)?.last().map(String::as_str)
    }

    /// Every value the option was given, commas splitting them too.
    pub fn list(&self, name: &str) -> Vec<String> {
        self.values
            .get(name)
            .into_iter()
            .flatten()
            .flat_map(|v| v.split(','))
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    }

    /// Every value the option was given, as given.
    pub fn all(&self, name: &str) -> Vec<String> {
        self.values.get(name).cloned().unwrap_or_default()
    }

    pub fn has(&self, switch: &str) -> bool {
        self.switches.iter().any(|s| s == switch)
    }

    /// A number option, or its default.
    pub fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.value(name) {
            None => Ok(default),
            Some(v) => v
                .trim()
                .parse()
                .map_err(|_| format!("--{name} takes a number, not \u{201c}{v}\u{201d}.")),
        }
    }

    /// γ, within the lab's slider's range (`lab::overall::checked_gamma`, whose sentence
    /// Python says too).
    pub fn gamma(&self) -> Result<f64, String> {
        let g: f64 = self.number("gamma", GAMMA_DEFAULT)?;
        harmonic_judge_core::lab::overall::checked_gamma(g)
    }

    /// The exactly `n` positional arguments the command takes, named `what` for the sentence.
    pub fn positionals(&self, what: &[&str]) -> Result<Vec<&str>, String> {
        if self.positional.len() != what.len() {
            return Err(format!(
                "This command takes {}; {} given (--help shows how).",
                what.join(" and "),
                match self.positional.len() {
                    0 => "none was".to_string(),
                    n => format!("{n} were"),
                }
            ));
        }
        Ok(self.positional.iter().map(String::as_str).collect())
    }
}

/// The metric, its plan and the judge's settings from the shared options; the key comes from
/// the environment variable `--key-env` names (by default `HJ_API_KEY`).
pub fn judge(args: &Args) -> Result<(Plan, JudgeSettings), String> {
    let metric = match args.value("metric") {
        Some(id) => settings::metric(id)?,
        None => Metric::ALL[0],
    };
    let plan = settings::plan(
        metric,
        args.has("extended"),
        &args.list("extension"),
        &args.list("criteria"),
    )?;
    let key_env = args.value("key-env").unwrap_or("HJ_API_KEY");
    let api_key = match std::env::var(key_env) {
        Ok(k) => k.trim().to_string(),
        Err(std::env::VarError::NotPresent) if args.value("key-env").is_none() => String::new(),
        Err(std::env::VarError::NotPresent) => {
            return Err(format!(
                "The environment variable {key_env} (--key-env) is not set: export it with the \
                 key first."
            ))
        }
        Err(_) => return Err(format!("The environment variable {key_env} is not text.")),
    };
    let detail = ImageDetail::checked(args.value("detail").unwrap_or("auto"), "--detail")?;
    let judge = JudgeSettings {
        provider: args
            .value("provider")
            .unwrap_or(harmonic_judge_core::providers::PRESETS[0].id)
            .to_string(),
        base_url: args.value("base-url").map(str::to_string),
        model: args.value("model").map(str::to_string),
        api_key,
        image_detail: detail,
        max_tokens: args
            .value("max-tokens")
            .map(|_| args.number("max-tokens", 0u32))
            .transpose()?,
        repeatable: match (args.has("repeatable"), args.has("no-repeatable")) {
            (true, true) => {
                return Err("--repeatable and --no-repeatable contradict each other.".into())
            }
            (true, false) => Some(true),
            (false, true) => Some(false),
            (false, false) => None,
        },
    };
    Ok((plan, judge))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn options_switches_positionals_and_defaults() {
        let a = parse(
            &words("plan data.jsonl --model m --extension a,b --extension=c --extended --out o"),
            &[&JUDGE_VALUES[..], &["images", "out"]].concat(),
            &[&JUDGE_SWITCHES[..], &["boxes-drawn"]].concat(),
        )
        .unwrap();
        assert_eq!(a.positional, ["data.jsonl"]);
        assert_eq!(a.value("model"), Some("m"));
        assert_eq!(a.value("out"), Some("o"));
        assert_eq!(a.list("extension"), ["a", "b", "c"]);
        assert!(a.has("extended") && !a.has("boxes-drawn"));
        // The declared defaults; what has none is absent.
        assert_eq!(a.value("metric"), Some(Metric::ALL[0].id()));
        assert_eq!(a.value("detail"), Some("auto"));
        assert_eq!(a.value("key-env"), None);
        let s = parse(
            &words("score d.jsonl a.jsonl b.jsonl --gamma 0.5"),
            &[
                &JUDGE_VALUES[..],
                &["gamma", "protocol", "agreement", "images", "out"],
            ]
            .concat(),
            &[&JUDGE_SWITCHES[..], &["keep-partial"]].concat(),
        )
        .unwrap();
        assert_eq!(s.positional, ["d.jsonl", "a.jsonl", "b.jsonl"]);
        assert_eq!(s.gamma(), Ok(0.5));
        assert_eq!(s.number("max-tokens", 7u32), Ok(7));
    }

    #[test]
    fn refusals_are_sentences() {
        let none: [&str; 0] = [];
        let said = |line: &str| parse(&words(line), &none, &none).unwrap_err();
        assert!(said("figures r.jsonl --nope").contains("--nope"));
        assert!(said("figures r.jsonl --gamma").contains("--gamma"));
        assert!(said("judge --detail max").contains("--detail is auto, low or high"));
        assert!(said("plan d --metric bleu").starts_with("There is no metric"));
        assert_eq!(
            said("figures r --gamma 2"),
            harmonic_judge_core::lab::overall::checked_gamma(2.0).unwrap_err()
        );
        assert_eq!(
            said("figures r --gamma -1"),
            harmonic_judge_core::lab::overall::checked_gamma(-1.0).unwrap_err()
        );
        assert_eq!(
            said("run d --timeout soon"),
            "--timeout takes a number, not \u{201c}soon\u{201d}."
        );
        for key in ["--key sk-123", "--api-key=sk-123", "--token sk-123"] {
            let s = said(&format!("judge {key}"));
            assert!(s.contains("--key-env") && !s.contains("sk-123"), "{s}");
        }
        assert!(refuse_key(&words("judge --text -- --key")).is_ok());
    }
}
