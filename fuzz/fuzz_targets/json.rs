#![no_main]
// The crate's JSON reader and writer, and against serde_json: the same texts
// accepted, and the same text written for them.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    ctxpack_core::fuzzing::json(data);
    let ours = ctxpack_core::json::from_slice(data);
    let theirs = serde_json::from_slice::<serde_json::Value>(data);
    assert_eq!(ours.is_ok(), theirs.is_ok(), "acceptance differs");
    if let (Ok(ours), Ok(theirs)) = (ours, theirs) {
        if !has_float(&theirs) {
            assert_eq!(ours.to_string(), serde_json::to_string(&theirs).unwrap());
        }
    }
});

/// serde_json's default reader rounds some floats differently (see the
/// crate's JSON reader docs), so texts with floats compare on acceptance only.
fn has_float(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Number(n) => n.is_f64(),
        serde_json::Value::Array(items) => items.iter().any(has_float),
        serde_json::Value::Object(map) => map.values().any(has_float),
        _ => false,
    }
}
