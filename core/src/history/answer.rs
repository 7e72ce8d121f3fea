//! Answering a `get_history_image` call ([`super::call`] reads it): the
//! messages to append so the model sees the image, in the form that API
//! accepts. A Chat Completions `tool` message carries text only, so the image
//! follows in a `user` message; LangChain answers the same way (`ChatOpenAI`
//! sends a tool message's image to Chat Completions, which refuses it, and
//! `ChatGoogleGenerativeAI` sends it as JSON text inside the function
//! response). The AI SDK answer does so too unless the provider's prompt
//! converter sends a tool result's file as an image
//! ([`ai_sdk_tool_result_takes_images`]). Responses, Anthropic, Gemini and
//! MCP carry the image in the tool result itself.

use super::call::HistoryImageCall;
use super::tool::TOOL_NAME;
use crate::messages::{answer_tool_call, Format, ToolAnswer};
use serde_json::Value;

/// The text that goes with an answer: the image follows, or why it does not.
fn answer_text(call: &HistoryImageCall, found: bool) -> String {
    let texts = super::answer_texts::answer_texts(&call.image_id);
    if found {
        texts.found
    } else {
        texts.missing
    }
}

/// True when the AI SDK provider `provider` (a language model's `provider`
/// field, e.g. `openai.responses`) sends the `file` parts of a tool result's
/// `content` output as images: OpenAI Responses (`*.responses`, as
/// `input_image` in `function_call_output`), Anthropic (`anthropic.messages`,
/// an image block in `tool_result`) and Google (`google.generative-ai`,
/// `inlineData` in or beside `functionResponse`; `*.interactions`, such as
/// `google.generative-ai.interactions`, an
/// image content in `function_result.result`). Every other provider,
/// `openai.chat` among them, may turn that output into JSON text, base64 and
/// all, so the image goes in a user message instead. (Read in the providers'
/// prompt converters on 2026-11-25: `@ai-sdk/openai` 4.0.118
/// `chat/convert-to-openai-chat-messages.ts` stringifies a `content` output;
/// `responses/convert-to-openai-responses-input.ts`, `@ai-sdk/anthropic`
/// 4.0.105 `convert-to-anthropic-prompt.ts` and `@ai-sdk/google` 4.0.121
/// `convert-to-google-messages.ts` turn its image `file` into their image;
/// its `interactions/convert-to-google-interactions-input` on 2026-11-28.)
pub fn ai_sdk_tool_result_takes_images(provider: Option<&str>) -> bool {
    provider.is_some_and(|p| {
        p.ends_with(".responses")
            || p.ends_with(".interactions")
            || matches!(p, "anthropic.messages" | "google.generative-ai")
    })
}

/// The messages that answer `call` in `format`: with `image` (MIME type and
/// base64 payload) the model sees the image; without, it reads why not.
/// `provider` names the AI SDK provider the answer is for (see
/// [`ai_sdk_tool_result_takes_images`]); other formats ignore it. Each
/// format's module writes its own answer.
pub fn answer_messages(
    format: Format,
    call: &HistoryImageCall,
    image: Option<(&str, &str)>,
    provider: Option<&str>,
) -> Vec<Value> {
    let text = answer_text(call, image.is_some());
    let mut out = answer_tool_call(
        format,
        &ToolAnswer {
            id: call.id.as_deref(),
            name: TOOL_NAME,
            text: &text,
            image,
            result_takes_images: ai_sdk_tool_result_takes_images(provider),
        },
    );
    // Where the API has no id, none is written.
    for m in &mut out {
        drop_null_ids(m);
    }
    out
}

