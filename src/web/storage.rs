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

const API_KEY: &str = "hj.api_key";

/// The API key: from `localStorage` if the user chose "remember on this device", otherwise
/// from this tab's `sessionStorage`. Returns `(key, remembered)`.
pub fn load_api_key() -> (String, bool) {
    if let Some(k) = get(local(), API_KEY) {
        return (k, true);
    }
    (get(session(), API_KEY).unwrap_or_default(), false)
}

/// Stores the key in exactly one place: `localStorage` when `remember`, else `sessionStorage`.
pub fn save_api_key(key: &str, remember: bool) {
    if remember {
        set(local(), API_KEY, key);
        remove(session(), API_KEY);
    } else {
        set(session(), API_KEY, key);
        remove(local(), API_KEY);
    }
}
