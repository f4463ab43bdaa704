//! The judge and the metric as the page has them, from plain strings: a provider's preset
//! (`providers::PRESETS`) with the base URL, model and output budget the page would use for it,
//! and a lab run's plan (`RunSettings::lab`) for a metric with the extensions switched on.
//! Every refusal is a sentence a person can act on.

use crate::batch::plan::Plan;
use crate::metrics::fidelity::{Extension, Fidelity};
use crate::metrics::{CriterionSet, Metric, RunSettings};
use crate::providers::{Backend, BackendChoice, ImageDetail, Preset, PRESETS};
use crate::scoring::criteria::Criterion;

/// The judge's settings as the page's *Judge* form has them; `None` means the page's default
/// for the provider (and, for the output budget, for the metric). The key is given by the
/// caller, who reads it from the environment: it is never an argument of a command.
#[derive(Clone, Default, PartialEq)]
pub struct JudgeSettings {
    /// A preset id (`openai`, `llama_server`, `vllm`, `custom`, …).
    pub provider: String,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key: String,
    pub image_detail: ImageDetail,
    pub max_tokens: Option<u32>,
    /// Repeatable mode (a fixed seed for sampling requests, one request at a time); the page's
    /// default is on for local servers.
    pub repeatable: Option<bool>,
}

impl std::fmt::Debug for JudgeSettings {
    // Never print the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JudgeSettings")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field(
                "api_key",
                &if self.api_key.is_empty() { "" } else { "[set]" },
            )
            .finish_non_exhaustive()
    }
}

/// The providers a command can name: every preset but the in-page judge.
pub fn providers() -> impl Iterator<Item = &'static Preset> {
    PRESETS.iter().filter(|p| !p.in_page())
}

/// The preset named `id`, or a sentence listing those there are.
pub fn preset(id: &str) -> Result<&'static Preset, String> {
    if let Some(p) = PRESETS.iter().find(|p| p.id == id) {
        if p.in_page() {
            return Err(
                "The in-browser judge runs only inside the page; from here, point at a server \
                 (llama_server, vllm, ollama, or an API)."
                    .into(),
            );
        }
        return Ok(p);
    }
    let ids: Vec<&str> = providers().map(|p| p.id).collect();
    Err(format!(
        "There is no provider \u{201c}{id}\u{201d}: choose one of {}.",
        ids.join(", ")
    ))
}

impl JudgeSettings {
    /// The backend the page would build for these settings and `metric`: the preset's base URL
    /// and model unless given, the metric's output budget on this provider unless given,
    /// llama.cpp's own fields for `llama_server`, repeatable mode by default on local servers.
    pub fn backend(&self, metric: Metric) -> Result<Backend, String> {
        let (p, base_url, model) = self.parts(true)?;
        if p.needs_key && self.api_key.is_empty() {
            return Err(format!(
                "{} needs an API key: put it in an environment variable and name that variable \
                 (--key-env NAME); it is never read from the command line.",
                p.label
            ));
        }
        Ok(self.build(metric, p, base_url, model))
    }

    /// The backend as [`JudgeSettings::backend`] builds it, without a key or a base URL: for
    /// planning and scoring, which send nothing.
    pub fn offline_backend(&self, metric: Metric) -> Result<Backend, String> {
        let (p, base_url, model) = self.parts(false)?;
        Ok(Backend {
            api_key: String::new(),
            ..self.build(metric, p, base_url, model)
        })
    }

    /// The preset, base URL and model, or what is missing.
    fn parts(&self, need_url: bool) -> Result<(&'static Preset, String, String), String> {
        let p = preset(&self.provider)?;
        let base_url = p.base_url_or(self.base_url.clone());
        if need_url && base_url.trim().is_empty() {
            return Err(format!(
                "The provider \u{201c}{}\u{201d} has no base URL of its own: give one (--base-url).",
                p.id
            ));
        }
        let model = p.model_or(self.model.clone());
        if model.trim().is_empty() {
            return Err(format!(
                "The provider \u{201c}{}\u{201d} has no default model: name one (--model).",
                p.id
            ));
        }
        Ok((p, base_url, model))
    }

    fn build(&self, metric: Metric, p: &Preset, base_url: String, model: String) -> Backend {
        p.backend(BackendChoice {
            base_url: Some(base_url),
            model: Some(model),
            api_key: self.api_key.clone(),
            image_detail: self.image_detail,
            max_tokens: self
                .max_tokens
                .unwrap_or_else(|| metric.info().default_max_tokens(p.local)),
            repeatable: self.repeatable,
        })
    }

    /// Requests at once: one in repeatable mode (as the page does), else `asked`.
    pub fn concurrency(&self, asked: usize) -> Result<usize, String> {
        let repeatable = self
            .repeatable
            .unwrap_or_else(|| preset(&self.provider).is_ok_and(|p| p.local));
        Ok(if repeatable { 1 } else { asked.clamp(1, 64) })
    }
}

/// The metric named `id`, or a sentence listing those there are.
pub fn metric(id: &str) -> Result<Metric, String> {
    Metric::from_id(id).ok_or_else(|| {
        let ids: Vec<&str> = Metric::ALL.iter().map(|m| m.id()).collect();
        format!(
            "There is no metric \u{201c}{id}\u{201d}: choose one of {}.",
            ids.join(", ")
        )
    })
}

