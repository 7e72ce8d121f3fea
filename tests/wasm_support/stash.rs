//! Stash and history checks through the JavaScript surface. The IndexedDB
//! ones run in Chromium (page and dedicated worker), each on its own randomly
//! named database.
#![allow(dead_code)]

use super::*;
use ctxpack::api::history::{compact_context, expand_context, get_history_image};
use ctxpack::stash::Stash;
use ctxpack_extras::tool::history_image_tool_js;
use js_sys::{Array, Function, Promise};
use wasm_bindgen_futures::JsFuture;

pub fn random_name(prefix: &str) -> String {
    format!("{prefix}-{}", (js_sys::Math::random() * 1e12) as u64)
}

pub fn md5_of(bytes: &[u8]) -> String {
    ctxpack_core::md5_hex(b64(bytes).as_bytes())
}

/// A clock JavaScript can read and Rust can move.
pub struct Clock(pub std::rc::Rc<std::cell::Cell<f64>>);

impl Clock {
    pub fn new(t: f64) -> Clock {
        Clock(std::rc::Rc::new(std::cell::Cell::new(t)))
    }
    pub fn function(&self) -> JsValue {
        let c = self.0.clone();
        Closure::<dyn Fn() -> f64>::new(move || c.get()).into_js_value()
    }
    pub fn set(&self, t: f64) {
        self.0.set(t);
    }
}

pub async fn open(pairs: &[(&str, JsValue)]) -> JsValue {
    Stash::open(Some(obj(pairs)))
        .await
        .map(JsValue::from)
        .expect("stash opens")
}

pub async fn open_idb(name: &str, extra: &[(&str, JsValue)]) -> JsValue {
    let mut pairs = vec![
        ("backend", JsValue::from("indexeddb")),
        ("name", JsValue::from(name)),
    ];
    pairs.extend(extra.iter().cloned());
    open(&pairs).await
}

fn img_part(bytes: &[u8], mime: &str) -> JsValue {
    obj(&[
        ("type", "image_url".into()),
        (
            "image_url",
            obj(&[("url", format!("data:{mime};base64,{}", b64(bytes)).into())]),
        ),
    ])
}

fn text_part(t: &str) -> JsValue {
    obj(&[("type", "text".into()), ("text", t.into())])
}

/// The dootask data-flow example: five LangChain tuples, two images.
pub fn dootask() -> Array {
    let tuple =
        |role: &str, content: JsValue| -> JsValue { Array::of2(&role.into(), &content).into() };
    Array::of5(
        &tuple(
            "human",
            Array::of2(&img_part(JPEG, "image/jpeg"), &text_part("这是什么？")).into(),
        ),
        &tuple("assistant", "这是一只猫...".into()),
        &tuple("human", "右上角那个东西是什么？".into()),
        &tuple("assistant", "右上角是一个花瓶...".into()),
        &tuple(
            "human",
            Array::of2(&img_part(PNG, "image/png"), &text_part("这张新图呢？")).into(),
        ),
    )
}

pub fn json(v: &JsValue) -> String {
    js_sys::JSON::stringify(v)
        .map(String::from)
        .unwrap_or_default()
}

pub async fn compact(
    messages: &JsValue,
    stash: &JsValue,
    extra: &[(&str, JsValue)],
) -> (Array, JsValue) {
    let mut pairs = vec![("stash", stash.clone())];
    pairs.extend(extra.iter().cloned());
    let out = compact_context(messages.clone(), obj(&pairs))
        .await
        .expect("compacts");
    (get(&out, "messages").unchecked_into(), get(&out, "report"))
}

pub async fn expand(messages: &JsValue, stash: &JsValue) -> (Array, JsValue) {
    let out = expand_context(messages.clone(), obj(&[("stash", stash.clone())]))
        .await
        .expect("expands");
    (get(&out, "messages").unchecked_into(), get(&out, "report"))
}

pub fn num(v: &JsValue, k: &str) -> f64 {
    get(v, k).as_f64().unwrap_or(f64::NAN)
}

