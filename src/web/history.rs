//! The evaluator's history in IndexedDB: the `history` store of the app's database, one record
//! (`crate::files::history::to_record`, JSON text) per kept evaluation under its `entry_id`. What is
//! kept, its name, its order and which entries fall out past the limit are decided in
//! `crate::files::history`; this only moves records. Every failure is a sentence for the page.

use js_sys::Array;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use web_sys::IdbTransactionMode;

use super::cache::{committed, database, done, named_store, settled, HISTORY};
use crate::files::history::{self, Entry};

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

/// Every key of the store (small strings: cheap even for thousands).
async fn all_ids() -> Result<Vec<String>, String> {
    let db = database().await.map_err(unavailable)?;
    let store = named_store(&db, HISTORY, IdbTransactionMode::Readonly).map_err(unavailable)?;
    let keys: Array = done(&store.get_all_keys().map_err(unavailable)?)
        .await
        .map_err(unavailable)?
        .into();
    Ok(keys.iter().filter_map(|k| k.as_string()).collect())
}

/// The kept evaluations, newest first: only the newest [`history::MAX_ENTRIES`] are read from
/// the store, however many it holds (`history::oldest_kept`).
pub async fn list() -> Result<Vec<Entry>, String> {
    let from = history::oldest_kept(&all_ids().await?);
    let db = database().await.map_err(unavailable)?;
    let store = named_store(&db, HISTORY, IdbTransactionMode::Readonly).map_err(unavailable)?;
    let (keys, values) =
        match from.map(|k| web_sys::IdbKeyRange::lower_bound(&JsValue::from_str(&k))) {
            Some(range) => {
                let range = range.map_err(unavailable)?;
                (
                    store.get_all_keys_with_key(&range),
                    store.get_all_with_key(&range),
                )
            }
            None => (store.get_all_keys(), store.get_all()),
        };
    let keys: Array = done(&keys.map_err(unavailable)?)
        .await
        .map_err(unavailable)?
        .into();
    let values: Array = done(&values.map_err(unavailable)?)
        .await
        .map_err(unavailable)?
        .into();
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

/// Keeps `entry`, then drops every entry older than the newest [`history::MAX_ENTRIES`] in one
/// key range (a store of thousands is cut in one request).
pub async fn add(entry: &Entry) -> Result<(), String> {
    put(entry).await?;
    let Some(oldest_kept) = history::oldest_kept(&all_ids().await?) else {
        return Ok(());
    };
    let fail =
        |_| "This browser refused to delete the oldest entries from the history.".to_string();
    let db = database().await.map_err(unavailable)?;
    let tx = db
        .transaction_with_str_and_mode(HISTORY, IdbTransactionMode::Readwrite)
        .map_err(fail)?;
    let commit = committed(&tx);
    let older = web_sys::IdbKeyRange::upper_bound_with_open(&JsValue::from_str(&oldest_kept), true)
        .map_err(fail)?;
    tx.object_store(HISTORY)
        .and_then(|s| s.delete(&older))
        .map_err(fail)?;
    JsFuture::from(commit).await.map(|_| ()).map_err(fail)
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
