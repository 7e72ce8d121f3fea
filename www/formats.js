// The demo's conversation in each API's own message shape. The app holds it
// as OpenAI Chat Completions messages (what toMultimodal gives); an app
// talking to another API builds that API's messages, and ctxpack compacts
// them in that shape. `call(id)` is the get_history_image call as that API
// delivers it. The API selector lists, in the order of ctxpack's own
// `formats()`, each format that has an entry here.

/** Texts and images of one OpenAI message. */
function pieces(message) {
  const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  return content.map((p) => {
    if (p.type !== 'image_url') return { text: p.text ?? '' };
    const url = p.image_url.url;
    const comma = url.indexOf(',');
    return { url, mime: url.slice(5, url.indexOf(';')), data: url.slice(comma + 1) };
  });
}

const textOf = (m) => pieces(m).filter((p) => 'text' in p).map((p) => p.text).join('\n');

export const APIS = {
  openai: {
    label: 'OpenAI Chat Completions',
    provider: 'openai',
    build: (m) => m,
    call: (id) => ({ id: 'call_1', type: 'function', function: { name: 'get_history_image', arguments: JSON.stringify({ image_md5: id }) } }),
  },
  'openai-responses': {
    label: 'OpenAI Responses',
    provider: 'openai',
    build: (m) => (m.role === 'user'
      ? { role: 'user', content: pieces(m).map((p) => ('text' in p ? { type: 'input_text', text: p.text } : { type: 'input_image', image_url: p.url, detail: 'auto' })) }
      : { role: m.role, content: textOf(m) }),
    call: (id) => ({ type: 'function_call', call_id: 'call_1', name: 'get_history_image', arguments: JSON.stringify({ image_md5: id }) }),
  },
  anthropic: {
    label: 'Anthropic Messages',
    provider: 'anthropic',
    build: (m) => (m.role === 'user'
      ? { role: 'user', content: pieces(m).map((p) => ('text' in p ? { type: 'text', text: p.text } : { type: 'image', source: { type: 'base64', media_type: p.mime, data: p.data } })) }
      : { role: m.role, content: textOf(m) }),
    call: (id) => ({ type: 'tool_use', id: 'toolu_1', name: 'get_history_image', input: { image_md5: id } }),
  },
  gemini: {
    label: 'Google Gemini',
    provider: 'gemini',
    build: (m) => ({
      role: m.role === 'assistant' ? 'model' : 'user',
      parts: pieces(m).map((p) => ('text' in p ? { text: p.text } : { inlineData: { mimeType: p.mime, data: p.data } })),
    }),
    call: (id) => ({ functionCall: { id: 'fc_1', name: 'get_history_image', args: { image_md5: id } } }),
  },
  'ai-sdk': {
    label: 'Vercel AI SDK',
    provider: 'openai',
    build: (m) => ({
      role: m.role,
      content: pieces(m).map((p) => ('text' in p ? { type: 'text', text: p.text } : { type: 'file', mediaType: p.mime, data: { type: 'data', data: p.data } })),
    }),
    call: (id) => ({ type: 'tool-call', toolCallId: 'call_1', toolName: 'get_history_image', input: { image_md5: id } }),
  },
  'gemini-interactions': {
    label: 'Gemini Interactions API',
    provider: 'gemini',
    build: (m) => (m.role === 'user'
      ? { type: 'user_input', content: pieces(m).map((p) => ('text' in p ? { type: 'text', text: p.text } : { type: 'image', data: p.data, mime_type: p.mime })) }
      : { type: 'model_output', content: [{ type: 'text', text: textOf(m) }] }),
    call: (id) => ({ type: 'function_call', id: 'fc_1', name: 'get_history_image', arguments: { image_md5: id } }),
  },
  langchain: {
    label: 'LangChain JS',
    provider: 'openai',
    build: (m) => ({
      role: m.role,
      content: pieces(m).map((p) => ('text' in p ? { type: 'text', text: p.text } : { type: 'image', mimeType: p.mime, data: p.data })),
    }),
    call: (id) => ({ id: 'call_1', name: 'get_history_image', args: { image_md5: id } }),
  },
};