/// Runs the dootask example through compaction and expansion on `stash`.
pub async fn dootask_round_trip(stash: &JsValue) {
    let input = dootask();
    let before = json(&input);
    let (out, report) = compact(&input, stash, &[("collapseText", JsValue::TRUE)]).await;
    assert_eq!(
        json(&input),
        before,
        "the caller's messages are not mutated"
    );
    let id = md5_of(JPEG);
    assert_eq!(
        json(&out.get(0)),
        format!("[\"human\",\"[Picture:history_{id}] 这是什么？\"]")
    );
    assert!(
        out.get(4) == input.get(4),
        "the newest user message is the caller's own value"
    );
    assert_eq!(num(&report, "stashed"), 1.0);
    let (back, report) = expand(&out, stash).await;
    assert_eq!(json(&back), before);
    assert_eq!(num(&report, "restored"), 1.0);
    let parts: Array = get_history_image(
        stash.clone(),
        format!("history_{id}").into(),
        Some(obj(&[("format", "langchain-python".into())])),
    )
    .await
    .unwrap()
    .unchecked_into();
    assert_eq!(get_str(&parts.get(0), "base64"), b64(JPEG));
    assert_eq!(get_str(&parts.get(0), "mime_type"), "image/jpeg");
}

pub async fn persists_across_reopen() {
    let name = random_name("persist");
    let stash = open_idb(&name, &[]).await;
    let (out, _) = compact(&dootask(), &stash, &[]).await;
    close(&stash);
    let again = open_idb(&name, &[]).await;
    let (back, report) = expand(&out, &again).await;
    assert_eq!(num(&report, "restored"), 1.0);
    assert_eq!(json(&back), json(&dootask()));
    let list: Array = call_method(&again, "list", &[]).await.unchecked_into();
    assert_eq!(list.length(), 1);
    assert_eq!(get_str(&list.get(0), "id"), md5_of(JPEG));
    assert_eq!(get_str(&list.get(0), "mime"), "image/jpeg");
    assert_eq!(num(&list.get(0), "size"), JPEG.len() as f64);
    delete_db(&again, &name).await;
}

pub fn close(stash: &JsValue) {
    let f: Function = get(stash, "close").unchecked_into();
    f.call0(stash).unwrap();
}

pub async fn call_method(target: &JsValue, name: &str, args: &[JsValue]) -> JsValue {
    let f: Function = get(target, name).unchecked_into();
    let out = match args {
        [] => f.call0(target),
        [a] => f.call1(target, a),
        [a, b, ..] => f.call2(target, a, b),
    }
    .expect("call");
    JsFuture::from(Promise::resolve(&out))
        .await
        .expect("resolves")
}

pub async fn delete_db(stash: &JsValue, name: &str) {
    close(stash);
    let _ = ctxpack::stash::indexeddb::delete_database(name).await;
}

pub async fn ttl_expiry_and_refresh() {
    let name = random_name("ttl");
    let clock = Clock::new(1_000_000.0);
    let stash = open_idb(
        &name,
        &[("ttlSeconds", 10.into()), ("now", clock.function())],
    )
    .await;
    let (out, _) = compact(&dootask(), &stash, &[]).await;
    // 8 s later the conversation is sent again: the record is refreshed to t+18 s.
    clock.set(1_008_000.0);
    let (_, report) = compact(&out, &stash, &[]).await;
    assert_eq!(num(&report, "refreshed"), 1.0);
    clock.set(1_015_000.0);
    let (back, report) = expand(&out, &stash).await;
    assert_eq!(
        num(&report, "restored"),
        1.0,
        "refreshed, so alive at t+15 s"
    );
    assert_eq!(json(&back), json(&dootask()));
    // Unreferenced past its expiry: missing, and swept.
    clock.set(1_040_000.0);
    let (_, report) = expand(&out, &stash).await;
    let missing: Array = get(&report, "missing").unchecked_into();
    assert_eq!(missing.length(), 1);
    let swept = call_method(&stash, "sweep", &[]).await;
    assert_eq!(num(&swept, "expired"), 1.0);
    let list: Array = call_method(&stash, "list", &[]).await.unchecked_into();
    assert_eq!(list.length(), 0);
    delete_db(&stash, &name).await;
}

fn one_image_conversation(bytes: &[u8]) -> Array {
    let user = |content: JsValue| obj(&[("role", "user".into()), ("content", content)]);
    Array::of2(
        &user(Array::of1(&img_part(bytes, "image/png")).into()),
        &user("next".into()),
    )
}

