//! Reading a `get_history_image` call as each API delivers it (where each
//! format keeps the call's id, name and arguments is the format's own:
//! [`crate::messages::call_shape`]).

use super::tool::TOOL_NAME;
use crate::json_path::JsonPath;
use crate::messages::{call_shape, Format, MessageError};
use serde_json::Value;

/// A `get_history_image` call, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryImageCall {
    /// The call's id, to answer it by (`None` where the API has none).
    pub id: Option<String>,
    /// The image id the model passed (`history_<md5>` or the bare md5).
    pub image_id: String,
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
    let keys = call_shape(format).map_err(|why| MessageError::invalid(path, why))?;
    let (call, path) = match (keys.wrapper, call) {
        (Some(wrapper), Value::Object(m)) if m.contains_key(wrapper) => {
            (&m[wrapper], path.key(wrapper))
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}
