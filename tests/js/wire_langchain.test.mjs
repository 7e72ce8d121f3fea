// What LangChain JS sends, checked on the wire: each real chat model class —
// `ChatOpenAI` (Chat Completions, and the Responses API), `ChatAnthropic`,
// `ChatGoogleGenerativeAI` — is constructed with a capturing transport
// (`configuration.fetch`, `clientOptions.fetch`; Google's client takes no
// `fetch`, so a local server behind `baseUrl`) that records each request body
// and answers with the provider's own minimal reply. Everything ctxpack gives
// for LangChain — `toMultimodal`, `getHistoryImage`, `expandContext`'s
// restored images, the adapter's tool under its agent middleware, and
// `answerHistoryImageCall` — must reach the provider as an image in that
// API's own image shape, decoding to the original bytes, and no test image's
// base64 may appear anywhere else in a body.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ChatOpenAI } from '@langchain/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { Stash, answerHistoryImageCall, compactContext, expandContext, getHistoryImage, toMultimodal } from 'ctxpack';
import { ctxpackMiddleware, historyImageTool } from 'ctxpack/langchain';
import { IMAGES, REPLIES, assertFilesBeta, assertImagesOnWire, capturingFetch, capturingServer } from './support/wire.mjs';

const { chart, photo, shot } = IMAGES;

/**
 * Each chat model class: the API its body is in, where a tool's image goes
 * (ChatAnthropic takes it in the tool result; the others get it in a human
 * message after the tool message), and the model built on a transport that
 * answers with `replies`.
 */
const MODELS = [
  {
    name: 'ChatOpenAI', api: 'chat-completions', toolImage: 'user',
    make(replies) {
      const { fetch, bodies } = capturingFetch(replies);
      return { model: new ChatOpenAI({ model: 'gpt-4o', apiKey: 'test', configuration: { fetch } }), bodies, close: async () => {} };
    },
  },
  {
    name: 'ChatOpenAI (Responses API)', api: 'responses', toolImage: 'user',
    make(replies) {
      const { fetch, bodies } = capturingFetch(replies);
      return { model: new ChatOpenAI({ model: 'gpt-4o', apiKey: 'test', useResponsesApi: true, configuration: { fetch } }), bodies, close: async () => {} };
    },
  },
  {
    name: 'ChatAnthropic', api: 'anthropic', toolImage: 'tool',
    make(replies) {
      const { fetch, bodies, requests } = capturingFetch(replies);
      return { model: new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'test', clientOptions: { fetch } }), bodies, requests, close: async () => {} };
    },
  },
  {
    name: 'ChatGoogleGenerativeAI', api: 'gemini', toolImage: 'user',
    async make(replies) {
      const server = await capturingServer(replies);
      return { model: new ChatGoogleGenerativeAI({ model: 'gemini-2.5-flash', apiKey: 'test', baseUrl: server.url }), bodies: server.bodies, close: server.close };
    },
  },
];

/** Fixture bytes by file URL, for toMultimodal's resolver. */
const FILES = Object.fromEntries(Object.values(IMAGES).map((img) => [`file:///workspace/${img.name}`, img.bytes]));
const resolve = (url) => FILES[url] ?? null;

