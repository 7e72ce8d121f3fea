// A Gemini file the provider lost, named as Gemini names it: `files.upload`
// answers the file's URI (https://…/v1beta/files/<name>), the API calls it
// `files/<name>` and its refusal says "the File <name>". repairContext
// finds the file by any of these, uploads its image again and gives the
// request back, sent through @google/genai's generateContent.
import test from 'node:test';
import assert from 'node:assert/strict';
import { GoogleGenAI } from '@google/genai';
import { Stash, compactContext, repairContext, parseProviderError } from 'ctxpack';
import { makeImage } from '../fixtures/make.mjs';

const images = await Promise.all([0, 1].map(async (i) => (await makeImage('png', 64 + i, 48, 500 + i)).toString('base64')));
const chat = [
  { role: 'user', parts: [{ text: 'a' }, { inlineData: { mimeType: 'image/png', data: images[0] } }] },
  { role: 'model', parts: [{ text: 'seen' }] },
  { role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: images[1] } }, { text: 'b' }] },
  { role: 'model', parts: [{ text: 'seen' }] },
  { role: 'user', parts: [{ text: 'and?' }] },
];
const uri = (name) => `https://generativelanguage.googleapis.com/v1beta/files/${name}`;
const answer = { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }] };

/** A fetch that answers every request with `status` and `body`, recording the request bodies. */
function answering(status, body) {
  const bodies = [];
  const fetch = async (input, init) => {
    const text = init?.body !== undefined ? String(init.body) : await input.clone().text();
    bodies.push(JSON.parse(text));
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, bodies };
}

/** The error @google/genai throws when Gemini answers that it lost `name`. */
async function geminiRefusal(messages, name) {
  const refusing = answering(403, { error: { code: 403, message: `You do not have permission to access the File ${name} or it may not exist.`, status: 'PERMISSION_DENIED' } });
  const ai = new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: 'http://127.0.0.1:9' } });
  const saved = globalThis.fetch;
  globalThis.fetch = refusing.fetch;
  try {
    return await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: messages }).then(() => null, (e) => e);
  } finally {
    globalThis.fetch = saved;
  }
}

test("a lost Gemini file is found by the name Gemini's refusal gives, uploaded again, and the request sent", async () => {
  const stash = await Stash.open({ backend: 'memory' });
  let n = 0;
  const calls = [];
  const upload = async (image) => {
    calls.push(image.md5);
    return { uri: uri(`f${++n}`) };
  };
  const options = { stash, keepRecentImages: 2, format: 'gemini', offload: { upload, minBytes: 0 } };
  const sent = await compactContext(chat, options);
  assert.equal(sent.messages[0].parts[1].fileData.fileUri, uri('f1'));
  assert.equal(sent.messages[2].parts[0].fileData.fileUri, uri('f2'));

  const error = await geminiRefusal(sent.messages, 'f1');
  assert.ok(error instanceof Error, 'the SDK threw');
  assert.deepEqual(parseProviderError(error), { kind: 'file-missing', provider: 'gemini', fileId: 'f1' });
  const repaired = await repairContext(sent.messages, error, { model: 'gemini-2.5-flash', ...options });
  assert.equal(repaired.reupload.uploaded, 1);
  assert.deepEqual(calls, [calls[0], calls[1], calls[0]], 'the lost image, again');
  assert.equal(repaired.messages[0].parts[1].fileData.fileUri, uri('f3'));
  assert.deepEqual(repaired.messages[2], sent.messages[2], 'the other file stays');
  assert.deepEqual(repaired.messages[4], chat[4]);

  const ok = answering(200, answer);
  const ai = new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: 'http://127.0.0.1:9' } });
  const saved = globalThis.fetch;
  globalThis.fetch = ok.fetch;
  try {
    await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: repaired.messages });
  } finally {
    globalThis.fetch = saved;
  }
  const body = JSON.stringify(ok.bodies[0]);
  assert.ok(!body.includes(uri('f1')) && body.includes(uri('f3')) && !body.includes(images[0].slice(0, 64)));
});

test("a lost Gemini file named by its API name (files/<name>) is repaired too", async () => {
  for (const named of ['files/f1']) {
    const stash = await Stash.open({ backend: 'memory' });
    let n = 0;
    const upload = async () => ({ uri: uri(`f${++n}`) });
    const options = { stash, keepRecentImages: 2, format: 'gemini', offload: { upload, minBytes: 0 } };
    const sent = await compactContext(chat, options);
    const error = await geminiRefusal(sent.messages, named);
    const repaired = await repairContext(sent.messages, error, { model: 'gemini-2.5-flash', ...options });
    assert.equal(repaired.reupload.uploaded, 1, named);
    assert.equal(repaired.messages[0].parts[1].fileData.fileUri, uri('f3'), named);
  }
});
