//! The answer cache in IndexedDB: response bodies of successful provider requests, keyed by
//! `crate::transport::request_key` (which never includes the API key). Re-evaluating the same inputs, or
//! a batch item already done, is answered from here instead of re-billing the user.
//!
//! Every function degrades to "no cache" rather than failing a run: private windows and some
//! browsers refuse IndexedDB.

use std::cell::RefCell;

use js_sys::{Object, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbRequest, IdbTransactionMode};

const DB_NAME: &str = "harmonic-judge";
const STORE: &str = "responses";
/// Batch runs: results per item (key: item id).
pub const BATCH_ITEMS: &str = "batch_items";
/// Batch runs: the run's description, dataset text and image files (key: name).
pub const BATCH_META: &str = "batch_meta";
/// The evaluator's history: one record per kept evaluation (key: `history::entry_id`).
pub const HISTORY: &str = "history";
/// Version 2 added the batch stores, 3 the history.
const DB_VERSION: u32 = 3;

thread_local! {
    static DB: RefCell<Option<IdbDatabase>> = const { RefCell::new(None) };
}

/// Waits for an IDB request's success (its result) or error.
pub async fn done(request: &IdbRequest) -> Result<JsValue, JsValue> {
    let promise = Promise::new(&mut |resolve, reject| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
    });
    JsFuture::from(promise).await?;
    request.result()
}

/// Settles when `tx` commits, aborts or fails, and never rejects: a caller whose request failed
/// returns without awaiting it, and a rejection nobody awaits is an unhandled rejection in the
/// page. A write's request succeeds before its transaction commits, and a full quota aborts
/// the transaction only at commit (QuotaExceededError), so a write is kept only once
/// [`settled`] says so. Call it before awaiting anything, so the handlers are in place before
/// the commit.
pub fn committed(tx: &web_sys::IdbTransaction) -> Promise {
    Promise::new(&mut |resolve, _reject| {
        tx.set_oncomplete(Some(&resolve));
        tx.set_onabort(Some(&resolve));
        tx.set_onerror(Some(&resolve));
    })
}

/// Awaits [`committed`]: `Ok` once the transaction committed, else its error (the
/// `DOMException`, or `undefined` when the browser gave none).
pub async fn settled(commit: Promise, tx: &web_sys::IdbTransaction) -> Result<(), JsValue> {
    let event = JsFuture::from(commit).await.unwrap_or_default();
    let kind = Reflect::get(&event, &"type".into())
        .ok()
        .and_then(|v| v.as_string());
    if kind.as_deref() == Some("complete") {
        return Ok(());
    }
    Err(Reflect::get(tx, &"error".into()).unwrap_or_default())
}

pub async fn database() -> Result<IdbDatabase, JsValue> {
    if let Some(db) = DB.with(|d| d.borrow().clone()) {
        return Ok(db);
    }
    let factory = web_sys::window()
        .ok_or("no window")?
        .indexed_db()?
        .ok_or("IndexedDB unavailable")?;
    let open = factory.open_with_u32(DB_NAME, DB_VERSION)?;
    let upgrade = wasm_bindgen::closure::Closure::<dyn FnMut(web_sys::Event)>::new(
        move |event: web_sys::Event| {
            let db = event
                .target()
                .and_then(|t| t.dyn_into::<web_sys::IdbOpenDbRequest>().ok())
                .and_then(|r| r.result().ok())
                .and_then(|r| r.dyn_into::<IdbDatabase>().ok());
            if let Some(db) = db {
                for name in [STORE, BATCH_ITEMS, BATCH_META, HISTORY] {
                    if !db.object_store_names().contains(name) {
                        let _ = db.create_object_store(name);
                    }
                }
            }
        },
    );
    open.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
    // Another tab still holding an older version blocks the upgrade: fail (no cache, a
    // sentence for the history) rather than wait for ever.
    let opened = Promise::new(&mut |resolve, reject| {
        open.set_onsuccess(Some(&resolve));
        open.set_onerror(Some(&reject));
        open.set_onblocked(Some(&reject));
    });
    JsFuture::from(opened).await?;
    let db: IdbDatabase = open.result()?.dyn_into()?;
    open.set_onupgradeneeded(None);
    // And this tab lets a newer version of the page upgrade: it closes its connection (each
    // one: uses that start together may each have opened one) and forgets it, so the next use
    // opens the database again.
    let own = db.clone();
    let close = wasm_bindgen::closure::Closure::<dyn FnMut(web_sys::Event)>::new(
        move |_: web_sys::Event| {
            own.close();
            DB.with(|d| d.borrow_mut().take());
        },
    );
    db.set_onversionchange(Some(close.as_ref().unchecked_ref()));
    close.forget();
    DB.with(|d| *d.borrow_mut() = Some(db.clone()));
    Ok(db)
}