pub async fn lru_eviction() {
    let name = random_name("lru");
    let clock = Clock::new(5_000_000.0);
    let budget = (b64(JPEG).len() + b64(GIF).len() + 8) as f64;
    let stash = open_idb(
        &name,
        &[("maxBytes", budget.into()), ("now", clock.function())],
    )
    .await;
    for (i, bytes) in [PNG, JPEG, GIF].iter().enumerate() {
        clock.set(5_000_000.0 + i as f64 * 1000.0);
        let (_, report) = compact(&one_image_conversation(bytes), &stash, &[]).await;
        assert_eq!(num(&report, "stashed"), 1.0);
    }
    let list: Array = call_method(&stash, "list", &[]).await.unchecked_into();
    let ids: Vec<String> = list.iter().map(|e| get_str(&e, "id")).collect();
    assert_eq!(
        ids,
        vec![md5_of(GIF), md5_of(JPEG)],
        "most recently used first; the PNG was evicted"
    );
    delete_db(&stash, &name).await;
}

pub async fn two_compactions_at_once() {
    let name = random_name("concurrent");
    let stash = open_idb(&name, &[]).await;
    let a = wasm_bindgen_futures::future_to_promise({
        let stash = stash.clone();
        async move { Ok(compact(&one_image_conversation(PNG), &stash, &[]).await.1) }
    });
    let b = wasm_bindgen_futures::future_to_promise({
        let stash = stash.clone();
        async move { Ok(compact(&one_image_conversation(GIF), &stash, &[]).await.1) }
    });
    let both: Array = JsFuture::from(Promise::all(&Array::of2(&a, &b)))
        .await
        .unwrap()
        .unchecked_into();
    for r in both.iter() {
        assert_eq!(num(&r, "stashed"), 1.0);
    }
    let list: Array = call_method(&stash, "list", &[]).await.unchecked_into();
    assert_eq!(list.length(), 2);
    delete_db(&stash, &name).await;
}

/// An adapter whose `put` rejects with a real `QuotaExceededError` DOMException.
pub async fn quota_exceeded_keeps_the_image_inline() {
    let make = Function::new_no_args(
        "const m = new Map();
         return {
           fail: true,
           async get(k) { return m.get(k); },
           async put(k, v) {
             if (this.fail) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
             m.set(k, v);
           },
           async delete(k) { m.delete(k); },
           async keys() { return [...m.keys()]; },
         };",
    );
    let adapter = make.call0(&JsValue::NULL).unwrap();
    let stash = open(&[("backend", adapter.clone())]).await;
    assert_eq!(get_str(&stash, "backend"), "adapter");
    let input = dootask();
    let (out, report) = compact(&input, &stash, &[]).await;
    assert_eq!(
        json(&out),
        json(&input),
        "nothing replaced without its record"
    );
    assert_eq!(num(&report, "failed"), 1.0);
    let failure = Array::from(&get(&report, "failures")).get(0);
    assert_eq!(get_str(&failure, "code"), "QUOTA_EXCEEDED");
    assert_eq!(get_str(&failure, "path"), "messages[0][1][0]");
    // The next call works once storage does.
    js_sys::Reflect::set(&adapter, &"fail".into(), &JsValue::FALSE).unwrap();
    let (out, report) = compact(&input, &stash, &[]).await;
    assert_eq!(num(&report, "stashed"), 1.0);
    let (back, _) = expand(&out, &stash).await;
    assert_eq!(json(&back), json(&input));
}

pub async fn memory_stash_and_tool_definitions() {
    let stash = open(&[("backend", "memory".into())]).await;
    dootask_round_trip(&stash).await;
    for (d, key) in [
        ("openai", "function"),
        ("anthropic", "input_schema"),
        ("mcp", "inputSchema"),
    ] {
        // The extras module's answer, `{ok}` (the package unwraps it).
        let tool = get(&history_image_tool_js(d.into()), "ok");
        assert!(!get(&tool, key).is_undefined(), "{d}");
    }
    let err = get(&history_image_tool_js("gemini".into()), "error");
    assert_eq!(
        get(&err, "code").as_string().as_deref(),
        Some("INVALID_ARGUMENT")
    );
    assert_eq!(get(&err, "path").as_string().as_deref(), Some("dialect"));
}

