// ctxpack for the Vercel AI SDK (version 7; the `ai` package is an optional
// peer dependency): a language-model middleware that compacts every prompt,
// the `get_history_image` tool, and compaction of `useChat`'s UIMessages.
import { jsonSchema, tool } from 'ai';
import { compactPrompt } from './plain-prompt.mjs';
import { __aiSdkToolResultsTakeFiles, compactContext, getHistoryImage, historyImageTexts, historyImageTool as toolDefinition } from 'ctxpack';

/** The tool's name, as placeholders and the model know it: the package's tool definition's. */
export const HISTORY_IMAGE_TOOL = toolDefinition('openai').function.name;

/**
 * True when the provider `provider` (a language model's `provider` field)
 * sends the `file` parts of a tool result's `content` output as images
 * (OpenAI Responses, Anthropic, Google's `generative-ai` and `*.interactions`
 * providers); every other provider gets the files in a user message
 * instead. The core's rule, the one `answerHistoryImageCall(…, { format:
 * 'ai-sdk', provider })` answers by.
 */
export function toolResultsTakeFiles(provider) {
  return __aiSdkToolResultsTakeFiles(provider);
}

/** True for a `file` part of a tool result's output that a user message can carry (not inline text). */
const isMovableFile = (part) => part?.type === 'file' && part.data?.type !== 'text';

/** `output` (a tool result's `content` output) split: its text, and its `file` parts. */
function splitOutput(output) {
  const texts = [];
  const files = [];
  for (const part of output.value) {
    if (isMovableFile(part)) files.push(part);
    else texts.push(part.type === 'text' ? part.text : JSON.stringify(part));
  }
  return { texts, files };
}

/**
 * `prompt` (a language model's prompt) with the `file` parts of every tool
 * result moved out: the tool result keeps its text (and says the files
 * follow), and one user message after each run of tool messages holds the
 * files, each run of them led by the call it answers. A prompt with no such
 * file comes back as it was.
 */
export function moveToolResultFiles(prompt) {
  const out = [];
  let moved = [];
  const flush = () => {
    if (moved.length) out.push({ role: 'user', content: moved });
    moved = [];
  };
  let changed = false;
  for (const message of prompt) {
    if (message.role !== 'tool') {
      flush();
      out.push(message);
      continue;
    }
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result' || part.output?.type !== 'content' || !part.output.value.some(isMovableFile)) {
        return part;
      }
      const { texts, files } = splitOutput(part.output);
      const note = files.length === 1
        ? 'The file of this result follows in the next message.'
        : `The ${files.length} files of this result follow in the next message.`;
      moved.push({ type: 'text', text: `Result of ${part.toolName} (${part.toolCallId}):` }, ...files);
      return { ...part, output: { type: 'text', value: [...texts, note].join('\n') } };
    });
    if (content.some((p, i) => p !== message.content[i])) {
      changed = true;
      out.push({ ...message, content });
    } else {
      out.push(message);
    }
  }
  flush();
  return changed ? out : prompt;
}

/** `prompt` as the model of `provider` should receive it: tool-result files moved out unless it takes them. */
const placeToolResultFiles = (prompt, provider) => (toolResultsTakeFiles(provider) ? prompt : moveToolResultFiles(prompt));

/**
 * A language-model middleware that only places tool-result files: unless the
 * model's provider sends a tool result's files as images
 * (`toolResultsTakeFiles`), they move into a user message after the tool
 * messages. For a route that receives messages already compacted (from
 * `compactUIMessages` in the browser) and has no stash; `ctxpackMiddleware`
 * does this too.
 */
export function toolResultFilesMiddleware() {
  return {
    specificationVersion: 'v4',
    async transformParams({ params, model }) {
      const prompt = placeToolResultFiles(params.prompt, model?.provider);
      return prompt === params.prompt ? params : { ...params, prompt };
    },
  };
}

/**
 * Whose Files API a model of the AI SDK `provider` id takes image references
 * from: OpenAI's Responses models (`openai.responses`), Anthropic's, and the
 * Gemini API's (`google.generative-ai`, its Interactions models too).
 * `undefined` for the others: Chat Completions (`openai.chat`) takes a file
 * id only for PDFs, and a Vertex model's files are Cloud Storage URIs.
 */
export function fileProviderOf(provider) {
  if (typeof provider !== 'string') return undefined;
  if (provider.startsWith('openai.responses')) return 'openai';
  if (provider.startsWith('anthropic.')) return 'anthropic';
  if (provider.startsWith('google.generative-ai')) return 'gemini';
  return undefined;
}

/** `offload` with its provider named: the caller's, else the model's (`fileProviderOf`). */
function offloadFor(offload, provider) {
  if (!offload || typeof offload !== 'object' || offload.provider !== undefined) return offload;
  const own = fileProviderOf(provider);
  return own ? { ...offload, provider: own } : offload;
}

