//! A minimal ZIP reader for a batch's images archive.
//!
//! It reads the End Of Central Directory record (searched backwards, past the archive comment),
//! the central directory, and each entry's local header (whose name and extra lengths may differ
//! from the central directory's) to find where the entry's bytes are. It never decompresses:
//! a stored entry's bytes are the file, and a deflated entry's bytes are raw DEFLATE, which the
//! browser inflates with `DecompressionStream("deflate-raw")`; [`ZipEntry::verify`] then checks
//! the result against the size and CRC-32 of the central directory.
//!
//! Sizes always come from the central directory, so entries written with data descriptors
//! (sizes unknown in the local header) are fine. ZIP64, split archives, encryption and
//! compression methods other than stored and deflate are refused with a plain-English reason.
//! Directories, `__MACOSX/` resource forks, `._*` files and `.DS_Store` are skipped.
//!
//! Malformed input gives an error, never a panic: every read is bounds-checked.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

use super::{base_name, normalize_path};

const EOCD_SIGNATURE: u32 = 0x0605_4b50;
const CENTRAL_SIGNATURE: u32 = 0x0201_4b50;
const LOCAL_SIGNATURE: u32 = 0x0403_4b50;
const ZIP64_LOCATOR_SIGNATURE: u32 = 0x0706_4b50;
/// The largest file taken out of an archive: the same 50 MB as a dropped image file.
pub const MAX_ENTRY_BYTES: u64 = 50 * 1024 * 1024;
const EOCD_LEN: usize = 22;
const CENTRAL_LEN: usize = 46;
const LOCAL_LEN: usize = 30;

/// How an entry's bytes are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The bytes are the file (method 0).
    Stored,
    /// Raw DEFLATE (method 8): inflate with `DecompressionStream("deflate-raw")`.
    Deflate,
}

/// A file in the archive that can be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZipEntry {
    /// Normalised path (`a/b.png`).
    pub path: String,
    pub method: Method,
    /// CRC-32 of the uncompressed file, from the central directory.
    pub crc32: u32,
    pub compressed_size: u64,
    pub uncompressed_size: u64,
    /// Where the (compressed) bytes lie in the archive.
    pub data: Range<usize>,
}

impl ZipEntry {
    /// The file name without its folders.
    pub fn base_name(&self) -> &str {
        base_name(&self.path)
    }

    /// The entry's bytes as stored (compressed for [`Method::Deflate`]); `None` if `archive` is
    /// not the buffer the entry was read from (too short).
    pub fn raw<'a>(&self, archive: &'a [u8]) -> Option<&'a [u8]> {
        archive.get(self.data.clone())
    }

    /// The file's bytes when stored uncompressed; `None` for deflated entries.
    pub fn stored<'a>(&self, archive: &'a [u8]) -> Option<&'a [u8]> {
        match self.method {
            Method::Stored => self.raw(archive),
            Method::Deflate => None,
        }
    }

    /// Whether the file may be taken out at all: its size as the central directory states it
    /// must be within [`MAX_ENTRY_BYTES`]. Checked before inflating, so a ZIP bomb (a few KB
    /// that inflate to gigabytes) costs nothing; the inflater then stops at the stated size
    /// (`web::files::inflate_raw`), so a file that lies about its size costs no more.
    pub fn check_size(&self) -> Result<(), ZipError> {
        let size = match self.method {
            Method::Stored => self.uncompressed_size.max(self.compressed_size),
            Method::Deflate => self.uncompressed_size,
        };
        if size > MAX_ENTRY_BYTES {
            return Err(ZipError::TooLarge {
                path: self.path.clone(),
                bytes: size,
            });
        }
        Ok(())
    }

    /// Checks the (inflated) file against the central directory's size and CRC-32.
    pub fn verify(&self, content: &[u8]) -> Result<(), ZipError> {
        let damaged = |reason: String| ZipError::Damaged {
            path: self.path.clone(),
            reason,
        };
        if content.len() as u64 != self.uncompressed_size {
            return Err(damaged(format!(
                "it should be {} bytes, not {}",
                self.uncompressed_size,
                content.len()
            )));
        }
        if crc32(content) != self.crc32 {
            return Err(damaged("its checksum does not match".to_string()));
        }
        Ok(())
    }
}

/// Why an archive (or one of its files) cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ZipError {
    /// No End Of Central Directory record.
    NotZip,
    Zip64,
    MultiDisk,
    /// The archive's structure is broken.
    Corrupt(String),
    /// One file's content is wrong (see [`ZipEntry::verify`]).
    Damaged {
        path: String,
        reason: String,
    },
    /// One file is larger than [`MAX_ENTRY_BYTES`] unpacked (see [`ZipEntry::check_size`]).
    TooLarge {
        path: String,
        bytes: u64,
    },
}

impl fmt::Display for ZipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZipError::NotZip => f.write_str(
                "This is not a ZIP file, or it is incomplete (its end-of-archive record is \
                 missing).",
            ),
            ZipError::Zip64 => f.write_str(
                "This ZIP uses the ZIP64 extension (for archives over 4 GB or with more than \
                 65,535 files), which is not supported; split the images into smaller ZIPs.",
            ),
            ZipError::MultiDisk => f.write_str(
                "Split (multi-part) ZIP archives are not supported; join the parts into one ZIP.",
            ),
            ZipError::Corrupt(why) => write!(f, "The ZIP file is damaged: {why}."),
            ZipError::Damaged { path, reason } => {
                write!(f, "\u{201c}{path}\u{201d} in the ZIP is damaged: {reason}.")
            }
            ZipError::TooLarge { path, bytes } => write!(
                f,
                "\u{201c}{path}\u{201d} in the ZIP is {:.0} MB unpacked, over the {} MB limit \
                 for an image; it was not unpacked.",
                *bytes as f64 / 1_048_576.0,
                MAX_ENTRY_BYTES / 1_048_576
            ),
        }
    }
}