/** A user message built by toMultimodal from markdown naming `images`. */
async function userTurn(text, images) {
  const markdown = `${text} ${images.map((img) => `![${img.name}](file:///workspace/${img.name})`).join(' ')}`;
  const { content, missing } = await toMultimodal(markdown, { format: 'langchain', resolve });
  assert.deepEqual(missing, []);
  return { role: 'user', content };
}

/** The conversation as LangChain message objects: the chart earlier, the photo in the newest turn. */
async function conversation() {
  return [
    await userTurn('what is this chart?', [chart]),
    { role: 'assistant', content: 'sales by month' },
    await userTurn('compare this photo with the first chart', [photo]),
  ];
}

/** Sends `messages` through a fresh model of `m` answering `replies`; the bodies it sent. */
async function send(m, messages, replies = [REPLIES[m.api].text('ok')]) {
  const { model, bodies, close } = await m.make(replies);
  try {
    const reply = await model.invoke(messages);
    assert.equal(reply.text, 'ok');
  } finally {
    await close();
  }
  return bodies;
}

for (const m of MODELS) {
  test(`${m.name}: toMultimodal's parts reach the provider as images`, async () => {
    const turn = await userTurn('compare', [chart, photo, shot]);
    const [body] = await send(m, [turn]);
    assertImagesOnWire(m.api, body, { chart: 1, photo: 1, shot: 1 }, { chart: ['user'], photo: ['user'], shot: ['user'] });
  });

  test(`${m.name}: getHistoryImage's block reaches the provider as an image`, async () => {
    const stash = await Stash.open({ backend: 'memory' });
    await compactContext(await conversation(), { stash, format: 'langchain' });
    const parts = await getHistoryImage(stash, `history_${chart.id}`, { format: 'langchain' });
    const [body] = await send(m, [new HumanMessage({ content: [{ type: 'text', text: 'here it is again' }, ...parts] })]);
    assertImagesOnWire(m.api, body, { chart: 1 }, { chart: ['user'] });
  });

  test(`${m.name}: a compacted history sends placeholders; expandContext's restored images reach the provider as images`, async () => {
    const stash = await Stash.open({ backend: 'memory' });
    const { messages: compacted, report } = await compactContext(await conversation(), { stash, format: 'langchain' });
    assert.equal(report.stashed, 1);
    const [before] = await send(m, compacted);
    assertImagesOnWire(m.api, before, { chart: 0, photo: 1 });
    assert.ok(JSON.stringify(before).includes(`[Picture:history_${chart.id}]`), 'the placeholder is sent');
    const { messages: expanded } = await expandContext(compacted, { stash, format: 'langchain' });
    const [after] = await send(m, expanded);
    assertImagesOnWire(m.api, after, { chart: 1, photo: 1 }, { chart: ['user'], photo: ['user'] });
  });

  test(`${m.name}: the agent's middleware and tool send the fetched-back image as an image`, async () => {
    const stash = await Stash.open({ backend: 'memory' });
    const r = REPLIES[m.api];
    const { model, bodies, close } = await m.make([r.call(`history_${chart.id}`), r.text('the chart is higher')]);
    try {
      const agent = createAgent({ model, tools: [historyImageTool({ stash })], middleware: [ctxpackMiddleware({ stash })] });
      const messages = (await conversation()).map((msg) => (msg.role === 'user' ? new HumanMessage({ content: msg.content }) : new AIMessage(msg.content)));
      const result = await agent.invoke({ messages });
      assert.equal(result.messages.at(-1).text, 'the chart is higher');
    } finally {
      await close();
    }
    assert.equal(bodies.length, 2, 'one request with the call, one with its answer');
    assertImagesOnWire(m.api, bodies[0], { chart: 0, photo: 1 });
    assertImagesOnWire(m.api, bodies[1], { chart: 1, photo: 1 }, { chart: [m.toolImage], photo: ['user'] });
  });

  test(`${m.name}: answerHistoryImageCall's answer reaches the provider as an image`, async () => {
    const stash = await Stash.open({ backend: 'memory' });
    const { messages } = await compactContext(await conversation(), { stash, format: 'langchain' });
    const call = { id: 'call_1', name: 'get_history_image', args: { image_md5: chart.id } };
    const answer = await answerHistoryImageCall(stash, call, { format: 'langchain' });
    const [body] = await send(m, [...messages, new AIMessage({ content: '', tool_calls: [call] }), ...answer]);
    assertImagesOnWire(m.api, body, { chart: 1, photo: 1 }, { chart: ['user'], photo: ['user'] });
  });
}

/** Each API's reference to the file named `name`: the part that sends it. */
const REFERENCE = {
  responses: (name) => (o) => o.type === 'input_image' && o.file_id === name,
  anthropic: (name) => (o) => o.type === 'image' && o.source?.type === 'file' && o.source.file_id === name,
  gemini: (name) => (o) => o.fileData?.fileUri === name && o.fileData.mimeType === chart.mime,
};

/** The first object in `value` (depth first) for which `match` holds. */
function findObject(value, match) {
  if (Array.isArray(value)) return value.reduce((found, v) => found ?? findObject(v, match), null);
  if (!value || typeof value !== 'object') return null;
  if (match(value)) return value;
  return Object.values(value).reduce((found, v) => found ?? findObject(v, match), null);
}

for (const m of MODELS.filter((x) => REFERENCE[x.api])) {
  test(`${m.name}: with offload the agent's middleware sends the kept chart as a reference to its file, uploaded once to the model's provider`, async () => {
    const stash = await Stash.open({ backend: 'memory' });
    const uploads = [];
    const upload = async ({ md5, mediaType }) => {
      uploads.push([md5, mediaType]);
      return { id: `file-${md5.slice(0, 12)}`, uri: `https://generativelanguage.googleapis.com/v1beta/files/${md5.slice(0, 12)}` };
    };
    const r = REPLIES[m.api];
    const { model, bodies, requests, close } = await m.make([r.text('sales rose'), r.text('still rising')]);
    const reports = [];
    try {
      const agent = createAgent({ model, tools: [], middleware: [ctxpackMiddleware({ stash, keepRecentImages: 1, offload: { upload, minBytes: 0 }, onReport: (rep) => reports.push(rep) })] });
      const messages = (await conversation()).map((msg) => (msg.role === 'user' ? new HumanMessage({ content: msg.content }) : new AIMessage(msg.content)));
      await agent.invoke({ messages });
      await agent.invoke({ messages });
    } finally {
      await close();
    }
    assert.deepEqual(uploads, [[chart.id, chart.mime]], 'the chart, once');
    assert.deepEqual(reports.map((rep) => [rep.offloaded, rep.uploaded]), [[1, 1], [1, 0]]);
    const file = m.api === 'gemini' ? `https://generativelanguage.googleapis.com/v1beta/files/${chart.id.slice(0, 12)}` : `file-${chart.id.slice(0, 12)}`;
    for (const body of bodies) {
      assert.ok(findObject(body, REFERENCE[m.api](file)), `${m.name}: ${JSON.stringify(body).slice(0, 700)}`);
      assertImagesOnWire(m.api, body, { chart: 0, photo: 1 }, { photo: ['user'] });
    }
    // A Messages request that references a file carries the Files API beta.
    if (m.api === 'anthropic') for (const [i, req] of requests.entries()) assertFilesBeta(req.headers, `${m.name} request ${i}`);
  });
}

test('ChatOpenAI on Chat Completions: with offload the kept chart stays inline, and the report says why', async () => {
  const m = MODELS.find((x) => x.api === 'chat-completions');
  const stash = await Stash.open({ backend: 'memory' });
  const reports = [];
  const { model, bodies, close } = await m.make([REPLIES[m.api].text('ok')]);
  try {
    const agent = createAgent({ model, tools: [], middleware: [ctxpackMiddleware({ stash, keepRecentImages: 1, offload: { upload: async () => assert.fail('no upload'), minBytes: 0 }, onReport: (rep) => reports.push(rep) })] });
    const messages = (await conversation()).map((msg) => (msg.role === 'user' ? new HumanMessage({ content: msg.content }) : new AIMessage(msg.content)));
    await agent.invoke({ messages });
  } finally {
    await close();
  }
  assert.match(reports[0].offloadNote, /offload\.provider/);
  assertImagesOnWire(m.api, bodies[0], { chart: 1, photo: 1 });
});

test('ChatAnthropic: a call whose images all became placeholders sends no file reference, and asks for no Files API beta', async () => {
  const m = MODELS.find((x) => x.api === 'anthropic');
  const stash = await Stash.open({ backend: 'memory' });
  const reports = [];
  const { model, bodies, requests, close } = await m.make([REPLIES[m.api].text('ok')]);
  try {
    const agent = createAgent({ model, tools: [], middleware: [ctxpackMiddleware({ stash, keepRecentImages: 0, offload: { upload: async () => assert.fail('no upload'), minBytes: 0 }, onReport: (rep) => reports.push(rep) })] });
    const messages = (await conversation()).map((msg) => (msg.role === 'user' ? new HumanMessage({ content: msg.content }) : new AIMessage(msg.content)));
    await agent.invoke({ messages });
  } finally {
    await close();
  }
  assert.deepEqual([reports[0].stashed, reports[0].offloaded], [1, 0]);
  assert.equal(findObject(bodies[0], (o) => o.source?.type === 'file'), null);
  assert.ok(!(requests[0].headers['anthropic-beta'] ?? '').includes('files-api'), requests[0].headers['anthropic-beta']);
});
