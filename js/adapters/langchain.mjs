// ctxpack for LangChain JS 1.x (`langchain` and `@langchain/core` are
// optional peer dependencies): agent middleware that compacts the messages
// of every model call, and the `get_history_image` tool.
import { createMiddleware } from 'langchain';
import { tool } from '@langchain/core/tools';
import { compactContext, getHistoryImage, historyImageTool as toolDefinition } from 'ctxpack';

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
  const { messages: compacted, report } = await compactContext(wire, { ...rest, stash, format: 'langchain' });
  return {
    messages: compacted.map((c, i) => (c === wire[i] ? messages[i] : withContent(messages[i], c.content))),
    report,
  };
}

/**
 * Agent middleware (`createAgent({ middleware: [ctxpackMiddleware({ stash })] })`)
 * that compacts the messages of each model call. The agent's state keeps the
 * originals; only what the model is sent is compacted. `onReport` receives
 * each compaction's report.
 */
export function ctxpackMiddleware(options) {
  const { onReport, ...rest } = options ?? {};
  if (!rest.stash) throw new TypeError('ctxpackMiddleware needs { stash }');
  return createMiddleware({
    name: 'ctxpack',
    wrapModelCall: async (request, handler) => {
      const { messages, report } = await compactMessages(request.messages, rest);
      onReport?.(report);
      return handler({ ...request, messages });
    },
  });
}

/**
 * The `get_history_image` tool as a LangChain tool. It answers with
 * LangChain's standard image block (`{type:'image', mimeType, data}`), so
 * the model receives the image itself, or with text the model can act on
 * when the image is gone.
 */
export function historyImageTool({ stash }) {
  if (!stash) throw new TypeError('historyImageTool needs { stash }');
  const definition = toolDefinition('openai').function;
  return tool(
    async ({ image_md5 }) => {
      const [part] = await getHistoryImage(stash, String(image_md5 ?? ''), { format: 'ai-sdk' });
      if (part?.type === 'image') {
        return [
          { type: 'text', text: `Image ${image_md5} follows.` },
          { type: 'image', mimeType: part.mediaType, data: part.image },
        ];
      }
      return `${part?.text ?? 'Image not found or expired'}. Ask the user to share the image again.`;
    },
    { name: definition.name, description: definition.description, schema: definition.parameters },
  );
}
