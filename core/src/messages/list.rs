//! The format list: one line a format, naming its variant of [`Format`],
//! its module, its name and the other names it is accepted under. Adding a
//! format is its module and its line here; `format.rs` makes the enum and
//! its names from the list, `registry.rs` the dispatch to the modules and
//! `mod.rs` the modules themselves.
//!
//! [`Format`]: super::Format

/// Hands the list to `$make` (a macro taking the lines).
macro_rules! format_list {
    ($make:ident) => {
        $make! {
            /// OpenAI Chat Completions: `{role, content: string | parts}`.
            OpenAi => openai, "openai", [];
            /// LangChain message tuples: `["human" | "ai" | "assistant" | "system" | "tool", content]`.
            LangChain => langchain, "langchain", [];
            /// Anthropic Messages: `{role, content}` with `image`, `tool_use` and `tool_result` blocks.
            Anthropic => anthropic, "anthropic", [];
            /// Vercel AI SDK `ModelMessage`: `image`, `file`, `tool-call` and `tool-result` parts.
            AiSdk => ai_sdk, "ai-sdk", ["aisdk", "vercel"];
            /// Vercel AI SDK `UIMessage`: `{id, role, parts}` with `text`, `file` and tool parts.
            UiMessage => ui_message, "ui-message", ["uimessage"];
            /// OpenAI Responses input items: messages with `input_text` and
            /// `input_image` parts, `function_call`, `function_call_output` and others.
            OpenAiResponses => openai_responses, "openai-responses", ["responses"];
            /// Google Gemini `Content`: `{role, parts}` with `{text}`, `{inlineData}`,
            /// `{functionCall}` and `{functionResponse}` parts.
            Gemini => gemini, "gemini", ["google"];
            /// MCP sampling messages: `{role, content}` where content is one block
            /// or an array of `text`, `image`, `audio`, `resource` and `tool_result` blocks.
            Mcp => mcp, "mcp", [];
            /// Ollama chat: `{role, content: string, images?: [base64]}`.
            Ollama => ollama, "ollama", [];
            /// Google's Interactions API `input`: steps (`user_input`, `model_output`,
            /// `function_call`, `function_result`, …), one turn's content list, or
            /// the older `{role, content}` turns.
            GeminiInteractions => gemini_interactions, "gemini-interactions", ["interactions"];
        }
    };
}

pub(super) use format_list;
