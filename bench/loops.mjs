// The agent-loop rows of `npm run bench` (BENCH_ONLY=loops): one prompt,
// then a 50-step computer-use loop, a new screenshot each step, compacted
// as each step's request is sent — in the Responses API's
// `computer_call` / `computer_call_output` items as OpenAI's computer-use
// samples send them, and in the AI SDK's tool messages (a `tool-result`
// whose `content` output holds the screenshot). Per loop: bytes a request
// without ctxpack, with it (`keepRecentImages: 3`, the default slack) and
// with `offload` too (an upload function standing in for the app's,
// answering at once), and the share of steps whose request keeps the
// previous one as its prefix (what the provider's prompt cache reads), with
// the share of the previous request's bytes kept as prefix on average.
// Counts and bytes, never times.

import { SIZES } from './sizes.mjs';

// 50 steps of ~1 MB screenshots (BENCH_SMOKE: a few small ones).
const { steps: STEPS, shotB64: SHOT_B64 } = SIZES.loops;
const MB = 1024 * 1024;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/** Each loop's shape: its format, the prompt, step `n`'s call and its answer holding `shot`. */
const LOOPS = {
  'computer_call_output (openai-responses)': {
    format: 'openai-responses',
    provider: 'openai',
    prompt: () => ({ role: 'user', content: [{ type: 'input_text', text: 'Book a table for two at 8 pm on the restaurant site.' }] }),
    call: (n) => ({ type: 'computer_call', id: `cu_${n}`, call_id: `call_${n}`, action: { type: 'screenshot' }, pending_safety_checks: [], status: 'completed' }),
    result: (n, shot) => ({ type: 'computer_call_output', call_id: `call_${n}`, output: { type: 'computer_screenshot', image_url: `data:${shot.mime};base64,${shot.b64}` } }),
  },
  'tool messages (ai-sdk)': {
    format: 'ai-sdk',
    provider: 'openai',
    prompt: () => ({ role: 'user', content: [{ type: 'text', text: 'Book a table for two at 8 pm on the restaurant site.' }] }),
    call: (n) => ({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: `call_${n}`, toolName: 'computer', input: { action: 'screenshot' } }] }),
    result: (n, shot) => ({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: `call_${n}`, toolName: 'computer', output: { type: 'content', value: [{ type: 'file', mediaType: shot.mime, data: { type: 'data', data: shot.b64 } }] } }],
    }),
  },
};

/** The request of each step: the prompt and every call and answer so far. */
function requests(loop, shots) {
  const messages = [loop.prompt()];
  const out = [];
  for (let n = 0; n < STEPS; n++) {
    messages.push(loop.call(n), loop.result(n, shots[n]));
    out.push(messages.slice());
  }
  return out;
}

/** The loop sent step by step: each request's bytes, the prefix kept, the uploads. */
async function run(ctx, loop, reqs, mode) {
  const stash = await ctx.Stash.open({ backend: 'memory' });
  const out = { bytes: [], prefixKept: 0, prefixShare: [], uploads: 0, uploadedBytes: 0, offloaded: 0 };
  const upload = async ({ bytes }) => {
    out.uploads++;
    out.uploadedBytes += bytes;
    return { id: `file-${out.uploads}`, expiresAt: Date.now() + 30 * 24 * 3600 * 1000 };
  };
  let previous = null;
  for (const req of reqs) {
    let sent = req;
    if (mode !== 'none') {
      const { messages, report } = await ctx.compactContext(req, {
        stash,
        format: loop.format,
        keepRecentImages: 3,
        ...(mode === 'offload' ? { offload: { upload, provider: loop.provider } } : {}),
      });
      sent = messages;
      out.offloaded += report.offloaded ?? 0;
    }
    const texts = sent.map((m) => JSON.stringify(m));
    out.bytes.push(sum(texts.map((t) => Buffer.byteLength(t))) + texts.length + 1);
    if (previous && previous.every((t, i) => texts[i] === t)) out.prefixKept++;
    if (previous) {
      // The previous request's bytes this one starts with, message by message.
      let same = 0;
      while (same < previous.length && texts[same] === previous[same]) same++;
      const bytes = (xs) => sum(xs.map((t) => Buffer.byteLength(t)));
      out.prefixShare.push(bytes(previous.slice(0, same)) / bytes(previous));
    }
    previous = texts;
  }
  stash.free();
  return out;
}

/** The loop rows: prints them and returns the figures. */
export async function benchLoops(ctx, { imageOfSize }) {
  const shots = [];
  // About 1 MB of base64 a screenshot.
  for (let n = 0; n < STEPS; n++) shots.push(await imageOfSize(SHOT_B64, 7100 + n, 'png'));
  const result = {};
  console.log(`\nagent loops: one prompt, ${STEPS} steps, a new ~${(SHOT_B64 / MB).toFixed(2)} MB screenshot each, keepRecentImages: 3, default slack`);
  console.log('                                                   request a step (median, last)   all requests   prefix kept (bytes)   uploads');
  for (const [name, loop] of Object.entries(LOOPS)) {
    const reqs = requests(loop, shots);
    result[name] = {};
    for (const mode of ['none', 'ctxpack', 'offload']) {
      const r = await run(ctx, loop, reqs, mode);
      result[name][mode] = { medianBytes: median(r.bytes), lastBytes: r.bytes.at(-1), allBytes: sum(r.bytes), prefixKept: r.prefixKept / (STEPS - 1), prefixShare: sum(r.prefixShare) / r.prefixShare.length, uploads: r.uploads, offloaded: r.offloaded };
      const label = `${name}, ${mode === 'none' ? 'without ctxpack' : mode === 'ctxpack' ? 'ctxpack' : 'ctxpack + offload'}`;
      console.log(`  ${label.padEnd(60)} ${(median(r.bytes) / MB).toFixed(1).padStart(6)} MB, ${(r.bytes.at(-1) / MB).toFixed(1).padStart(5)} MB ${(sum(r.bytes) / MB).toFixed(0).padStart(10)} MB ${`${Math.round((100 * r.prefixKept) / (STEPS - 1))} % (${Math.round((100 * sum(r.prefixShare)) / r.prefixShare.length)} %)`.padStart(20)} ${String(r.uploads).padStart(9)}`);
    }
  }
  return result;
}
