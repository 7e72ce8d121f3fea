//! Answering a `get_history_image` call: reading the call as each API
//! delivers it, and the messages to append so the model sees the image, in
//! the form that API accepts. A Chat Completions `tool` message carries text
//! only, so the image follows in a `user` message; LangChain answers the same
//! way (`ChatOpenAI` sends a tool message's image to Chat Completions, which
//! refuses it, and `ChatGoogleGenerativeAI` sends it as JSON text inside the
//! function response). The AI SDK answer does so too unless the provider's
//! prompt converter sends a tool result's file as an image
//! ([`ai_sdk_tool_result_takes_images`]). Responses, Anthropic, Gemini and MCP
//! carry the image in the tool result itself.

use super::tool::TOOL_NAME;
use crate::json_path::JsonPath;
use crate::media::data_url::format_data_url;
use crate::messages::image::new_image_part;
use crate::messages::{Format, MessageError};
use serde_json::{json, Map, Value};

/// A `get_history_image` call, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryImageCall {
    /// The call's id, to answer it by (`None` where the API has none).
    pub id: Option<String>,
    /// The image id the model passed (`history_<md5>` or the bare md5).
    pub image_id: String,
}

/// Where a format keeps a call's id, name and arguments, as paths from the call.
struct CallKeys {
    id: &'static [&'static str],
    name: &'static [&'static str],
    arguments: &'static [&'static str],
}

fn keys(format: Format) -> Option<CallKeys> {
    Some(match format {
        Format::OpenAi => CallKeys {
            id: &["id"],
            name: &["function", "name"],
            arguments: &["function", "arguments"],
        },
        Format::Ollama => CallKeys {
            id: &["id"],
            name: &["function", "name"],
            arguments: &["function", "arguments"],
        },
        Format::OpenAiResponses => CallKeys {
            id: &["call_id"],
            name: &["name"],
            arguments: &["arguments"],
        },
        Format::Anthropic => CallKeys {
            id: &["id"],
            name: &["name"],
            arguments: &["input"],
        },
        Format::AiSdk => CallKeys {
            id: &["toolCallId"],
            name: &["toolName"],
            arguments: &["input"],
        },
        Format::Gemini => CallKeys {
            id: &["id"],
            name: &["name"],
            arguments: &["args"],
        },
        Format::LangChain => CallKeys {
            id: &["id"],
            name: &["name"],
            arguments: &["args"],
        },
        Format::Mcp => CallKeys {
            id: &["id"],
            name: &["name"],
            arguments: &["arguments"],
        },
        Format::UiMessage => return None,
    })
}

fn at<'v>(value: &'v Value, keys: &[&str], path: &JsonPath) -> (Option<&'v Value>, JsonPath) {
    let mut v = Some(value);
    let mut p = path.clone();
    for k in keys {
        v = v.and_then(|x| x.get(*k));
        p = p.key(k);
    }
    (v, p)
}

