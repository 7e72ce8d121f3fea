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

/** True when `message`, the assistant's reply, ends its turn: its last
 * step calls no tool the page must answer (after an answer the chat sends the
 * next request by itself, possibly after `sendMessage` resolved). */
function endsTurn(message) {
  const parts = message.parts;
  const step = parts.slice(parts.findLastIndex((p) => p.type === 'step-start') + 1);
  return !step.some((p) => (p.type.startsWith('tool-') || p.type === 'dynamic-tool') && !p.providerExecuted);
}

/** Runs the conversation: one turn per `{text, image?}`, the last ones without images. */
window.runChat = async (turns, dbName) => {
  const stash = await Stash.open({ name: dbName });
  const reports = [];
  // The page's signal that a turn is over: resolved by the chat's onFinish
  // for the request whose reply ends the turn (or that failed or stopped).
  let turnOver = null;
  let requests = 0;
  let chat;
  chat = new Chat({
    onFinish: ({ message, isError, isAbort }) => {
      if (isError || isAbort || endsTurn(message)) turnOver?.resolve();
    },
    transport: new DefaultChatTransport({
      api: '/api/chat',
      prepareSendMessagesRequest: async ({ id, messages }) => {
        requests++;
        return { body: { id, messages: await compactUIMessages(messages, { stash }) } };
      },
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    onToolCall: async ({ toolCall }) => {
      if (toolCall.toolName !== HISTORY_IMAGE_TOOL) return;
      const output = await historyImageOutput(stash, toolCall.input);
      reports.push({ answered: toolCall.input.image_md5, found: output.found });
      chat.addToolOutput({ tool: HISTORY_IMAGE_TOOL, toolCallId: toolCall.toolCallId, output });
    },
  });
  const perTurn = [];
  for (const turn of turns) {
    const files = turn.image ? [{ type: 'file', mediaType: turn.mediaType, url: turn.image, filename: 'shot.png' }] : undefined;
    const before = requests;
    const over = new Promise((resolve) => { turnOver = { resolve }; });
    await Promise.all([chat.sendMessage({ text: turn.text, files }), over]);
    perTurn.push({ requests: requests - before, status: chat.status });
  }
  const stored = (await stash.list()).map((r) => r.id);
  await stash.clear();
  return { status: chat.status, error: chat.error?.message ?? null, reports, stored, messages: chat.messages.length, perTurn };
};
window.chatReady = true;
