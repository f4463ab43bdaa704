//! `harmonic_judge._core`: the Python package's binding over the harmonic-judge library. It
//! calls what the page's lab and the `hj` command call (`harmonic_judge_core::native`, `lab::io`,
//! `lab::figures`, `ItemResult::overall`), so the numbers are the page's. Results stay Rust
//! values inside [`Results`]: a float crosses into Python once, exactly (as a Python float, or
//! as the shortest text that reads back to it), and never comes back through a text parse.
//! The Python layer (`crates/python/harmonic_judge/__init__.py`) adds types and docstrings.

use std::path::Path;

use harmonic_judge_core::batch::openai_batch::Limits;
use harmonic_judge_core::batch::plan::Plan;
use harmonic_judge_core::lab::jsonl_reader::JsonlReader;
use harmonic_judge_core::lab::{figures, io, ItemResult};
use harmonic_judge_core::meta::RatingProtocol;
use harmonic_judge_core::metrics::Metric;
use harmonic_judge_core::native::settings::{self, JudgeSettings};
use harmonic_judge_core::native::{batch_files, disk, files};
use harmonic_judge_core::providers::{Backend, ImageDetail};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn err(sentence: String) -> PyErr {
    PyValueError::new_err(sentence)
}

/// γ within the lab's slider's range, or `ValueError` with the sentence `hj --gamma` says.
fn gamma(g: f64) -> PyResult<f64> {
    harmonic_judge_core::lab::overall::checked_gamma(g).map_err(err)
}

/// A dataset read from disk and checked as the lab checks an import.
#[pyclass(module = "harmonic_judge._core", frozen)]
struct Dataset {
    loaded: files::Loaded,
}

#[pymethods]
impl Dataset {
    #[new]
    #[pyo3(signature = (path, images=None))]
    fn new(path: &str, images: Option<&str>) -> PyResult<Self> {
        // Every good row is an item, whatever its image: the batch's item numbers depend on
        // the dataset alone (a missing image is said when the item is planned).
        let loaded = files::load(Path::new(path), images.map(Path::new), false).map_err(err)?;
        Ok(Dataset { loaded })
    }

    #[getter]
    fn name(&self) -> String {
        self.loaded.name.clone()
    }

    #[getter]
    fn ids(&self) -> Vec<String> {
        self.loaded.items.iter().map(|i| i.id.clone()).collect()
    }

    #[getter]
    fn report(&self) -> Vec<String> {
        self.loaded.report.clone()
    }

    fn __len__(&self) -> usize {
        self.loaded.items.len()
    }
}

/// Results as the lab stores them.
#[pyclass(module = "harmonic_judge._core", frozen)]
struct Results {
    results: Vec<ItemResult>,
    problems: Vec<String>,
}

fn protocol(id: &str) -> PyResult<RatingProtocol> {
    RatingProtocol::ALL
        .into_iter()
        .find(|p| p.id() == id)
        .ok_or_else(|| {
            err(format!(
                "protocol is repeated or averaged, not \u{201c}{id}\u{201d}."
            ))
        })
}

#[pymethods]
impl Results {
    /// A results JSONL file's text, read as the lab's *Import results* reads it.
    #[staticmethod]
    fn read_jsonl(text: &str) -> Results {
        let (results, problems) = io::from_jsonl(text);
        Results { results, problems }
    }

    /// A results JSONL file read from disk as `hj figures` reads it: a line at a time, each at
    /// most `native::disk::LINE_BYTES`, and only a regular file (a pipe or a device refused
    /// with a sentence, never waited on).
    #[staticmethod]
    fn read_file(path: &str) -> PyResult<Results> {
        let mut reader = JsonlReader::default();
        disk::each_line(Path::new(path), |_, line, _| {
            reader.read_line(line);
            Ok(())
        })
        .map_err(err)?;
        Ok(Results {
            results: reader.results,
            problems: reader.problems,
        })
    }

    #[getter]
    fn problems(&self) -> Vec<String> {
        self.problems.clone()
    }

    fn __len__(&self) -> usize {
        self.results.len()
    }

    /// The results as a JSON array (each an `ItemResult`, as the lab's JSONL holds it).
    fn to_json(&self) -> String {
        serde_json::to_string(&self.results).unwrap_or_default()
    }

    #[pyo3(signature = (gamma=0.75))]
    fn to_jsonl(&self, gamma: f64) -> PyResult<String> {
        Ok(io::to_jsonl(&self.results, self::gamma(gamma)?))
    }

    /// Each result's overall score at γ (its criteria re-weighted; a one-score metric's score).
    #[pyo3(signature = (gamma=0.75))]
    fn overall(&self, gamma: f64) -> PyResult<Vec<Option<f64>>> {
        let g = self::gamma(gamma)?;
        Ok(self.results.iter().map(|r| r.overall(g)).collect())
    }

    /// The lab's agreement figures as its *Export agreement* JSON, or `None` without human
    /// judgments; `lines` as its table words them.
    #[pyo3(signature = (gamma=0.75, protocol="repeated", keep_partial=false))]
    fn agreement(
        &self,
        gamma: f64,
        protocol: &str,
        keep_partial: bool,
    ) -> PyResult<Option<(String, Vec<String>)>> {
        let p = self::protocol(protocol)?;
        let gamma = self::gamma(gamma)?;
        Ok(figures::figures(&self.results, gamma, p, keep_partial).map(|f| (f.json(), f.lines())))
    }
}

