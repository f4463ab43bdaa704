//! What a dropped file is, from its first bytes, before the browser is asked to decode it.
//!
//! The browser's decoder would say only "could not decode"; reading the header first lets the
//! app say *why* (a PDF, a text file, an SVG), refuse a 100-megapixel image before it takes
//! hundreds of megabytes of memory, and mention that an animation is judged by its first frame.
//! Pure and total: any byte string gives an answer, never a panic (fuzzed: `crates/core/fuzz/`).

/// Images above this many pixels are refused: decoding one takes 4 bytes per pixel.
pub const MAX_PIXELS: u64 = 64_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Jpeg,
    Png,
    Gif,
    WebP,
    Bmp,
    /// AVIF/HEIF: decoded by the browser; the size is not read here.
    Avif,
    Svg,
    Pdf,
    Text,
    Unknown,
}

/// What the header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sniffed {
    pub kind: Kind,
    /// Width and height as stored (before any EXIF rotation), when the header gives them.
    pub size: Option<(u32, u32)>,
    /// More than one frame (animated GIF, APNG, animated WebP).
    pub animated: bool,
}

/// Reads `head` (the file's first bytes; 512 KiB finds a JPEG's size past large EXIF blocks).
pub fn sniff(head: &[u8]) -> Sniffed {
    let mut s = Sniffed {
        kind: Kind::Unknown,
        size: None,
        animated: false,
    };
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        s.kind = Kind::Jpeg;
        s.size = jpeg_size(head);
    } else if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        s.kind = Kind::Png;
        if head.get(12..16) == Some(b"IHDR") {
            s.size = Some((be32(head, 16), be32(head, 20)));
        }
        s.animated = find(head, b"acTL").is_some();
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        s.kind = Kind::Gif;
        s.size = Some((u32::from(le16(head, 6)), u32::from(le16(head, 8))));
        s.animated = find(head, b"NETSCAPE2.0").is_some() || gif_frames(head) > 1;
    } else if head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP") {
        s.kind = Kind::WebP;
        (s.size, s.animated) = webp_info(head);
    } else if head.starts_with(b"BM") && head.len() >= 26 {
        s.kind = Kind::Bmp;
        let h = le32(head, 22) as i32;
        s.size = Some((le32(head, 18), h.unsigned_abs()));
    } else if head.get(4..8) == Some(b"ftyp") {
        s.kind = Kind::Avif;
    } else if head.starts_with(b"%PDF-") {
        s.kind = Kind::Pdf;
    } else if looks_like_svg(head) {
        s.kind = Kind::Svg;
    } else if looks_like_text(head) {
        s.kind = Kind::Text;
    }
    s
}

/// Why the file is refused before decoding, in the words a person reads; `None` to go on.
pub fn refusal(s: &Sniffed) -> Option<String> {
    match s.kind {
        Kind::Pdf => return Some("This is a PDF document, not an image: export the page as PNG or JPEG.".into()),
        Kind::Svg => {
            return Some(
                "SVG drawings are not accepted (they can carry scripts, and the judge needs pixels): export it as PNG.".into(),
            )
        }
        Kind::Text => return Some("This is a text file, not an image.".into()),
        _ => {}
    }
    let (w, h) = s.size?;
    if w == 0 || h == 0 {
        return Some(format!(
            "The image header says {w} × {h} pixels: the file is damaged."
        ));
    }
    let pixels = u64::from(w) * u64::from(h);
    (pixels > MAX_PIXELS).then(|| {
        format!(
            "The image is {w} × {h} pixels ({} MP); images up to {} MP are accepted. Downscale it first.",
            pixels.div_ceil(1_000_000),
            MAX_PIXELS / 1_000_000
        )
    })
}

/// Said when the browser cannot decode a file that [`is_cut_short`].
pub const CUT_SHORT: &str =
    "The file is cut short: it ends before the image data does. It may not \
     have finished downloading or copying.";

/// Whether the file lacks its format's end marker; `tail` is its last bytes (64 KiB: some
/// cameras append data after a JPEG's end-of-image marker).
pub fn is_cut_short(s: &Sniffed, tail: &[u8]) -> bool {
    // Only a header that made sense says the file is this format at all.
    if s.size.is_none() {
        return false;
    }
    match s.kind {
        Kind::Jpeg => find(tail, &[0xFF, 0xD9]).is_none(),
        Kind::Png => find(tail, b"IEND").is_none(),
        Kind::Gif => tail.last() != Some(&0x3B),
        _ => false,
    }
}

/// A note shown beside an accepted image.
pub fn note(s: &Sniffed) -> Option<&'static str> {
    s.animated
        .then_some("Animated image: its first frame is what the judge sees.")
}

/// `N` bytes at `i`, or zeros past the end (a header cut short reads as zeros, never panics).
fn at<const N: usize>(b: &[u8], i: usize) -> [u8; N] {
    b.get(i..i + N)
        .and_then(|x| x.try_into().ok())
        .unwrap_or([0; N])
}

