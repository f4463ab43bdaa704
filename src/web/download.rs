//! Saving a text as a file through a temporary object URL.

use wasm_bindgen::JsCast;

pub fn download_text(file_name: &str, mime: &str, text: &str) -> Result<(), String> {
    let fail = |what: &str| format!("Could not save the file ({what}).");
    let parts = js_sys::Array::of1(&text.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)
        .map_err(|_| fail("blob"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| fail("object URL"))?;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| fail("no document"))?;
    let anchor: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(|_| fail("link"))?
        .unchecked_into();
    anchor.set_href(&url);
    anchor.set_download(file_name);
    anchor.click();
    // Revoking at once can cancel the download in some browsers; give it a moment.
    let revoke = wasm_bindgen::closure::Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    if let Some(w) = web_sys::window() {
        let _ =
            w.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 10_000);
    }
    Ok(())
}

/// The local time now, to the minute, for export names.
pub fn local_now() -> crate::files::export_name::LocalTime {
    let d = js_sys::Date::new_0();
    crate::files::export_name::LocalTime {
        year: d.get_full_year() as i32,
        month: d.get_month() + 1,
        day: d.get_date(),
        hour: d.get_hours(),
        minute: d.get_minutes(),
    }
}
