//! A dataset and its images from disk, checked as the lab checks an import
//! (`batch::parse`, `batch::ready::readiness`): a `.jsonl`/`.csv`/`.tsv` file with its images in
//! a folder or a ZIP, or one ZIP holding both (the sample dataset). ZIP entries are located by
//! `batch::zip` and inflated here (the page uses the browser's `DecompressionStream`), each
//! checked against its stated size and CRC.

use std::path::{Path, PathBuf};

use crate::batch::{self, Item, Method, ZipArchive};
use crate::inputs::sniff::{self, Kind};
use crate::providers::Image;

use super::disk::{self, read_limited};

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

/// An entry's bytes, inflated and checked (`name` as the dataset names it).
fn zip_entry(bytes: &[u8], archive: &ZipArchive, name: &str) -> Result<Vec<u8>, String> {
    let entry = archive
        .find(name)
        .map_err(|e| format!("\u{201c}{name}\u{201d}: {e}"))?;
    entry.check_size().map_err(|e| e.to_string())?;
    let raw = entry
        .raw(bytes)
        .ok_or("The ZIP entry lies outside the archive.")?;
    let data = match entry.method {
        Method::Deflate => {
            let limit = entry.uncompressed_size as usize;
            miniz_oxide::inflate::decompress_to_vec_with_limit(raw, limit).map_err(|_| {
                format!("\u{201c}{name}\u{201d}: the ZIP entry is damaged (it does not inflate).")
            })?
        }
        _ => raw.to_vec(),
    };
    entry
        .verify(&data)
        .map_err(|e| format!("\u{201c}{name}\u{201d}: {e}"))?;
    Ok(data)
}

fn open_zip(path: &Path) -> Result<(Vec<u8>, ZipArchive), String> {
    let bytes = read_limited(path, "a ZIP", disk::ZIP_BYTES)?;
    let archive = ZipArchive::parse(&bytes)
        .map_err(|e| format!("\u{201c}{}\u{201d}: {e}", path.display()))?;
    Ok((bytes, archive))
}

/// The first dataset file inside a ZIP (as the lab picks it), as (path, text).
fn dataset_in_zip(bytes: &[u8], archive: &ZipArchive) -> Result<Option<(String, String)>, String> {
    let Some(entry) = archive.entries().iter().find(|e| {
        let lower = e.path.to_lowercase();
        !lower.starts_with("__macosx/")
            && [".jsonl", ".ndjson", ".csv", ".tsv"]
                .iter()
                .any(|x| lower.ends_with(x))
    }) else {
        return Ok(None);
    };
    let data = zip_entry(bytes, archive, &entry.path)?;
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

/// An image file as it is sent: its own bytes, inline, with the type its header says. The page
/// downscales and re-encodes as JPEG in the browser; natively there is no decoder, so the file
/// goes as it is, and anything the page would refuse before decoding is refused with its
/// sentence.
pub fn image(bytes: &[u8], name: &str) -> Result<Image, String> {
    let sniffed = sniff::sniff(&bytes[..bytes.len().min(512 * 1024)]);
    if let Some(why) = sniff::refusal(&sniffed) {
        return Err(format!("\u{201c}{name}\u{201d}: {why}"));
    }
    let mime = match sniffed.kind {
        Kind::Jpeg => "image/jpeg",
        Kind::Png => "image/png",
        Kind::Gif => "image/gif",
        Kind::WebP => "image/webp",
        _ => {
            return Err(format!(
                "\u{201c}{name}\u{201d} is not a PNG, JPEG, GIF or WebP image, the formats a \
                 judge accepts as they are: convert it first."
            ))
        }
    };
    Ok(Image::new(mime, super::base64::encode(bytes)))
}

/// The image an item sends, when it names one; `boxes_drawn` says the REG boxes are already in
/// the images (the page draws them in; natively there is no canvas to draw them with).
pub fn item_image(
    images: &Images,
    item: &Item,
    boxes_drawn: bool,
) -> Result<Option<Image>, String> {
    let Some(name) = &item.image else {
        return Ok(None);
    };
    if item.task.needs_box() && !boxes_drawn {
        return Err(format!(
            "Item \u{201c}{}\u{201d} is a referring expression: the page draws its box into the \
             image, which the command line cannot. Draw the boxes in beforehand and say so \
             (--boxes-drawn), or run this dataset in the lab.",
            item.id
        ));
    }
    image(&image_bytes(images, name)?, name).map(Some)
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
            assert_eq!(img.mime, "image/png");
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
    fn what_a_judge_cannot_take_is_refused_with_a_sentence() {
        assert!(image(b"%PDF-1.7 ...", "a.pdf").unwrap_err().contains("PDF"));
        assert!(image(
            b"BM\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\x01\0\0\0",
            "a.bmp"
        )
        .unwrap_err()
        .contains("convert it first"));
        let png = image(
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01",
            "a.png",
        )
        .unwrap();
        assert_eq!(png.mime, "image/png");
    }
}