fn store(db: &IdbDatabase, mode: IdbTransactionMode) -> Result<web_sys::IdbObjectStore, JsValue> {
    named_store(db, STORE, mode)
}

pub fn named_store(
    db: &IdbDatabase,
    name: &str,
    mode: IdbTransactionMode,
) -> Result<web_sys::IdbObjectStore, JsValue> {
    db.transaction_with_str_and_mode(name, mode)?
        .object_store(name)
}

/// The cached body for `key`, if any.
pub async fn get(key: &str) -> Option<String> {
    let db = database().await.ok()?;
    let request = store(&db, IdbTransactionMode::Readonly)
        .ok()?
        .get(&JsValue::from_str(key))
        .ok()?;
    let entry = done(&request).await.ok()?;
    Reflect::get(&entry, &"body".into()).ok()?.as_string()
}

/// Stores `body` under `key` with the time it was written, and waits until the write is
/// committed (a full quota fails only then). `Err` is the sentence to show: the run already has
/// its answer, so nothing but the cached copy is lost. No database at all is not reported here:
/// the cache row already says the cache is unavailable.
pub async fn put(key: &str, body: &str) -> Result<(), String> {
    let Ok(db) = database().await else {
        return Ok(());
    };
    let refused = |_| {
        "This browser did not keep the last answer in the answer cache (storage full or \
         refused): the score stands, but asking again will send (and bill) the request again."
            .to_string()
    };
    let entry = Object::new();
    // Setting a field of a fresh plain object cannot fail.
    let _ = Reflect::set(&entry, &"body".into(), &body.into());
    let _ = Reflect::set(&entry, &"saved".into(), &js_sys::Date::now().into());
    let tx = db
        .transaction_with_str_and_mode(STORE, IdbTransactionMode::Readwrite)
        .map_err(refused)?;
    let commit = committed(&tx);
    tx.object_store(STORE)
        .and_then(|s| s.put_with_key(&entry, &JsValue::from_str(key)))
        .map_err(refused)?;
    settled(commit, &tx).await.map_err(refused)
}

/// What the page does with a sentence about storage.
type Say = Box<dyn Fn(String)>;

thread_local! {
    static ON_WRITE_ERROR: RefCell<Option<Say>> = const { RefCell::new(None) };
}

/// Where a page shows a failed cache write: `f` hears [`put`]'s sentence.
pub fn on_write_error(f: impl Fn(String) + 'static) {
    ON_WRITE_ERROR.with(|h| *h.borrow_mut() = Some(Box::new(f)));
}

/// Passes a failed write's sentence to the page ([`on_write_error`]).
pub fn report_write_error(message: String) {
    ON_WRITE_ERROR.with(|h| {
        if let Some(f) = h.borrow().as_ref() {
            f(message);
        }
    });
}

/// Number of cached answers; `None` when IndexedDB is unavailable.
pub async fn count() -> Option<u32> {
    let db = database().await.ok()?;
    let request = store(&db, IdbTransactionMode::Readonly)
        .ok()?
        .count()
        .ok()?;
    done(&request).await.ok()?.as_f64().map(|n| n as u32)
}

/// Removes every cached answer.
pub async fn clear() -> Result<(), String> {
    let db = database()
        .await
        .map_err(|_| "The browser refused access to the cache (IndexedDB).".to_string())?;
    let request = store(&db, IdbTransactionMode::Readwrite)
        .and_then(|s| s.clear())
        .map_err(|_| "Could not clear the cache.".to_string())?;
    done(&request)
        .await
        .map(|_| ())
        .map_err(|_| "Could not clear the cache.".to_string())
}
