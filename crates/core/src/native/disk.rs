//! Files read from disk, every one with a stated limit (issue 68): a file held whole (a dataset,
//! a ZIP, an image) is refused when it is larger than its limit, before a byte is read, and read
//! no further than the limit should it grow meanwhile; a file of lines (a batch's answers, a
//! results file) is read a line at a time, each line limited, so memory holds what was made of
//! the lines read, not the file. Only regular files are read: a folder, a pipe (FIFO), a device
//! (`/dev/zero`) or a socket is refused with a sentence before it is opened, since opening a pipe
//! waits for a writer and a device may never end.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::batch::zip::MAX_ENTRY_BYTES;

/// A dataset file (`.jsonl`, `.csv`, `.tsv`): 256 MB, 100,000 rows (the most a dataset may
/// have, `batch::dataset::MAX_ROWS`) of 2.6 KB on average.
pub const DATASET_BYTES: u64 = 256 << 20;
/// A ZIP (a dataset with its images, or the images): 2 GB, held in memory while the images are
/// read out of it. A larger set of images can be given as a folder, read one image at a time.
pub const ZIP_BYTES: u64 = 2 << 30;
/// An image file: 50 MB, the page's limit for a dropped image and a ZIP's entry.
pub const IMAGE_BYTES: u64 = MAX_ENTRY_BYTES;
/// A line of a file read line by line (a batch's answers, results): 64 MB, the most `hj` reads
/// of one live answer.
pub const LINE_BYTES: u64 = 64 << 20;

/// A size in words (`50 MB`, `2 GB`, `300 bytes`): megabytes of 2^20 bytes, as the limits above
/// are stated.
pub fn size_in_words(bytes: u64) -> String {
    let mb = bytes as f64 / f64::from(1 << 20);
    let one = |x: f64, unit: &str| {
        if x.fract() == 0.0 || x >= 10.0 {
            format!("{x:.0} {unit}")
        } else {
            format!("{x:.1} {unit}")
        }
    };
    if bytes < 1 << 20 {
        format!("{bytes} bytes")
    } else if mb >= 1024.0 {
        one(mb / 1024.0, "GB")
    } else {
        one(mb, "MB")
    }
}

/// An I/O error in words (without Rust's "(os error 2)").
pub fn plain_io(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "there is no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => {
            let s = e.to_string();
            s.split(" (os error").next().unwrap_or(&s).to_lowercase()
        }
    }
}

fn cannot(path: &Path, e: &std::io::Error) -> String {
    format!(
        "\u{201c}{}\u{201d} cannot be read: {}.",
        path.display(),
        plain_io(e)
    )
}

/// `path` opened for reading, with its size, when it is a regular file (a link to one counts);
/// anything else is refused with a sentence before it is opened. `Err` with the I/O error's
/// kind kept, so a caller can tell a file not there yet (`NotFound`).
pub fn open(path: &Path) -> Result<(File, u64), (std::io::ErrorKind, String)> {
    let refuse = |why: &str| {
        Err((
            std::io::ErrorKind::InvalidInput,
            format!("\u{201c}{}\u{201d} {why}", path.display()),
        ))
    };
    let meta = std::fs::metadata(path).map_err(|e| (e.kind(), cannot(path, &e)))?;
    if meta.is_dir() {
        return refuse("is a folder, not a file: name the file in it.");
    }
    if !meta.is_file() {
        return refuse(
            "is not a regular file (a pipe, a device or a socket), so it is not read: a pipe \
             would wait for a writer and a device may never end. Save what it gives to a file \
             and name that.",
        );
    }
    let file = File::open(path).map_err(|e| (e.kind(), cannot(path, &e)))?;
    // Checked again on what was opened: the name may now point elsewhere.
    match file.metadata() {
        Ok(m) if m.is_file() => Ok((file, m.len())),
        Ok(_) => refuse("is not a regular file (it changed as it was opened), so it is not read."),
        Err(e) => Err((e.kind(), cannot(path, &e))),
    }
}

/// The whole of `path`, `what` it is (`a dataset file`, `an image`) saying which `limit` it is
/// held to: a larger file is refused with a sentence naming both sizes.
pub fn read_limited(path: &Path, what: &str, limit: u64) -> Result<Vec<u8>, String> {
    let (file, size) = open(path).map_err(|(_, e)| e)?;
    let over = |size: &str| {
        format!(
            "\u{201c}{}\u{201d} is {size}, more than the {} {what} may be, so it is not read.",
            path.display(),
            size_in_words(limit)
        )
    };
    if size > limit {
        return Err(over(&size_in_words(size)));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot(path, &e))?;
    if bytes.len() as u64 > limit {
        return Err(over("growing"));
    }
    Ok(bytes)
}

/// Reads `path` a line at a time (each at most [`LINE_BYTES`], UTF-8, its line ending and a
/// first line's byte-order mark taken off), handing `line` its 1-based number, its text and
/// whether it ended with a line break (a last line cut off midway did not). Stops at the first
/// `Err` `line` gives, and says which line is too long or not UTF-8 text.
pub fn each_line(
    path: &Path,
    mut line: impl FnMut(usize, &str, bool) -> Result<(), String>,
) -> Result<(), String> {
    let (file, _) = open(path).map_err(|(_, e)| e)?;
    each_line_of(path, file, LINE_BYTES, &mut line)
}