/// Reads `call`, a `get_history_image` call as the API of `format` delivers
/// it (`path` names it for errors). Arguments may be JSON text or an object.
/// Gemini's `{functionCall: {...}}` part and MCP's `{params: {...}}` request
/// are read as the call inside them.
pub fn read_call(
    format: Format,
    call: &Value,
    path: &JsonPath,
) -> Result<HistoryImageCall, MessageError> {
    let Some(keys) = keys(format) else {
        return Err(MessageError::invalid(
            path,
            "a UIMessage tool call is answered with addToolOutput: use historyImageOutput from ctxpack/ai-sdk",
        ));
    };
    let (call, path) = match (format, call) {
        (Format::Gemini, Value::Object(m)) if m.contains_key("functionCall") => {
            (&m["functionCall"], path.key("functionCall"))
        }
        (Format::Mcp, Value::Object(m)) if m.contains_key("params") => {
            (&m["params"], path.key("params"))
        }
        _ => (call, path.clone()),
    };
    if !call.is_object() {
        return Err(MessageError::invalid(&path, "a tool call is an object"));
    }
    let (name, name_path) = at(call, keys.name, &path);
    match name.and_then(Value::as_str) {
        Some(TOOL_NAME) => {}
        Some(other) => {
            return Err(MessageError::invalid(
                &name_path,
                format!(
                    "this is a call of {}, not {TOOL_NAME}",
                    crate::quoted(other)
                ),
            ))
        }
        None => {
            return Err(MessageError::invalid(
                &name_path,
                "the call needs the tool's name",
            ))
        }
    }
    let (arguments, args_path) = at(call, keys.arguments, &path);
    let parsed;
    let arguments = match arguments {
        Some(Value::String(text)) => {
            parsed = serde_json::from_str::<Value>(text).map_err(|e| {
                MessageError::invalid(&args_path, format!("the arguments are not JSON: {e}"))
            })?;
            &parsed
        }
        Some(v) => v,
        None => {
            return Err(MessageError::invalid(
                &args_path,
                "the call has no arguments",
            ))
        }
    };
    let image_id = arguments
        .get("image_md5")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            MessageError::invalid(
                &args_path.key("image_md5"),
                "the arguments need a string image_md5",
            )
        })?
        .to_owned();
    let (id, _) = at(call, keys.id, &path);
    Ok(HistoryImageCall {
        id: id.and_then(Value::as_str).map(str::to_owned),
        image_id,
    })
}

/// The text that goes with an answer: the image follows, or why it does not.
fn answer_text(call: &HistoryImageCall, found: bool) -> String {
    if found {
        format!("Image {} from earlier in the conversation:", call.image_id)
    } else {
        format!(
            "Image {} is no longer available (expired or never stored). Ask the user to share it again.",
            call.image_id
        )
    }
}

/// True when the AI SDK provider `provider` (a language model's `provider`
/// field, e.g. `openai.responses`) sends the `file` parts of a tool result's
/// `content` output as images: OpenAI Responses (`*.responses`, as
/// `input_image` in `function_call_output`), Anthropic (`anthropic.messages`,
/// an image block in `tool_result`) and Google (`google.generative-ai`,
/// `inlineData` in or beside `functionResponse`). Every other provider,
/// `openai.chat` among them, may turn that output into JSON text, base64 and
/// all, so the image goes in a user message instead.
pub fn ai_sdk_tool_result_takes_images(provider: Option<&str>) -> bool {
    provider.is_some_and(|p| {
        p.ends_with(".responses") || p == "anthropic.messages" || p == "google.generative-ai"
    })
}