/// Bits set after the last byte (`QR==` where an encoder writes `QQ==`) make
/// a long payload invalid, whether wasm checks it or Node does natively.
pub async fn stray_bits_keep_the_image_inline() {
    let stash = open(&[("backend", "memory".into())]).await;
    let png = b64(PNG);
    let body = &png[..png.len() - 4];
    let part = |payload: &str| {
        obj(&[
            ("type", "image_url".into()),
            (
                "image_url",
                obj(&[("url", format!("data:image/png;base64,{payload}").into())]),
            ),
        ])
    };
    let content = Array::of3(
        &part(&format!("{body}QR==")),
        &part(&format!("{body}Zm9=")),
        &part(&png),
    );
    let messages = Array::of2(
        &obj(&[("role", "user".into()), ("content", content.into())]),
        &obj(&[("role", "user".into()), ("content", "next".into())]),
    );
    let (out, report) = compact(&messages.into(), &stash, &[]).await;
    let failures = Array::from(&get(&report, "failures"));
    assert_eq!(failures.length(), 2);
    for (i, failure) in failures.iter().enumerate() {
        assert_eq!(get_str(&failure, "code"), "INVALID_DATA_URL");
        assert_eq!(
            get_str(&failure, "path"),
            format!("messages[0].content[{i}]")
        );
    }
    let kept = get(&out.get(0), "content");
    let kept = Array::from(&kept);
    assert_eq!(
        get_str(&get(&kept.get(0), "image_url"), "url"),
        format!("data:image/png;base64,{body}QR==")
    );
    assert_eq!(num(&report, "stashed"), 1.0);
}

pub async fn bad_stash_options_are_ctxpack_errors() {
    let err = compact_context(dootask().into(), obj(&[("stash", obj(&[]))]))
        .await
        .unwrap_err();
    assert_ctxpack_error(err.into(), "INVALID_OPTION", "options.stash");
    let err = Stash::open(Some(obj(&[("backend", "redis".into())])))
        .await
        .err()
        .unwrap();
    assert_ctxpack_error(err.into(), "INVALID_OPTION", "options.backend");
    let err = Stash::open(Some(obj(&[("ttlSeconds", (-1).into())])))
        .await
        .err()
        .unwrap();
    assert_ctxpack_error(err.into(), "INVALID_OPTION", "options.ttlSeconds");
    let stash = open(&[("backend", "memory".into())]).await;
    let bad = Array::of2(
        &obj(&[("role", "user".into()), ("content", 5.into())]),
        &obj(&[("role", "user".into())]),
    );
    let err = compact_context(bad.into(), obj(&[("stash", stash.clone())]))
        .await
        .unwrap_err();
    assert_ctxpack_error(err.into(), "INVALID_MESSAGE", "messages[0].content");
    close(&stash);
    let err = compact_context(dootask().into(), obj(&[("stash", stash)]))
        .await
        .unwrap_err();
    let err: JsValue = err.into();
    assert_ctxpack_error(err.clone(), "STASH_UNAVAILABLE", "options.stash");
    assert!(get_str(&err, "message").ends_with("this stash was closed"));
    // A handle this instance did not make: another copy of ctxpack's stash
    // (an older copy's handles were numbers).
    for handle in [Object::new().into(), JsValue::from(1)] {
        let foreign = obj(&[("__ctxpackHandle", handle)]);
        let err = compact_context(dootask().into(), obj(&[("stash", foreign)]))
            .await
            .unwrap_err();
        let err: JsValue = err.into();
        assert_ctxpack_error(err.clone(), "STASH_UNAVAILABLE", "options.stash");
        assert!(get_str(&err, "message").contains("another copy of ctxpack"));
    }
}

/// What a compaction remembers (here, the digest of a text message sent
/// again) is its stash's: another stash holds nothing of it, and closing the
/// stash lets go of it.
pub async fn memory_belongs_to_the_stash() {
    use ctxpack::api::history::compact_context_js;
    use ctxpack::stash::stash_from_js;
    let a = open(&[("backend", "memory".into())]).await;
    let b = open(&[("backend", "memory".into())]).await;
    let messages = Array::of2(
        &obj(&[("role", "user".into()), ("content", "hello".into())]),
        &obj(&[("role", "assistant".into()), ("content", "hi".into())]),
    );
    // Both messages sent again unchanged (key -1): read and remembered.
    let keys = js_sys::Float64Array::from(&[-1.0, -1.0][..]);
    let options = obj(&[("stash", a.clone())]);
    JsFuture::from(compact_context_js(messages.into(), options, keys.into()))
        .await
        .expect("compacts");
    let count = |s: &JsValue| stash_from_js(s, "stash").unwrap().memory.message_count();
    assert_eq!(count(&a), 2);
    assert_eq!(count(&b), 0);
    let inner = stash_from_js(&a, "stash").unwrap();
    close(&a);
    assert_eq!(inner.memory.message_count(), 0);
}