/// A lab run's plan: `metric` at the paper's fidelity, or `extended` (every extension of ours
/// that can be switched), plus the `extensions` named; `criteria` (HarmonicEval) the criteria
/// judged, all when empty.
pub fn plan(
    metric: Metric,
    extended: bool,
    extensions: &[String],
    criteria: &[String],
) -> Result<Plan, String> {
    let mut fidelity = if extended {
        Fidelity::extended(metric)
    } else {
        Fidelity::paper()
    };
    for id in extensions {
        let e = Extension::from_id(id).ok_or_else(|| {
            let ids: Vec<&str> = Extension::SWITCHABLE
                .iter()
                .filter(|e| e.applies_to(metric))
                .map(|e| e.id())
                .collect();
            format!(
                "There is no extension \u{201c}{id}\u{201d}; {} has {}.",
                metric.info().name,
                if ids.is_empty() {
                    "none that can be switched".to_string()
                } else {
                    ids.join(", ")
                }
            )
        })?;
        if !e.applies_to(metric) || !Extension::SWITCHABLE.contains(&e) {
            return Err(format!(
                "The extension \u{201c}{id}\u{201d} cannot be switched on for {}.",
                metric.info().name
            ));
        }
        fidelity = fidelity.with(e, true);
    }
    let mut chosen = CriterionSet::default();
    if !criteria.is_empty() {
        let named: Result<Vec<Criterion>, String> = criteria
            .iter()
            .map(|id| {
                Criterion::ALL
                    .into_iter()
                    .find(|c| c.id() == id)
                    .ok_or_else(|| {
                        let ids: Vec<&str> = Criterion::ALL.iter().map(|c| c.id()).collect();
                        format!(
                            "There is no criterion \u{201c}{id}\u{201d}: choose among {}.",
                            ids.join(", ")
                        )
                    })
            })
            .collect();
        chosen = CriterionSet::of(&named?);
    }
    Ok(Plan {
        metric,
        settings: RunSettings::lab(fidelity, chosen),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(provider: &str) -> JudgeSettings {
        JudgeSettings {
            provider: provider.into(),
            ..JudgeSettings::default()
        }
    }

    #[test]
    fn a_preset_gives_the_pages_defaults() {
        let m = Metric::ALL[0];
        let b = judge("llama_server").backend(m).unwrap();
        assert_eq!(b.base_url, "http://127.0.0.1:8080/v1");
        assert!(b.tuning.llama_cpp && b.tuning.repeatable);
        assert_eq!(b.tuning.max_tokens, Some(m.info().local_max_tokens));
        assert_eq!(judge("llama_server").concurrency(8), Ok(1));
        let openai = JudgeSettings {
            api_key: "sk-x".into(),
            max_tokens: Some(64),
            ..judge("openai")
        };
        let b = openai.backend(m).unwrap();
        assert_eq!(
            (b.model.as_str(), b.tuning.max_tokens),
            ("gpt-4o", Some(64))
        );
        assert!(!b.tuning.repeatable);
        assert_eq!(openai.concurrency(8), Ok(8));
    }

    #[test]
    fn what_is_missing_is_said() {
        let m = Metric::ALL[0];
        let e = judge("openai").backend(m).unwrap_err();
        assert!(
            e.contains("needs an API key") && e.contains("--key-env"),
            "{e}"
        );
        assert!(judge("custom")
            .backend(m)
            .unwrap_err()
            .contains("no base URL"));
        assert!(judge("nope")
            .backend(m)
            .unwrap_err()
            .contains("llama_server"));
        assert!(judge("in_browser")
            .backend(m)
            .unwrap_err()
            .contains("inside the page"));
        assert!(metric("bleu").unwrap_err().contains(Metric::ALL[1].id()));
        let debug = format!(
            "{:?}",
            JudgeSettings {
                api_key: "sk-secret".into(),
                ..judge("openai")
            }
        );
        assert!(!debug.contains("sk-secret"));
    }

    #[test]
    fn plans_take_the_named_extensions_and_criteria() {
        for m in Metric::ALL {
            let p = plan(m, false, &[], &[]).unwrap();
            assert_eq!(p.fidelity().level(), "paper");
            let ext = plan(m, true, &[], &[]).unwrap();
            assert_eq!(ext.fidelity(), Fidelity::extended(m));
            for e in Extension::SWITCHABLE.iter().filter(|e| e.applies_to(m)) {
                let one = plan(m, false, &[e.id().to_string()], &[]).unwrap();
                assert!(one.fidelity().has(*e));
            }
        }
        assert!(plan(Metric::ALL[0], false, &["nope".into()], &[]).is_err());
        let c = plan(
            Metric::ALL[0],
            false,
            &[],
            &["fluency".into(), "clarity".into()],
        )
        .unwrap();
        assert_eq!(c.chosen_criteria.ids(), ["clarity", "fluency"]);
        assert!(plan(Metric::ALL[0], false, &[], &["beauty".into()]).is_err());
    }
}
