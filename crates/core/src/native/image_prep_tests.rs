use super::*;
use crate::inputs::pipeline::MAX_SIDE;
use image::{Rgb, Rgba, RgbaImage};

/// `image` as a file of `format`.
fn file(image: DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, format).unwrap();
    out.into_inner()
}

fn grey(width: u32, height: u32) -> Vec<u8> {
    let img = RgbImage::from_pixel(width, height, Rgb([90, 120, 160]));
    file(DynamicImage::ImageRgb8(img), ImageFormat::Png)
}

/// The JPEG sent, decoded.
fn sent(p: &Prepared) -> RgbImage {
    assert!(p.jpeg.starts_with(&[0xFF, 0xD8, 0xFF]), "a JPEG");
    image::load_from_memory_with_format(&p.jpeg, ImageFormat::Jpeg)
        .unwrap()
        .into_rgb8()
}

fn near(p: &Rgb<u8>, want: [u8; 3], tolerance: i32) -> bool {
    p.0.iter()
        .zip(want)
        .all(|(&a, b)| (i32::from(a) - i32::from(b)).abs() <= tolerance)
}

#[test]
fn landscape_portrait_and_small_images_get_the_pages_sizes() {
    // At a longest side of 256 (the page's setting goes down to 64) to keep the test quick in
    // a debug build; `the_reg_box_is_drawn_where_the_page_draws_it` sends 1600 × 1200 at 1024.
    for ((w, h), want) in [
        ((400, 300), (256, 192)),
        ((300, 400), (192, 256)),
        ((375, 251), (256, 171)),
        ((64, 48), (64, 48)),
    ] {
        assert_eq!(pipeline::scaled_size(w, h, 256), want);
        let p = prepare(&grey(w, h), 256, None).unwrap();
        assert_eq!(p.size, want, "{w} × {h}");
        assert_eq!(p.original_size, (w, h));
        let out = sent(&p);
        assert_eq!(out.dimensions(), want);
        assert!(near(
            out.get_pixel(want.0 / 2, want.1 / 2),
            [90, 120, 160],
            3
        ));
    }
}

#[test]
fn the_reg_box_is_drawn_where_the_page_draws_it() {
    let b = NormBox {
        x0: 0.25,
        y0: 0.25,
        x1: 0.75,
        y1: 0.75,
    };
    let p = prepare(&grey(1600, 1200), MAX_SIDE, Some(b)).unwrap();
    let out = sent(&p);
    // The left edge is at x = 256 of 1024, the top at y = 192 of 768 (the box is normalised).
    for (x, y) in [(256, 384), (767, 384), (512, 192), (512, 575)] {
        assert!(near(out.get_pixel(x, y), BOX_RGB, 40), "{x},{y}");
    }
    for (x, y) in [(512, 384), (100, 100), (250, 384)] {
        assert!(near(out.get_pixel(x, y), [90, 120, 160], 12), "{x},{y}");
    }
    // Drawn before encoding, on the scaled image: the same box in the pixels of a small one.
    let mut small = RgbImage::from_pixel(64, 48, Rgb([0, 0, 0]));
    draw_box(&mut small, b);
    assert_eq!(small.get_pixel(16, 24).0, BOX_RGB);
    assert_eq!(small.get_pixel(15, 24).0, BOX_RGB);
    assert_eq!(small.get_pixel(17, 24).0, [0, 0, 0]);
}

#[test]
fn transparency_is_flattened_onto_white() {
    let mut img = RgbaImage::from_pixel(40, 30, Rgba([0, 0, 0, 0]));
    img.put_pixel(0, 0, Rgba([0, 0, 0, 255]));
    let p = prepare(
        &file(DynamicImage::ImageRgba8(img), ImageFormat::Png),
        MAX_SIDE,
        None,
    )
    .unwrap();
    assert!(near(sent(&p).get_pixel(20, 15), [255, 255, 255], 3));
}

