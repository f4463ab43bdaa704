//! The command line's words: `--name value` options (given once, or repeated where a list is
//! meant), `--flag` switches and positional arguments, checked against what each command takes;
//! and the judge's options every command shares, turned into the page's settings.

use std::collections::BTreeMap;

use harmonic_judge_core::batch::plan::Plan;
use harmonic_judge_core::metrics::Metric;
use harmonic_judge_core::native::settings::{self, JudgeSettings};
use harmonic_judge_core::providers::ImageDetail;
use harmonic_judge_core::scoring::gamma_axis::GAMMA_DEFAULT;

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

/// A command's words, parsed.
#[derive(Debug, Default)]
pub struct Args {
    values: BTreeMap<String, Vec<String>>,
    switches: Vec<String>,
    pub positional: Vec<String>,
}

/// Parses `words` for a command taking the options `values` (with a value) and `switches`.
pub fn parse(words: &[String], values: &[&str], switches: &[&str]) -> Result<Args, String> {
    let mut args = Args::default();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        i += 1;
        let Some(name) = w.strip_prefix("--") else {
            args.positional.push(w.clone());
            continue;
        };
        let (name, inline) = match name.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (name, None),
        };
        if matches!(name, "key" | "api-key" | "token") {
            return Err(
                "An API key is never given on the command line (other users and the shell's \
                 history could read it): put it in an environment variable and name that \
                 variable with --key-env NAME."
                    .into(),
            );
        }
        if values.contains(&name) {
            let value = match inline {
                Some(v) => v,
                None if i < words.len() => {
                    i += 1;
                    words[i - 1].clone()
                }
                None => return Err(format!("--{name} needs a value.")),
            };
            args.values.entry(name.to_string()).or_default().push(value);
        } else if switches.contains(&name) && inline.is_none() {
            args.switches.push(name.to_string());
        } else {
            return Err(format!(
                "There is no option --{name} here (--help lists the options)."
            ));
        }
    }
    Ok(args)
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
    let detail = args.value("detail").unwrap_or("auto");
    if !ImageDetail::ALL.iter().any(|d| d.id() == detail) {
        return Err(format!(
            "--detail is auto, low or high, not \u{201c}{detail}\u{201d}."
        ));
    }
    let judge = JudgeSettings {
        provider: args
            .value("provider")
            .unwrap_or(harmonic_judge_core::providers::PRESETS[0].id)
            .to_string(),
        base_url: args.value("base-url").map(str::to_string),
        model: args.value("model").map(str::to_string),
        api_key,
        image_detail: ImageDetail::from_id(detail),
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
    fn options_switches_and_positionals() {
        let a = parse(
            &words("data.jsonl --model m --extension a,b --extension=c --extended out"),
            &["model", "extension"],
            &["extended"],
        )
        .unwrap();
        assert_eq!(a.positional, ["data.jsonl", "out"]);
        assert_eq!(a.value("model"), Some("m"));
        assert_eq!(a.list("extension"), ["a", "b", "c"]);
        assert!(a.has("extended"));
        assert!(parse(&words("--nope"), &[], &[])
            .unwrap_err()
            .contains("--nope"));
        assert!(parse(&words("--model"), &["model"], &[])
            .unwrap_err()
            .contains("needs a value"));
        let key = parse(&words("--key sk-123"), &["key"], &[]).unwrap_err();
        assert!(key.contains("--key-env") && !key.contains("sk-123"));
    }
}