/// Why [`ZipArchive::find`] found no file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LookupError {
    /// No file with that path or base name (the normalised name asked for).
    NotFound(String),
    /// Several files match the base name; their paths, sorted.
    Ambiguous { name: String, paths: Vec<String> },
    /// The file is there but cannot be read.
    Unusable { path: String, reason: String },
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LookupError::NotFound(name) => write!(f, "\u{201c}{name}\u{201d} is not in the ZIP."),
            LookupError::Ambiguous { name, paths } => {
                let shown: Vec<&str> = paths.iter().take(5).map(String::as_str).collect();
                let more = if paths.len() > 5 { ", \u{2026}" } else { "" };
                write!(
                    f,
                    "\u{201c}{name}\u{201d} matches {} files in the ZIP ({}{more}); give its \
                     folder too, e.g. \u{201c}{}\u{201d}.",
                    paths.len(),
                    shown.join(", "),
                    paths.first().map(String::as_str).unwrap_or_default()
                )
            }
            LookupError::Unusable { path, reason } => {
                write!(
                    f,
                    "\u{201c}{path}\u{201d} in the ZIP cannot be read: {reason}."
                )
            }
        }
    }
}

/// A file of the archive that is listed but cannot be read, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unusable {
    pub path: String,
    pub reason: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Entry(usize),
    Unusable(usize),
}

/// An archive's table of contents. It holds no file data: pass the archive's bytes to
/// [`ZipEntry::raw`].
#[derive(Clone, Debug, Default)]
pub struct ZipArchive {
    entries: Vec<ZipEntry>,
    unusable: Vec<Unusable>,
    warnings: Vec<String>,
    by_path: HashMap<String, Slot>,
    /// Every path suffix at a folder boundary (`a/b/c.png`, `b/c.png`, `c.png`) → slots.
    suffixes: HashMap<String, Vec<Slot>>,
    /// The same, lower-cased.
    suffixes_lower: HashMap<String, Vec<Slot>>,
}