#[test]
fn a_damaged_or_cut_file_is_refused_with_the_pages_sentences() {
    let png = grey(64, 48);
    // The header is fine, the image data is not.
    let mut damaged = png.clone();
    let n = damaged.len();
    for b in &mut damaged[40..n - 20] {
        *b = 0x55;
    }
    assert_eq!(
        prepare(&damaged, MAX_SIDE, None).unwrap_err(),
        pipeline::NOT_DECODABLE
    );
    let cut = &png[..png.len() / 2];
    assert_eq!(prepare(cut, MAX_SIDE, None).unwrap_err(), sniff::CUT_SHORT);
    assert!(prepare(b"%PDF-1.4 x", MAX_SIDE, None)
        .unwrap_err()
        .starts_with("This is a PDF"));
    assert!(prepare(b"\0\0\0\x1cftypavif\0\0", MAX_SIDE, None)
        .unwrap_err()
        .starts_with("AVIF images"));
    // Over the pixel limit: refused by its header, before any pixel is decoded.
    let mut huge = png.clone();
    huge[16..20].copy_from_slice(&10_000u32.to_be_bytes());
    huge[20..24].copy_from_slice(&10_000u32.to_be_bytes());
    assert!(prepare(&huge, MAX_SIDE, None)
        .unwrap_err()
        .contains("images up to 64 MP are accepted"));
}

#[test]
fn every_format_the_page_takes_in_pure_rust_is_read() {
    let img = DynamicImage::ImageRgb8(RgbImage::from_pixel(30, 20, Rgb([200, 40, 40])));
    for format in [
        ImageFormat::Jpeg,
        ImageFormat::Png,
        ImageFormat::Gif,
        ImageFormat::Bmp,
    ] {
        let p = prepare(&file(img.clone(), format), MAX_SIDE, None).unwrap();
        assert_eq!(p.size, (30, 20), "{format:?}");
        assert!(
            near(sent(&p).get_pixel(15, 10), [200, 40, 40], 12),
            "{format:?}"
        );
    }
}

/// A JPEG with an EXIF block saying "rotate 90° clockwise to show" (orientation 6).
fn rotated_jpeg(width: u32, height: u32) -> Vec<u8> {
    let plain = file(
        DynamicImage::ImageRgb8(RgbImage::from_pixel(width, height, Rgb([10, 200, 10]))),
        ImageFormat::Jpeg,
    );
    let mut exif = b"Exif\0\0MM\0\x2a\0\0\0\x08\0\x01".to_vec();
    exif.extend([0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0]);
    exif.extend([0, 0, 0, 0]);
    let mut out = vec![0xFF, 0xD8, 0xFF, 0xE1];
    out.extend(((exif.len() + 2) as u16).to_be_bytes());
    out.extend(exif);
    out.extend(&plain[2..]);
    out
}

#[test]
fn exif_orientation_is_honoured_as_the_browser_honours_it() {
    let p = prepare(&rotated_jpeg(2000, 1000), MAX_SIDE, None).unwrap();
    assert_eq!(p.original_size, (1000, 2000));
    assert_eq!(p.size, (512, 1024));
}

#[test]
fn the_same_file_and_box_are_prepared_once() {
    let png = grey(300, 200);
    let a = prepared_image(&png, MAX_SIDE, None).unwrap();
    assert_eq!(a.mime, "image/jpeg");
    assert_eq!(prepared_image(&png, MAX_SIDE, None).unwrap(), a);
    let b = NormBox {
        x0: 0.1,
        y0: 0.1,
        x1: 0.9,
        y1: 0.9,
    };
    assert_ne!(prepared_image(&png, MAX_SIDE, Some(b)).unwrap(), a);
    let data = base64::engine::general_purpose::STANDARD
        .decode(&a.base64)
        .unwrap();
    assert_eq!(data, prepare(&png, MAX_SIDE, None).unwrap().jpeg);
}
