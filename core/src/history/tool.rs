//! The `get_history_image` tool definition, in each dialect a model API
//! expects.

use serde::Serialize;

/// What the model calls the tool by, in every dialect, and what a
/// placeholder's words tell it to call.
pub const TOOL_NAME: &str = "get_history_image";

/// What the tool is for, told to the model.
pub const TOOL_DESCRIPTION: &str = "Fetch an image the user shared earlier in this conversation. \
Older images are replaced by placeholders like [Picture:history_<md5>] to save context; call this \
tool when you need to look at one again (for example when the user asks about a detail of an \
earlier picture). Pass the id from the placeholder: the 32-character md5, with or without the \
'history_' prefix.";

/// A tool-definition dialect: the one each format names.
pub use crate::messages::ToolDialect as Dialect;

/// What the model passes: the image id.
const PARAMETER_DESCRIPTION: &str = "The image id from a [Picture:history_<md5>] placeholder: 'history_<md5>' or the bare 32-hex md5.";

/// The parameters' JSON Schema: one required string, `image_md5`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSchema {
    #[serde(rename = "type")]
    kind: &'static str,
    properties: ToolProperties,
    required: [&'static str; 1],
    additional_properties: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
struct ToolProperties {
    image_md5: ToolProperty,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
struct ToolProperty {
    #[serde(rename = "type")]
    kind: &'static str,
    description: &'static str,
}

const SCHEMA: ToolSchema = ToolSchema {
    kind: "object",
    properties: ToolProperties {
        image_md5: ToolProperty {
            kind: "string",
            description: PARAMETER_DESCRIPTION,
        },
    },
    required: ["image_md5"],
    additional_properties: false,
};

/// `{name, description, parameters}`: OpenAI's function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OpenAiFunction {
    name: &'static str,
    description: &'static str,
    parameters: ToolSchema,
}

/// The tool definition in one dialect; serialized, the JSON each API takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ToolDefinition {
    /// `{type:'function', function:{name, description, parameters}}`.
    OpenAi {
        /// `"function"`.
        #[serde(rename = "type")]
        kind: &'static str,
        function: OpenAiFunction,
    },
    /// `{type:'function', name, description, parameters}`.
    Function {
        /// `"function"`.
        #[serde(rename = "type")]
        kind: &'static str,
        /// The tool's name.
        name: &'static str,
        description: &'static str,
        parameters: ToolSchema,
    },
    /// `{name, description, input_schema}`.
    Anthropic {
        /// The tool's name.
        name: &'static str,
        description: &'static str,
        input_schema: ToolSchema,
    },
    /// `{name, description, inputSchema}`.
    Mcp {
        /// The tool's name.
        name: &'static str,
        description: &'static str,
        #[serde(rename = "inputSchema")]
        input_schema: ToolSchema,
    },
}

/// The tool definition in `dialect`.
pub fn history_image_tool(dialect: Dialect) -> ToolDefinition {
    match dialect {
        Dialect::OpenAi => ToolDefinition::OpenAi {
            kind: "function",
            function: OpenAiFunction {
                name: TOOL_NAME,
                description: TOOL_DESCRIPTION,
                parameters: SCHEMA,
            },
        },
        Dialect::Function => ToolDefinition::Function {
            kind: "function",
            name: TOOL_NAME,
            description: TOOL_DESCRIPTION,
            parameters: SCHEMA,
        },
        Dialect::Anthropic => ToolDefinition::Anthropic {
            name: TOOL_NAME,
            description: TOOL_DESCRIPTION,
            input_schema: SCHEMA,
        },
        Dialect::Mcp => ToolDefinition::Mcp {
            name: TOOL_NAME,
            description: TOOL_DESCRIPTION,
            input_schema: SCHEMA,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn history_image_tool(d: Dialect) -> serde_json::Value {
        serde_json::to_value(super::history_image_tool(d)).unwrap()
    }

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
        assert_eq!(
            history_image_tool(Dialect::Function),
            json!({"type": "function", "name": TOOL_NAME, "description": TOOL_DESCRIPTION, "parameters": schema})
        );
    }

    #[test]
    fn each_format_names_its_dialect() {
        assert_eq!(Dialect::from_name("openai"), Some(Dialect::OpenAi));
        assert_eq!(Dialect::from_name("anthropic"), Some(Dialect::Anthropic));
        assert_eq!(Dialect::from_name("mcp"), Some(Dialect::Mcp));
        assert_eq!(Dialect::from_name("responses"), Some(Dialect::Function));
        assert_eq!(
            Dialect::from_name("gemini-interactions"),
            Some(Dialect::Function)
        );
        assert_eq!(Dialect::from_name("gemini"), None);
        assert_eq!(Dialect::from_name("nope"), None);
        assert_eq!(
            Dialect::expected_names(),
            "'openai', 'anthropic', 'openai-responses', 'mcp' or 'gemini-interactions'"
        );
    }

    #[test]
    fn every_dialect_names_one_required_string_parameter() {
        for (d, key) in [
            (Dialect::OpenAi, "/function/parameters"),
            (Dialect::Anthropic, "/input_schema"),
            (Dialect::Mcp, "/inputSchema"),
            (Dialect::Function, "/parameters"),
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