fn u16_at(data: &[u8], at: usize) -> Option<u16> {
    let b = data.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    let b = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn corrupt(why: &str) -> ZipError {
    ZipError::Corrupt(why.to_string())
}

/// The End Of Central Directory record: where it is and what it says.
struct Eocd {
    pos: usize,
    entries: u16,
    cd_size: u32,
    cd_offset: u32,
}

/// Searches backwards for the EOCD record (it is followed by a comment of up to 65,535 bytes).
/// A candidate counts when its comment fits in the file and its central directory fits before
/// it, so a signature inside the comment is not taken for the record.
fn find_eocd(data: &[u8]) -> Result<Eocd, ZipError> {
    if data.len() < EOCD_LEN {
        return Err(ZipError::NotZip);
    }
    let last = data.len() - EOCD_LEN;
    let first = last.saturating_sub(u16::MAX as usize);
    for pos in (first..=last).rev() {
        if u32_at(data, pos) != Some(EOCD_SIGNATURE) {
            continue;
        }
        let (Some(disk), Some(cd_disk), Some(on_disk), Some(total)) = (
            u16_at(data, pos + 4),
            u16_at(data, pos + 6),
            u16_at(data, pos + 8),
            u16_at(data, pos + 10),
        ) else {
            continue;
        };
        let (Some(cd_size), Some(cd_offset), Some(comment_len)) = (
            u32_at(data, pos + 12),
            u32_at(data, pos + 16),
            u16_at(data, pos + 20),
        ) else {
            continue;
        };
        if pos + EOCD_LEN + comment_len as usize > data.len() {
            continue;
        }
        if total == u16::MAX || cd_size == u32::MAX || cd_offset == u32::MAX {
            return Err(ZipError::Zip64);
        }
        if disk != 0 || cd_disk != 0 || on_disk != total {
            return Err(ZipError::MultiDisk);
        }
        if (cd_offset as u64) + (cd_size as u64) > pos as u64 {
            continue;
        }
        return Ok(Eocd {
            pos,
            entries: total,
            cd_size,
            cd_offset,
        });
    }
    Err(ZipError::NotZip)
}

/// CP437, the default ZIP name encoding, bytes 0x80–0xFF.
const CP437_HIGH: &str = "\u{c7}\u{fc}\u{e9}\u{e2}\u{e4}\u{e0}\u{e5}\u{e7}\u{ea}\u{eb}\u{e8}\u{ef}\u{ee}\u{ec}\u{c4}\u{c5}\
\u{c9}\u{e6}\u{c6}\u{f4}\u{f6}\u{f2}\u{fb}\u{f9}\u{ff}\u{d6}\u{dc}\u{a2}\u{a3}\u{a5}\u{20a7}\u{192}\
\u{e1}\u{ed}\u{f3}\u{fa}\u{f1}\u{d1}\u{aa}\u{ba}\u{bf}\u{2310}\u{ac}\u{bd}\u{bc}\u{a1}\u{ab}\u{bb}\
\u{2591}\u{2592}\u{2593}\u{2502}\u{2524}\u{2561}\u{2562}\u{2556}\u{2555}\u{2563}\u{2551}\u{2557}\u{255d}\u{255c}\u{255b}\u{2510}\
\u{2514}\u{2534}\u{252c}\u{251c}\u{2500}\u{253c}\u{255e}\u{255f}\u{255a}\u{2554}\u{2569}\u{2566}\u{2560}\u{2550}\u{256c}\u{2567}\
\u{2568}\u{2564}\u{2565}\u{2559}\u{2558}\u{2552}\u{2553}\u{256b}\u{256a}\u{2518}\u{250c}\u{2588}\u{2584}\u{258c}\u{2590}\u{2580}\
\u{3b1}\u{df}\u{393}\u{3c0}\u{3a3}\u{3c3}\u{b5}\u{3c4}\u{3a6}\u{398}\u{3a9}\u{3b4}\u{221e}\u{3c6}\u{3b5}\u{2229}\
\u{2261}\u{b1}\u{2265}\u{2264}\u{2320}\u{2321}\u{f7}\u{2248}\u{b0}\u{2219}\u{b7}\u{221a}\u{207f}\u{b2}\u{25a0}\u{a0}";

/// An entry name: UTF-8 when flagged (general purpose bit 11) or valid, CP437 otherwise.
fn decode_name(raw: &[u8], utf8_flag: bool) -> String {
    if utf8_flag {
        return String::from_utf8_lossy(raw).into_owned();
    }
    if let Ok(s) = std::str::from_utf8(raw) {
        return s.to_string();
    }
    let high: Vec<char> = CP437_HIGH.chars().collect();
    raw.iter()
        .map(|&b| {
            if b < 0x80 {
                b as char
            } else {
                high.get(b as usize - 0x80).copied().unwrap_or('\u{fffd}')
            }
        })
        .collect()
}

/// Entries that are never images: macOS resource forks and Finder files.
fn is_junk(path: &str) -> bool {
    let base = base_name(path);
    path.split('/').any(|p| p == "__MACOSX") || base.starts_with("._") || base == ".DS_Store"
}

fn method_problem(method: u16) -> String {
    let name = match method {
        9 => "Deflate64",
        12 => "bzip2",
        14 => "LZMA",
        93 => "Zstandard",
        95 => "XZ",
        98 => "PPMd",
        _ => "",
    };
    let what = if name.is_empty() {
        format!("compression method {method}")
    } else {
        format!("{name} compression (method {method})")
    };
    format!(
        "it uses {what}; only stored and standard (deflate) compression are supported, so \
         re-create the ZIP with default settings"
    )
}

impl ZipArchive {
    /// Reads an archive's table of contents.
    pub fn parse(data: &[u8]) -> Result<ZipArchive, ZipError> {
        let eocd = find_eocd(data)?;
        let cd_len = eocd.cd_size as usize;
        let cd_end_declared = eocd.cd_offset as usize + cd_len;
        // Bytes before the archive proper (a self-extractor stub, or a file concatenated in
        // front) shift every offset; ZIP64 records between the central directory and the EOCD
        // are not such a shift.
        let zip64_locator =
            eocd.pos >= 20 && u32_at(data, eocd.pos - 20) == Some(ZIP64_LOCATOR_SIGNATURE);
        let shift = if zip64_locator {
            0
        } else {
            eocd.pos - cd_end_declared
        };
        let cd_start = eocd.cd_offset as usize + shift;
        let cd_end = cd_start + cd_len;

        let mut archive = ZipArchive::default();
        let mut at = cd_start;
        for _ in 0..eocd.entries {
            let fixed = data
                .get(at..)
                .filter(|_| at + CENTRAL_LEN <= cd_end)
                .ok_or_else(|| corrupt("its central directory lists more files than it holds"))?;
            if u32_at(fixed, 0) != Some(CENTRAL_SIGNATURE) {
                return Err(corrupt("an entry of its central directory is broken"));
            }
            let field16 = |o: usize| u16_at(fixed, o).unwrap_or(0);
            let field32 = |o: usize| u32_at(fixed, o).unwrap_or(0);
            let flags = field16(8);
            let method = field16(10);
            let crc = field32(16);
            let compressed = field32(20);
            let uncompressed = field32(24);
            let name_len = field16(28) as usize;
            let extra_len = field16(30) as usize;
            let comment_len = field16(32) as usize;
            let local_offset = field32(42);
            let name_start = at + CENTRAL_LEN;
            let next = name_start + name_len + extra_len + comment_len;
            if next > cd_end {
                return Err(corrupt(
                    "an entry of its central directory runs past its end",
                ));
            }
            let raw_name = &data[name_start..name_start + name_len];
            at = next;

            if compressed == u32::MAX || uncompressed == u32::MAX || local_offset == u32::MAX {
                return Err(ZipError::Zip64);
            }
            if raw_name.last().is_some_and(|&b| b == b'/' || b == b'\\') {
                continue; // a directory
            }
            let path = normalize_path(&decode_name(raw_name, flags & 0x0800 != 0));
            if path.is_empty() || is_junk(&path) {
                continue;
            }
            let entry = locate(
                data,
                shift,
                &path,
                flags,
                method,
                crc,
                compressed,
                uncompressed,
                local_offset,
            );
            archive.add(path, entry);
        }
        archive.index_suffixes();
        Ok(archive)
    }

    /// Files an entry (or why it cannot be used) under its path; a later copy wins.
    fn add(&mut self, path: String, entry: Result<ZipEntry, String>) {
        let slot = match entry {
            Ok(e) => {
                self.entries.push(e);
                Slot::Entry(self.entries.len() - 1)
            }
            Err(reason) => {
                self.unusable.push(Unusable {
                    path: path.clone(),
                    reason,
                });
                Slot::Unusable(self.unusable.len() - 1)
            }
        };
        if self.by_path.insert(path.clone(), slot).is_some() {
            self.warnings.push(format!(
                "The ZIP holds \u{201c}{path}\u{201d} more than once; the last copy is used."
            ));
        }
    }

    fn slot_path(&self, slot: Slot) -> &str {
        match slot {
            Slot::Entry(i) => &self.entries[i].path,
            Slot::Unusable(i) => &self.unusable[i].path,
        }
    }

    /// Indexes the surviving slot of every path by each of its suffixes (exact and lower-cased),
    /// so that any lookup is a hash lookup. A path of depth d adds d keys.
    fn index_suffixes(&mut self) {
        let slots = (0..self.entries.len())
            .map(Slot::Entry)
            .chain((0..self.unusable.len()).map(Slot::Unusable));
        let mut exact: HashMap<String, Vec<Slot>> = HashMap::new();
        let mut lower: HashMap<String, Vec<Slot>> = HashMap::new();
        for slot in slots {
            let path = self.slot_path(slot);
            if self.by_path.get(path) != Some(&slot) {
                continue; // an earlier copy of a repeated path
            }
            let path_lower = path.to_lowercase();
            for (map, p) in [(&mut exact, path), (&mut lower, path_lower.as_str())] {
                let mut suffix = p;
                loop {
                    map.entry(suffix.to_string()).or_default().push(slot);
                    match suffix.split_once('/') {
                        Some((_, rest)) => suffix = rest,
                        None => break,
                    }
                }
            }
        }
        self.suffixes = exact;
        self.suffixes_lower = lower;
    }

    /// The readable files, in archive order (a repeated path appears each time).
    pub fn entries(&self) -> &[ZipEntry] {
        &self.entries
    }

    /// The files that are listed but cannot be read (encrypted, unsupported compression,
    /// damaged), with the reason.
    pub fn unusable(&self) -> &[Unusable] {
        &self.unusable
    }

    /// Oddities that did not stop the archive from being read (repeated paths).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Readable files.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The file a dataset's `image` names: by its exact normalised path first, else by the
    /// files whose path ends with it (`b.png` finds `a/b.png`, `imgs/b.png` finds
    /// `set/imgs/b.png`), matching letter case first and ignoring it if nothing matches.
    pub fn find(&self, name: &str) -> Result<&ZipEntry, LookupError> {
        let wanted = normalize_path(name);
        if wanted.is_empty() {
            return Err(LookupError::NotFound(name.trim().to_string()));
        }
        if let Some(&slot) = self.by_path.get(&wanted) {
            return self.resolve(slot);
        }
        let matches: &[Slot] = match self.suffixes.get(&wanted) {
            Some(m) => m,
            None => self
                .suffixes_lower
                .get(&wanted.to_lowercase())
                .map(Vec::as_slice)
                .unwrap_or_default(),
        };
        match matches {
            [] => Err(LookupError::NotFound(wanted)),
            [one] => self.resolve(*one),
            many => {
                let mut paths: Vec<String> = many
                    .iter()
                    .map(|&s| self.slot_path(s).to_string())
                    .collect();
                paths.sort();
                Err(LookupError::Ambiguous {
                    name: wanted,
                    paths,
                })
            }
        }
    }

    fn resolve(&self, slot: Slot) -> Result<&ZipEntry, LookupError> {
        match slot {
            Slot::Entry(i) => Ok(&self.entries[i]),
            Slot::Unusable(i) => Err(LookupError::Unusable {
                path: self.unusable[i].path.clone(),
                reason: self.unusable[i].reason.clone(),
            }),
        }
    }

    /// Base names (exact case) shared by several files, each with their paths, sorted: a
    /// dataset naming such a file by base name alone cannot be matched.
    pub fn ambiguous_base_names(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = self
            .suffixes
            .iter()
            .filter(|(key, slots)| slots.len() > 1 && !key.contains('/'))
            .map(|(key, slots)| {
                let mut paths: Vec<String> = slots
                    .iter()
                    .map(|&s| self.slot_path(s).to_string())
                    .collect();
                paths.sort();
                (key.clone(), paths)
            })
            .collect();
        out.sort();
        out
    }
}

/// Finds one entry's data through its local header.
#[allow(clippy::too_many_arguments)]
fn locate(
    data: &[u8],
    shift: usize,
    path: &str,
    flags: u16,
    method: u16,
    crc: u32,
    compressed: u32,
    uncompressed: u32,
    local_offset: u32,
) -> Result<ZipEntry, String> {
    if flags & 0x0041 != 0 || method == 99 {
        return Err("it is encrypted (password-protected ZIPs are not supported)".to_string());
    }
    let method = match method {
        0 => Method::Stored,
        8 => Method::Deflate,
        m => return Err(method_problem(m)),
    };
    if method == Method::Stored && compressed != uncompressed {
        return Err("its stored size is inconsistent (the ZIP is damaged)".to_string());
    }
    let damaged = || "its local header is missing (the ZIP is damaged)".to_string();
    let local = (local_offset as usize)
        .checked_add(shift)
        .ok_or_else(damaged)?;
    if u32_at(data, local) != Some(LOCAL_SIGNATURE) {
        return Err(damaged());
    }
    let name_len = u16_at(data, local + 26).ok_or_else(damaged)? as usize;
    let extra_len = u16_at(data, local + 28).ok_or_else(damaged)? as usize;
    let start = local + LOCAL_LEN + name_len + extra_len;
    let end = start.checked_add(compressed as usize);
    let Some(end) = end.filter(|&end| end <= data.len()) else {
        return Err("its data runs past the end of the file (the ZIP is truncated)".to_string());
    };
    Ok(ZipEntry {
        path: path.to_string(),
        method,
        crc32: crc,
        compressed_size: compressed as u64,
        uncompressed_size: uncompressed as u64,
        data: start..end,
    })
}

const CRC_TABLE: [u32; 256] = crc_table();

const fn crc_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
}

