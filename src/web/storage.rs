//! `localStorage` / `sessionStorage` access that never panics: storage can be disabled or full,
//! and the app must keep working without it.

use web_sys::Storage;

fn local() -> Option<Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

fn session() -> Option<Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

fn get(storage: Option<Storage>, key: &str) -> Option<String> {
    storage?.get_item(key).ok().flatten()
}

/// Writes `value`; `Err` (no sentence yet, the caller knows what was being kept) when the
/// browser refuses: storage full, disabled, or absent.
fn set(storage: Option<Storage>, key: &str, value: &str) -> Result<(), ()> {
    storage.ok_or(())?.set_item(key, value).map_err(|_| ())
}

fn remove(storage: Option<Storage>, key: &str) -> Result<(), ()> {
    match storage {
        Some(s) => s.remove_item(key).map_err(|_| ()),
        // Nothing stored where there is no storage.
        None => Ok(()),
    }
}

/// A non-secret setting, remembered on this device.
pub fn load_setting(key: &str) -> Option<String> {
    get(local(), key)
}

/// Remembers a setting; the sentence a person reads when the browser would not keep it.
pub fn save_setting(key: &str, value: &str) -> Result<(), String> {
    set(local(), key, value).map_err(|_| {
        "This browser did not save your settings (storage full or off): they apply in this tab \
         only."
            .to_string()
    })
}

/// Stores a setting (`Some`) or forgets it (`None`): what the visitor chose where it differs
/// from what the page suggests, nothing where it is the suggestion
/// (`crate::files::site_suggested::keep`).
pub fn keep_setting(key: &str, value: Option<&str>) -> Result<(), String> {
    match value {
        Some(v) => save_setting(key, v),
        None => {
            remove(local(), key).ok();
            Ok(())
        }
    }
}

/// Reads and forgets a setting (a hand-over from the other page, read once).
pub fn take_setting(key: &str) -> Option<String> {
    let value = get(local(), key)?;
    remove(local(), key).ok();
    Some(value)
}

/// The keys this device's `localStorage` holds (none where storage is off).
pub fn setting_keys() -> Vec<String> {
    let Some(s) = local() else { return Vec::new() };
    let n = s.length().unwrap_or(0);
    (0..n).filter_map(|i| s.key(i).ok().flatten()).collect()
}

/// Forgets settings (best effort: a key the browser will not remove stays).
pub fn forget_settings(keys: &[String]) {
    for k in keys {
        remove(local(), k).ok();
    }
}

/// A setting kept per provider preset, so switching providers and back restores each one's
/// base URL, model and limits.
pub fn load_provider_setting(preset: &str, name: &str) -> Option<String> {
    load_setting(&format!("hj.{preset}.{name}"))
}

pub fn save_provider_setting(preset: &str, name: &str, value: &str) -> Result<(), String> {
    keep_provider_setting(preset, name, Some(value))
}

/// Stores (`Some`) or forgets (`None`) a provider's setting, as [`keep_setting`].
pub fn keep_provider_setting(preset: &str, name: &str, value: Option<&str>) -> Result<(), String> {
    keep_setting(&format!("hj.{preset}.{name}"), value)
}

fn api_key_name(preset: &str) -> String {
    format!("hj.{preset}.api_key")
}

/// The provider's API key: from `localStorage` if the user chose "remember on this device",
/// otherwise from this tab's `sessionStorage`. Returns `(key, remembered)`.
pub fn load_api_key(preset: &str) -> (String, bool) {
    let name = api_key_name(preset);
    if let Some(k) = get(local(), &name) {
        return (k, true);
    }
    (get(session(), &name).unwrap_or_default(), false)
}

/// Stores the key in exactly one place: `localStorage` when `remember`, else `sessionStorage`.
/// The sentence says what was and was not kept.
pub fn save_api_key(preset: &str, key: &str, remember: bool) -> Result<(), String> {
    let name = api_key_name(preset);
    let (keep, drop) = if remember {
        (local(), session())
    } else {
        (session(), local())
    };
    let kept = set(keep, &name, key);
    let dropped = remove(drop, &name);
    match (kept, dropped) {
        (Ok(()), Ok(())) => Ok(()),
        (Err(()), _) => Err(
            "This browser did not store the API key (storage full or off): it \
                             works until this tab is reloaded."
                .into(),
        ),
        (Ok(()), Err(())) => Err("This browser could not delete the key's old stored copy.".into()),
    }
}
