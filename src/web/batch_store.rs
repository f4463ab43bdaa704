//! Persistence of a batch run in IndexedDB, so a reload in the middle of a long paid run loses
//! nothing: every item's result is written as it arrives, and the run's description, dataset
//! text and image files are kept to resume from.

use js_sys::{Array, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::IdbTransactionMode;

use wasm_bindgen_futures::JsFuture;

use super::cache::{committed, database, done, named_store, BATCH_ITEMS, BATCH_META};

/// Writes one value; `Err` says why in a phrase (callers say what was not kept).
async fn put(store_name: &str, key: &str, value: &JsValue) -> Result<(), String> {
    let db = database().await.map_err(|_| unavailable())?;
    let store =
        named_store(&db, store_name, IdbTransactionMode::Readwrite).map_err(|_| unavailable())?;
    let commit = committed(&store.transaction());
    let request = store
        .put_with_key(value, &JsValue::from_str(key))
        .map_err(|_| unavailable())?;
    let refused = |_| "its storage is full or refused the write".to_string();
    done(&request).await.map_err(refused)?;
    // Kept only once the transaction commits: a full quota aborts it only then.
    JsFuture::from(commit).await.map(|_| ()).map_err(refused)
}

fn unavailable() -> String {
    "it refuses IndexedDB, as private windows may".into()
}

/// Stores one item's result (JSON).
pub async fn put_result(id: &str, json: &str) -> Result<(), String> {
    put(BATCH_ITEMS, id, &JsValue::from_str(json)).await
}

/// Every stored result (JSON strings).
pub async fn all_results() -> Vec<String> {
    let Ok(db) = database().await else {
        return Vec::new();
    };
    let Ok(request) =
        named_store(&db, BATCH_ITEMS, IdbTransactionMode::Readonly).and_then(|s| s.get_all())
    else {
        return Vec::new();
    };
    let Ok(values) = done(&request).await else {
        return Vec::new();
    };
    values
        .dyn_into::<Array>()
        .map(|a| a.iter().filter_map(|v| v.as_string()).collect())
        .unwrap_or_default()
}

/// A run-level value: text (`run`, `dataset`) or a file Blob (`file:<name>`).
pub async fn put_meta(key: &str, value: &JsValue) -> Result<(), String> {
    put(BATCH_META, key, value).await
}

pub async fn get_meta(key: &str) -> Option<JsValue> {
    let db = database().await.ok()?;
    let request = named_store(&db, BATCH_META, IdbTransactionMode::Readonly)
        .ok()?
        .get(&JsValue::from_str(key))
        .ok()?;
    let v = done(&request).await.ok()?;
    (!v.is_undefined()).then_some(v)
}

/// The names of the stored image files.
pub async fn file_keys() -> Vec<String> {
    let Ok(db) = database().await else {
        return Vec::new();
    };
    let Ok(request) =
        named_store(&db, BATCH_META, IdbTransactionMode::Readonly).and_then(|s| s.get_all_keys())
    else {
        return Vec::new();
    };
    let Ok(keys) = done(&request).await else {
        return Vec::new();
    };
    keys.dyn_into::<Array>()
        .map(|a| {
            a.iter()
                .filter_map(|k| k.as_string())
                .filter_map(|k| k.strip_prefix("file:").map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Forgets the stored run (a new run starts from nothing).
pub async fn clear() {
    let Ok(db) = database().await else { return };
    for name in [BATCH_ITEMS, BATCH_META] {
        if let Ok(request) =
            named_store(&db, name, IdbTransactionMode::Readwrite).and_then(|s| s.clear())
        {
            let _ = done(&request).await;
        }
    }
}

/// A small JS object from key/value pairs, for `put_meta`.
pub fn object(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = js_sys::Object::new();
    for (k, v) in pairs {
        let _ = Reflect::set(&o, &JsValue::from_str(k), v);
    }
    o.into()
}
