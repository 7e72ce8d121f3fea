// The agent chat of the benchmark and plain JavaScript's walk of a re-sent
// history, shared by the Node rows (scripts/bench.mjs) and the page's
// (bench/resent.js).

/**
 * An agent's chat of `count` messages: tasks in text (every third with a
 * placeholder of `placeholders`), tool calls with JSON results, answers.
 */
export function agentChat(count, placeholders) {
  const chat = [{ role: 'system', content: 'You are a coding agent.' }];
  for (let i = 0; chat.length < count; i++) {
    const text = [{ type: 'text', text: `task ${i}: look at src/x${i}.rs and fix the failing test` }];
    if (i % 3 === 0) text.push({ type: 'text', text: placeholders[(i / 3) % placeholders.length] });
    chat.push({ role: 'user', content: text });
    chat.push({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src/x${i}.rs`, lines: [1, 80] }) } }] });
    chat.push({ role: 'tool', tool_call_id: `call_${i}`, content: JSON.stringify({ ok: true, path: `src/x${i}.rs`, text: 'fn main() {\n    println!("hello");\n}\n'.repeat(4), size: 123 + i }) });
    chat.push({ role: 'assistant', content: `I read src/x${i}.rs: it prints hello. Next, the tests.` });
  }
  chat.push({ role: 'user', content: 'and now?' });
  return chat;
}

/**
 * A re-sent turn as plain JavaScript: the OpenAI-format history with every
 * data-URL image before the newest user message replaced by its
 * placeholder; an id from `memo` (keyed by the caller's string, as ctxpack's
 * memo is), else `md5(b64)` after `validBase64(b64)` (the host's own, as
 * ctxpack's build for that host checks), the record written to `records`.
 */
export function plainResent(history, memo, records, { md5, validBase64 }) {
  let newest = history.length - 1;
  while (newest >= 0 && history[newest].role !== 'user') newest--;
  let written = 0;
  const messages = history.map((m, i) => {
    if (i >= newest || !Array.isArray(m.content)) return m;
    return { ...m, content: m.content.map((p) => {
      const url = p.type === 'image_url' && p.image_url.url;
      if (!url || !url.startsWith('data:')) return p;
      let id = memo.get(url);
      if (id === undefined) {
        const b64 = url.slice(url.indexOf(',') + 1);
        if (!validBase64(b64)) return p;
        id = md5(b64);
        memo.set(url, id);
        if (!records.has(id)) {
          records.set(id, { id, mime: url.slice(5, url.indexOf(';')), data: b64 });
          written++;
        }
      }
      return { type: 'text', text: `[Picture:history_${id}]` };
    }) };
  });
  return { messages, written };
}
