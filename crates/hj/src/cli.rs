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
            let meant = match context(ContextKind::SuggestedSubcommand) {
                s if s.is_empty() => String::new(),
                s => format!(" Did you mean {s}?"),
            };
            format!(
                "There is no command \u{201c}{}\u{201d}: hj judge, run, plan, score, figures \
                 or completions (hj --help says more).{meant}",
                context(ContextKind::InvalidSubcommand)
            )
        }
        _ => e.render().to_string().trim_end().to_string(),
    }
}

fn refused(sentence: &str) -> ! {
    eprintln!("{sentence}");
    std::process::exit(BAD_INPUT);
}

pub fn main() {
    let words: Vec<String> = std::env::args().skip(1).collect();
    if let Err(sentence) = crate::args::refuse_key(&words) {
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
        Command::Judge(_) => one::judge(&words),
        Command::Run(_) => dataset::run(&words),
        Command::Plan(_) => dataset::plan(&words),
        Command::Score(_) => dataset::score(&words),
        Command::Figures(_) => dataset::figures(&words),
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
