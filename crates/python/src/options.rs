//! The options `plan` and `score` take, declared once ([`options!`] below): their names, types and
//! defaults, the keywords' parser, and the list the Python layer builds its signatures from
//! (`_core.OPTIONS`, tested against `__init__.py` and `_core.pyi` by
//! `tests/e2e/test_python_options.py`).

use harmonic_judge_core::batch::plan::Plan;
use harmonic_judge_core::metrics::Metric;
use harmonic_judge_core::native::settings::{self, JudgeSettings};
use harmonic_judge_core::providers::{Backend, ImageDetail, PRESETS};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;

use crate::err;

/// Declares the options: the struct, its defaults, the keywords' parser and the list of names
/// with defaults, from one table.
macro_rules! options {
    ($($(#[doc = $doc:literal])* $name:ident: $ty:ty = $default:expr,)*) => {
        /// The page's *Judge* and metric settings as `plan` and `score` take them.
        pub struct Options {
            $($(#[doc = $doc])* pub $name: $ty,)*
        }

        impl Default for Options {
            fn default() -> Self {
                Options { $($name: $default,)* }
            }
        }

        impl Options {
            const NAMES: &'static [&'static str] = &[$(stringify!($name),)*];

            /// The keywords `function` was called with; an unknown one or a value of the wrong
            /// type raises `TypeError`, as a Python function's keywords do.
            pub fn from_kwargs(function: &str, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
                let mut options = Options::default();
                for (key, value) in kwargs.into_iter().flat_map(|d| d.iter()) {
                    let key: String = key.extract()?;
                    let wrong = |e: PyErr| PyTypeError::new_err(format!("{function}() argument {key}: {e}"));
                    match key.as_str() {
                        $(stringify!($name) => options.$name = value.extract().map_err(wrong)?,)*
                        _ => return Err(unknown(function, &key)),
                    }
                }
                Ok(options)
            }

            /// Each option's name and default as Python sees them, in order.
            pub fn defaults(py: Python<'_>) -> PyResult<Vec<(&'static str, PyObject)>> {
                let d = Options::default();
                Ok(vec![$((stringify!($name), d.$name.into_py_any(py)?),)*])
            }
        }
    };
}

options! {
    /// A metric's id (`metrics()`); `None`, the first (HarmonicEval).
    metric: Option<String> = None,
    /// A preset's id (`providers()`).
    provider: String = PRESETS[0].id.to_string(),
    /// `None`: the preset's.
    model: Option<String> = None,
    /// `None`: the preset's.
    base_url: Option<String> = None,
    /// The output budget of scoring requests; `None`: the metric's on this provider.
    max_tokens: Option<u32> = None,
    /// OpenAI's image detail: auto, low or high.
    image_detail: String = ImageDetail::default().id().to_string(),
    /// Every extension of ours that can be switched on.
    extended: bool = false,
    /// Extensions switched on by id.
    extensions: Vec<String> = Vec::new(),
    /// HarmonicEval's criteria judged; all when empty.
    criteria: Vec<String> = Vec::new(),
    /// Whether the images already show the REG boxes (then they are sent scaled, without
    /// drawing again; by default each REG item's box is drawn in as the page draws it).
    boxes_drawn: bool = false,
}

fn unknown(function: &str, key: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "{function}() got an unexpected keyword argument \u{2018}{key}\u{2019}; its options are {}.",
        Options::NAMES.join(", ")
    ))
}

impl Options {
    /// The plan and the backend from the page's settings (offline: no key needed).
    pub fn settings(&self) -> PyResult<(Plan, Backend)> {
        let metric = match &self.metric {
            Some(id) => settings::metric(id).map_err(err)?,
            None => Metric::ALL[0],
        };
        let plan =
            settings::plan(metric, self.extended, &self.extensions, &self.criteria).map_err(err)?;
        let judge = JudgeSettings {
            provider: self.provider.clone(),
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            image_detail: ImageDetail::checked(&self.image_detail, "image_detail").map_err(err)?,
            max_tokens: self.max_tokens,
            ..JudgeSettings::default()
        };
        let backend = judge.offline_backend(metric).map_err(err)?;
        Ok((plan, backend))
    }
}
