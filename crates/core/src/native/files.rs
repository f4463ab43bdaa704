//! A dataset and its images from disk, checked as the lab checks an import
//! (`batch::parse`, `batch::ready::readiness`): a `.jsonl`/`.csv`/`.tsv` file with its images in
//! a folder or a ZIP, or one ZIP holding both (the sample dataset). ZIP entries are located by
//! `batch::zip` and inflated here (the page uses the browser's `DecompressionStream`), each
//! checked against its stated size and CRC.

use std::path::{Path, PathBuf};

use crate::batch::{self, Item, ZipArchive, ZipEntry};
use crate::inputs::geometry::NormBox;
use crate::inputs::pipeline;
use crate::providers::Image;

use super::disk::{self, read_limited};
use super::image_prep;

/// Where the items' images are.
#[derive(Clone, Debug)]
pub enum Images {
    /// None were given (a text-only metric needs none).
    None,
    /// A ZIP archive's bytes and its directory.
    Zip {
        bytes: Vec<u8>,
        archive: Box<ZipArchive>,
    },
    /// A folder: an image is found by its path under it, else by its file name at its top.
    Dir(PathBuf),
}

/// A dataset read and checked.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The dataset file's name (inside the ZIP when it came in one).
    pub name: String,
    /// The items a run can take, in file order: their index is the batch's `custom_id` prefix.
    pub items: Vec<Item>,
    /// Items left out because their image is missing.
    pub left_out: usize,
    /// The lab's findings, in line order (bad rows, missing images, warnings).
    pub report: Vec<String>,
    /// Rows refused (each in the report).
    pub bad_rows: usize,
    pub images: Images,
}

fn is_zip(path: &Path) -> bool {
    path.extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("zip"))
}

/// An entry's bytes, inflated (natively, by `miniz_oxide`) and checked.
fn inflated(entry: &ZipEntry, raw: &[u8]) -> Result<Vec<u8>, String> {
    let data = if entry.deflated() {
        let limit = entry.uncompressed_size as usize;
        miniz_oxide::inflate::decompress_to_vec_with_limit(raw, limit).map_err(|_| {
            format!(
                "\u{201c}{}\u{201d}: the ZIP entry is damaged (it does not inflate).",
                entry.path
            )
        })?
    } else {
        raw.to_vec()
    };
    entry.content(data)
}

/// An entry's bytes, inflated and checked (`name` as the dataset names it).
fn zip_entry(bytes: &[u8], archive: &ZipArchive, name: &str) -> Result<Vec<u8>, String> {
    let (entry, raw) = archive.named_entry(bytes, name)?;
    inflated(entry, raw)
}

fn open_zip(path: &Path) -> Result<(Vec<u8>, ZipArchive), String> {
    let bytes = read_limited(path, "a ZIP", disk::ZIP_BYTES)?;
    let archive = ZipArchive::parse(&bytes)
        .map_err(|e| format!("\u{201c}{}\u{201d}: {e}", path.display()))?;
    Ok((bytes, archive))
}

/// The first dataset file inside a ZIP (as the lab picks it), as (path, text).
fn dataset_in_zip(bytes: &[u8], archive: &ZipArchive) -> Result<Option<(String, String)>, String> {
    let Some(entry) = archive.dataset_entry() else {
        return Ok(None);
    };
    let data = inflated(entry, entry.checked_raw(bytes)?)?;
    let text = String::from_utf8(data).map_err(|_| format!("{} is not UTF-8 text.", entry.path))?;
    Ok(Some((entry.path.clone(), text)))
}

/// Reads `dataset` (a dataset file, or a ZIP holding one) with its images (`images`: a ZIP or a
/// folder; by default the ZIP the dataset came in, or the dataset's own folder) and checks it
/// as the lab does: `needs_image` says whether the metric looks at the image, so an item whose
/// image is missing is left out and reported. `Err` when nothing can be read at all.
pub fn load(dataset: &Path, images: Option<&Path>, needs_image: bool) -> Result<Loaded, String> {
    let (name, text, own_zip) = if is_zip(dataset) {
        let (bytes, archive) = open_zip(dataset)?;
        let Some((name, text)) = dataset_in_zip(&bytes, &archive)? else {
            return Err(format!(
                "\u{201c}{}\u{201d} holds no dataset file (.jsonl, .csv or .tsv).",
                dataset.display()
            ));
        };
        (name, text, Some((bytes, archive)))
    } else {
        let bytes = read_limited(dataset, "a dataset file", disk::DATASET_BYTES)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("\u{201c}{}\u{201d} is not UTF-8 text.", dataset.display()))?;
        let name = dataset
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        (name, text, None)
    };
    let images = match (images, own_zip) {
        (Some(p), _) if is_zip(p) => {
            let (bytes, archive) = open_zip(p)?;
            Images::Zip {
                bytes,
                archive: Box::new(archive),
            }
        }
        (Some(p), _) if p.is_dir() => Images::Dir(p.to_path_buf()),
        (Some(p), _) => {
            return Err(format!(
                "\u{201c}{}\u{201d} is neither a ZIP of images nor a folder.",
                p.display()
            ))
        }
        (None, Some((bytes, archive))) => Images::Zip {
            bytes,
            archive: Box::new(archive),
        },
        (None, None) => Images::Dir(
            dataset
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf(),
        ),
    };
    let parsed = batch::parse(&name, &text);
    let bad_rows = parsed.problems.len();
    let ready = batch::ready::readiness(parsed, needs_image, |img| has(&images, img), Vec::new());
    Ok(Loaded {
        name,
        items: ready.ready,
        left_out: ready.left_out,
        report: ready.report,
        bad_rows,
        images,
    })
}

