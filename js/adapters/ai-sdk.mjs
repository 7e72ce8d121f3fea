// ctxpack for the Vercel AI SDK (version 7; the `ai` package is an optional
// peer dependency): a language-model middleware that compacts every prompt,
// the `get_history_image` tool, and compaction of `useChat`'s UIMessages.
import { jsonSchema, tool } from 'ai';
import { compactContext, getHistoryImage, historyImageTool as toolDefinition } from 'ctxpack';

/** The tool's name, as placeholders and the model know it. */
export const HISTORY_IMAGE_TOOL = 'get_history_image';

/**
 * A language-model middleware (`wrapLanguageModel({ model, middleware })`)
 * whose `transformParams` compacts the prompt before each call: images
 * before the newest user message are stashed and replaced by
 * `[Picture:history_<md5>]`. Options are `compactContext`'s (`stash` is
 * required); `onReport` receives each compaction's report.
 */
export function ctxpackMiddleware(options) {
  const { stash, onReport, ...rest } = options ?? {};
  if (!stash) throw new TypeError('ctxpackMiddleware needs { stash }');
  return {
    specificationVersion: 'v4',
    async transformParams({ params }) {
      const { messages, report } = await compactContext(params.prompt, { ...rest, stash, format: 'ai-sdk' });
      onReport?.(report);
      return { ...params, prompt: messages };
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
  if (part?.type === 'image') {
    return { found: true, id, mediaType: part.mediaType, data: part.image };
  }
  return { found: false, id, message: `${part?.text ?? 'Image not found or expired'}. Ask the user to share the image again.` };
}

/**
 * The `get_history_image` tool as an AI SDK `tool()`. With `stash` it
 * answers itself (`execute`); without, it is declared only, for a client
 * that answers from its own stash (`onToolCall` + `addToolOutput` with
 * `historyImageOutput`). Either way the model receives the image as an
 * image: AI SDK 7's `{type:'file', mediaType, data:{type:'data', data}}`.
 */
export function historyImageTool(options = {}) {
  const { stash } = options;
  const definition = toolDefinition('openai').function;
  return tool({
    description: definition.description,
    inputSchema: jsonSchema(definition.parameters),
    ...(stash ? { execute: (input) => historyImageOutput(stash, input) } : {}),
    toModelOutput: ({ output }) =>
      output?.found && !output.data
        ? { type: 'text', value: placeholderOf(output.id) }
        : output?.found
        ? {
            type: 'content',
            value: [
              { type: 'text', text: `Image ${output.id} follows.` },
              { type: 'file', mediaType: output.mediaType, data: { type: 'data', data: output.data } },
            ],
          }
        : { type: 'text', value: output?.message ?? 'Image not found or expired.' },
  });
}

/** The placeholder of image id `id` (`history_<md5>` or the bare md5). */
function placeholderOf(id) {
  return `[Picture:history_${String(id).replace(/^history_/, '')}]`;
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
