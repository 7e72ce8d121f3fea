// parseProviderError reads the refusals the real SDKs throw — the error
// objects themselves, built by each SDK from the provider's response — and
// the bare texts.
import test from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { parseProviderError } from 'ctxpack';

/** A fetch that refuses every request with `status` and `body`. */
const refusing = (status, body) => async () =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

async function thrown(f) {
  try {
    await f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a refusal');
}

test('the Anthropic SDK’s BadRequestError for an oversized image', async () => {
  const client = new Anthropic({ apiKey: 'test', maxRetries: 0, fetch: refusing(400, { type: 'error', error: { type: 'invalid_request_error', message: 'messages.2.content.0.image.source.base64: image exceeds 5 MB maximum: 8259148 bytes > 5242880 bytes' } }) });
  const e = await thrown(() => client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }));
  assert.ok(e instanceof Anthropic.BadRequestError);
  assert.deepEqual(parseProviderError(e), {
    kind: 'image-too-large', provider: 'anthropic', limit: 5242880, actual: 8259148, messageIndex: 2, path: 'messages.2.content.0.image.source.base64',
  });
});

test('the Anthropic SDK’s error for too many images and for the many-image rule', async () => {
  const count = new Anthropic({ apiKey: 'test', maxRetries: 0, fetch: refusing(400, { type: 'error', error: { type: 'invalid_request_error', message: 'too many images and documents: 101 + 0 > 100' } }) });
  const e1 = await thrown(() => count.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }));
  assert.deepEqual(parseProviderError(e1), { kind: 'too-many-images', provider: 'anthropic', limit: 100, actual: 101, documents: 0 });
  const dims = new Anthropic({ apiKey: 'test', maxRetries: 0, fetch: refusing(400, { type: 'error', error: { type: 'invalid_request_error', message: 'messages.19.content.27.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels' } }) });
  const e2 = await thrown(() => dims.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }));
  assert.equal(parseProviderError(e2).kind, 'image-dimensions');
  assert.equal(parseProviderError(e2).limit, 2000);
  assert.equal(parseProviderError(e2).messageIndex, 19);
});

test('the OpenAI SDK’s BadRequestError for context length', async () => {
  const client = new OpenAI({ apiKey: 'test', maxRetries: 0, fetch: refusing(400, { error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }) });
  const e = await thrown(() => client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }));
  assert.ok(e instanceof OpenAI.BadRequestError);
  assert.deepEqual(parseProviderError(e), { kind: 'context-length', provider: 'openai', limit: 128000, actual: 130512 });
});

test('the Gemini SDK’s ApiError for context length', async () => {
  const ai = new GoogleGenAI({ apiKey: 'test', httpOptions: { fetch: refusing(400, { error: { code: 400, message: 'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).', status: 'INVALID_ARGUMENT' } }) } });
  const e = await thrown(() => ai.models.generateContent({ model: 'gemini-2.5-pro', contents: 'hi' }));
  assert.deepEqual(parseProviderError(e), { kind: 'context-length', provider: 'gemini', limit: 1048576, actual: 1200293 });
});

