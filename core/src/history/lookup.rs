//! One stashed image for the `get_history_image` tool: read, verified and
//! refreshed, as parts in the dialect the caller answers in.

use super::flow::refresh;
use crate::event_loop::Slicer;
use crate::json_path::JsonPath;
use crate::media::payload::Payloads;
use crate::messages::{Format, MessageError};
use crate::stash::{read_verified, Lookup, StashAccess, StashBackend, StashConfig, StoredRecord};
use serde_json::Value;
/// The language of the texts the tool answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// English.
    En,
    /// Chinese, as the dootask tool answers.
    Zh,
}

impl Lang {
    /// The language named `name` (`"en"` or `"zh"`).
    pub fn from_name(name: &str) -> Option<Lang> {
        match name {
            "en" => Some(Lang::En),
            "zh" => Some(Lang::Zh),
            _ => None,
        }
    }
}

/// The shape `getHistoryImage` answers in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartDialect {
    /// The image part of a message format (LangChain JS: an `image_url`
    /// block with a data URL).
    Format(Format),
    /// Python LangChain's `{type:'image', mime_type, base64}`, as servers
    /// such as the dootask backend expect.
    LangChainPython,
}

impl From<Format> for PartDialect {
    fn from(format: Format) -> Self {
        PartDialect::Format(format)
    }
}

impl PartDialect {
    /// Reads a dialect name: a format name or `langchain-python` (`path`
    /// names the option).
    pub fn from_name(name: &str, path: &str) -> Result<Self, MessageError> {
        if name == "langchain-python" {
            return Ok(PartDialect::LangChainPython);
        }
        Format::from_name(name, path).map(PartDialect::Format)
    }

    fn format(self) -> Format {
        match self {
            PartDialect::Format(f) => f,
            PartDialect::LangChainPython => Format::LangChain,
        }
    }
}

/// The answer to a `get_history_image` call: the image as content parts of
/// `dialect`, or one text part the model can read when the id is invalid or
/// the image is gone.
pub async fn history_image<B: StashBackend>(
    access: StashAccess<'_, B>,
    id: &str,
    dialect: PartDialect,
    lang: Lang,
    payloads: &dyn Payloads,
) -> Vec<Value> {
    let StashAccess {
        backend,
        config,
        now,
    } = access;
    let text = |en: &str, zh: &str| {
        vec![dialect
            .format()
            .text_part(if lang == Lang::Zh { zh } else { en }.to_owned())]
    };
    let Some(md5) = crate::messages::placeholder::parse_image_id(id) else {
        return text("Invalid image id", "无效的图片标识符");
    };
    match original(backend, config, now, &md5, payloads).await {
        Some(rec) => vec![tool_image_part(dialect, &rec.mime, &rec.payload)],
        None => text("Image not found or expired", "图片不存在或已过期"),
    }
}

/// The original stashed under `md5`, checked (see [`read_verified`]), its
/// expiry refreshed; `None` when it is missing, expired or corrupt.
async fn original<B: StashBackend>(
    backend: &B,
    config: &StashConfig,
    now: f64,
    md5: &str,
    payloads: &dyn Payloads,
) -> Option<StoredRecord> {
    let slicer = Slicer::of(payloads.event_loop());
    match read_verified(backend, md5, now, payloads, &slicer).await {
        Ok(Lookup::Found(rec)) => {
            refresh(backend, config, now, std::iter::once(&rec.id)).await;
            Some(rec)
        }
        _ => None,
    }
}

/// The messages that answer a `get_history_image` call (`call`, as the API
/// of `format` delivers it) so the model sees the image — or, when the id is
/// invalid or the image gone, reads why and what to do. `provider` names the
/// AI SDK provider an `ai-sdk` answer is for (see
/// [`crate::history::ai_sdk_tool_result_takes_images`]).
pub async fn answer_history_image_call<B: StashBackend>(
    access: StashAccess<'_, B>,
    format: Format,
    call: &Value,
    provider: Option<&str>,
    payloads: &dyn Payloads,
) -> Result<Vec<Value>, MessageError> {
    let StashAccess {
        backend,
        config,
        now,
    } = access;
    let call = crate::history::call::read_call(format, call, &JsonPath::root("call"))?;
    let record = match crate::messages::placeholder::parse_image_id(&call.image_id) {
        Some(md5) => original(backend, config, now, &md5, payloads).await,
        None => None,
    };
    let image = record
        .as_ref()
        .map(|r| (r.mime.as_str(), r.payload.as_str()));
    Ok(crate::history::answer::answer_messages(
        format, &call, image, provider,
    ))
}

/// An image as a tool result part: a format's image part (OpenAI and
/// LangChain JS `image_url` with a data URL — the block `ChatOpenAI`,
/// `ChatAnthropic` and `ChatGoogleGenerativeAI` each send as their API's
/// image —, Anthropic `image` block, AI SDK `{type:'image', image,
/// mediaType}` …), or Python LangChain's `{type:'image', mime_type, base64}`.
pub fn tool_image_part(dialect: PartDialect, mime: &str, payload: &str) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("type".into(), "image".into());
    match dialect {
        PartDialect::LangChainPython => {
            m.insert("mime_type".into(), mime.into());
            m.insert("base64".into(), payload.into());
        }
        PartDialect::Format(other) => {
            return crate::messages::new_image_part(other, mime, payload, None)
        }
    }
    Value::Object(m)
}
