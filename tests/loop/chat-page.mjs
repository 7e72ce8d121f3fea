// A chat page as an app writes it with the AI SDK's framework-agnostic
// `AbstractChat` and its HTTP transport: every request's UIMessages are
// compacted first (older images go to IndexedDB), and `get_history_image`
// calls are answered in the page from the stash.
import { AbstractChat, DefaultChatTransport, lastAssistantMessageIsCompleteWithToolCalls } from 'ai';
import { Stash } from 'ctxpack';
import { compactUIMessages, historyImageOutput, HISTORY_IMAGE_TOOL } from 'ctxpack/ai-sdk';

/** The smallest `ChatState`: plain arrays, snapshots by structured clone. */
class ArrayState {
  status = 'ready';
  error = undefined;
  messages = [];
  pushMessage = (m) => { this.messages = [...this.messages, m]; };
  popMessage = () => { this.messages = this.messages.slice(0, -1); };
  replaceMessage = (i, m) => { this.messages = this.messages.map((x, j) => (j === i ? m : x)); };
  snapshot = (thing) => structuredClone(thing);
}

class Chat extends AbstractChat {
  constructor(init) {
    super({ ...init, state: new ArrayState() });
  }
}

/** Resolves once the chat has been idle for a moment: a tool call answered
 * in the page sends the next request by itself, after `sendMessage` resolved. */
async function settled(chat) {
  let idle = 0;
  while (idle < 10) {
    await new Promise((r) => setTimeout(r, 30));
    idle = chat.status === 'ready' || chat.status === 'error' ? idle + 1 : 0;
  }
}

/** Runs the conversation: one turn per `{text, image?}`, the last ones without images. */
window.runChat = async (turns, dbName) => {
  const stash = await Stash.open({ name: dbName });
  const reports = [];
  let chat;
  chat = new Chat({
    transport: new DefaultChatTransport({
      api: '/api/chat',
      prepareSendMessagesRequest: async ({ id, messages }) => ({
        body: { id, messages: await compactUIMessages(messages, { stash }) },
      }),
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    onToolCall: async ({ toolCall }) => {
      if (toolCall.toolName !== HISTORY_IMAGE_TOOL) return;
      const output = await historyImageOutput(stash, toolCall.input);
      reports.push({ answered: toolCall.input.image_md5, found: output.found });
      chat.addToolOutput({ tool: HISTORY_IMAGE_TOOL, toolCallId: toolCall.toolCallId, output });
    },
  });
  for (const turn of turns) {
    const files = turn.image ? [{ type: 'file', mediaType: turn.mediaType, url: turn.image, filename: 'shot.png' }] : undefined;
    await chat.sendMessage({ text: turn.text, files });
    await settled(chat);
  }
  const stored = (await stash.list()).map((r) => r.id);
  await stash.clear();
  return { status: chat.status, error: chat.error?.message ?? null, reports, stored, messages: chat.messages.length };
};
window.chatReady = true;