fn in_dir(dir: &Path, name: &str) -> Option<PathBuf> {
    let normal = batch::normalize_path(name);
    [dir.join(&normal), dir.join(batch::base_name(&normal))]
        .into_iter()
        .find(|p| p.is_file())
}

fn has(images: &Images, name: &str) -> bool {
    match images {
        Images::None => false,
        Images::Zip { archive, .. } => archive.find(name).is_ok(),
        Images::Dir(dir) => in_dir(dir, name).is_some(),
    }
}

/// The bytes of the image an item names.
pub fn image_bytes(images: &Images, name: &str) -> Result<Vec<u8>, String> {
    match images {
        Images::None => Err(format!(
            "No image files were chosen for \u{201c}{name}\u{201d}."
        )),
        Images::Zip { bytes, archive } => zip_entry(bytes, archive, name),
        Images::Dir(dir) => match in_dir(dir, name) {
            Some(p) => read_limited(&p, "an image", disk::IMAGE_BYTES),
            None => Err(format!(
                "Image \u{201c}{name}\u{201d} is not among the chosen files."
            )),
        },
    }
}

/// An image file as it is sent, prepared as the page prepares it (`image_prep`): decoded,
/// scaled so its longest side is at most `inputs::pipeline::MAX_SIDE`, `red_box` drawn in when
/// given, encoded as JPEG. What the page refuses is refused with its sentence, after the name.
pub fn image(bytes: &[u8], name: &str, red_box: Option<NormBox>) -> Result<Image, String> {
    image_prep::prepared_image(bytes, pipeline::MAX_SIDE, red_box)
        .map_err(|why| format!("\u{201c}{name}\u{201d}: {why}"))
}

/// The image an item sends, when it names one, prepared as the page prepares it: a REG item's
/// usable box is drawn in unless `boxes_drawn` says the images already show their boxes (then
/// it is sent scaled, without drawing again).
pub fn item_image(
    images: &Images,
    item: &Item,
    boxes_drawn: bool,
) -> Result<Option<Image>, String> {
    let Some(name) = &item.image else {
        return Ok(None);
    };
    let red_box = if item.task.needs_box() && !boxes_drawn {
        item.bbox.filter(|b| b.is_usable())
    } else {
        None
    };
    image(&image_bytes(images, name)?, name, red_box).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PathBuf {
        Path::new(crate::REPO).join("public/sample-dataset.zip")
    }

    #[test]
    fn the_sample_zip_holds_its_dataset_and_images() {
        let loaded = load(&sample(), None, true).unwrap();
        assert_eq!(loaded.name, "dataset.jsonl");
        assert!(!loaded.items.is_empty());
        assert_eq!(loaded.left_out, 0, "{:?}", loaded.report);
        for item in loaded.items.iter().filter(|i| !i.task.needs_box()) {
            let img = item_image(&loaded.images, item, false).unwrap().unwrap();
            assert_eq!(img.mime, "image/jpeg");
        }
    }

    #[test]
    fn a_missing_image_is_left_out_and_said() {
        let dir = std::env::temp_dir().join(format!("hj-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data = dir.join("d.jsonl");
        std::fs::write(
            &data,
            "{\"id\":\"a\",\"text\":\"A cat.\",\"image\":\"gone.png\"}\n{\"id\":\"b\"}\n",
        )
        .unwrap();
        let loaded = load(&data, None, true).unwrap();
        assert!(loaded.items.is_empty());
        assert_eq!(loaded.left_out, 1);
        assert!(loaded
            .report
            .iter()
            .any(|r| r.starts_with("Line 1:") && r.contains("gone.png")));
        assert!(loaded.report.iter().any(|r| r.starts_with("Line 2:")));
        // Text-only metrics need no image.
        assert_eq!(load(&data, None, false).unwrap().items.len(), 1);
        let missing = load(&dir.join("nope.jsonl"), None, true).unwrap_err();
        assert!(missing.contains("there is no such file"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn what_the_page_refuses_is_refused_with_its_sentence_after_the_name() {
        let pdf = image(b"%PDF-1.7 ...", "a.pdf", None).unwrap_err();
        assert!(
            pdf.starts_with("\u{201c}a.pdf\u{201d}: This is a PDF"),
            "{pdf}"
        );
        // A BMP header with nothing after it: the page's sentence for what does not decode.
        let bmp = image(
            b"BM\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\x01\0\0\0",
            "a.bmp",
            None,
        )
        .unwrap_err();
        assert!(bmp.ends_with(pipeline::NOT_DECODABLE), "{bmp}");
        let empty = image(b"", "e.png", None).unwrap_err();
        assert!(empty.ends_with("The file is empty (0 bytes)."), "{empty}");
    }

    #[test]
    fn items_send_a_jpeg_with_their_box_drawn_unless_it_already_is() {
        let loaded = load(&sample(), None, true).unwrap();
        let mut item = loaded.items[0].clone();
        let plain = item_image(&loaded.images, &item, false).unwrap().unwrap();
        assert_eq!(plain.mime, "image/jpeg");
        item.task = crate::scoring::task::Task::Reg;
        item.bbox = Some(NormBox {
            x0: 0.2,
            y0: 0.2,
            x1: 0.8,
            y1: 0.8,
        });
        let boxed = item_image(&loaded.images, &item, false).unwrap().unwrap();
        assert_ne!(boxed, plain, "the box is drawn in");
        assert_eq!(
            item_image(&loaded.images, &item, true).unwrap(),
            Some(plain)
        );
    }
}