fn be16(b: &[u8], i: usize) -> u16 {
    u16::from_be_bytes(at(b, i))
}

fn be32(b: &[u8], i: usize) -> u32 {
    u32::from_be_bytes(at(b, i))
}

fn le16(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes(at(b, i))
}

fn le24(b: &[u8], i: usize) -> u32 {
    let [x, y, z] = at(b, i);
    u32::from_le_bytes([x, y, z, 0])
}

fn le32(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(at(b, i))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Walks the JPEG segments to the first start-of-frame marker.
fn jpeg_size(b: &[u8]) -> Option<(u32, u32)> {
    let mut i = 2;
    while i + 4 <= b.len() {
        if b[i] != 0xFF {
            return None;
        }
        let marker = b[i + 1];
        if marker == 0xFF {
            i += 1; // fill byte
            continue;
        }
        // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC).
        if (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
            let (h, w) = (be16(b, i + 5), be16(b, i + 7));
            return (i + 9 <= b.len()).then_some((u32::from(w), u32::from(h)));
        }
        if marker == 0xD8 || (0xD0..=0xD7).contains(&marker) || marker == 0x01 {
            i += 2;
            continue;
        }
        let len = usize::from(be16(b, i + 2));
        if len < 2 {
            return None;
        }
        i += 2 + len;
    }
    None
}

/// Image descriptors seen in the first bytes of a GIF (stops at the first it cannot skip).
fn gif_frames(b: &[u8]) -> usize {
    let mut i = 13;
    if b.get(10).is_some_and(|f| f & 0x80 != 0) {
        i += 3 << ((b[10] & 7) + 1);
    }
    let mut frames = 0;
    let skip_blocks = |mut i: usize| -> Option<usize> {
        loop {
            let n = usize::from(*b.get(i)?);
            i += 1 + n;
            if n == 0 {
                return Some(i);
            }
        }
    };
    while let Some(&tag) = b.get(i) {
        match tag {
            0x21 => match skip_blocks(i + 2) {
                Some(next) => i = next,
                None => break,
            },
            0x2C => {
                frames += 1;
                let flags = b.get(i + 9).copied().unwrap_or(0);
                i += 10;
                if flags & 0x80 != 0 {
                    i += 3 << ((flags & 7) + 1);
                }
                match skip_blocks(i + 1) {
                    Some(next) => i = next,
                    None => break,
                }
            }
            _ => break,
        }
    }
    frames
}

fn webp_info(b: &[u8]) -> (Option<(u32, u32)>, bool) {
    match b.get(12..16) {
        Some(b"VP8 ") => {
            let w = u32::from(le16(b, 26) & 0x3FFF);
            let h = u32::from(le16(b, 28) & 0x3FFF);
            (Some((w, h)), false)
        }
        Some(b"VP8L") => {
            let bits = le32(b, 21);
            (
                Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)),
                false,
            )
        }
        Some(b"VP8X") => {
            let animated = b.get(20).is_some_and(|f| f & 0x02 != 0);
            (Some((le24(b, 24) + 1, le24(b, 27) + 1)), animated)
        }
        _ => (None, false),
    }
}

fn looks_like_svg(b: &[u8]) -> bool {
    let head = &b[..b.len().min(1024)];
    let head = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(head);
    let start = head
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(0);
    let opens = |tag: &[u8]| {
        head[start..]
            .get(..tag.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(tag))
    };
    (opens(b"<?xml") || opens(b"<svg") || opens(b"<!doctype svg"))
        && head.windows(4).any(|w| w.eq_ignore_ascii_case(b"<svg"))
}

