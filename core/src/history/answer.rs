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
use crate::media::data_url::format_data_url;
use crate::messages::new_image_part;
use crate::messages::Format;
use serde_json::{Map, Value};

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
/// `inlineData` in or beside `functionResponse`). Every other provider,
/// `openai.chat` among them, may turn that output into JSON text, base64 and
/// all, so the image goes in a user message instead. (Read in the providers'
/// prompt converters on 2026-11-25: `@ai-sdk/openai` 4.0.118
/// `chat/convert-to-openai-chat-messages.ts` stringifies a `content` output;
/// `responses/convert-to-openai-responses-input.ts`, `@ai-sdk/anthropic`
/// 4.0.105 `convert-to-anthropic-prompt.ts` and `@ai-sdk/google` 4.0.121
/// `convert-to-google-messages.ts` turn its image `file` into their image.)
pub fn ai_sdk_tool_result_takes_images(provider: Option<&str>) -> bool {
    provider.is_some_and(|p| {
        p.ends_with(".responses") || p == "anthropic.messages" || p == "google.generative-ai"
    })
}

/// A JSON object of `fields`, in their order. (Built by this one function
/// rather than `json!`, which expands to code of its own at every use.)
fn obj(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// A text part: `{type, text}` with `kind` as its type.
fn text_part(kind: &str, text: &str) -> Value {
    obj(vec![("type", kind.into()), ("text", text.into())])
}

/// A message of `role` with `content`.
fn message(role: &str, content: Value) -> Value {
    obj(vec![("role", role.into()), ("content", content)])
}

/// `tool` (a tool answer of text), then, with `image`, a user message holding
/// `text` and the image.
fn then_user(tool: Value, text: &str, image: Option<Value>) -> Vec<Value> {
    let mut out = vec![tool];
    out.extend(
        image.map(|image| message("user", Value::Array(vec![text_part("text", text), image]))),
    );
    out
}

/// An AI SDK tool message holding one tool result with `output`.
fn ai_sdk_tool_result(id: Value, output: Value) -> Value {
    message(
        "tool",
        Value::Array(vec![obj(vec![
            ("type", "tool-result".into()),
            ("toolCallId", id),
            ("toolName", TOOL_NAME.into()),
            ("output", output),
        ])]),
    )
}

/// The messages that answer `call` in `format`: with `image` (MIME type and
/// base64 payload) the model sees the image; without, it reads why not.
/// `provider` names the AI SDK provider the answer is for (see
/// [`ai_sdk_tool_result_takes_images`]); other formats ignore it.
pub fn answer_messages(
    format: Format,
    call: &HistoryImageCall,
    image: Option<(&str, &str)>,
    provider: Option<&str>,
) -> Vec<Value> {
    let text = answer_text(call, image.is_some());
    let id = call.id.clone().map_or(Value::Null, Value::String);
    // The image part (the AI SDK's: a `file` with tagged data, valid both in a
    // tool result's `content` output and in a user message, where AI SDK 7
    // deprecates the `image` part).
    let user_image = image.map(|(mime, data)| match format {
        Format::AiSdk => obj(vec![
            ("type", "file".into()),
            ("mediaType", mime.into()),
            (
                "data",
                obj(vec![("type", "data".into()), ("data", data.into())]),
            ),
        ]),
        _ => new_image_part(format, mime, data, None),
    });
    // The text of a tool answer whose image follows in a user message.
    let tool_text = match image {
        Some(_) => format!("{text} It follows in the next message."),
        None => text.clone(),
    };
    let typed_text = |kind: &str, value_key: &str| {
        obj(vec![
            ("type", kind.into()),
            (value_key, text.as_str().into()),
        ])
    };
    let mut out = match format {
        Format::OpenAi => then_user(
            obj(vec![
                ("role", "tool".into()),
                ("tool_call_id", id),
                ("content", tool_text.into()),
            ]),
            &text,
            user_image,
        ),
        Format::LangChain => then_user(
            obj(vec![
                ("role", "tool".into()),
                ("tool_call_id", id),
                ("name", TOOL_NAME.into()),
                ("content", tool_text.into()),
            ]),
            &text,
            user_image,
        ),
        Format::AiSdk if !ai_sdk_tool_result_takes_images(provider) => then_user(
            ai_sdk_tool_result(
                id,
                obj(vec![("type", "text".into()), ("value", tool_text.into())]),
            ),
            &text,
            user_image,
        ),
        Format::OpenAiResponses => {
            let mut output = vec![typed_text("input_text", "text")];
            if let Some((mime, data)) = image {
                output.push(obj(vec![
                    ("type", "input_image".into()),
                    ("image_url", format_data_url(mime, data).into()),
                    ("detail", "auto".into()),
                ]));
            }
            vec![obj(vec![
                ("type", "function_call_output".into()),
                ("call_id", id),
                ("output", Value::Array(output)),
            ])]
        }
        Format::Anthropic => {
            let mut content = vec![text_part("text", &text)];
            content.extend(user_image);
            vec![message(
                "user",
                Value::Array(vec![obj(vec![
                    ("type", "tool_result".into()),
                    ("tool_use_id", id),
                    ("content", Value::Array(content)),
                ])]),
            )]
        }
        Format::AiSdk => {
            let output = match user_image {
                Some(file) => obj(vec![
                    ("type", "content".into()),
                    ("value", Value::Array(vec![text_part("text", &text), file])),
                ]),
                None => typed_text("text", "value"),
            };
            vec![ai_sdk_tool_result(id, output)]
        }
        Format::Gemini => {
            let mut response = Map::new();
            if let Some(id) = &call.id {
                response.insert("id".into(), id.as_str().into());
            }
            response.insert("name".into(), TOOL_NAME.into());
            response.insert(
                "response".into(),
                obj(vec![("output", text.as_str().into())]),
            );
            if let Some(image) = user_image {
                response.insert("parts".into(), Value::Array(vec![image]));
            }
            vec![obj(vec![
                ("role", "user".into()),
                (
                    "parts",
                    Value::Array(vec![obj(vec![(
                        "functionResponse",
                        Value::Object(response),
                    )])]),
                ),
            ])]
        }
        Format::Mcp => {
            let mut content = vec![text_part("text", &text)];
            content.extend(user_image);
            vec![obj(vec![
                ("content", Value::Array(content)),
                ("isError", false.into()),
            ])]
        }
        Format::Ollama => {
            let mut fields = vec![
                ("role", "tool".into()),
                ("tool_name", TOOL_NAME.into()),
                ("content", text.as_str().into()),
            ];
            if let Some((_, data)) = image {
                fields.push(("images", Value::Array(vec![data.into()])));
            }
            vec![obj(fields)]
        }
        Format::UiMessage => Vec::new(),
    };
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