/**
 * A language-model middleware (`wrapLanguageModel({ model, middleware })`)
 * whose `transformParams` compacts the prompt before each call: images
 * before the newest user message are stashed and replaced by
 * `[Picture:history_<md5>]`. Then, unless the model's provider sends a tool
 * result's files as images (`toolResultsTakeFiles`), the files of tool
 * results — the image `get_history_image` answers with — move into a user
 * message after the tool messages, so the model sees an image and never
 * reads base64 as text. Options are `compactContext`'s (`stash` is
 * required); `onReport` receives each compaction's report. With `offload`,
 * the images kept for the model go as references to files uploaded once,
 * to the model's provider unless `offload.provider` names one
 * (`fileProviderOf`).
 */
export function ctxpackMiddleware(options) {
  const { stash, onReport, ...rest } = options ?? {};
  if (!stash) throw new TypeError('ctxpackMiddleware needs { stash }');
  return {
    specificationVersion: 'v4',
    async transformParams({ params, model }) {
      const offload = offloadFor(rest.offload, model?.provider);
      const { messages, report } = await compactPrompt(params.prompt, { ...rest, ...(offload ? { offload } : {}), stash, format: 'ai-sdk' });
      onReport?.(report);
      return { ...params, prompt: placeToolResultFiles(messages, model?.provider) };
    },
  };
}

/**
 * What the tool answers for `input` (`{ image_md5 }`): `{ found: true,
 * id, mediaType, data }` with the base64 image, or `{ found: false, id,
 * message }` with text the model can act on. Use it where the call is
 * answered: the tool's `execute` on a server, or `onToolCall` with
 * `addToolOutput` in a browser that holds the stash.
 */
export async function historyImageOutput(stash, input) {
  const id = typeof input?.image_md5 === 'string' ? input.image_md5 : '';
  const [part] = await getHistoryImage(stash, id, { format: 'ai-sdk' });
  // The image comes as AI SDK 7's file part, `{type:'file', mediaType, data}`.
  if (part?.type === 'file' && typeof part.data === 'string') {
    return { found: true, id, mediaType: part.mediaType, data: part.data };
  }
  return { found: false, id, message: historyImageTexts(id).missing };
}

/**
 * The `get_history_image` tool as an AI SDK `tool()`. With `stash` it
 * answers itself (`execute`); without, it is declared only, for a client
 * that answers from its own stash (`onToolCall` + `addToolOutput` with
 * `historyImageOutput`). The tool result holds the image as AI SDK 7's
 * `{type:'file', mediaType, data:{type:'data', data}}`; `ctxpackMiddleware`
 * moves it into a user message for a provider that would send a tool
 * result's file as text (`openai.chat`), so use the two together.
 */
export function historyImageTool(options = {}) {
  const { stash } = options;
  const definition = toolDefinition('openai').function;
  return tool({
    description: definition.description,
    inputSchema: jsonSchema(definition.parameters),
    ...(stash ? { execute: (input) => historyImageOutput(stash, input) } : {}),
    toModelOutput: ({ output }) => {
      // The words are the package's (historyImageTexts), as answerHistoryImageCall's.
      const texts = historyImageTexts(output?.id);
      // An older answer whose image compactUIMessages dropped: its placeholder.
      if (output?.found && !output.data) return { type: 'text', value: texts.placeholder ?? texts.missing };
      if (!output?.found) return { type: 'text', value: output?.message ?? texts.missing };
      return {
        type: 'content',
        value: [
          { type: 'text', text: texts.found },
          { type: 'file', mediaType: output.mediaType, data: { type: 'data', data: output.data } },
        ],
      };
    },
  });
}

/** True for a UIMessage part holding an answered get_history_image call. */
const isAnsweredToolPart = (part) =>
  (part.type === `tool-${HISTORY_IMAGE_TOOL}` || (part.type === 'dynamic-tool' && part.toolName === HISTORY_IMAGE_TOOL)) &&
  part.state === 'output-available' && part.output?.found && part.output.data;

/**
 * Compacts `useChat`'s UIMessages before they are sent (for
 * `prepareSendMessagesRequest`): file parts holding data URLs before the
 * newest user message are stashed and become placeholder text parts, and
 * older answers of `get_history_image` drop their image (the stash holds it;
 * the model reads its placeholder again), so the route never receives an
 * older image inline.
 */
export async function compactUIMessages(messages, options) {
  const { stash, ...rest } = options ?? {};
  if (!stash) throw new TypeError('compactUIMessages needs { stash }');
  const { messages: compacted } = await compactContext(messages, { ...rest, stash, format: 'ui-message' });
  const newestUser = compacted.findLastIndex((m) => m.role === 'user');
  return compacted.map((m, i) => {
    if (i >= newestUser || !m.parts?.some(isAnsweredToolPart)) return m;
    const parts = m.parts.map((p) => {
      if (!isAnsweredToolPart(p)) return p;
      const { data, ...output } = p.output;
      return { ...p, output };
    });
    return { ...m, parts };
  });
}