/// The plan and the backend from the page's settings (`offline`: no key needed).
#[allow(clippy::too_many_arguments)]
fn settings_of(
    metric: Option<&str>,
    extended: bool,
    extensions: Vec<String>,
    criteria: Vec<String>,
    provider: &str,
    model: Option<String>,
    base_url: Option<String>,
    max_tokens: Option<u32>,
    image_detail: &str,
) -> PyResult<(Plan, Backend)> {
    let metric = match metric {
        Some(id) => settings::metric(id).map_err(err)?,
        None => Metric::ALL[0],
    };
    let plan = settings::plan(metric, extended, &extensions, &criteria).map_err(err)?;
    if !ImageDetail::ALL.iter().any(|d| d.id() == image_detail) {
        return Err(err(format!(
            "image_detail is auto, low or high, not \u{201c}{image_detail}\u{201d}."
        )));
    }
    let judge = JudgeSettings {
        provider: provider.to_string(),
        base_url,
        model,
        image_detail: ImageDetail::from_id(image_detail),
        max_tokens,
        ..JudgeSettings::default()
    };
    let backend = judge.offline_backend(metric).map_err(err)?;
    Ok((plan, backend))
}

/// A planned batch: its JSONL, how many requests, and (item id, reason) for each item left out.
type Planned = (String, usize, Vec<(String, String)>);

/// The dataset's requests as OpenAI Batch API JSONL: (text, how many, [(item id, reason)] for
/// the items that could not be planned).
#[pyfunction]
#[pyo3(signature = (dataset, metric=None, extended=false, extensions=Vec::new(), criteria=Vec::new(),
    provider="openai", model=None, base_url=None, max_tokens=None, image_detail="auto",
    boxes_drawn=false))]
#[allow(clippy::too_many_arguments)]
fn plan(
    dataset: &Dataset,
    metric: Option<&str>,
    extended: bool,
    extensions: Vec<String>,
    criteria: Vec<String>,
    provider: &str,
    model: Option<String>,
    base_url: Option<String>,
    max_tokens: Option<u32>,
    image_detail: &str,
    boxes_drawn: bool,
) -> PyResult<Planned> {
    let (plan, backend) = settings_of(
        metric,
        extended,
        extensions,
        criteria,
        provider,
        model,
        base_url,
        max_tokens,
        image_detail,
    )?;
    let d = &dataset.loaded;
    let planned = batch_files::plan_jsonl(
        &plan,
        &backend,
        &d.items,
        &d.images,
        boxes_drawn,
        &|_| false,
        Limits::for_provider(provider),
    )
    .map_err(err)?;
    let broken = planned
        .broken
        .into_iter()
        .map(|r| (r.id, r.error.unwrap_or_default()))
        .collect();
    Ok((planned.jsonl, planned.requests, broken))
}

/// What reading a batch's answers gave: results, unanswered item ids, incomplete item ids (a
/// planned request unanswered), sentences (the core's, as `hj score` says them), the summary.
type ScoredTuple = (Results, Vec<String>, Vec<String>, Vec<String>, String);

/// A file of answers read against the plan into results (`batch::reading`, as the lab and
/// `hj score` read them).
#[pyfunction]
#[pyo3(signature = (dataset, answers, metric=None, extended=false, extensions=Vec::new(),
    criteria=Vec::new(), provider="openai", model=None, base_url=None, max_tokens=None,
    image_detail="auto"))]
#[allow(clippy::too_many_arguments)]
fn score(
    dataset: &Dataset,
    answers: &str,
    metric: Option<&str>,
    extended: bool,
    extensions: Vec<String>,
    criteria: Vec<String>,
    provider: &str,
    model: Option<String>,
    base_url: Option<String>,
    max_tokens: Option<u32>,
    image_detail: &str,
) -> PyResult<ScoredTuple> {
    let (plan, backend) = settings_of(
        metric,
        extended,
        extensions,
        criteria,
        provider,
        model,
        base_url,
        max_tokens,
        image_detail,
    )?;
    let items = &dataset.loaded.items;
    let scored = batch_files::score(&plan, &backend, items, &[answers]);
    let summary = scored.summary(items.len());
    let mut notes = scored.notes.clone();
    notes.extend(scored.unanswered_sentence());
    let results = Results {
        results: scored.results,
        problems: Vec::new(),
    };
    Ok((
        results,
        scored.unanswered,
        scored.incomplete,
        notes,
        summary,
    ))
}

/// The metrics' ids, the first the default.
#[pyfunction]
fn metrics() -> Vec<&'static str> {
    Metric::ALL.iter().map(|m| m.id()).collect()
}

/// The providers' ids.
#[pyfunction]
fn providers() -> Vec<&'static str> {
    settings::providers().map(|p| p.id).collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Dataset>()?;
    m.add_class::<Results>()?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(score, m)?)?;
    m.add_function(wrap_pyfunction!(metrics, m)?)?;
    m.add_function(wrap_pyfunction!(providers, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
