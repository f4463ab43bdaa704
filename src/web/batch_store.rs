//! Persistence of batch runs in IndexedDB, each under its own id (`lab::stored_run`), so a
//! reload in the middle of a long paid run loses nothing and an import never touches another
//! run: every item's result is written as it arrives under `<run>/<item>`, and the run's
//! description (a typed record, stored as JSON), dataset text and image files are kept beside
//! it to resume, reopen, export or delete it.

use js_sys::{Array, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbKeyRange, IdbTransactionMode};

use super::cache::{committed, database, done, named_store, settled, BATCH_ITEMS, BATCH_META};
use crate::files::storage_refusal;
use crate::lab::stored_run::{keys, StoredDataset, StoredRun};

/// Writes one value; `Err` says why in a phrase (callers say what was not kept): temporary
/// storage, a full quota and any other refusal each in their own words (`storage_refusal`).
async fn put(store_name: &str, key: &str, value: &JsValue) -> Result<(), String> {
    let db = database().await.map_err(|_| unavailable())?;
    let store =
        named_store(&db, store_name, IdbTransactionMode::Readwrite).map_err(|_| unavailable())?;
    let tx = store.transaction();
    // Never rejects, so returning early below leaves no unhandled rejection behind.
    let commit = committed(&tx);
    let request = store
        .put_with_key(value, &JsValue::from_str(key))
        .map_err(|e| why(&e))?;
    if done(&request).await.is_err() {
        return Err(why(
            &Reflect::get(&request, &"error".into()).unwrap_or_default()
        ));
    }
    // Kept only once the transaction commits: a full quota aborts it only then.
    settled(commit, &tx).await.map_err(|e| why(&e))
}

/// The phrase for a refused write, from the browser's `DOMException` (or whatever it gave).
fn why(error: &JsValue) -> String {
    let field = |k: &str| {
        Reflect::get(error, &JsValue::from_str(k))
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    };
    storage_refusal::phrase(&field("name"), &field("message"))
}

fn unavailable() -> String {
    "it refuses IndexedDB, as private windows may".into()
}

fn range((lower, upper): (String, String)) -> Option<IdbKeyRange> {
    IdbKeyRange::bound(&JsValue::from_str(&lower), &JsValue::from_str(&upper)).ok()
}

async fn get(store_name: &str, key: &str) -> Option<JsValue> {
    let db = database().await.ok()?;
    let request = named_store(&db, store_name, IdbTransactionMode::Readonly)
        .ok()?
        .get(&JsValue::from_str(key))
        .ok()?;
    let v = done(&request).await.ok()?;
    (!v.is_undefined() && !v.is_null()).then_some(v)
}

/// The text values stored in `store_name` under a key range.
async fn texts_in(store_name: &str, keys: (String, String)) -> Vec<String> {
    let Ok(db) = database().await else {
        return Vec::new();
    };
    let Some(r) = range(keys) else {
        return Vec::new();
    };
    let Ok(request) = named_store(&db, store_name, IdbTransactionMode::Readonly)
        .and_then(|s| s.get_all_with_key(&r))
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

/// Stores one item's result (JSON) under its run.
pub async fn put_result(run: &str, item: &str, json: &str) -> Result<(), String> {
    put(
        BATCH_ITEMS,
        &keys::result(run, item),
        &JsValue::from_str(json),
    )
    .await
}

/// Every stored result of one run (JSON strings).
pub async fn run_results(run: &str) -> Vec<String> {
    texts_in(BATCH_ITEMS, keys::results_range(run)).await
}

/// How many results one run has stored.
pub async fn result_count(run: &str) -> usize {
    let Ok(db) = database().await else { return 0 };
    let Some(r) = range(keys::results_range(run)) else {
        return 0;
    };
    let Ok(request) = named_store(&db, BATCH_ITEMS, IdbTransactionMode::Readonly)
        .and_then(|s| s.count_with_key(&r))
    else {
        return 0;
    };
    done(&request)
        .await
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0) as usize
}

/// Writes (or rewrites) a run's description.
pub async fn put_run(run: &StoredRun) -> Result<(), String> {
    let json = serde_json::to_string(run).map_err(|e| e.to_string())?;
    put(BATCH_META, &keys::run(&run.id), &JsValue::from_str(&json)).await
}

pub async fn get_run(id: &str) -> Option<StoredRun> {
    let text = get(BATCH_META, &keys::run(id)).await?.as_string()?;
    serde_json::from_str(&text).ok()
}

/// Every stored run's description (unreadable records are skipped).
pub async fn all_runs() -> Vec<StoredRun> {
    texts_in(BATCH_META, keys::runs_range())
        .await
        .iter()
        .filter_map(|t| serde_json::from_str(t).ok())
        .collect()
}

/// Reads a run's description, changes it and writes it back.
pub async fn update_run(id: &str, change: impl FnOnce(&mut StoredRun)) -> Result<(), String> {
    let mut run = get_run(id)
        .await
        .ok_or_else(|| "the run's record could not be read back".to_string())?;
    change(&mut run);
    put_run(&run).await
}

pub async fn put_dataset(run: &str, dataset: &StoredDataset) -> Result<(), String> {
    let json = serde_json::to_string(dataset).map_err(|e| e.to_string())?;
    put(BATCH_META, &keys::dataset(run), &JsValue::from_str(&json)).await
}

pub async fn get_dataset(run: &str) -> Option<StoredDataset> {
    let text = get(BATCH_META, &keys::dataset(run)).await?.as_string()?;
    serde_json::from_str(&text).ok()
}

/// An image file (a ZIP or a loose image) kept with a run.
pub async fn put_file(run: &str, name: &str, blob: &web_sys::Blob) -> Result<(), String> {
    put(BATCH_META, &keys::file(run, name), blob).await
}

pub async fn get_file(run: &str, name: &str) -> Option<web_sys::Blob> {
    get(BATCH_META, &keys::file(run, name))
        .await
        .and_then(|v| v.dyn_into().ok())
}

/// Forgets one run: its description, dataset, files and results. Other runs are untouched.
pub async fn delete_run(run: &str) -> Result<(), String> {
    let db = database().await.map_err(|_| unavailable())?;
    let doomed = [
        (BATCH_ITEMS, range(keys::results_range(run))),
        (BATCH_META, range(keys::files_range(run))),
    ];
    for (name, r) in doomed {
        let r = r.ok_or("a key range could not be made")?;
        let request = named_store(&db, name, IdbTransactionMode::Readwrite)
            .and_then(|s| s.delete(&r))
            .map_err(|_| unavailable())?;
        done(&request)
            .await
            .map_err(|_| "the browser refused to delete it".to_string())?;
    }
    for key in [keys::dataset(run), keys::run(run)] {
        let request = named_store(&db, BATCH_META, IdbTransactionMode::Readwrite)
            .and_then(|s| s.delete(&JsValue::from_str(&key)))
            .map_err(|_| unavailable())?;
        done(&request)
            .await
            .map_err(|_| "the browser refused to delete it".to_string())?;
    }
    Ok(())
}