/// [`each_line`] of a file already [`open`]ed (`path` names it in sentences).
pub fn each_line_in(
    path: &Path,
    file: File,
    mut line: impl FnMut(usize, &str, bool) -> Result<(), String>,
) -> Result<(), String> {
    each_line_of(path, file, LINE_BYTES, &mut line)
}

fn each_line_of(
    path: &Path,
    file: impl Read,
    limit: u64,
    line: &mut dyn FnMut(usize, &str, bool) -> Result<(), String>,
) -> Result<(), String> {
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut buf = Vec::new();
    for number in 1.. {
        buf.clear();
        let n = (&mut reader)
            .take(limit + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| cannot(path, &e))?;
        if n == 0 {
            return Ok(());
        }
        let ended = buf.last() == Some(&b'\n');
        if ended {
            buf.pop();
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
        }
        if buf.len() as u64 > limit {
            return Err(format!(
                "Line {number} of \u{201c}{}\u{201d} is longer than {}, the most a line may be, \
                 so the file is not read further.",
                path.display(),
                size_in_words(limit)
            ));
        }
        let text = std::str::from_utf8(&buf).map_err(|_| {
            format!(
                "Line {number} of \u{201c}{}\u{201d} is not UTF-8 text.",
                path.display()
            )
        })?;
        let text = if number == 1 {
            text.trim_start_matches('\u{feff}')
        } else {
            text
        };
        line(number, text, ended)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("hj-disk-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn sizes_are_said_as_the_limits_are_stated() {
        assert_eq!(size_in_words(IMAGE_BYTES), "50 MB");
        assert_eq!(size_in_words(DATASET_BYTES), "256 MB");
        assert_eq!(size_in_words(ZIP_BYTES), "2 GB");
        assert_eq!(size_in_words(LINE_BYTES), "64 MB");
        assert_eq!(size_in_words(3 << 19), "1.5 MB");
        assert_eq!(size_in_words(300), "300 bytes");
    }

    #[test]
    fn a_file_over_its_limit_and_what_is_no_file_are_refused() {
        let d = dir("limit");
        let f = d.join("a.jsonl");
        std::fs::write(&f, vec![b'x'; 2000]).unwrap();
        assert_eq!(read_limited(&f, "a test file", 2000).unwrap().len(), 2000);
        let e = read_limited(&f, "a test file", 1999).unwrap_err();
        assert!(
            e.ends_with(
                "a.jsonl\u{201d} is 2000 bytes, more than the 1999 bytes a test file may \
                         be, so it is not read."
            ),
            "{e}"
        );
        let e = read_limited(&d, "a test file", 1 << 20).unwrap_err();
        assert!(e.contains("is a folder, not a file"), "{e}");
        #[cfg(unix)]
        {
            let e = read_limited(Path::new("/dev/zero"), "a test file", 1 << 20).unwrap_err();
            assert!(e.contains("is not a regular file"), "{e}");
            let e = each_line(Path::new("/dev/zero"), |_, _, _| Ok(())).unwrap_err();
            assert!(e.contains("is not a regular file"), "{e}");
        }
        let e = read_limited(&d.join("gone"), "a test file", 1).unwrap_err();
        assert!(e.contains("there is no such file"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn lines_are_read_one_at_a_time_each_limited() {
        let text = "\u{feff}one\r\n\ntwo\nthree";
        let mut seen = Vec::new();
        each_line_of(Path::new("t"), text.as_bytes(), 10, &mut |n, l, ended| {
            seen.push((n, l.to_string(), ended));
            Ok(())
        })
        .unwrap();
        assert_eq!(
            seen,
            [
                (1, "one".into(), true),
                (2, String::new(), true),
                (3, "two".into(), true),
                (4, "three".into(), false)
            ]
        );
        let long = format!("ok\n{}\nnever\n", "x".repeat(11));
        let mut read = 0;
        let e = each_line_of(Path::new("t"), long.as_bytes(), 10, &mut |_, _, _| {
            read += 1;
            Ok(())
        })
        .unwrap_err();
        assert!(
            e.starts_with("Line 2 of \u{201c}t\u{201d} is longer than"),
            "{e}"
        );
        assert_eq!(read, 1, "nothing after the long line");
        // A line of exactly the limit is read; an endless one is cut at the limit.
        let exact = format!("{}\n", "y".repeat(10));
        each_line_of(Path::new("t"), exact.as_bytes(), 10, &mut |_, l, _| {
            assert_eq!(l.len(), 10);
            Ok(())
        })
        .unwrap();
        let endless = std::io::repeat(b'z');
        assert!(each_line_of(Path::new("t"), endless, 10, &mut |_, _, _| Ok(())).is_err());
        let bad = b"\xff\xfe\n";
        let e = each_line_of(Path::new("t"), &bad[..], 10, &mut |_, _, _| Ok(())).unwrap_err();
        assert!(e.contains("not UTF-8"), "{e}");
    }
}
