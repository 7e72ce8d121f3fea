// ctxpack for LangChain JS 1.x (`langchain` and `@langchain/core` are
// optional peer dependencies): agent middleware that compacts the messages
// of every model call, and the `get_history_image` tool.
import { createMiddleware } from 'langchain';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { getHistoryImage, historyImageTexts, historyImageTool as toolDefinition } from 'ctxpack';
import { compactPrompt } from './plain-prompt.mjs';

/** The role each LangChain message type has on the wire. */
const ROLES = { human: 'user', ai: 'assistant', system: 'system', tool: 'tool', developer: 'system' };

/** Constructor fields a message keeps when its content is replaced. */
const FIELDS = [
  'id', 'name', 'additional_kwargs', 'response_metadata', 'tool_call_id', 'status', 'artifact',
  'tool_calls', 'invalid_tool_calls', 'usage_metadata',
];

/** `message` with `content` in place of its own: a new message of the same class. */
function withContent(message, content) {
  const fields = { content };
  for (const key of FIELDS) {
    if (message[key] !== undefined) fields[key] = message[key];
  }
  return new message.constructor(fields);
}

/**
 * Compacts LangChain messages (`BaseMessage` instances): images before the
 * newest human message are stashed and replaced by `[Picture:history_<md5>]`
 * text blocks. A message that does not change is returned as it was.
 * Options are `compactContext`'s (`stash` is required).
 */
export async function compactMessages(messages, options) {
  const { stash, ...rest } = options ?? {};
  if (!stash) throw new TypeError('compactMessages needs { stash }');
  const wire = messages.map((m) => ({ role: ROLES[m.type ?? m.getType?.()] ?? m.type, content: m.content }));
  const { messages: compacted, report } = await compactPrompt(wire, { ...rest, stash, format: 'langchain' });
  return {
    messages: compacted.map((c, i) => (c === wire[i] ? messages[i] : withContent(messages[i], c.content))),
    report,
  };
}

/** Block types a tool message may hold that are not text: images, files, audio, video. */
const MEDIA = new Set(['image', 'image_url', 'file', 'audio', 'video']);

/** The model behind `model`, through `bindTools`' bindings. */
function innermost(model) {
  let m = model;
  for (let i = 0; m && typeof m._llmType !== 'function' && m.bound && i < 8; i++) m = m.bound;
  return m;
}

/**
 * True when `model` sends the images of a tool message as images (read in
 * `@langchain/anthropic` 1.5.11, `@langchain/openai` 1.6.0 and
 * `@langchain/google-genai` 2.3.2 on 2026-11-25; Chat Completions refusing an
 * image in a `tool` message: openai/openai-openapi#523, OpenHands#7700):
 * `ChatAnthropic` (an image block in `tool_result`). `ChatOpenAI` sends them
 * to Chat Completions, which refuses images in a tool message, and
 * `ChatGoogleGenerativeAI` writes them as JSON text into the function
 * response; those and every other model get them in a human message.
 */
export function toolMessagesTakeImages(model) {
  return innermost(model)?._llmType?.() === 'anthropic';
}

/**
 * Whose Files API `model` takes image references from: `ChatAnthropic`'s,
 * `ChatGoogleGenerativeAI`'s (Gemini) and `ChatOpenAI`'s on the Responses
 * API (`useResponsesApi`, or a model that prefers it). `undefined` for the
 * others: Chat Completions takes a file id only for PDFs.
 */
export function fileProviderOf(model) {
  const m = innermost(model);
  switch (m?._llmType?.()) {
    case 'anthropic': return 'anthropic';
    case 'googlegenerativeai': return 'gemini';
    case 'openai': {
      const responses = typeof m._useResponsesApi === 'function' ? m._useResponsesApi({}) : m.useResponsesApi;
      return responses ? 'openai' : undefined;
    }
    default: return undefined;
  }
}

/** `offload` with its provider named: the caller's, else the model's (`fileProviderOf`). */
function offloadFor(offload, model) {
  if (!offload || typeof offload !== 'object' || offload.provider !== undefined) return offload;
  const own = fileProviderOf(model);
  return own ? { ...offload, provider: own } : offload;
}

/** The beta a Messages request needs to reference a file of Anthropic's Files API. */
const ANTHROPIC_FILES_BETA = 'files-api-2025-04-14';

