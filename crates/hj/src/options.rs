//! `hj`'s commands and options, declared once (clap's derive API): the parser, `--help` for
//! each command, suggestions for a mistyped name and the shell completions all come from these
//! declarations. A value is checked as it is parsed, by the core where the core knows it
//! (a metric, a provider, γ), and refused with the core's sentence (`cli::said`). Each command
//! takes the struct parsed here (`RunCommand`, …); `JudgeOptions` turns into the core's
//! `JudgeSettings` and plan.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};
use harmonic_judge_core::batch::plan::Plan;
use harmonic_judge_core::lab::overall::checked_gamma;
use harmonic_judge_core::meta::protocol::RatingProtocol;
use harmonic_judge_core::metrics::Metric;
use harmonic_judge_core::native::settings::{self, JudgeSettings};
use harmonic_judge_core::providers::{ImageDetail, PRESETS};
use harmonic_judge_core::scoring::gamma_axis::GAMMA_DEFAULT;
use harmonic_judge_core::scoring::task::Task;

const ABOUT: &str =
    "hj: score what a vision-language model wrote about an image, as harmonic-judge's page does.";

const OVERVIEW: &str = "  \
hj judge --image IMG --text TEXT [options]       judge one text, print its scores
  hj run DATASET --out results.jsonl [options]     judge a dataset live (resumable)
  hj plan DATASET --out requests.jsonl [options]   write its requests as batch JSONL
  hj score DATASET ANSWERS... --out results.jsonl  read a batch's answers into results
  hj figures results.jsonl                         the lab's agreement figures of a results file

DATASET is the lab's: a .jsonl, .csv or .tsv file (images beside it, or --images ZIP|DIR), or a
.zip holding the dataset file and its images. Results files are the lab's: Import results opens
them there. Requests are OpenAI Batch API lines (custom_id <item>:<slot>), which vLLM's run_batch
reads too; ANSWERS is that API's (or vLLM's) output, error lines included; a later ANSWERS file
answers what an earlier one left unanswered or failed. `hj COMMAND --help` lists a command's
options; `hj completions bash` (zsh, fish, elvish, powershell) prints a shell's completions.";

const EXIT_STATUS: &str = "\
Exit status: 0 all scored; 1 some items failed or were left out (written, and said);
2 bad input; 3 stopped early (a rejected key, an unreachable server, a rate limit that outlasted
the retries): nothing was lost, run the same command again to resume.";

/// The command line.
#[derive(Debug, Parser)]
#[command(
    name = "hj",
    version,
    about = ABOUT,
    long_about = format!("{ABOUT}\n\n{OVERVIEW}"),
    after_help = EXIT_STATUS,
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Judge one text about one image and print its scores.
    Judge(JudgeCommand),
    /// Judge a dataset live, each result appended to --out as it is read (resumable).
    Run(RunCommand),
    /// Write a dataset's requests as OpenAI Batch API JSONL (which vLLM's run_batch reads too).
    Plan(PlanCommand),
    /// Read a batch's answers (one or more files) into the lab's results.
    Score(ScoreCommand),
    /// The lab's agreement figures of a results file.
    Figures(FiguresCommand),
    /// Print the completions of a shell (source them from its start-up file).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// The judge, as on the page: every command that sends or reads requests takes these.
