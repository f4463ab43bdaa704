//! What the lab's runs (in the browser or through OpenAI's Batch API) need per item: the
//! plan from the current settings (`batch::plan`, where the logic is), and the item's image
//! prepared as it is sent.

use leptos::prelude::*;

use crate::batch::plan::Plan;
use crate::batch::{self, Item};
use crate::metrics::Metric;
use crate::providers::Image;
use crate::ui::lab::batch_state::Images;
use crate::ui::state::Settings;
use crate::web::{files, image};

/// The run's plan for an item under `metric`, with the metric settings as they are now.
pub(crate) fn plan(state: Settings, metric: Metric) -> Plan {
    Plan {
        metric,
        settings: crate::ui::metrics::stored_run_settings(
            state.fidelity.get_untracked(),
            state.chosen_criteria.get_untracked(),
        ),
    }
}

/// The image of an item, decoded, downscaled and encoded as it is sent (REG: box drawn in).
pub(crate) async fn prepared_image(
    images: &Images,
    item: &Item,
    max_side: u32,
) -> Result<Option<Image>, String> {
    let Some(name) = &item.image else {
        return Ok(None);
    };
    let blob: web_sys::Blob = match images {
        Images::None => {
            return Err(format!(
                "No image files were chosen for \u{201c}{name}\u{201d}."
            ))
        }
        Images::Files(f) => f
            .iter()
            .find(|f| batch::base_name(&f.name()) == batch::base_name(name))
            .map(|f| f.clone().into())
            .ok_or_else(|| {
                format!("Image \u{201c}{name}\u{201d} is not among the chosen files.")
            })?,
        Images::Zip { bytes, archive } => {
            let (entry, raw) = archive.named_entry(bytes, name)?;
            // Never more than the central directory stated (named_entry checked it is within
            // the limit); content() then checks the exact size and the checksum.
            let data = if entry.deflated() {
                files::inflate_raw(raw, entry.uncompressed_size as usize)
                    .await
                    .map_err(|e| format!("\u{201c}{name}\u{201d}: {e}"))?
            } else {
                raw.to_vec()
            };
            files::blob(&entry.content(data)?, mime_of(name))?
        }
    };
    let red_box = if item.task.needs_box() {
        item.bbox.filter(|b| b.is_usable())
    } else {
        None
    };
    let prepared = image::prepare_image(&blob, max_side, red_box)
        .await
        .map_err(|e| format!("\u{201c}{name}\u{201d}: {e}"))?;
    Image::from_data_url(&prepared.sent)
        .map(Some)
        .ok_or_else(|| "The browser could not encode the image as JPEG.".to_string())
}

pub(crate) fn mime_of(name: &str) -> &'static str {
    let lower = name.to_lowercase();
    match lower.rsplit('.').next() {
        Some("png") => "image/png",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("bmp") => "image/bmp",
        Some("avif") => "image/avif",
        _ => "image/jpeg",
    }
}
