//! `hj`'s entry: the command line parsed by clap against `options`' declarations (its help,
//! suggestions and completions), a refusal said as a sentence with exit status 2, and the
//! command run.
use std::io::Write;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, Parser};

use crate::options::{Cli, Command, NotANumber};
use crate::{dataset, one};

/// Usage errors and input that cannot be read at all.
const BAD_INPUT: i32 = 2;

/// What `hj` says of a command line clap refused: a value's own sentence (the core's, for
/// γ, a metric or a provider) as it is, an unknown command with the commands there are, and
/// anything else in clap's words (a mistyped option with the one meant, a missing value).
pub fn said(e: &clap::Error) -> String {
    let context = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(s)) => s
            .iter()
            .map(|s| format!("\u{201c}{s}\u{201d}"))
            .collect::<Vec<_>>()
            .join(" or "),
        _ => String::new(),
    };
    match e.kind() {
        ErrorKind::ValueValidation => match std::error::Error::source(e) {
            Some(s) if s.is::<NotANumber>() => {
                let arg = context(ContextKind::InvalidArg);
                let flag = arg.split_whitespace().next().unwrap_or_default();
                let value = context(ContextKind::InvalidValue);
                format!("{flag} takes a number, not \u{201c}{value}\u{201d}.")
            }
            Some(s) => s.to_string(),
            None => e.render().to_string().trim_end().to_string(),
        },
        ErrorKind::InvalidSubcommand => {
            let typed = context(ContextKind::InvalidSubcommand);
            let meant = match context(ContextKind::SuggestedSubcommand) {
                s if s.is_empty() => near_command(&typed)
                    .map(|c| format!(" Did you mean \u{201c}{c}\u{201d}?"))
                    .unwrap_or_default(),
                s => format!(" Did you mean {s}?"),
            };
            format!(
                "There is no command \u{201c}{typed}\u{201d}: hj judge, run, plan, score, \
                 figures or completions (hj --help says more).{meant}"
            )
        }
        _ => e.render().to_string().trim_end().to_string(),
    }
}

/// The command a short mistyped word meant where clap's similarity finds none: two letters
/// swapped or one letter off ("rnu", "rn"), which its Jaro measure misses for words this short.
fn near_command(typed: &str) -> Option<String> {
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|name| name != "help")
        .find(|name| strsim::osa_distance(typed, name) == 1)
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

fn refused(sentence: &str) -> ! {
    eprintln!("{sentence}");
    std::process::exit(BAD_INPUT);
}

pub fn main() {
    let words: Vec<String> = std::env::args().skip(1).collect();
    if let Err(sentence) = refuse_key(&words) {
        refused(&sentence);
    }
    let cli =
        match Cli::try_parse_from(std::iter::once("hj").chain(words.iter().map(String::as_str))) {
            Ok(cli) => cli,
            // Help and the version go to standard output (a closed pipe, `hj --help | head`, is no
            // error), help asked for by giving nothing to standard error; both as clap prints them.
            Err(e)
                if !e.use_stderr()
                    || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
            {
                e.exit()
            }
            Err(e) => refused(&said(&e)),
        };
    let outcome = match cli.command {
        Command::Judge(c) => one::judge(&c),
        Command::Run(c) => dataset::run(&c),
        Command::Plan(c) => dataset::plan(&c),
        Command::Score(c) => dataset::score(&c),
        Command::Figures(c) => dataset::figures(&c),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "hj", &mut out);
            let _ = std::io::stdout().write_all(&out);
            return;
        }
    };
    match outcome {
        Ok(code) => std::process::exit(code),
        Err(sentence) => refused(&sentence),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `hj` says of `line`, which it refuses.
    fn said(line: &str) -> String {
        let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        match refuse_key(&words) {
            Err(s) => s,
            Ok(()) => super::said(
                &Cli::try_parse_from(std::iter::once("hj").chain(line.split_whitespace()))
                    .unwrap_err(),
            ),
        }
    }

    #[test]
    fn refusals_are_sentences() {
        assert!(said("figures r.jsonl --nope").contains("--nope"));
        assert!(said("figures r.jsonl --gamma").contains("--gamma"));
        assert!(said("judge --text t --detail max").contains("--detail is auto, low or high"));
        assert!(said("plan d --out o --metric bleu").starts_with("There is no metric"));
        assert!(said("figures r --protocol mean").contains("--protocol is repeated or averaged"));
        assert!(said("plan d").contains("--out"));
        assert!(said("judge --text t --repeatable --no-repeatable").contains("--no-repeatable"));
        let gamma = harmonic_judge_core::lab::overall::checked_gamma;
        assert_eq!(said("figures r --gamma 2"), gamma(2.0).unwrap_err());
        assert_eq!(said("figures r --gamma -1"), gamma(-1.0).unwrap_err());
        assert_eq!(
            said("run d --out o --timeout soon"),
            "--timeout takes a number, not \u{201c}soon\u{201d}."
        );
        for key in ["--key sk-123", "--api-key=sk-123", "--token sk-123"] {
            let s = said(&format!("judge {key}"));
            assert!(s.contains("--key-env") && !s.contains("sk-123"), "{s}");
        }
        let words: Vec<String> = ["judge", "--text", "--", "--key"]
            .map(String::from)
            .to_vec();
        assert!(refuse_key(&words).is_ok());
    }
}