#[derive(Debug, Args)]
#[command(next_help_heading = "The judge (as on the page)")]
pub struct JudgeOptions {
    /// The metric.
    #[arg(long, value_name = "ID", default_value = Metric::ALL[0].id(), value_parser = metric())]
    pub metric: Metric,
    /// Where the requests go.
    #[arg(long, value_name = "ID", default_value = PRESETS[0].id, value_parser = provider())]
    pub provider: String,
    /// The server's API root [default: the provider's].
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model [default: the provider's].
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// The environment variable holding the API key [default: HJ_API_KEY]; a key is never
    /// given on the command line.
    #[arg(long, value_name = "NAME")]
    pub key_env: Option<String>,
    /// Output budget of a scoring request [default: the metric's on this provider].
    #[arg(long, value_name = "N", value_parser = number::<u32>, allow_negative_numbers = true)]
    pub max_tokens: Option<u32>,
    /// OpenAI's image detail.
    #[arg(long, default_value = ImageDetail::default().id(), value_parser = detail())]
    pub detail: ImageDetail,
    /// Fixed seed, one request at a time [default: on for local servers].
    #[arg(long, conflicts_with = "no_repeatable")]
    pub repeatable: bool,
    /// Random seed, requests at once [default: on for remote APIs].
    #[arg(long)]
    pub no_repeatable: bool,
    /// Every extension of ours that can be switched.
    #[arg(long)]
    pub extended: bool,
    /// One extension of ours (repeat, or a,b).
    #[arg(long, value_name = "ID")]
    pub extension: Vec<String>,
    /// HarmonicEval: the criteria judged (repeat, or a,b) [default: all five].
    #[arg(long, value_name = "A,B")]
    pub criteria: Vec<String>,
}

/// How requests are sent.
#[derive(Debug, Args)]
#[command(next_help_heading = "Requests")]
pub struct Requests {
    /// Seconds per request.
    #[arg(long, value_name = "S", default_value_t = 120, value_parser = number::<u32>, allow_negative_numbers = true)]
    pub timeout: u32,
    /// Retries of a rate limit or server failure, Retry-After honoured.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = number::<u32>, allow_negative_numbers = true)]
    pub retries: u32,
}

/// The overall score's γ.
#[derive(Debug, Args)]
pub struct Gamma {
    /// γ of the overall score, 0.01 to 1 as on the lab's slider.
    #[arg(long, value_name = "G", default_value_t = GAMMA_DEFAULT, value_parser = gamma, allow_negative_numbers = true)]
    pub gamma: f64,
}

/// The lab's agreement figures.
#[derive(Debug, Args)]
#[command(next_help_heading = "Figures")]
pub struct Figures {
    #[command(flatten)]
    pub gamma: Gamma,
    /// Several human ratings per item: each paired with the score, or averaged.
    #[arg(long, default_value = RatingProtocol::default().id(), value_parser = protocol())]
    pub protocol: RatingProtocol,
    /// Keep items scored on fewer than all criteria.
    #[arg(long)]
    pub keep_partial: bool,
    /// Also write the figures as the lab's agreement JSON.
    #[arg(long, value_name = "FILE")]
    pub agreement: Option<String>,
}

/// The dataset's images, and a REG item's box.
#[derive(Debug, Args)]
pub struct Images {
    /// The dataset's images, where they are not beside it or in its ZIP: a ZIP or a folder.
    #[arg(long, value_name = "ZIP|DIR")]
    pub images: Option<String>,
    #[arg(
        long,
        help = "REG: the images already show their boxes: do not draw them again",
        long_help = "The dataset's REG images already show their boxes: send them scaled, without \
                     drawing the box again (by default hj draws each REG item's box in, as the \
                     page does)."
    )]
    pub boxes_drawn: bool,
}

#[derive(Debug, Args)]
pub struct JudgeCommand {
    /// The image.
    #[arg(long, value_name = "FILE")]
    pub image: Option<String>,
    /// The text to judge.
    #[arg(long)]
    pub text: String,
    /// The task.
    #[arg(long, default_value = Task::ALL[0].id(), value_parser = task())]
    pub task: String,
    /// VQA: the question.
    #[arg(long, value_name = "Q")]
    pub question: Option<String>,
    /// A reference text (repeat).
    #[arg(long, value_name = "R")]
    pub reference: Vec<String>,
    /// MAEV: the caption.
    #[arg(long, value_name = "C")]
    pub caption: Option<String>,
    /// MAEV: the reference answer.
    #[arg(long, value_name = "A")]
    pub reference_answer: Option<String>,
    /// REG: the box, four numbers between 0 and 1.
    #[arg(long = "box", value_name = "L,T,R,B")]
    pub region: Option<String>,
    /// Write the result file the page opens (Open a result).
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// REG: the image already shows its box: send it scaled, without drawing the box again.
    #[arg(long)]
    pub boxes_drawn: bool,
    #[command(flatten)]
    pub gamma: Gamma,
    #[command(flatten)]
    pub judge: JudgeOptions,
    #[command(flatten)]
    pub requests: Requests,
}

