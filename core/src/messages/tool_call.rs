//! A tool call as every format holds it and answers it: where a call keeps
//! its id, name and arguments ([`CallShape`]), what an answer holds
//! ([`ToolAnswer`]), and the JSON pieces the formats' answer writers share.
//! Each format's module names its call shape and writes its own answer (its
//! `WireFormat`); the registry dispatches to them.

use serde_json::Value;

/// Where a format keeps a tool call's id, name and arguments, as key paths
/// from the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallShape {
    /// The key of an object the call may come wrapped in, read as the call
    /// inside it (Gemini's `functionCall` part, MCP's `params` request).
    pub wrapper: Option<&'static str>,
    /// The call's id.
    pub id: &'static [&'static str],
    /// The tool's name.
    pub name: &'static [&'static str],
    /// The arguments (JSON text or an object).
    pub arguments: &'static [&'static str],
}

/// How a model API takes a tool definition; each format's module names its
/// own (`NEW_PARTS.tool_dialect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolDialect {
    /// OpenAI Chat Completions: `{type:'function', function:{name, description, parameters}}`.
    OpenAi,
    /// A flat function: `{type:'function', name, description, parameters}`
    /// (OpenAI Responses, Google's Interactions API).
    Function,
    /// Anthropic: `{name, description, input_schema}`.
    Anthropic,
    /// Model Context Protocol: `{name, description, inputSchema}`.
    Mcp,
}

/// What a tool's answer holds, whatever the format.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolAnswer<'a> {
    /// The call's id (`None` where the API gave none: written as `null`,
    /// which the caller removes).
    pub id: Option<&'a str>,
    /// The tool's name.
    pub name: &'a str,
    /// What the answer says.
    pub text: &'a str,
    /// The image the answer carries: MIME type and base64 payload.
    pub image: Option<(&'a str, &'a str)>,
    /// For the AI SDK: the provider sends a tool result's file as an image,
    /// so the image stays in the tool result.
    pub result_takes_images: bool,
}

impl ToolAnswer<'_> {
    /// The id as JSON: the string, or `null`.
    pub fn id_value(&self) -> Value {
        self.id.map_or(Value::Null, Value::from)
    }

    /// The text of a tool message whose image follows in a user message.
    pub fn tool_text(&self) -> String {
        match self.image {
            Some(_) => format!("{} It follows in the next message.", self.text),
            None => self.text.to_owned(),
        }
    }
}

/// A JSON object of `fields`, in their order. (Built by this one function
/// rather than `json!`, which expands to code of its own at every use.)
pub(super) fn obj(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// A text part: `{type, text}` with `kind` as its type.
pub(super) fn text_part(kind: &str, text: &str) -> Value {
    obj(vec![("type", kind.into()), ("text", text.into())])
}

/// A message of `role` with `content`.
pub(super) fn message(role: &str, content: Value) -> Value {
    obj(vec![("role", role.into()), ("content", content)])
}

/// `tool` (a tool answer of text), then, with `image`, a user message holding
/// `text` and the image: for the APIs whose tool messages carry text only.
pub(super) fn then_user(tool: Value, text: &str, image: Option<Value>) -> Vec<Value> {
    let mut out = vec![tool];
    out.extend(
        image.map(|image| message("user", Value::Array(vec![text_part("text", text), image]))),
    );
    out
}
