//! What every door does with a dataset's ZIP around inflating an entry, which each does its own
//! way (natively `miniz_oxide`, in the page the browser's `DecompressionStream`): which entry is
//! the dataset file, an entry's bytes as stored with its size checked first, and the check of
//! what was inflated; with the sentences each says.

use super::zip::{Method, ZipArchive, ZipEntry};

/// The extensions of a dataset file, as the lab takes one from a ZIP.
const DATASET_EXTENSIONS: [&str; 4] = [".jsonl", ".ndjson", ".csv", ".tsv"];

impl ZipArchive {
    /// The dataset file the lab takes from a ZIP: the first `.jsonl`, `.ndjson`, `.csv` or
    /// `.tsv` outside macOS's `__MACOSX/` folder.
    pub fn dataset_entry(&self) -> Option<&ZipEntry> {
        self.entries().iter().find(|e| {
            let lower = e.path.to_lowercase();
            !lower.starts_with("__macosx/") && DATASET_EXTENSIONS.iter().any(|x| lower.ends_with(x))
        })
    }

    /// The entry a dataset names (`find`) and its bytes as stored, its size checked against the
    /// limit before anything is inflated.
    pub fn named_entry<'b>(
        &self,
        bytes: &'b [u8],
        name: &str,
    ) -> Result<(&ZipEntry, &'b [u8]), String> {
        let entry = self
            .find(name)
            .map_err(|e| format!("\u{201c}{name}\u{201d}: {e}"))?;
        Ok((entry, entry.checked_raw(bytes)?))
    }
}

impl ZipEntry {
    /// The entry's bytes as stored, once its stated size is within the limit (`check_size`).
    pub fn checked_raw<'b>(&self, bytes: &'b [u8]) -> Result<&'b [u8], String> {
        self.check_size().map_err(|e| e.to_string())?;
        self.raw(bytes)
            .ok_or_else(|| "The ZIP entry lies outside the archive.".to_string())
    }

    /// Whether the stored bytes must be inflated (never more than the stated size, which
    /// `checked_raw` bounded).
    pub fn deflated(&self) -> bool {
        self.method == Method::Deflate
    }

    /// `data` (the entry inflated, or as stored) as the file's content: its size and checksum
    /// verified against the central directory.
    pub fn content(&self, data: Vec<u8>) -> Result<Vec<u8>, String> {
        self.verify(&data).map_err(|e| e.to_string())?;
        Ok(data)
    }

    /// The content as text (a dataset file).
    pub fn text(&self, data: Vec<u8>) -> Result<String, String> {
        String::from_utf8(self.content(data)?)
            .map_err(|_| format!("{} is not UTF-8 text.", self.path))
    }
}

#[cfg(test)]
mod tests {
    use crate::batch::zip::tests::Writer;
    use crate::batch::zip::ZipArchive;

    #[test]
    fn every_door_takes_the_same_dataset_file_and_checks_what_it_inflated() {
        let mut w = Writer::default();
        w.add("__MACOSX/._data.jsonl", b"junk");
        w.add("images/a.png", b"png");
        w.add("data.jsonl", b"{\"id\":\"1\"}\n");
        let bytes = w.finish(b"");
        let archive = ZipArchive::parse(&bytes).unwrap();
        let entry = archive.dataset_entry().unwrap();
        assert_eq!(entry.path, "data.jsonl");
        let raw = entry.checked_raw(&bytes).unwrap().to_vec();
        assert_eq!(entry.text(raw).unwrap(), "{\"id\":\"1\"}\n");
        // What was inflated must be what the central directory says.
        assert!(entry
            .content(b"{\"id\":\"2\"}\n".to_vec())
            .unwrap_err()
            .contains("checksum"));
        let (a, raw) = archive.named_entry(&bytes, "a.png").unwrap();
        assert_eq!((a.path.as_str(), raw), ("images/a.png", &b"png"[..]));
        assert!(!a.deflated());
        let missing = archive.named_entry(&bytes, "b.png").unwrap_err();
        assert!(missing.starts_with("\u{201c}b.png\u{201d}: "), "{missing}");
    }
}
