//! The model table: rows for today's models, ids read as their base id,
//! family rules for the next ones, retired and text-only models.

use ctxpack_core::budget::{model_profile, TokenRule, ROWS};

#[test]
fn an_unknown_generation_gets_its_familys_newest_row_marked_inferred() {
    for (id, newest) in [
        ("claude-sonnet-6", "claude-sonnet-5-5"),
        ("claude-sonnet-4-9", "claude-sonnet-5-5"),
        ("claude-opus-7-1", "claude-opus-5-5"),
        ("claude-haiku-6", "claude-haiku-5-5"),
        ("claude-something-9", "claude-opus-5-5"),
        ("gpt-7", "gpt-6.2"),
        ("gpt-6.3-astra", "gpt-6.2"),
        ("gpt-5.9", "gpt-6.2"),
        ("gemini-5-pro", "gemini-4-neon"),
        ("gemini-3.9-flash", "gemini-4-neon"),
    ] {
        let p = model_profile(id);
        assert_eq!((p.matched, p.inferred), (newest, true), "{id}");
    }
    let sonnet = model_profile("claude-sonnet-6");
    assert_eq!(sonnet.tokens, TokenRule::ANTHROPIC_PATCHES);
    assert_eq!(sonnet.context_tokens, Some(1_000_000));
    assert!(!model_profile("claude-sonnet-5-5").inferred);
}

#[test]
fn dated_aliased_and_routed_ids_read_as_their_base_id() {
    for (id, row) in [
        ("claude-sonnet-5-5-20260415", "claude-sonnet-5-5"),
        ("claude-sonnet-5-5-latest", "claude-sonnet-5-5"),
        ("anthropic/claude-sonnet-5.5", "claude-sonnet-5-5"),
        ("openrouter/anthropic/claude-opus-4.7", "claude-opus-4-7"),
        ("claude-opus-4-20250514", "claude-opus-4"),
        ("claude-3-5-sonnet-20241022", "claude-3-5-sonnet"),
        ("gpt-5.4-mini-2026-03-17", "gpt-5.4-mini"),
        ("gpt-5.3-chat-latest", "gpt-5.3-chat"),
        ("openai/gpt-6.2-sol", "gpt-6.2"),
        ("gpt-4-0613", "gpt-4"),
        ("gpt-3.5-turbo-16k-0613", "gpt-3.5-turbo"),
        ("o1-2024-12-17", "o1"),
        (
            "gemini-2.5-flash-lite-preview-06-17",
            "gemini-2.5-flash-lite",
        ),
        ("deep-research-max-preview-04-2026", "deep-research-max"),
        ("gemini-2.0-flash-001", "gemini-2.0-flash"),
        ("google/gemini-4-argon", "gemini-4-argon"),
        ("gemini-flash-latest", "gemini-flash"),
    ] {
        let p = model_profile(id);
        assert_eq!((p.matched, p.inferred), (row, false), "{id}");
    }
    let vertex = model_profile("claude-sonnet-5-5@20260415");
    assert_eq!(
        (vertex.matched, vertex.provider),
        ("claude-sonnet-5-5", "vertex")
    );
    let bedrock = model_profile("us.anthropic.claude-haiku-5-5-v1:0");
    assert_eq!(
        (bedrock.matched, bedrock.provider, bedrock.max_images),
        ("claude-haiku-5-5", "bedrock", Some(20))
    );
}

#[test]
fn todays_models_read_as_their_pages_say() {
    // Claude Sonnet 5.5 reads 2576 px, up to 4,784 tokens, in a 1M window.
    let sonnet = model_profile("claude-sonnet-5-5");
    assert_eq!(sonnet.tokens, TokenRule::ANTHROPIC_PATCHES);
    assert_eq!(
        (sonnet.context_tokens, sonnet.max_images),
        (Some(1_000_000), Some(600))
    );
    // GPT-6.2 Sol: a 1,050,000-token window, 32-px patches × 1.2.
    let sol = model_profile("gpt-6.2-sol");
    assert_eq!(sol.context_tokens, Some(1_050_000));
    assert!(matches!(
        sol.tokens,
        TokenRule::OpenaiPatches {
            multiplier_milli: 1200,
            ..
        }
    ));
    // Gemini 4 counts by media resolution, not Gemini 2's tiles.
    let argon = model_profile("gemini-4-carbon");
    assert!(matches!(
        argon.tokens,
        TokenRule::GeminiMediaResolution { high: 1120, .. }
    ));
}

#[test]
fn retired_models_stay_with_their_date() {
    let p = model_profile("claude-sonnet-4-5-20250929");
    assert_eq!(
        (p.matched, p.retired),
        ("claude-sonnet-4-5", Some("2026-11-30"))
    );
    assert_eq!(model_profile("claude-sonnet-4-5").max_images, Some(100));
    assert_eq!(model_profile("claude-sonnet-5-5").retired, None);
}

#[test]
fn models_that_read_no_images_say_so() {
    for id in [
        "gpt-3.5-turbo",
        "gpt-4o-audio-preview-2025-06-03",
        "gpt-4o-mini-search-preview",
        "o3-mini",
        "gemini-2.5-flash-preview-tts",
        "gemma-3-1b-it",
    ] {
        let p = model_profile(id);
        assert!(!p.reads_images, "{id}");
        assert_eq!(p.max_images, Some(0), "{id}");
        assert!(!p.accepts_mime("image/png"), "{id}");
    }
    assert!(model_profile("gpt-4o").reads_images);
    assert!(model_profile("gemma-3-27b-it").reads_images);
}

#[test]
fn every_row_names_a_rule_its_source_and_its_date() {
    let mut seen = std::collections::HashSet::new();
    for line in ROWS.lines() {
        let id = line.split(' ').next().unwrap_or("");
        assert!(seen.insert(id), "{id} twice");
        let p = model_profile(id);
        assert_eq!((p.matched, p.inferred), (id, false), "{line}");
        assert!(p.source.contains("read 2026-12-06"), "{line}");
        if let Some(date) = line.split(' ').nth(2) {
            assert_eq!(p.retired, Some(date), "{line}");
            assert!(date.len() == 10 && date.starts_with("20"), "{line}");
        }
    }
    assert!(seen.len() > 100);
}
