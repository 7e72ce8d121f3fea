// The model table against the model ids the installed SDKs declare: each id
// read from the SDK's own type declarations (so upgrading an SDK fails here
// until the table catches up) resolves to a row naming it or its
// generation, never a family's fallback; every row names its source and
// date; estimate says when a model is past its end-of-life date.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { modelIds, modelProfile, estimate } from 'ctxpack';

/** A file of an installed package, by its path inside the package. */
function packageFile(pkg, path) {
  return readFileSync(new URL(`../../node_modules/${pkg}/${path}`, import.meta.url), 'utf8');
}

/** The string literals of the union type `name` declares in `text`. */
function union(text, name) {
  const m = text.match(new RegExp(`type ${name} = ([^;]*);`));
  assert.ok(m, `type ${name} is declared`);
  return [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]);
}

/** Every model id the installed SDKs declare, by SDK. */
function declaredIds() {
  const anthropic = union(packageFile('@anthropic-ai/sdk', 'resources/messages/messages.d.ts'), 'Model');
  const shared = packageFile('openai', 'resources/shared.d.ts');
  const openai = [...union(shared, 'ChatModel'), ...union(shared, 'ResponsesModel')];
  return { anthropic, openai, gemini: googleIds(packageFile('@ai-sdk/google', 'dist/index.d.ts')) };
}

/** The ids @ai-sdk/google declares for language, interactions and speech models. */
function googleIds(text) {
  // One catalog of every id with its model types.
  const start = text.indexOf('declare const modelDefinitions');
  if (start >= 0) {
    const catalog = text.slice(start, text.indexOf('\n};', start));
    return [...catalog.matchAll(/'([^']+)': \{\s*readonly types: readonly \[([^\]]*)\]/g)]
      .filter(([, , types]) => /"(language|interactions|speech)"/.test(types))
      .map(([, id]) => id);
  }
  // Before it: the language models' definitions, and unions for the rest.
  const definitions = text.slice(text.indexOf('declare const languageModelDefinitions'), text.indexOf('type GoogleModelIds'));
  const language = [...definitions.matchAll(/^ {2}'([^']+)'/gm)].map((x) => x[1]);
  return [...language, ...union(text, 'GoogleInteractionsModelId'), ...union(text, 'GoogleSpeechModelId')];
}

test('every model id the installed SDKs declare resolves to a row naming it or its generation', () => {
  const sdks = declaredIds();
  const all = [...new Set(Object.values(sdks).flat())];
  assert.ok(sdks.anthropic.length > 10 && sdks.openai.length > 50 && sdks.gemini.length > 30, 'the declarations were read');
  const provider = (sdk) => (sdk === 'gemini' ? 'gemini' : sdk);
  const wrong = [];
  for (const [sdk, ids] of Object.entries(sdks)) {
    for (const id of ids) {
      const p = modelProfile(id);
      // The row is the id itself, or the id is the row's dated, aliased or variant id.
      const names = id === p.matched || id.startsWith(`${p.matched}-`);
      if (p.inferred || !names || p.provider !== provider(sdk)) wrong.push(`${id} → ${p.matched}${p.inferred ? ' (inferred)' : ''} ${p.provider}`);
    }
  }
  assert.deepEqual(wrong, [], `${wrong.length} of ${all.length} ids`);
  // The ids the SDKs mark deprecated carry their end-of-life date.
  const deprecated = packageFile('@anthropic-ai/sdk', 'resources/messages/messages.js');
  const block = deprecated.slice(deprecated.indexOf('const DEPRECATED_MODELS'));
  for (const [, id] of block.slice(0, block.indexOf('};')).matchAll(/'([^']+)':/g)) {
    assert.match(modelProfile(id).retired ?? '', /^\d{4}-\d{2}-\d{2}$/, id);
  }
});

test('every row of the table names its source and the date it was read', () => {
  const ids = modelIds();
  assert.ok(ids.length > 100);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) {
    const p = modelProfile(id);
    assert.equal(p.matched, id);
    assert.equal(p.inferred, false, id);
    assert.match(p.source, /\b[a-z0-9.-]+\.(com|dev)\/\S+.*, read \d{4}-\d{2}-\d{2}/, id);
  }
});

test('an id the table does not name gets its family newest row, and says so', () => {
  for (const [id, newest] of [['claude-sonnet-6', 'claude-sonnet-5-5'], ['gpt-7', 'gpt-6.2'], ['gemini-5-pro', 'gemini-4-neon']]) {
    const p = modelProfile(id);
    assert.deepEqual([p.matched, p.inferred], [newest, true], id);
    assert.deepEqual(p.tokens, modelProfile(newest).tokens, id);
  }
  for (const [id, row] of [['claude-sonnet-5-5-20260415', 'claude-sonnet-5-5'], ['anthropic/claude-sonnet-5.5', 'claude-sonnet-5-5'], ['claude-opus-5-5@20260301', 'claude-opus-5-5'], ['gemini-flash-latest', 'gemini-flash']]) {
    assert.deepEqual([modelProfile(id).matched, modelProfile(id).inferred], [row, false], id);
  }
});

test('a model that reads no images says so, and estimate says when a model is past its date', () => {
  const tts = modelProfile('gpt-4o-audio-preview');
  assert.deepEqual([tts.readsImages, tts.maxImages, tts.accepts], [false, 0, []]);
  assert.equal(modelProfile('claude-sonnet-5-5').readsImages, true);
  const messages = [{ role: 'user', content: 'hi' }];
  const retired = estimate(messages, { model: 'claude-sonnet-4-5' });
  assert.deepEqual([retired.modelRetired, retired.pastRetirement], ['2026-11-30', new Date().toISOString().slice(0, 10) >= '2026-11-30']);
  const current = estimate(messages, { model: 'claude-sonnet-5-5' });
  assert.deepEqual([current.modelRetired, current.pastRetirement], [null, false]);
  assert.equal(estimate(messages, { provider: 'openai' }).modelRetired, null);
});
