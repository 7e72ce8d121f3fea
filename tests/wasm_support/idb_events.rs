//! The IndexedDB database as other connections leave it: a record
//! overwritten by another writer, an upgrade by another tab, a connection
//! that blocks ours. Chromium only, each on its own randomly named database.
#![allow(dead_code)]

use super::stash::*;
use super::*;
use ctxpack::api::history::get_history_image;
use ctxpack::stash::Stash;
use js_sys::{Array, Function, Promise};
use wasm_bindgen_futures::JsFuture;

/// Writes garbage over a record with raw IndexedDB, then reads through ctxpack.
pub async fn corrupted_record_counts_as_missing() {
    let name = random_name("corrupt");
    let stash = open_idb(&name, &[]).await;
    let (out, _) = compact(&dootask(), &stash, &[]).await;
    close(&stash);
    let tamper = Function::new_with_args(
        "name, id, data",
        "return new Promise((resolve, reject) => {
            const open = indexedDB.open(name);
            open.onerror = () => reject(open.error);
            open.onsuccess = () => {
                const db = open.result;
                const tx = db.transaction('images', 'readwrite');
                const store = tx.objectStore('images');
                const get = store.get(id);
                get.onsuccess = () => { const rec = get.result; rec.data = data; store.put(rec); };
                tx.oncomplete = () => { db.close(); resolve(true); };
                tx.onerror = () => reject(tx.error);
            };
        })",
    );
    let p: Promise = tamper
        .call3(
            &JsValue::NULL,
            &name.clone().into(),
            &md5_of(JPEG).into(),
            &b64(GIF).into(),
        )
        .unwrap()
        .unchecked_into();
    JsFuture::from(p).await.unwrap();
    let stash = open_idb(&name, &[]).await;
    let (back, report) = expand(&out, &stash).await;
    assert_eq!(num(&report, "corrupted"), 1.0);
    assert_eq!(
        json(&back),
        json(&out),
        "the placeholder stays: no wrong image"
    );
    let parts: Array = get_history_image(stash.clone(), md5_of(JPEG).into(), None)
        .await
        .unwrap()
        .unchecked_into();
    assert_eq!(get_str(&parts.get(0), "type"), "text");
    delete_db(&stash, &name).await;
}

/// Another connection upgrades the database: ours closes on `versionchange`
/// (so the upgrade is not blocked) and reopens on next use.
pub async fn yields_to_a_higher_version() {
    let name = random_name("upgrade");
    let stash = open_idb(&name, &[]).await;
    compact(&dootask(), &stash, &[]).await;
    let upgrade = Function::new_with_args(
        "name",
        "return new Promise((resolve, reject) => {
            const open = indexedDB.open(name, 7);
            open.onblocked = () => reject(new Error('blocked'));
            open.onupgradeneeded = () => open.result.createObjectStore('other');
            open.onerror = () => reject(open.error);
            open.onsuccess = () => { open.result.close(); resolve(open.result.version); };
        })",
    );
    let p: Promise = upgrade
        .call1(&JsValue::NULL, &name.clone().into())
        .unwrap()
        .unchecked_into();
    let version = JsFuture::from(p).await.expect("the upgrade is not blocked");
    assert_eq!(version.as_f64(), Some(7.0));
    // Our stash works again, at the new version, with its records.
    let (_, report) = expand(&compact(&dootask(), &stash, &[]).await.0, &stash).await;
    assert_eq!(num(&report, "restored"), 1.0);
    delete_db(&stash, &name).await;
}

/// A database another connection holds open and never lets go of: adding our
/// stores needs an upgrade, the upgrade is blocked, and the open gives up with
/// `STASH_UNAVAILABLE` instead of hanging. Once that connection closes, it works.
pub async fn blocked_open_gives_up_then_recovers() {
    let name = random_name("blocked");
    let hold = Function::new_with_args(
        "name",
        "return new Promise((resolve, reject) => {
            const open = indexedDB.open(name, 1);
            open.onupgradeneeded = () => open.result.createObjectStore('theirs');
            open.onerror = () => reject(open.error);
            open.onsuccess = () => resolve(open.result);
        })",
    );
    let p: Promise = hold
        .call1(&JsValue::NULL, &name.clone().into())
        .unwrap()
        .unchecked_into();
    let theirs = JsFuture::from(p).await.unwrap();
    let err = Stash::open(Some(obj(&[
        ("backend", "indexeddb".into()),
        ("name", name.clone().into()),
    ])))
    .await
    .err()
    .expect("blocked");
    let err: JsValue = err.into();
    assert_eq!(get_str(&err, "code"), "STASH_UNAVAILABLE");
    assert!(
        get_str(&err, "message").contains("blocked"),
        "{}",
        get_str(&err, "message")
    );
    let close: Function = get(&theirs, "close").unchecked_into();
    close.call0(&theirs).unwrap();
    let stash = open_idb(&name, &[]).await;
    dootask_round_trip(&stash).await;
    delete_db(&stash, &name).await;
}