/**
 * `request`'s model settings with Anthropic's Files API beta among its
 * `betas` (`ChatAnthropic` then sends `anthropic-beta` through its
 * client's `beta.messages.create`): for a call that sends files by
 * reference to Anthropic. Any other call's settings come back as they were.
 */
function withFilesBeta(request, offload, report) {
  if (offload?.provider !== 'anthropic' || !report.offloaded) return request.modelSettings;
  const betas = request.modelSettings?.betas ?? [];
  if (betas.includes(ANTHROPIC_FILES_BETA)) return request.modelSettings;
  return { ...request.modelSettings, betas: [...betas, ANTHROPIC_FILES_BETA] };
}

/**
 * `messages` with the images (and other media blocks) of every tool message
 * moved out: the tool message keeps its text (and says the media follow), and
 * one human message after each run of tool messages holds them, each led by
 * the call it answers. Messages that hold none come back as they were.
 */
export function moveToolMessageMedia(messages) {
  const out = [];
  let moved = [];
  const flush = () => {
    if (moved.length) out.push(new HumanMessage({ content: moved }));
    moved = [];
  };
  let changed = false;
  for (const message of messages) {
    if (!ToolMessage.isInstance(message)) {
      flush();
      out.push(message);
      continue;
    }
    const blocks = Array.isArray(message.content) ? message.content : [];
    const media = blocks.filter((b) => MEDIA.has(b?.type));
    if (!media.length) {
      out.push(message);
      continue;
    }
    changed = true;
    const rest = blocks.filter((b) => !MEDIA.has(b?.type));
    const note = media.length === 1
      ? 'The image or file of this result follows in the next message.'
      : `The ${media.length} images or files of this result follow in the next message.`;
    out.push(withContent(message, [...rest, { type: 'text', text: note }]));
    moved.push({ type: 'text', text: `Result of ${message.name ?? 'the tool'} (${message.tool_call_id}):` }, ...media);
  }
  flush();
  return changed ? out : messages;
}

/**
 * Agent middleware (`createAgent({ middleware: [ctxpackMiddleware({ stash })] })`)
 * that compacts the messages of each model call. The agent's state keeps the
 * originals; only what the model is sent is compacted. Then, unless the
 * model sends a tool message's images as images (`toolMessagesTakeImages`:
 * `ChatAnthropic`), the images of tool messages — the one
 * `get_history_image` answers with — move into a human message after them.
 * A call that sends images by reference to Anthropic's Files API gets that
 * API's beta (`files-api-2025-04-14`) among its `betas`.
 * `onReport` receives each compaction's report.
 */
export function ctxpackMiddleware(options) {
  const { onReport, ...rest } = options ?? {};
  if (!rest.stash) throw new TypeError('ctxpackMiddleware needs { stash }');
  return createMiddleware({
    name: 'ctxpack',
    wrapModelCall: async (request, handler) => {
      const offload = offloadFor(rest.offload, request.model);
      const { messages, report } = await compactMessages(request.messages, offload ? { ...rest, offload } : rest);
      onReport?.(report);
      const sent = toolMessagesTakeImages(request.model) ? messages : moveToolMessageMedia(messages);
      return handler({ ...request, messages: sent, modelSettings: withFilesBeta(request, offload, report) });
    },
  });
}

/**
 * The `get_history_image` tool as a LangChain tool. It answers with the
 * image as an `image_url` block holding a data URL — the block `ChatOpenAI`,
 * `ChatAnthropic` and `ChatGoogleGenerativeAI` each send as their API's
 * image — or with text the model can act on when the image is gone. Use it
 * with `ctxpackMiddleware`, which moves the image into a human message for
 * the models that take no image in a tool message.
 */
export function historyImageTool({ stash }) {
  if (!stash) throw new TypeError('historyImageTool needs { stash }');
  const definition = toolDefinition('openai').function;
  return tool(
    async ({ image_md5 }) => {
      const id = String(image_md5 ?? '');
      const [part] = await getHistoryImage(stash, id, { format: 'langchain' });
      if (part && part.type !== 'text') {
        return [{ type: 'text', text: historyImageTexts(id).found }, part];
      }
      return historyImageTexts(id).missing;
    },
    { name: definition.name, description: definition.description, schema: definition.parameters },
  );
}