/// CRC-32 (IEEE, as in ZIP, gzip and PNG) of `data`.
pub fn crc32(data: &[u8]) -> u32 {
    crc32_update(0, data)
}

/// Continues a CRC-32 over more data: `crc32_update(crc32(a), b) == crc32(a ++ b)`.
pub fn crc32_update(crc: u32, data: &[u8]) -> u32 {
    let mut c = !crc;
    for &b in data {
        c = CRC_TABLE[((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A tiny ZIP writer for tests (zip_read.rs's too).
    #[derive(Default)]
    pub(crate) struct Writer {
        out: Vec<u8>,
        central: Vec<u8>,
        count: u16,
    }

    struct Options<'a> {
        method: u16,
        flags: u16,
        /// Extra field written in the local header only (so its length differs from the
        /// central directory's).
        local_extra: &'a [u8],
        /// Sizes and CRC zero in the local header, as with a data descriptor.
        descriptor: bool,
        /// Overrides the uncompressed size written in the central directory.
        size: Option<u32>,
    }

    const PLAIN: Options<'static> = Options {
        method: 0,
        flags: 0,
        local_extra: &[],
        descriptor: false,
        size: None,
    };

    impl Writer {
        pub(crate) fn add(&mut self, name: &str, data: &[u8]) {
            self.add_with(name.as_bytes(), data, &PLAIN);
        }

        fn add_with(&mut self, name: &[u8], data: &[u8], o: &Options<'_>) {
            let offset = self.out.len() as u32;
            let crc = crc32(data);
            let size = o.size.unwrap_or(data.len() as u32);
            let flags = o.flags | if o.descriptor { 8 } else { 0 };
            let (lcrc, lsize) = if o.descriptor { (0, 0) } else { (crc, size) };
            let w = &mut self.out;
            w.extend(LOCAL_SIGNATURE.to_le_bytes());
            w.extend(20u16.to_le_bytes());
            w.extend(flags.to_le_bytes());
            w.extend(o.method.to_le_bytes());
            w.extend([0u8; 4]); // time, date
            w.extend(lcrc.to_le_bytes());
            w.extend(lsize.to_le_bytes());
            w.extend(lsize.to_le_bytes());
            w.extend((name.len() as u16).to_le_bytes());
            w.extend((o.local_extra.len() as u16).to_le_bytes());
            w.extend(name);
            w.extend(o.local_extra);
            w.extend(data);
            if o.descriptor {
                w.extend(0x0807_4b50u32.to_le_bytes());
                w.extend(crc.to_le_bytes());
                w.extend(size.to_le_bytes());
                w.extend(size.to_le_bytes());
            }
            let c = &mut self.central;
            c.extend(CENTRAL_SIGNATURE.to_le_bytes());
            c.extend(20u16.to_le_bytes());
            c.extend(20u16.to_le_bytes());
            c.extend(flags.to_le_bytes());
            c.extend(o.method.to_le_bytes());
            c.extend([0u8; 4]);
            c.extend(crc.to_le_bytes());
            c.extend((data.len() as u32).to_le_bytes());
            c.extend(size.to_le_bytes());
            c.extend((name.len() as u16).to_le_bytes());
            c.extend(0u16.to_le_bytes()); // extra
            c.extend(0u16.to_le_bytes()); // comment
            c.extend([0u8; 8]); // disk, internal and external attributes
            c.extend(offset.to_le_bytes());
            c.extend(name);
            self.count += 1;
        }

        pub(crate) fn finish(mut self, comment: &[u8]) -> Vec<u8> {
            let cd_offset = self.out.len() as u32;
            let cd_size = self.central.len() as u32;
            self.out.extend(&self.central);
            let w = &mut self.out;
            w.extend(EOCD_SIGNATURE.to_le_bytes());
            w.extend([0u8; 4]);
            w.extend(self.count.to_le_bytes());
            w.extend(self.count.to_le_bytes());
            w.extend(cd_size.to_le_bytes());
            w.extend(cd_offset.to_le_bytes());
            w.extend((comment.len() as u16).to_le_bytes());
            w.extend(comment);
            self.out
        }
    }

    fn sample() -> Vec<u8> {
        let mut w = Writer::default();
        w.add("imgs/a.png", b"first a");
        w.add("b.png", b"bee");
        w.add("dir/", b"");
        w.add("__MACOSX/imgs/._a.png", b"junk");
        w.add_with(
            b"other\\a.png",
            b"second a",
            &Options {
                local_extra: &[1, 2, 3, 4, 5, 6, 7],
                ..PLAIN
            },
        );
        w.add_with(
            b"./set/Photo.JPG",
            b"jpeg bytes",
            &Options {
                descriptor: true,
                ..PLAIN
            },
        );
        w.add(".DS_Store", b"x");
        // A comment that contains an EOCD signature must not fool the search.
        w.finish(b"comment PK\x05\x06 inside")
    }

    /// Made once with Python's zipfile (ZIP_DEFLATED, written to an unseekable stream so every
    /// entry has a data descriptor and zero sizes in its local header), with a comment:
    /// `imgs/` (a directory), `imgs/cat.txt` ("cat cat cat cat cat cat cat cat\n", deflated to
    /// 9 bytes) and `__MACOSX/imgs/._cat.txt`.
    const PYTHON_ZIP: [u8; 410] = [
        0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x08, 0x00, 0x08, 0x00, 0x4b, 0x38, 0x76, 0x5d, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
        0x69, 0x6d, 0x67, 0x73, 0x2f, 0x03, 0x00, 0x50, 0x4b, 0x07, 0x08, 0x00, 0x00, 0x00, 0x00,
        0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x08,
        0x00, 0x08, 0x00, 0x4b, 0x38, 0x76, 0x5d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x69, 0x6d, 0x67, 0x73, 0x2f, 0x63, 0x61,
        0x74, 0x2e, 0x74, 0x78, 0x74, 0x4b, 0x4e, 0x2c, 0x51, 0x48, 0xc6, 0x8d, 0xb9, 0x00, 0x50,
        0x4b, 0x07, 0x08, 0xba, 0xe1, 0x5c, 0x78, 0x09, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,
        0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x08, 0x00, 0x08, 0x00, 0x4b, 0x38, 0x76, 0x5d, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00,
        0x5f, 0x5f, 0x4d, 0x41, 0x43, 0x4f, 0x53, 0x58, 0x2f, 0x69, 0x6d, 0x67, 0x73, 0x2f, 0x2e,
        0x5f, 0x63, 0x61, 0x74, 0x2e, 0x74, 0x78, 0x74, 0xcb, 0x2a, 0xcd, 0xcb, 0x06, 0x00, 0x50,
        0x4b, 0x07, 0x08, 0x39, 0x9c, 0xfb, 0x06, 0x06, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
        0x50, 0x4b, 0x01, 0x02, 0x14, 0x03, 0x14, 0x00, 0x08, 0x00, 0x08, 0x00, 0x4b, 0x38, 0x76,
        0x5d, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0xfd, 0x41, 0x00, 0x00, 0x00,
        0x00, 0x69, 0x6d, 0x67, 0x73, 0x2f, 0x50, 0x4b, 0x01, 0x02, 0x14, 0x03, 0x14, 0x00, 0x08,
        0x00, 0x08, 0x00, 0x4b, 0x38, 0x76, 0x5d, 0xba, 0xe1, 0x5c, 0x78, 0x09, 0x00, 0x00, 0x00,
        0x20, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x80, 0x01, 0x35, 0x00, 0x00, 0x00, 0x69, 0x6d, 0x67, 0x73, 0x2f, 0x63, 0x61, 0x74,
        0x2e, 0x74, 0x78, 0x74, 0x50, 0x4b, 0x01, 0x02, 0x14, 0x03, 0x14, 0x00, 0x08, 0x00, 0x08,
        0x00, 0x4b, 0x38, 0x76, 0x5d, 0x39, 0x9c, 0xfb, 0x06, 0x06, 0x00, 0x00, 0x00, 0x04, 0x00,
        0x00, 0x00, 0x17, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,
        0x01, 0x78, 0x00, 0x00, 0x00, 0x5f, 0x5f, 0x4d, 0x41, 0x43, 0x4f, 0x53, 0x58, 0x2f, 0x69,
        0x6d, 0x67, 0x73, 0x2f, 0x2e, 0x5f, 0x63, 0x61, 0x74, 0x2e, 0x74, 0x78, 0x74, 0x50, 0x4b,
        0x05, 0x06, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x03, 0x00, 0xb2, 0x00, 0x00, 0x00, 0xc3,
        0x00, 0x00, 0x00, 0x0f, 0x00, 0x6d, 0x61, 0x64, 0x65, 0x20, 0x62, 0x79, 0x20, 0x7a, 0x69,
        0x70, 0x66, 0x69, 0x6c, 0x65,
    ];

    #[test]
    fn crc32_known_values() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
        assert_eq!(crc32_update(crc32(b"1234"), b"56789"), 0xCBF4_3926);
    }

    #[test]
    fn stored_entries_and_skipped_junk() {
        let zip = sample();
        let archive = ZipArchive::parse(&zip).unwrap();
        let paths: Vec<&str> = archive.entries().iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            vec!["imgs/a.png", "b.png", "other/a.png", "set/Photo.JPG"]
        );
        assert_eq!(archive.len(), 4);
        assert!(archive.unusable().is_empty());
        assert!(archive.warnings().is_empty());
        for (path, content) in [
            ("imgs/a.png", &b"first a"[..]),
            ("b.png", b"bee"),
            // Local extra field of 7 bytes not in the central directory.
            ("other/a.png", b"second a"),
            // Data descriptor: zero sizes in the local header.
            ("set/Photo.JPG", b"jpeg bytes"),
        ] {
            let e = archive.find(path).unwrap();
            assert_eq!(e.method, Method::Stored);
            assert_eq!(e.stored(&zip), Some(content), "{path}");
            assert_eq!(e.raw(&zip), Some(content));
            assert_eq!(e.uncompressed_size, content.len() as u64);
            e.verify(content).unwrap();
        }
        let e = archive.find("b.png").unwrap();
        assert!(matches!(e.verify(b"bea"), Err(ZipError::Damaged { .. })));
        assert!(e.verify(b"be").unwrap_err().to_string().contains("3 bytes"));
        assert_eq!(e.raw(&zip[..10]), None);
    }

    #[test]
    fn find_by_path_base_name_and_case() {
        let zip = sample();
        let archive = ZipArchive::parse(&zip).unwrap();
        assert_eq!(archive.find("./imgs\\a.png").unwrap().path, "imgs/a.png");
        assert_eq!(archive.find("/b.png").unwrap().path, "b.png");
        assert_eq!(archive.find("Photo.JPG").unwrap().path, "set/Photo.JPG");
        assert_eq!(archive.find("photo.jpg").unwrap().path, "set/Photo.JPG");
        assert_eq!(archive.find("SET/photo.jpg").unwrap().path, "set/Photo.JPG");
        assert_eq!(
            archive.find("a.png"),
            Err(LookupError::Ambiguous {
                name: "a.png".into(),
                paths: vec!["imgs/a.png".into(), "other/a.png".into()],
            })
        );
        let msg = archive.find("a.png").unwrap_err().to_string();
        assert!(msg.contains("matches 2 files"), "{msg}");
        assert_eq!(
            archive.find("x/b.png"),
            Err(LookupError::NotFound("x/b.png".into()))
        );
        assert_eq!(
            archive.find("mgs/a.png").unwrap_err(),
            LookupError::NotFound("mgs/a.png".into())
        );
        assert!(matches!(
            archive.find("._a.png"),
            Err(LookupError::NotFound(_))
        ));
        assert!(matches!(archive.find(""), Err(LookupError::NotFound(_))));
        assert!(matches!(archive.find("dir"), Err(LookupError::NotFound(_))));
        assert_eq!(
            archive.ambiguous_base_names(),
            vec![(
                "a.png".to_string(),
                vec!["imgs/a.png".to_string(), "other/a.png".to_string()]
            )]
        );
    }

    #[test]
    fn python_deflate_entry() {
        let archive = ZipArchive::parse(&PYTHON_ZIP).unwrap();
        assert_eq!(
            archive.len(),
            1,
            "the directory and __MACOSX entries are skipped"
        );
        let e = archive.find("cat.txt").unwrap();
        assert_eq!(e.path, "imgs/cat.txt");
        assert_eq!(e.method, Method::Deflate);
        assert_eq!(e.compressed_size, 9);
        assert_eq!(e.uncompressed_size, 32);
        assert_eq!(
            e.raw(&PYTHON_ZIP),
            Some(&[0x4b, 0x4e, 0x2c, 0x51, 0x48, 0xc6, 0x8d, 0xb9, 0x00][..])
        );
        assert_eq!(e.stored(&PYTHON_ZIP), None);
        let content = b"cat cat cat cat cat cat cat cat\n";
        assert_eq!(e.crc32, crc32(content));
        e.verify(content).unwrap();
    }

    #[test]
    fn a_file_stated_over_the_limit_is_refused_before_inflating() {
        let e = ZipArchive::parse(&PYTHON_ZIP)
            .unwrap()
            .find("cat.txt")
            .unwrap()
            .clone();
        e.check_size().unwrap();
        // The same archive, its central directory now stating 1 GB for every file (a bomb's
        // few compressed bytes are all it needs).
        let mut bomb = PYTHON_ZIP.to_vec();
        let sig = CENTRAL_SIGNATURE.to_le_bytes();
        let heads: Vec<usize> = (0..bomb.len() - 4)
            .filter(|&i| bomb[i..i + 4] == sig)
            .collect();
        assert!(!heads.is_empty());
        for at in heads {
            bomb[at + 24..at + 28].copy_from_slice(&(1u32 << 30).to_le_bytes());
        }
        let e = ZipArchive::parse(&bomb)
            .unwrap()
            .find("cat.txt")
            .unwrap()
            .clone();
        assert_eq!(e.uncompressed_size, 1 << 30);
        let err = e.check_size().unwrap_err();
        assert_eq!(
            err.to_string(),
            "\u{201c}imgs/cat.txt\u{201d} in the ZIP is 1024 MB unpacked, over the 50 MB limit \
             for an image; it was not unpacked."
        );
        // Exactly at the limit is fine; a stored file is judged by its bytes too.
        let at_limit = ZipEntry {
            uncompressed_size: MAX_ENTRY_BYTES,
            ..e.clone()
        };
        at_limit.check_size().unwrap();
        let stored = ZipEntry {
            method: Method::Stored,
            compressed_size: MAX_ENTRY_BYTES + 1,
            uncompressed_size: 10,
            ..e
        };
        assert!(stored.check_size().is_err());
    }

    #[test]
    fn unusable_entries_and_refused_archives() {
        let mut w = Writer::default();
        w.add_with(b"secret.png", b"xxxx", &Options { flags: 1, ..PLAIN });
        w.add_with(
            b"lzma.png",
            b"xxxx",
            &Options {
                method: 14,
                ..PLAIN
            },
        );
        w.add_with(
            b"aes.png",
            b"xxxx",
            &Options {
                method: 99,
                ..PLAIN
            },
        );
        w.add_with(
            b"bad.png",
            b"xxxx",
            &Options {
                size: Some(9),
                ..PLAIN
            },
        );
        w.add("dup.png", b"one");
        w.add("dup.png", b"two");
        // CP437 name (no UTF-8 flag, not valid UTF-8): 0x82 is é.
        w.add_with(b"caf\x82.png", b"cafe", &PLAIN);
        let zip = w.finish(b"");
        let archive = ZipArchive::parse(&zip).unwrap();
        let reasons: Vec<(&str, &str)> = archive
            .unusable()
            .iter()
            .map(|u| (u.path.as_str(), u.reason.as_str()))
            .collect();
        assert_eq!(reasons.len(), 4);
        assert!(reasons[0].1.contains("encrypted"));
        assert!(reasons[1].1.contains("LZMA"));
        assert!(reasons[2].1.contains("encrypted"));
        assert!(reasons[3].1.contains("inconsistent"));
        let err = archive.find("secret.png").unwrap_err();
        assert!(matches!(err, LookupError::Unusable { .. }));
        assert!(err.to_string().contains("cannot be read: it is encrypted"));
        assert_eq!(
            archive.find("dup.png").unwrap().stored(&zip),
            Some(&b"two"[..])
        );
        assert_eq!(archive.warnings().len(), 1);
        assert!(archive.ambiguous_base_names().is_empty());
        assert_eq!(
            archive.find("café.png").unwrap().stored(&zip),
            Some(&b"cafe"[..])
        );
        assert_eq!(CP437_HIGH.chars().count(), 128);

        // Empty archive: just the EOCD.
        let empty = Writer::default().finish(b"");
        assert!(ZipArchive::parse(&empty).unwrap().is_empty());

        assert_eq!(ZipArchive::parse(b"").unwrap_err(), ZipError::NotZip);
        assert_eq!(
            ZipArchive::parse(&[0u8; 100]).unwrap_err(),
            ZipError::NotZip
        );
        assert_eq!(
            ZipArchive::parse(b"\x89PNG\r\n\x1a\n not a zip at all, just bytes").unwrap_err(),
            ZipError::NotZip
        );

        let mut zip64 = sample();
        let eocd = find_eocd(&zip64).ok().unwrap().pos;
        assert_eq!(zip64.len() - eocd, EOCD_LEN + 19, "after the comment");
        zip64[eocd + 16..eocd + 20].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(ZipArchive::parse(&zip64).unwrap_err(), ZipError::Zip64);

        let mut split = sample();
        split[eocd + 4] = 1;
        assert_eq!(ZipArchive::parse(&split).unwrap_err(), ZipError::MultiDisk);

        let mut w = Writer::default();
        w.add_with(
            b"big.png",
            b"x",
            &Options {
                size: Some(u32::MAX),
                method: 8,
                ..PLAIN
            },
        );
        assert_eq!(
            ZipArchive::parse(&w.finish(b"")).unwrap_err(),
            ZipError::Zip64
        );
    }

    #[test]
    fn prefixed_archive_still_reads() {
        let mut zip = b"#!/bin/sh\nself-extractor stub\n".to_vec();
        let stub = zip.len();
        zip.extend(sample());
        let archive = ZipArchive::parse(&zip).unwrap();
        let e = archive.find("b.png").unwrap();
        assert_eq!(e.stored(&zip), Some(&b"bee"[..]));
        assert!(e.data.start > stub);
    }

    /// Truncations and byte flips of valid archives: errors, never panics, and every range
    /// handed out lies inside the buffer.
    #[test]
    fn corrupted_archives_never_panic() {
        fn exercise(data: &[u8]) {
            if let Ok(a) = ZipArchive::parse(data) {
                for e in a.entries() {
                    assert!(e.data.end <= data.len() && e.data.start <= e.data.end);
                    assert!(e.raw(data).is_some());
                    let _ = e.verify(e.raw(data).unwrap());
                    let _ = a.find(&e.path);
                    let _ = a.find(e.base_name());
                }
                let _ = a.ambiguous_base_names();
                let _ = a.find("a.png");
            }
        }
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for original in [sample(), PYTHON_ZIP.to_vec()] {
            for len in 0..original.len() {
                exercise(&original[..len]);
                exercise(&original[len..]);
            }
            for round in 0..20_000 {
                let mut data = original.clone();
                let flips = 1 + round % 4;
                for _ in 0..flips {
                    let at = (next() % data.len() as u64) as usize;
                    data[at] = match next() % 4 {
                        0 => 0xFF,
                        1 => 0x00,
                        _ => next() as u8,
                    };
                }
                if round % 7 == 0 {
                    let cut = (next() % data.len() as u64) as usize;
                    data.truncate(cut);
                }
                exercise(&data);
            }
        }
    }
}
