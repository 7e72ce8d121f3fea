//! `answerHistoryImageCall`: the messages that answer a `get_history_image`
//! call, in the shape each API accepts.

use crate::api::call::{Call, CallStash};
use crate::convert::{from_js_kept, to_js_kept};
use crate::promise::to_promise;
use crate::stash::stash_from_js;
use crate::CtxpackError;
use ctxpack_core::calls::answer_format;
use ctxpack_core::history::answer_history_image_call;
use ctxpack_core::messages::MessageError;
use ctxpack_core::ErrorCode;
use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const ANSWER_TS: &'static str = r#"
/**
 * The messages to append so the model sees the image a `get_history_image`
 * call asked for, in the form the API accepts: Chat Completions a `tool`
 * message plus a `user` message with the image (a tool message holds text
 * only); Responses a `function_call_output` with an `input_image`; Anthropic a
 * `tool_result` with an image block; Gemini a `functionResponse` with an
 * `inlineData` part; MCP a `CallToolResult`; Ollama a tool message with `images`.
 * LangChain JS: a tool message with text, then a user message with an
 * `image_url` block (`ChatOpenAI`, `ChatAnthropic` and
 * `ChatGoogleGenerativeAI` all send that as an image; a tool message's image
 * is refused by Chat Completions and reaches Gemini as JSON text). The AI
 * SDK: by default a tool result with text, then a user message with the image
 * (the safe answer for any provider: `openai.chat` turns a tool result's
 * content into JSON text, base64 and all); with `provider` set to the
 * model's `provider` and one whose converter sends a tool result's file as an
 * image (`openai.responses`, `anthropic.messages`, `google.generative-ai`), a
 * tool result whose `content` output holds the image as a `file`. `call` is
 * the call as that API delivers it (arguments as JSON text or an object). An
 * unknown or expired id is answered in the same shapes with text the model
 * can act on. With several calls answered at once, append every tool message
 * before the user messages.
 */
export function answerHistoryImageCall(stash: Stash, call: unknown, options: { format: Format; provider?: string }): Promise<unknown[]>;
"#;

/// See the TypeScript declaration.
#[wasm_bindgen(js_name = answerHistoryImageCall, skip_typescript)]
pub fn answer_history_image_call_js(
    stash: JsValue,
    call: JsValue,
    options: Option<JsValue>,
) -> Promise {
    to_promise(Box::pin(answer(stash, call, options)))
}

/// `answerHistoryImageCall`, awaited from Rust.
pub async fn answer(
    stash: JsValue,
    call: JsValue,
    options: Option<JsValue>,
) -> Result<JsValue, CtxpackError> {
    let stash = stash_from_js(&stash, "stash")?;
    let ctx = Call::new(options.as_ref())?;
    let opts = &ctx.opts;
    let format = answer_format(opts.format()?, &ctx.options_path())?;
    let provider = opts.string("provider")?;
    let call = from_js_kept(&call, "call", &ctx.table)?;
    let store = CallStash::new(&stash, &ctx);
    let messages = answer_history_image_call(
        store.access(),
        format,
        &call,
        provider.as_deref(),
        &ctx.payloads(),
    )
    .await
    .map_err(|e| match e {
        // A call that is not one is a bad argument, not a bad message.
        MessageError::InvalidMessage { path, reason } => {
            CtxpackError::new(ErrorCode::InvalidArgument, reason).at(path)
        }
        other => other.into(),
    })?;
    Ok(messages
        .iter()
        .map(|m| to_js_kept(m, &ctx.table))
        .collect::<Array>()
        .into())
}