#[derive(Debug, Args)]
pub struct RunCommand {
    /// The dataset (.jsonl, .csv, .tsv, or a .zip with its images).
    pub dataset: String,
    /// The results file, appended to as each item is read (and resumed from).
    #[arg(long, value_name = "FILE")]
    pub out: String,
    /// Items at once (1 in repeatable mode).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = number::<usize>, allow_negative_numbers = true)]
    pub concurrency: usize,
    /// Judge the failed items of the results file again.
    #[arg(long)]
    pub retry_failed: bool,
    #[command(flatten)]
    pub images: Images,
    #[command(flatten)]
    pub judge: JudgeOptions,
    #[command(flatten)]
    pub requests: Requests,
    #[command(flatten)]
    pub figures: Figures,
}

#[derive(Debug, Args)]
pub struct PlanCommand {
    /// The dataset (.jsonl, .csv, .tsv, or a .zip with its images).
    pub dataset: String,
    /// The requests file to write.
    #[arg(long, value_name = "FILE")]
    pub out: String,
    #[command(flatten)]
    pub images: Images,
    #[command(flatten)]
    pub judge: JudgeOptions,
}

#[derive(Debug, Args)]
pub struct ScoreCommand {
    /// The dataset the requests were planned from.
    pub dataset: String,
    /// The batch's output (and error) files; a later one answers what an earlier one left
    /// unanswered or failed.
    #[arg(required = true)]
    pub answers: Vec<String>,
    /// The results file to write.
    #[arg(long, value_name = "FILE")]
    pub out: String,
    /// The dataset's images, where they are not beside it or in its ZIP: a ZIP or a folder.
    #[arg(long, value_name = "ZIP|DIR")]
    pub images: Option<String>,
    #[command(flatten)]
    pub judge: JudgeOptions,
    #[command(flatten)]
    pub figures: Figures,
}

#[derive(Debug, Args)]
pub struct FiguresCommand {
    /// A results file (hj run's or score's, or the lab's export).
    pub results: String,
    #[command(flatten)]
    pub figures: Figures,
}

/// A number option's value that is not a number (`cli::said` names the option).
#[derive(Debug)]
pub struct NotANumber;

impl std::fmt::Display for NotANumber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a number")
    }
}

impl std::error::Error for NotANumber {}

fn number<T: std::str::FromStr>(s: &str) -> Result<T, NotANumber> {
    s.trim().parse().map_err(|_| NotANumber)
}

/// γ within the lab's slider's range, refused with the core's sentence (Python's too).
fn gamma(s: &str) -> Result<f64, Box<dyn std::error::Error + Send + Sync>> {
    Ok(checked_gamma(number(s)?)?)
}

/// One of `ids`, read by `check` (whose sentence a refusal says); `ids` are what `--help` and
/// the completions offer.
#[derive(Clone)]
pub struct OneOf<T> {
    ids: Vec<&'static str>,
    check: fn(&str) -> Result<T, String>,
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for OneOf<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let check = self.check;
        StringValueParser::new()
            .try_map(move |s| check(&s))
            .parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.ids.iter().map(PossibleValue::new)))
    }
}

fn metric() -> OneOf<Metric> {
    OneOf {
        ids: Metric::ALL.iter().map(|m| m.id()).collect(),
        check: settings::metric,
    }
}

fn provider() -> OneOf<String> {
    OneOf {
        ids: settings::providers().map(|p| p.id).collect(),
        check: |id| settings::preset(id).map(|p| p.id.to_string()),
    }
}

fn detail() -> OneOf<ImageDetail> {
    OneOf {
        ids: ImageDetail::ALL.map(ImageDetail::id).to_vec(),
        check: |s| ImageDetail::checked(s, "--detail"),
    }
}

fn protocol() -> OneOf<RatingProtocol> {
    OneOf {
        ids: RatingProtocol::ALL.map(RatingProtocol::id).to_vec(),
        check: |s| RatingProtocol::checked(s, "--protocol"),
    }
}