/// Removes id fields left `null` because the call had no id.
fn drop_null_ids(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|k, v| {
                !(v.is_null()
                    && matches!(
                        k.as_str(),
                        "tool_call_id" | "call_id" | "tool_use_id" | "toolCallId"
                    ))
            });
            m.values_mut().for_each(drop_null_ids);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_ids),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_carry_the_image_or_say_why_not() {
        let call = HistoryImageCall {
            id: Some("c1".into()),
            image_id: "history_0123456789abcdef0123456789abcdef".into(),
        };
        let openai = answer_messages(Format::OpenAi, &call, Some(("image/png", "AAAA")), None);
        assert_eq!(openai.len(), 2);
        assert_eq!(openai[0]["tool_call_id"], "c1");
        assert!(openai[0]["content"]
            .as_str()
            .unwrap()
            .ends_with("It follows in the next message."));
        assert_eq!(
            openai[1]["content"][1]["image_url"]["url"],
            "data:image/png;base64,AAAA"
        );
        let missing = answer_messages(Format::OpenAi, &call, None, None);
        assert_eq!(missing.len(), 1);
        assert!(missing[0]["content"]
            .as_str()
            .unwrap()
            .contains("Ask the user"));
        let gemini = answer_messages(Format::Gemini, &call, Some(("image/png", "AAAA")), None);
        assert_eq!(
            gemini[0]["parts"][0]["functionResponse"]["parts"][0]["inlineData"]["data"],
            "AAAA"
        );
        let no_id = HistoryImageCall { id: None, ..call };
        let ai = answer_messages(Format::AiSdk, &no_id, None, None);
        assert!(ai[0]["content"][0].get("toolCallId").is_none());
        assert_eq!(ai[0]["content"][0]["output"]["type"], "text");
    }

    #[test]
    fn only_providers_that_send_tool_result_files_as_images_get_them_there() {
        for p in [
            "openai.responses",
            "azure.responses",
            "anthropic.messages",
            "google.generative-ai",
            "google.generative-ai.interactions",
        ] {
            assert!(ai_sdk_tool_result_takes_images(Some(p)), "{p}");
        }
        for p in [
            None,
            Some("openai.chat"),
            Some("mistral.chat"),
            Some("openai.responses.x"),
            Some(""),
        ] {
            assert!(!ai_sdk_tool_result_takes_images(p), "{p:?}");
        }
    }

    #[test]
    fn ai_sdk_answers_put_the_image_where_the_provider_sends_it_as_one() {
        let call = HistoryImageCall {
            id: Some("c1".into()),
            image_id: "0123456789abcdef0123456789abcdef".into(),
        };
        let image = Some(("image/png", "AAAA"));
        // By default (and for Chat Completions) the tool result is text and
        // the image follows as the user's.
        for provider in [None, Some("openai.chat")] {
            let out = answer_messages(Format::AiSdk, &call, image, provider);
            assert_eq!(out.len(), 2, "{provider:?}");
            let output = &out[0]["content"][0]["output"];
            assert_eq!(output["type"], "text");
            assert!(!output.to_string().contains("AAAA"));
            assert_eq!(out[0]["content"][0]["toolCallId"], "c1");
            assert_eq!(out[1]["role"], "user");
            assert_eq!(
                out[1]["content"][1],
                json!({"type": "file", "mediaType": "image/png", "data": {"type": "data", "data": "AAAA"}})
            );
        }
        let out = answer_messages(Format::AiSdk, &call, image, Some("anthropic.messages"));
        assert_eq!(out.len(), 1);
        let output = &out[0]["content"][0]["output"];
        assert_eq!(output["type"], "content");
        assert_eq!(output["value"][1]["data"]["data"], "AAAA");
    }

    #[test]
    fn langchain_answers_send_the_image_as_the_users() {
        let call = HistoryImageCall {
            id: Some("c1".into()),
            image_id: "0123456789abcdef0123456789abcdef".into(),
        };
        let out = answer_messages(Format::LangChain, &call, Some(("image/png", "AAAA")), None);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0]["role"], "tool");
        assert_eq!(out[0]["name"], TOOL_NAME);
        assert!(out[0]["content"].is_string());
        assert_eq!(out[1]["role"], "user");
        assert_eq!(
            out[1]["content"][1]["image_url"]["url"],
            "data:image/png;base64,AAAA"
        );
    }
}
