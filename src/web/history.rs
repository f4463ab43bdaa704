//! The evaluator's history in IndexedDB: the `history` store of the app's database, one record
//! (`crate::history::to_record`, JSON text) per kept evaluation under its `entry_id`. What is
//! kept, its name, its order and which entries fall out past the limit are decided in
//! `crate::history`; this only moves records. Every failure is a sentence for the page.

use js_sys::Array;
use wasm_bindgen::JsValue;
use web_sys::IdbTransactionMode;

use super::cache::{committed, database, done, named_store, settled, HISTORY};
use crate::history::{self, Entry};

fn unavailable(_: JsValue) -> String {
    "This browser refused access to its storage (IndexedDB), so no history is kept here \
     (a private window, storage turned off, or a newer version of this page open in another tab)."
        .to_string()
}

fn refused(_: JsValue) -> String {
    "This browser did not keep the evaluation in the history (storage full or refused): the \
     result on screen stands, but it will not be in the list after a reload."
        .to_string()
}

/// The kept evaluations, newest first.
pub async fn list() -> Result<Vec<Entry>, String> {
    let db = database().await.map_err(unavailable)?;
    let store = named_store(&db, HISTORY, IdbTransactionMode::Readonly).map_err(unavailable)?;
    let keys = store.get_all_keys().map_err(unavailable)?;
    let values = store.get_all().map_err(unavailable)?;
    let keys: Array = done(&keys).await.map_err(unavailable)?.into();
    let values: Array = done(&values).await.map_err(unavailable)?.into();
    let entries = keys
        .iter()
        .zip(values.iter())
        .filter_map(|(k, v)| history::from_record(&k.as_string()?, &v.as_string()?))
        .collect();
    Ok(history::newest_first(entries))
}

/// Writes `entry` (new, or renamed) and waits until the write is committed.
pub async fn put(entry: &Entry) -> Result<(), String> {
    let db = database().await.map_err(unavailable)?;
    let tx = db
        .transaction_with_str_and_mode(HISTORY, IdbTransactionMode::Readwrite)
        .map_err(refused)?;
    let commit = committed(&tx);
    tx.object_store(HISTORY)
        .and_then(|s| {
            s.put_with_key(
                &JsValue::from_str(&history::to_record(entry)),
                &JsValue::from_str(&entry.id),
            )
        })
        .map_err(refused)?;
    settled(commit, &tx).await.map_err(refused)
}

/// Keeps `entry`, then drops the oldest past the limit.
pub async fn add(entry: &Entry) -> Result<(), String> {
    put(entry).await?;
    let ids: Vec<String> = list().await?.into_iter().map(|e| e.id).collect();
    for id in history::overflow(&ids) {
        delete(&id).await?;
    }
    Ok(())
}

/// Deletes one entry.
pub async fn delete(id: &str) -> Result<(), String> {
    let fail = |_| "This browser refused to delete the entry from the history.".to_string();
    let db = database().await.map_err(unavailable)?;
    let tx = db
        .transaction_with_str_and_mode(HISTORY, IdbTransactionMode::Readwrite)
        .map_err(fail)?;
    let commit = committed(&tx);
    tx.object_store(HISTORY)
        .and_then(|s| s.delete(&JsValue::from_str(id)))
        .map_err(fail)?;
    settled(commit, &tx).await.map_err(fail)
}