fn task() -> OneOf<String> {
    OneOf {
        ids: Task::ALL.map(Task::id).to_vec(),
        // Offered, not checked: the dataset reader, which the item goes through, says what a
        // task is (in any case) and refuses another with its sentence.
        check: |s| Ok(s.to_string()),
    }
}

/// Every value a listing option was given, commas splitting them too.
fn listed(values: &[String]) -> Vec<String> {
    values
        .iter()
        .flat_map(|v| v.split(','))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

impl JudgeOptions {
    /// HarmonicEval's criteria named (all when none is).
    pub fn criteria(&self) -> Vec<String> {
        listed(&self.criteria)
    }

    /// The metric's plan: the paper's, or extended, with the extensions and criteria named.
    pub fn plan(&self) -> Result<Plan, String> {
        let extensions = listed(&self.extension);
        settings::plan(self.metric, self.extended, &extensions, &self.criteria())
    }

    /// The page's judge settings; the key comes from the environment variable `--key-env`
    /// names (by default `HJ_API_KEY`, which may be unset).
    pub fn settings(&self) -> Result<JudgeSettings, String> {
        let key_env = self.key_env.as_deref().unwrap_or("HJ_API_KEY");
        let api_key = match std::env::var(key_env) {
            Ok(k) => k.trim().to_string(),
            Err(std::env::VarError::NotPresent) if self.key_env.is_none() => String::new(),
            Err(std::env::VarError::NotPresent) => {
                return Err(format!(
                    "The environment variable {key_env} (--key-env) is not set: export it with \
                     the key first."
                ))
            }
            Err(_) => return Err(format!("The environment variable {key_env} is not text.")),
        };
        Ok(JudgeSettings {
            provider: self.provider.clone(),
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            api_key,
            image_detail: self.detail,
            max_tokens: self.max_tokens,
            // Neither: the provider's default; both are refused as they are parsed.
            repeatable: (self.repeatable || self.no_repeatable).then_some(self.repeatable),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_declarations_hold_together() {
        Cli::command().debug_assert();
    }

    fn parsed(line: &str) -> Command {
        Cli::try_parse_from(std::iter::once("hj").chain(line.split_whitespace()))
            .unwrap()
            .command
    }

    #[test]
    fn values_switches_positionals_and_defaults() {
        let Command::Plan(p) =
            parsed("plan data.jsonl --model m --extension a,b --extension=c --extended --out o")
        else {
            panic!("not plan")
        };
        assert_eq!((p.dataset.as_str(), p.out.as_str()), ("data.jsonl", "o"));
        assert_eq!(p.judge.model.as_deref(), Some("m"));
        assert_eq!(listed(&p.judge.extension), ["a", "b", "c"]);
        assert!(p.judge.extended && !p.images.boxes_drawn);
        // The declared defaults; what has none is absent.
        assert_eq!(p.judge.metric, Metric::ALL[0]);
        assert_eq!(p.judge.detail, ImageDetail::default());
        assert_eq!(p.judge.key_env, None);
        let settings = p.judge.settings().unwrap();
        assert_eq!((settings.repeatable, settings.max_tokens), (None, None));
        let Command::Score(s) = parsed("score d.jsonl a.jsonl b.jsonl --gamma 0.5 --out r") else {
            panic!("not score")
        };
        assert_eq!(
            (s.dataset.as_str(), &s.answers[..]),
            (
                "d.jsonl",
                &["a.jsonl".to_string(), "b.jsonl".to_string()][..]
            )
        );
        assert_eq!(s.figures.gamma.gamma, 0.5);
        assert_eq!(s.figures.protocol, RatingProtocol::default());
        let Command::Run(r) = parsed("run d --out r --no-repeatable --criteria , --timeout 9")
        else {
            panic!("not run")
        };
        assert_eq!(r.judge.settings().unwrap().repeatable, Some(false));
        assert!(r.judge.criteria().is_empty());
        assert_eq!(
            (r.requests.timeout, r.requests.retries, r.concurrency),
            (9, 3, 5)
        );
    }
}
