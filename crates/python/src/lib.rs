//! `harmonic_judge._core`: the Python package's binding over the harmonic-judge library. It
//! calls what the page's lab and the `hj` command call (`harmonic_judge_core::native`, `lab::io`,
//! `lab::figures`, `ItemResult::overall`), so the numbers are the page's. Results stay Rust
//! values inside [`Results`]: a float crosses into Python once, exactly (as a Python float, or
//! as the shortest text that reads back to it), and never comes back through a text parse.
//! The Python layer (`crates/python/harmonic_judge/__init__.py`) adds types and docstrings.

mod options;

use std::path::Path;

use harmonic_judge_core::batch::openai_batch::Limits;
use harmonic_judge_core::lab::jsonl_reader::JsonlReader;
use harmonic_judge_core::lab::{figures, io, ItemResult};
use harmonic_judge_core::meta::RatingProtocol;
use harmonic_judge_core::metrics::Metric;
use harmonic_judge_core::native::settings;
use harmonic_judge_core::native::{batch_files, disk, files};
use harmonic_judge_core::scoring::gamma_axis::GAMMA_DEFAULT;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use options::Options;

fn err(sentence: String) -> PyErr {
    PyValueError::new_err(sentence)
}

/// γ (the core's default when not given) within the lab's slider's range, or `ValueError` with
/// the sentence `hj --gamma` says.
fn gamma(g: Option<f64>) -> PyResult<f64> {
    harmonic_judge_core::lab::overall::checked_gamma(g.unwrap_or(GAMMA_DEFAULT)).map_err(err)
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

    #[pyo3(signature = (gamma=None))]
    fn to_jsonl(&self, gamma: Option<f64>) -> PyResult<String> {
        Ok(io::to_jsonl(&self.results, self::gamma(gamma)?))
    }

    /// Each result's overall score at γ (its criteria re-weighted; a one-score metric's score).
    #[pyo3(signature = (gamma=None))]
    fn overall(&self, gamma: Option<f64>) -> PyResult<Vec<Option<f64>>> {
        let g = self::gamma(gamma)?;
        Ok(self.results.iter().map(|r| r.overall(g)).collect())
    }

    /// The lab's agreement figures as its *Export agreement* JSON, or `None` without human
    /// judgments; `lines` as its table words them.
    #[pyo3(signature = (gamma=None, protocol=None, keep_partial=false))]
    fn agreement(
        &self,
        gamma: Option<f64>,
        protocol: Option<&str>,
        keep_partial: bool,
    ) -> PyResult<Option<(String, Vec<String>)>> {
        let p = match protocol {
            Some(id) => RatingProtocol::checked(id, "protocol").map_err(err)?,
            None => RatingProtocol::default(),
        };
        let gamma = self::gamma(gamma)?;
        Ok(figures::figures(&self.results, gamma, p, keep_partial).map(|f| (f.json(), f.lines())))
    }
}

/// A planned batch: its JSONL, how many requests, and (item id, reason) for each item left out.
type Planned = (String, usize, Vec<(String, String)>);

/// The dataset's requests as OpenAI Batch API JSONL: (text, how many, [(item id, reason)] for
/// the items that could not be planned). `options`: [`Options`].
#[pyfunction]
#[pyo3(signature = (dataset, **options))]
fn plan(dataset: &Dataset, options: Option<&Bound<'_, PyDict>>) -> PyResult<Planned> {
    let options = Options::from_kwargs("plan", options)?;
    let (plan, backend) = options.settings()?;
    let d = &dataset.loaded;
    let planned = batch_files::plan_jsonl(
        &plan,
        &backend,
        &d.items,
        &d.images,
        options.boxes_drawn,
        &|_| false,
        Limits::for_provider(&options.provider),
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
/// `hj score` read them). `options`: [`Options`], the plan's.
#[pyfunction]
#[pyo3(signature = (dataset, answers, **options))]
fn score(
    dataset: &Dataset,
    answers: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<ScoredTuple> {
    let (plan, backend) = Options::from_kwargs("score", options)?.settings()?;
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
    // What the Python layer's signatures are built from: the options `plan` and `score` take
    // with their defaults, γ's default and the rating protocol's, all the core's.
    m.add("OPTIONS", Options::defaults(m.py())?)?;
    m.add("GAMMA_DEFAULT", GAMMA_DEFAULT)?;
    m.add("PROTOCOL_DEFAULT", RatingProtocol::default().id())?;
    Ok(())
}