test('a lost file reference, as each SDK throws it: kind file-missing with the id; repairContext does not take it', async () => {
  const openai = new OpenAI({ apiKey: 'test', maxRetries: 0, fetch: refusing(404, { error: { message: 'No such File object: file-9GUj8cAXGBmwvdHSJXNxfH', type: 'invalid_request_error', param: 'id', code: null } }) });
  const e1 = await thrown(() => openai.responses.create({ model: 'gpt-5', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-9GUj8cAXGBmwvdHSJXNxfH', detail: 'auto' }] }] }));
  assert.ok(e1 instanceof OpenAI.NotFoundError);
  assert.deepEqual(parseProviderError(e1), { kind: 'file-missing', provider: 'openai', fileId: 'file-9GUj8cAXGBmwvdHSJXNxfH' });
  const anthropic = new Anthropic({ apiKey: 'test', maxRetries: 0, fetch: refusing(404, { type: 'error', error: { type: 'not_found_error', message: 'File not found: file_011CNha8iCJcU1wXNR6q4V8w' } }) });
  const e2 = await thrown(() => anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 8, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'file_011CNha8iCJcU1wXNR6q4V8w' } }] }] }));
  assert.ok(e2 instanceof Anthropic.NotFoundError);
  assert.deepEqual(parseProviderError(e2), { kind: 'file-missing', provider: 'anthropic', fileId: 'file_011CNha8iCJcU1wXNR6q4V8w' });
  const ai = new GoogleGenAI({ apiKey: 'test', httpOptions: { fetch: refusing(403, { error: { code: 403, message: 'You do not have permission to access the File xfr2ktwx3cb5 or it may not exist.', status: 'PERMISSION_DENIED' } }) } });
  const e3 = await thrown(() => ai.models.generateContent({ model: 'gemini-2.5-pro', contents: [{ role: 'user', parts: [{ fileData: { fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/xfr2ktwx3cb5', mimeType: 'image/png' } }] }] }));
  assert.deepEqual(parseProviderError(e3), { kind: 'file-missing', provider: 'gemini', fileId: 'xfr2ktwx3cb5' });
  // Not about size or images: no tighter limit fixes it.
  const { repairContext } = await import('ctxpack');
  await assert.rejects(repairContext([{ role: 'user', content: 'hi' }], e1, { model: 'gpt-5' }), (e) => e.code === 'NOT_A_REFUSAL' && e.cause === e1);
});

test('texts, and what is not a refusal', () => {
  assert.deepEqual(parseProviderError('{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}'), { kind: 'request-too-large', provider: 'anthropic' });
  assert.deepEqual(parseProviderError("{'object': 'error', 'message': 'At most 5 image(s) may be provided in one request.', 'type': 'BadRequestError', 'param': None, 'code': 400}"), { kind: 'too-many-images', provider: 'vllm', limit: 5 });
  assert.equal(parseProviderError('Rate limit reached for gpt-4o'), null);
  assert.equal(parseProviderError(undefined), null);
  assert.equal(parseProviderError(42), null);
});

test('Anthropic’s too-much-media and input + max_tokens refusals, through the SDK', async () => {
  // Wordings quoted in anthropics/claude-code#19822 and continuedev/continue#6080.
  const media = new Anthropic({ apiKey: 'test', maxRetries: 0, fetch: refusing(400, { type: 'error', error: { type: 'invalid_request_error', message: 'Too much media: 3 document pages + 102 images > 100' } }) });
  const e1 = await thrown(() => media.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }));
  assert.deepEqual(parseProviderError(e1), { kind: 'too-many-images', provider: 'anthropic', limit: 100, actual: 105, documents: 3 });
  const window = new Anthropic({ apiKey: 'test', maxRetries: 0, fetch: refusing(400, { type: 'error', error: { type: 'invalid_request_error', message: 'input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again' } }) });
  const e2 = await thrown(() => window.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 8192, messages: [{ role: 'user', content: 'hi' }] }));
  assert.deepEqual(parseProviderError(e2), { kind: 'context-length', provider: 'anthropic', limit: 200000, actual: 207951, outputTokens: 8192 });
});

test('OpenAI-style refusals that count the completion, and Azure’s configured limit', () => {
  // evalstate/fast-agent#621 (DeepSeek) and BerriAI/litellm#15968 (Azure OpenAI).
  assert.deepEqual(parseProviderError("This model's maximum context length is 131072 tokens. However, you requested 131134 tokens (122942 in the messages, 8192 in the completion). Please reduce the length of the messages or completion."),
    { kind: 'context-length', provider: 'openai', limit: 131072, actual: 131134, outputTokens: 8192 });
  assert.deepEqual(parseProviderError('AzureException BadRequestError - Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 509178 tokens. Please reduce the length of the messages.'),
    { kind: 'context-length', provider: 'openai', limit: 272000, actual: 509178 });
});

test('repairContext brings the input down to the window less max_tokens', async () => {
  const { repairContext, estimate, Stash } = await import('ctxpack');
  const { makeScreenshot } = await import('../fixtures/make.mjs');
  const shot = (await makeScreenshot(1000, 1000, 4)).toString('base64');
  const turn = (i) => [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: shot } }, { type: 'text', text: `step ${i}` }] }, { role: 'assistant', content: 'noted' }];
  const messages = [...turn(0), ...turn(1), ...turn(2), ...turn(3), { role: 'user', content: 'and now?' }];
  const full = estimate(messages, { model: 'claude-sonnet-4-5' }).totalTokens;
  // The provider counted the input as we do; max_tokens takes 4000 of a window 2000 over the input.
  const refusal = `input length and \`max_tokens\` exceed context limit: ${full} + 4000 > ${full + 2000}, decrease input length or \`max_tokens\` and try again`;
  const stash = await Stash.open({ backend: 'memory' });
  const { report, refusal: read } = await repairContext(messages, refusal, { model: 'claude-sonnet-4-5', stash });
  assert.equal(read.outputTokens, 4000);
  assert.ok(report.tokensAfter <= full + 2000 - 4000, `${report.tokensAfter} tokens; the input may hold ${full - 2000}`);
  assert.ok(report.images.filter((i) => i.action === 'stashed').length >= 2);
});
