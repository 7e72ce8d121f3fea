//! The `get_history_image` tool definition, in each dialect a model API
//! expects.

use serde_json::{Map, Value};

/// The tool's name.
pub const TOOL_NAME: &str = "get_history_image";

/// What the tool is for, told to the model.
pub const TOOL_DESCRIPTION: &str = "Fetch an image the user shared earlier in this conversation. \
Older images are replaced by placeholders like [Picture:history_<md5>] to save context; call this \
tool when you need to look at one again (for example when the user asks about a detail of an \
earlier picture). Pass the id from the placeholder: the 32-character md5, with or without the \
'history_' prefix.";

/// A tool-definition dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// OpenAI function calling: `{type:'function', function:{name, description, parameters}}`.
    OpenAi,
    /// Anthropic: `{name, description, input_schema}`.
    Anthropic,
    /// Model Context Protocol: `{name, description, inputSchema}`.
    Mcp,
}

impl Dialect {
    /// Reads a dialect name.
    pub fn from_name(name: &str) -> Option<Dialect> {
        match name {
            "openai" => Some(Dialect::OpenAi),
            "anthropic" => Some(Dialect::Anthropic),
            "mcp" => Some(Dialect::Mcp),
            _ => None,
        }
    }
}

/// The parameters' JSON Schema, as JSON text (parsed by the JSON reader the
/// crate has anyway, which costs less wasm than building it key by key).
const SCHEMA: &str = r#"{"type":"object","properties":{"image_md5":{"type":"string","description":"The image id from a [Picture:history_<md5>] placeholder: 'history_<md5>' or the bare 32-hex md5."}},"required":["image_md5"],"additionalProperties":false}"#;

fn schema() -> Value {
    serde_json::from_str::<serde_json::Value>(SCHEMA).unwrap_or_default()
}

/// `{name, description, <schema_key>: schema}`.
fn named_tool(schema_key: &str) -> Map<String, Value> {
    let mut tool = Map::new();
    tool.insert("name".into(), TOOL_NAME.into());
    tool.insert("description".into(), TOOL_DESCRIPTION.into());
    tool.insert(schema_key.into(), schema());
    tool
}

/// The tool definition in `dialect`.
pub fn history_image_tool(dialect: Dialect) -> Value {
    match dialect {
        Dialect::OpenAi => {
            let mut tool = Map::new();
            tool.insert("type".into(), "function".into());
            tool.insert("function".into(), Value::Object(named_tool("parameters")));
            Value::Object(tool)
        }
        Dialect::Anthropic => Value::Object(named_tool("input_schema")),
        Dialect::Mcp => Value::Object(named_tool("inputSchema")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn definitions_are_exactly_these() {
        let schema = json!({
            "type": "object",
            "properties": {
                "image_md5": {
                    "type": "string",
                    "description": "The image id from a [Picture:history_<md5>] placeholder: 'history_<md5>' or the bare 32-hex md5."
                }
            },
            "required": ["image_md5"],
            "additionalProperties": false
        });
        assert_eq!(
            history_image_tool(Dialect::OpenAi),
            json!({"type": "function", "function": {"name": TOOL_NAME, "description": TOOL_DESCRIPTION, "parameters": schema}})
        );
        assert_eq!(
            history_image_tool(Dialect::Anthropic),
            json!({"name": TOOL_NAME, "description": TOOL_DESCRIPTION, "input_schema": schema})
        );
        assert_eq!(
            history_image_tool(Dialect::Mcp),
            json!({"name": TOOL_NAME, "description": TOOL_DESCRIPTION, "inputSchema": schema})
        );
    }

    #[test]
    fn every_dialect_names_one_required_string_parameter() {
        for (d, key) in [
            (Dialect::OpenAi, "/function/parameters"),
            (Dialect::Anthropic, "/input_schema"),
            (Dialect::Mcp, "/inputSchema"),
        ] {
            let tool = history_image_tool(d);
            let schema = tool.pointer(key).unwrap();
            assert_eq!(schema["required"], json!(["image_md5"]));
            assert_eq!(schema["properties"]["image_md5"]["type"], "string");
            let name = tool
                .pointer("/function/name")
                .or_else(|| tool.get("name"))
                .unwrap();
            assert_eq!(name, TOOL_NAME);
        }
        assert!(TOOL_DESCRIPTION.contains("[Picture:history_"));
    }
}