/// A tool answer whose image follows in a user message: the tool message
/// (with the tool text written in) and, with an image, the user message
/// holding `text` and `image`.
fn tool_then_user(
    mut tool: Value,
    put_text: impl Fn(&mut Value, String),
    text: &str,
    image: Option<Value>,
) -> Vec<Value> {
    let Some(image) = image else {
        put_text(&mut tool, text.to_owned());
        return vec![tool];
    };
    put_text(&mut tool, format!("{text} It follows in the next message."));
    vec![
        tool,
        json!({"role": "user", "content": [{"type": "text", "text": text}, image]}),
    ]
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
    let user_image = image.map(|(mime, data)| new_image_part(format, mime, data, None));
    let mut out = match format {
        Format::OpenAi => tool_then_user(
            json!({"role": "tool", "tool_call_id": id}),
            |m, t| m["content"] = t.into(),
            &text,
            user_image,
        ),
        Format::LangChain => tool_then_user(
            json!({"role": "tool", "tool_call_id": id, "name": TOOL_NAME}),
            |m, t| m["content"] = t.into(),
            &text,
            user_image,
        ),
        Format::AiSdk if !ai_sdk_tool_result_takes_images(provider) => tool_then_user(
            json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": id, "toolName": TOOL_NAME}]}),
            |m, t| m["content"][0]["output"] = json!({"type": "text", "value": t}),
            &text,
            user_image,
        ),
        Format::OpenAiResponses => {
            let mut output = vec![json!({"type": "input_text", "text": text})];
            if let Some((mime, data)) = image {
                output.push(json!({"type": "input_image", "image_url": format_data_url(mime, data), "detail": "auto"}));
            }
            vec![json!({"type": "function_call_output", "call_id": id, "output": output})]
        }
        Format::Anthropic => {
            let mut content = vec![json!({"type": "text", "text": text})];
            content.extend(user_image);
            vec![
                json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": content}]}),
            ]
        }
        Format::AiSdk => {
            let output = match image {
                Some((mime, data)) => json!({"type": "content", "value": [
                    {"type": "text", "text": text},
                    {"type": "file", "mediaType": mime, "data": {"type": "data", "data": data}}
                ]}),
                None => json!({"type": "text", "value": text}),
            };
            vec![
                json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": id, "toolName": TOOL_NAME, "output": output}]}),
            ]
        }
        Format::Gemini => {
            let mut response = Map::new();
            if let Some(id) = &call.id {
                response.insert("id".into(), id.as_str().into());
            }
            response.insert("name".into(), TOOL_NAME.into());
            response.insert("response".into(), json!({"output": text}));
            if let Some(image) = user_image {
                response.insert("parts".into(), json!([image]));
            }
            vec![json!({"role": "user", "parts": [{"functionResponse": response}]})]
        }
        Format::Mcp => {
            let mut content = vec![json!({"type": "text", "text": text})];
            content.extend(user_image);
            vec![json!({"content": content, "isError": false})]
        }
        Format::Ollama => {
            let mut tool = json!({"role": "tool", "tool_name": TOOL_NAME, "content": text});
            if let Some((_, data)) = image {
                tool["images"] = json!([data]);
            }
            vec![tool]
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

    fn read(format: Format, call: Value) -> Result<HistoryImageCall, MessageError> {
        read_call(format, &call, &JsonPath::root("call"))
    }

    #[test]
    fn reads_each_apis_call() {
        let md5 = "0123456789abcdef0123456789abcdef";
        let args = json!({"image_md5": md5});
        let text = args.to_string();
        let cases = [
            (
                Format::OpenAi,
                json!({"id":"c1","type":"function","function":{"name":TOOL_NAME,"arguments":text}}),
            ),
            (
                Format::OpenAiResponses,
                json!({"type":"function_call","call_id":"c1","name":TOOL_NAME,"arguments":text}),
            ),
            (
                Format::Anthropic,
                json!({"type":"tool_use","id":"c1","name":TOOL_NAME,"input":args}),
            ),
            (
                Format::AiSdk,
                json!({"type":"tool-call","toolCallId":"c1","toolName":TOOL_NAME,"input":args}),
            ),
            (
                Format::Gemini,
                json!({"functionCall":{"id":"c1","name":TOOL_NAME,"args":args}}),
            ),
            (
                Format::LangChain,
                json!({"id":"c1","name":TOOL_NAME,"args":args}),
            ),
            (
                Format::Mcp,
                json!({"id":"c1","params":{"name":TOOL_NAME,"arguments":args}}),
            ),
        ];
        for (format, call) in cases {
            let c = read(format, call).unwrap();
            assert_eq!(c.image_id, md5, "{format:?}");
        }
        assert_eq!(
            read(Format::Gemini, json!({"name":TOOL_NAME,"args":args}))
                .unwrap()
                .id,
            None
        );
    }

    #[test]
    fn bad_calls_name_the_bad_value() {
        let path = |f, v| match read(f, v).unwrap_err() {
            MessageError::InvalidMessage { path, .. } => path,
            e => panic!("{e}"),
        };
        assert_eq!(
            path(
                Format::OpenAi,
                json!({"id":"c","function":{"name":"other","arguments":"{}"}})
            ),
            "call.function.name"
        );
        assert_eq!(
            path(
                Format::OpenAi,
                json!({"id":"c","function":{"name":TOOL_NAME,"arguments":"{oops"}})
            ),
            "call.function.arguments"
        );
        assert_eq!(
            path(
                Format::Anthropic,
                json!({"id":"c","name":TOOL_NAME,"input":{"image":"x"}})
            ),
            "call.input.image_md5"
        );
        assert_eq!(path(Format::AiSdk, json!(7)), "call");
        assert_eq!(path(Format::UiMessage, json!({})), "call");
    }

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
                json!({"type": "image", "image": "AAAA", "mediaType": "image/png"})
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
