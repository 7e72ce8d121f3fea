//! Entry points for the fuzz targets (`fuzz/`) and their regression tests:
//! each takes arbitrary bytes and exercises one parser end to end, checking
//! the invariants that must hold for any input. They panic only when an
//! invariant breaks — which is what a fuzzer is looking for.

use crate::history::compact::{apply_compaction, plan_compaction, CompactOptions};
use crate::json_path::JsonPath;
use crate::media::payload::InMemory;
use crate::messages::decode_messages;

/// Markdown extraction: offsets in order and within the text.
#[cfg(feature = "markdown")]
pub fn markdown(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let utf16_len = text.encode_utf16().count();
    let images = crate::markdown::parse_markdown_images(text);
    let mut last_end = 0;
    for img in &images {
        assert!(
            img.start <= img.end && img.end <= utf16_len,
            "offsets out of bounds"
        );
        assert!(img.start >= last_end, "images overlap or are out of order");
        assert!(text.is_char_boundary(img.byte_start) && text.is_char_boundary(img.byte_end));
        last_end = img.end;
    }
    let resolved = images
        .iter()
        .map(|_| {
            Err(crate::markdown::multimodal::ResolveError::Unavailable(
                "fuzz".into(),
            ))
        })
        .collect();
    let out = crate::markdown::multimodal::build_parts(
        text,
        &images,
        resolved,
        crate::markdown::multimodal::PartOptions {
            format: crate::messages::Format::OpenAi,
            detail: None,
            keep_alt: true,
        },
    );
    // With nothing resolved, the text comes back whole.
    let joined: String = out
        .content
        .iter()
        .filter_map(|p| p["text"].as_str())
        .collect();
    assert_eq!(joined, text, "unresolved images must stay in the text");
}

/// Data URLs, MIME sniffing and image headers.
pub fn data_url(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(d) = crate::media::DataUrl::parse(text) {
        assert!(text.ends_with(d.payload));
        let _ = d.md5();
    }
    let _ = crate::markdown::multimodal::resolve_data_url(text);
    let _ = crate::media::sniff_mime(data);
    let _ = crate::media::image_dimensions(data);
    let _ = crate::markdown::multimodal::resolve_bytes(data, text, Some(text));
}

/// Format detection, decoding, compaction planning and expansion on any JSON.
pub fn messages(data: &[u8]) {
    let Ok(serde_json::Value::Array(values)) = serde_json::from_slice::<serde_json::Value>(data)
    else {
        return;
    };
    let Ok((format, mut messages)) =
        decode_messages(values.clone(), None, &JsonPath::root("messages"))
    else {
        return;
    };
    // Decoding and encoding without changes gives the input back.
    let back: Vec<_> = messages
        .clone()
        .into_iter()
        .map(crate::messages::Message::into_wire)
        .collect();
    assert_eq!(back, values, "decode/encode must round-trip");
    let plan = plan_compaction(
        &messages,
        CompactOptions {
            keep_recent_images: 1,
            ..Default::default()
        },
        0,
        &mut |_, _, _| {},
        &InMemory,
    );
    let replacements: Vec<((usize, usize), String)> = plan
        .images
        .iter()
        .map(|i| ((i.message, i.ordinal), i.md5.clone()))
        .collect();
    drop(plan);
    let rule = crate::history::Untouched::of(&messages);
    let history: Vec<bool> = (messages.iter().enumerate())
        .map(|(i, m)| rule.is_history(i, m) || crate::messages::answered_images(m) > 0)
        .collect();
    let changed = apply_compaction(&mut messages, &replacements, &[], true);
    assert!(
        changed.iter().zip(&history).all(|(c, h)| !c || *h),
        "only history changes"
    );
    #[cfg(feature = "markdown")]
    let _ = crate::tool_results::text_only::has_multimedia(&messages, &|t| {
        !crate::markdown::parse_markdown_images(t).is_empty()
    });
    let _ = crate::history::expand::collect_placeholders(&messages);
    let _ = crate::budget::estimate::estimate(
        &messages,
        &crate::budget::provider_profile(crate::budget::limits::Provider::OpenAi),
        0,
        None,
        &InMemory,
    );
    for m in messages.iter_mut() {
        crate::tool_results::text_only::message_to_text_only(m, format, &|_| true, &InMemory);
    }
}

/// Tool-result sanitizing on any JSON (or any text).
pub fn sanitize(data: &[u8]) {
    let options = crate::tool_results::sanitize::SanitizeOptions {
        threshold_bytes: 64,
        extra_fields: vec!["blob".into()],
    };
    let value = match serde_json::from_slice::<serde_json::Value>(data) {
        Ok(v) => v,
        Err(_) => match std::str::from_utf8(data) {
            Ok(t) => serde_json::Value::String(t.to_owned()),
            Err(_) => return,
        },
    };
    let (out, n) = crate::tool_results::sanitize::filter_value(value.clone(), &options);
    if n == 0 {
        assert_eq!(out, value, "nothing found must mean nothing changed");
    }
    let (again, m) = crate::tool_results::sanitize::filter_value(out.clone(), &options);
    assert_eq!(m, 0, "sanitizing is idempotent");
    assert_eq!(again, out);
}
