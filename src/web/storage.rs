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

fn set(storage: Option<Storage>, key: &str, value: &str) {
    if let Some(s) = storage {
        let _ = s.set_item(key, value);
    }
}

fn remove(storage: Option<Storage>, key: &str) {
    if let Some(s) = storage {
        let _ = s.remove_item(key);
    }
}

/// A non-secret setting, remembered on this device.
pub fn load_setting(key: &str) -> Option<String> {
    get(local(), key)
}

pub fn save_setting(key: &str, value: &str) {
    set(local(), key, value);
}

/// A setting kept per provider preset, so switching providers and back restores each one's
/// base URL, model and limits.
pub fn load_provider_setting(preset: &str, name: &str) -> Option<String> {
    load_setting(&format!("hj.{preset}.{name}"))
}

pub fn save_provider_setting(preset: &str, name: &str, value: &str) {
    save_setting(&format!("hj.{preset}.{name}"), value);
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
pub fn save_api_key(preset: &str, key: &str, remember: bool) {
    let name = api_key_name(preset);
    if remember {
        set(local(), &name, key);
        remove(session(), &name);
    } else {
        set(session(), &name, key);
        remove(local(), &name);
    }
}
