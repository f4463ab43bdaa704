//! A small picture of an item's image in its results row: the chosen file itself (or the ZIP
//! entry, inflated) shown through an object URL that is revoked when the row goes. Only the
//! rows drawn (at most a hundred) ask for theirs.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::batch::{self, Method};
use crate::ui::lab::batch_state::{BatchState, Images};
use crate::web::files;

/// The item's image file as a Blob, without decoding it.
pub(crate) async fn image_blob(images: &Images, name: &str) -> Option<web_sys::Blob> {
    match images {
        Images::None => None,
        Images::Files(f) => f
            .iter()
            .find(|f| batch::base_name(&f.name()) == batch::base_name(name))
            .map(|f| f.clone().into()),
        Images::Zip { bytes, archive } => {
            let entry = archive.find(name).ok()?;
            entry.check_size().ok()?;
            let raw = entry.raw(bytes)?;
            let data = match entry.method {
                Method::Deflate => files::inflate_raw(raw, entry.uncompressed_size as usize)
                    .await
                    .ok()?,
                _ => raw.to_vec(),
            };
            entry.verify(&data).ok()?;
            files::blob(&data, crate::ui::lab::batch_items::mime_of(name)).ok()
        }
    }
}

#[component]
pub fn Thumbnail(image: Option<String>) -> impl IntoView {
    let b = expect_context::<BatchState>();
    let url = RwSignal::new(None::<String>);
    if let Some(name) = image.clone() {
        spawn_local(async move {
            let images = b.images.get_value();
            let Some(blob) = image_blob(&images, &name).await else {
                return;
            };
            if let Ok(u) = web_sys::Url::create_object_url_with_blob(&blob) {
                // The row may be gone by now (sorted away): then the URL is freed at once.
                if url.try_set(Some(u.clone())).is_some() {
                    let _ = web_sys::Url::revoke_object_url(&u);
                }
            }
        });
    }
    on_cleanup(move || {
        if let Some(u) = url.try_get_untracked().flatten() {
            let _ = web_sys::Url::revoke_object_url(&u);
        }
    });
    let alt = image.map(|n| format!("Image {n}")).unwrap_or_default();
    view! {
        {move || url.get().map(|u| view! {
            <img class="thumb" data-testid="result-thumb" src=u alt=alt.clone() width="48" height="36"/>
        })}
    }
}
