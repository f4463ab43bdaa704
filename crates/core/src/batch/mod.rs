//! Batch runs: importing a dataset (JSONL or CSV, one item per line) and the ZIP archive of its
//! images, both pure so they are tested natively.
//!
//! * [`dataset`] turns a dataset file into [`Item`]s, reporting every bad row with its 1-based
//!   line number and a plain-English reason, and keeping the good rows;
//! * [`zip`] lists a ZIP archive's entries and locates each one's bytes (stored, or raw DEFLATE
//!   that the browser inflates with `DecompressionStream("deflate-raw")`), and matches a
//!   dataset's `image` by path or by base file name.
//!
//! Neither touches files, threads or the network, so both compile for `wasm32`.

use std::collections::BTreeMap;

use crate::inputs::geometry::NormBox;
use crate::scoring::criteria::Criterion;
use crate::scoring::task::Task;

pub mod dataset;
pub mod kept;
pub mod openai_batch;
pub mod plan;
pub mod reading;
pub mod ready;
pub mod zip;
mod zip_read;

pub use dataset::{
    detect_format, parse, parse_as, Dataset, Format, RowProblem, COLUMNS, MAX_LINE_BYTES, MAX_ROWS,
};
pub use zip::{crc32, LookupError, Method, ZipArchive, ZipEntry, ZipError};

/// Human judgments of one item. Each list holds one or more ratings (several annotators, as in
/// the Flickr8k-Expert protocol); an empty list means "not judged". No scale is assumed: the
/// numbers are kept as given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Human {
    /// Ratings per criterion, in [`Criterion::ALL`] order (index with [`Criterion::index`]).
    pub criteria: [Vec<f64>; 5],
    /// Overall ratings.
    pub overall: Vec<f64>,
}

impl Human {
    /// No judgment at all.
    pub fn is_empty(&self) -> bool {
        self.overall.is_empty() && self.criteria.iter().all(Vec::is_empty)
    }

    /// A criterion's ratings.
    pub fn ratings(&self, criterion: Criterion) -> &[f64] {
        &self.criteria[criterion.index()]
    }

    /// Mean of a criterion's ratings (`Some(c)`) or of the overall ratings (`None`); `None` when
    /// there are none.
    pub fn mean(&self, criterion: Option<Criterion>) -> Option<f64> {
        let v = match criterion {
            Some(c) => self.ratings(c),
            None => &self.overall,
        };
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    }

    /// As stored in results (`lab::ItemResult::human`): `"overall"` or a criterion id → ratings,
    /// judged keys only.
    pub fn to_map(&self) -> BTreeMap<String, Vec<f64>> {
        let mut map = BTreeMap::new();
        if !self.overall.is_empty() {
            map.insert("overall".to_string(), self.overall.clone());
        }
        for c in Criterion::ALL {
            if !self.ratings(c).is_empty() {
                map.insert(c.id().to_string(), self.ratings(c).to_vec());
            }
        }
        map
    }
}

/// One dataset item: an output to judge and everything that goes with it.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// 1-based line of the file where the item starts.
    pub line: usize,
    /// Unique within the dataset (trimmed; a JSON number is kept as written, e.g. `"42"`).
    pub id: String,
    pub task: Task,
    /// The output to judge (trimmed, never empty).
    pub text: String,
    /// Present (non-empty) whenever the task needs one (VQA, VDU).
    pub question: Option<String>,
    /// Reference texts (empty strings dropped); empty when none.
    pub references: Vec<String>,
    /// Image file name, normalised with [`normalize_path`]. Whether it is required depends on
    /// the metrics used, so the caller decides.
    pub image: Option<String>,
    /// The REG target box (always present for REG; kept as given for other tasks).
    pub bbox: Option<NormBox>,
    pub human: Human,
    /// Best-of-N: items sharing a group are candidates for the same input.
    pub group: Option<String>,
    /// Best-of-N: the candidate humans preferred.
    pub chosen: bool,
    /// MAEV: the caption given to the text-only judge instead of the image.
    pub caption: Option<String>,
    /// MAEV: the reference answer.
    pub reference_answer: Option<String>,
}

/// A relative path as `a/b.png`: backslashes become slashes, and empty, `.` and leading `/`
/// segments go; `..` removes the segment before it (or nothing at the start).
pub fn normalize_path(path: &str) -> String {
    let replaced = path.trim().replace('\\', "/");
    let mut parts: Vec<&str> = Vec::new();
    for part in replaced.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// The last segment of a normalised path.
pub fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalised() {
        assert_eq!(normalize_path("./a/b.png"), "a/b.png");
        assert_eq!(normalize_path(".\\imgs\\x.jpg"), "imgs/x.jpg");
        assert_eq!(normalize_path("/a//b/./c.png"), "a/b/c.png");
        assert_eq!(normalize_path("a/../b.png"), "b.png");
        assert_eq!(normalize_path("../b.png"), "b.png");
        assert_eq!(normalize_path(" b.png "), "b.png");
        assert_eq!(base_name("a/b/c.png"), "c.png");
        assert_eq!(base_name("c.png"), "c.png");
    }

    #[test]
    fn human_map_and_mean() {
        let mut h = Human::default();
        assert!(h.is_empty());
        h.overall = vec![3.0, 4.0];
        h.criteria[Criterion::Fluency.index()] = vec![5.0];
        assert!(!h.is_empty());
        assert_eq!(h.mean(None), Some(3.5));
        assert_eq!(h.mean(Some(Criterion::Fluency)), Some(5.0));
        assert_eq!(h.mean(Some(Criterion::Clarity)), None);
        let m = h.to_map();
        assert_eq!(m.len(), 2);
        assert_eq!(m["overall"], vec![3.0, 4.0]);
        assert_eq!(m["fluency"], vec![5.0]);
    }
}