/// Valid UTF-8 (allowing a character cut at the end) without control bytes other than
/// whitespace: a text or source file renamed as an image.
fn looks_like_text(b: &[u8]) -> bool {
    let head = &b[..b.len().min(4096)];
    if head.is_empty() {
        return false;
    }
    let valid = match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    };
    valid
        && head
            .iter()
            .all(|&c| c >= 0x20 || matches!(c, b'\n' | b'\r' | b'\t' | 0x0C))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        v.extend(w.to_be_bytes());
        v.extend(h.to_be_bytes());
        v.extend([8, 2, 0, 0, 0]);
        v
    }

    #[test]
    fn png_size_and_the_pixel_limit() {
        let s = sniff(&png(4000, 3000));
        assert_eq!((s.kind, s.size), (Kind::Png, Some((4000, 3000))));
        assert_eq!(refusal(&s), None);
        assert_eq!(
            refusal(&sniff(&png(10_000, 10_000))).unwrap(),
            "The image is 10000 × 10000 pixels (100 MP); images up to 64 MP are accepted. Downscale it first."
        );
        assert!(refusal(&sniff(&png(0, 10))).unwrap().contains("damaged"));
    }

    #[test]
    fn jpeg_size_is_found_past_app_segments() {
        let mut j = vec![0xFF, 0xD8];
        // APP1 (EXIF) of 1000 bytes, then a fill byte, then SOF2 (progressive).
        j.extend([0xFF, 0xE1]);
        j.extend(1000u16.to_be_bytes());
        j.extend(vec![0u8; 998]);
        j.extend([0xFF, 0xFF, 0xC2, 0x00, 0x11, 0x08]);
        j.extend(3000u16.to_be_bytes()); // height
        j.extend(4000u16.to_be_bytes()); // width
        j.extend([3, 1, 0x22, 0]);
        let s = sniff(&j);
        assert_eq!((s.kind, s.size), (Kind::Jpeg, Some((4000, 3000))));
        // Cut before the frame header: a JPEG of unknown size, left to the browser.
        assert_eq!(sniff(&j[..900]).size, None);
        assert_eq!(sniff(&j[..900]).kind, Kind::Jpeg);
    }

    #[test]
    fn gif_animation_and_size() {
        let mut g = b"GIF89a".to_vec();
        g.extend(2u16.to_le_bytes());
        g.extend(3u16.to_le_bytes());
        g.extend([0x00, 0, 0]); // no global colour table
        for _ in 0..2 {
            g.extend([0x2C, 0, 0, 0, 0, 2, 0, 3, 0, 0x00, 2, 2, 0x4C, 0x01, 0x00]);
        }
        g.push(0x3B);
        let s = sniff(&g);
        assert_eq!(
            (s.kind, s.size, s.animated),
            (Kind::Gif, Some((2, 3)), true)
        );
        assert!(note(&s).unwrap().contains("first frame"));
        let one = [&g[..28], &[0x3B][..]].concat();
        assert!(!sniff(&one).animated);
    }

    #[test]
    fn webp_variants() {
        let mut lossless = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
        // 14-bit width-1 and height-1: 99 and 49.
        lossless.extend((99u32 | (49 << 14)).to_le_bytes());
        assert_eq!(sniff(&lossless).size, Some((100, 50)));
        let mut extended = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\x02\0\0\0".to_vec();
        extended.extend([0x3F, 0x1F, 0, 0x9F, 0x0F, 0]); // 8000 × 4000
        let s = sniff(&extended);
        assert_eq!((s.size, s.animated), (Some((8000, 4000)), true));
    }

    #[test]
    fn a_missing_end_marker_is_noted() {
        let jpeg = [0xFF, 0xD8, 0xFF, 0xC0, 0, 17, 8, 0, 32, 0, 64, 3];
        let s = sniff(&jpeg);
        assert_eq!(s.size, Some((64, 32)));
        // Garbage behind a JPEG signature is not "cut short".
        assert!(!is_cut_short(&sniff(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 2]), b""));
        assert!(is_cut_short(&s, &[1, 2, 3]));
        assert!(!is_cut_short(&s, &[1, 0xFF, 0xD9, 0, 0]));
        let p = sniff(&png(2, 2));
        assert!(is_cut_short(&p, b"IDAT.."));
        assert!(!is_cut_short(&p, b"\0\0\0\0IEND\xaeB`\x82"));
        assert!(!is_cut_short(&sniff(b"BM"), b""));
    }

    #[test]
    fn documents_and_text_are_named() {
        assert!(refusal(&sniff(b"%PDF-1.7\n%\xe2\xe3"))
            .unwrap()
            .starts_with("This is a PDF"));
        let svg = b"<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>";
        assert_eq!(sniff(svg).kind, Kind::Svg);
        assert_eq!(sniff(b"\xef\xbb\xbf  <SVG width='1'/>").kind, Kind::Svg);
        assert_eq!(sniff(b"<?xml version='1.0'?><note/>").kind, Kind::Text);
        assert!(refusal(&sniff(svg)).unwrap().starts_with("SVG drawings"));
        assert_eq!(
            sniff("plain words, ünïcode ✓\n".as_bytes()).kind,
            Kind::Text
        );
        assert_eq!(sniff(&[0, 1, 2, 3, 200]).kind, Kind::Unknown);
        assert_eq!(refusal(&sniff(&[0, 1, 2])), None);
    }

    #[test]
    fn any_bytes_give_an_answer() {
        // Every prefix of every sample, and short random strings: no panic.
        let mut rng = crate::meta::resample::Rng::new(3);
        for len in 0..600 {
            let bytes: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
            for prefix in [
                &b"\xff\xd8\xff"[..],
                b"GIF89a",
                b"\x89PNG\r\n\x1a\n",
                b"RIFF\0\0\0\0WEBPVP8X",
                b"BM",
            ] {
                let s = sniff(&[prefix, &bytes[..]].concat());
                let _ = (refusal(&s), note(&s), is_cut_short(&s, &bytes));
            }
        }
    }
}
