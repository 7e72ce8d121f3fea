// js/entry/api.js, the functions every flavour's entry binds over its
// modules, with stand-in modules: the codec module is loaded once, again
// after a trap or a failed load, and repairContext reports every failure as
// a rejection. The Node flavour's CommonJS copy binds the same functions.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT } from '../../scripts/serve.mjs';
import { bindApi } from '../../js/entry/api.js';

const main = {
  __setPictureDrawer: () => {},
  __ctxpackError: (code, message, p) => Object.assign(new Error(message), { code, path: p }),
  __repairContext: async (messages, error, refusal, options, resize) => ({ changed: [], values: [], report: { resize }, keys: new Float64Array(messages.length), refusal }),
  // Answered as changes, as the main module answers: none here.
  __fitContext: async (messages, options, resize) => ({ changed: [], values: [], report: { resize }, keys: new Float64Array(messages.length) }),
};
const image = { data: new Uint8Array([1]), mime: 'image/png' };
const target = { width: 1, height: 1, mime: 'image/png', quality: 80 };

/** A codec stand-in whose transcodeImage runs `transcode`. */
const codec = (transcode) => ({ transcodeImage: transcode });

test('the codec module is loaded on first use, once, and again after a failed load', async () => {
  let loads = 0;
  const api = bindApi({
    main,
    extras: () => ({}),
    loadCodec: async () => {
      loads++;
      if (loads === 1) throw new Error('offline');
      return codec(() => 'encoded');
    },
  });
  assert.equal(api.codecLoaded(), false);
  await assert.rejects(api.codecResize(image, target), /offline/);
  assert.equal(api.codecLoaded(), false, 'the failed load is forgotten');
  assert.equal(await api.codecResize(image, target), 'encoded');
  assert.equal(await api.codecResize(image, target), 'encoded');
  assert.equal(loads, 2);
  assert.equal(api.codecLoaded(), true);
});

test('a trap gets the next call a fresh instance; another error keeps the instance', async () => {
  const instances = [];
  const api = bindApi({
    main,
    extras: () => ({}),
    loadCodec: () => {
      const n = instances.length;
      const m = codec(() => {
        if (n === 0) throw new WebAssembly.RuntimeError('unreachable');
        if (n === 1 && m.calls++ === 0) throw Object.assign(new Error('bad image'), { code: 'IMAGE_DECODE_FAILED' });
        return `instance ${n}`;
      });
      m.calls = 0;
      instances.push(m);
      return m;
    },
  });
  await assert.rejects(api.codecResize(image, target), WebAssembly.RuntimeError);
  await assert.rejects(api.codecResize(image, target), /bad image/);
  assert.equal(await api.codecResize(image, target), 'instance 1');
  assert.equal(instances.length, 2);
});

test('fitContext and repairContext resize with the default given, else with codecResize', async () => {
  const own = async () => 'canvas';
  const withDefault = bindApi({ main, extras: () => ({ parseProviderError: () => null }), loadFull: () => main, loadCodec: () => codec(() => 'x'), defaultResize: own });
  assert.equal((await withDefault.fitContext([], {})).report.resize, own);
  assert.equal((await withDefault.repairContext([], {}, {})).report.resize, own);
  const without = bindApi({ main, extras: () => ({ parseProviderError: () => null }), loadFull: () => main, loadCodec: () => codec(() => 'x') });
  assert.equal((await without.fitContext([], {})).report.resize, without.codecResize);
});

test('repairContext waits for the extras module, reads the refusal there, and rejects rather than throws', async () => {
  let ready = false;
  const api = bindApi({
    main,
    extras: () => ({
      parseProviderError: (e) => {
        if (!ready) throw new Error('extras module not instantiated');
        if (e === 'boom') throw new Error('unreadable');
        return { kind: 'too-many-images', limit: 10 };
      },
    }),
    extrasReady: async () => { ready = true; },
    loadFull: () => main,
    loadCodec: () => codec(() => 'x'),
  });
  assert.deepEqual((await api.repairContext([], 'refused', {})).refusal, { kind: 'too-many-images', limit: 10 });
  const pending = api.repairContext([], 'boom', {});
  assert.ok(pending instanceof Promise);
  await assert.rejects(pending, /unreadable/);
  const withoutReady = bindApi({ main, extras: () => ({ parseProviderError: () => { throw new Error('unreadable'); } }), loadFull: () => main, loadCodec: () => codec(() => 'x') });
  const rejected = withoutReady.repairContext([], 'boom', {});
  assert.ok(rejected instanceof Promise);
  await assert.rejects(rejected, /unreadable/);
});

test('the main and full modules are handed the extras module\'s drawing of pictures on the first call that may need one, once each', async () => {
  const handed = [];
  const drawn = [];
  const full = { ...main, __setPictureDrawer: (draw) => handed.push(['full', draw]) };
  const api = bindApi({
    main: { ...main, __setPictureDrawer: (draw) => handed.push(['main', draw]), __compactContext: async (messages) => ({ changed: [], values: [], report: {}, keys: new Float64Array(messages.length) }) },
    extras: () => ({ drawPicture: (text) => (drawn.push(text), 'iVBOR…') }),
    loadFull: () => full,
    loadCodec: () => codec(() => 'x'),
  });
  // Not at binding: in browsers the main module is instantiated by init().
  assert.equal(handed.length, 0);
  await api.fitContext([], {});
  await api.fitContext([], {});
  await api.compactContext([], {});
  await api.compactContext([], {});
  assert.deepEqual(handed.map(([to]) => to), ['full', 'main']);
  assert.equal(handed[0][1]('[Picture:history_x]'), 'iVBOR…');
  assert.deepEqual(drawn, ['[Picture:history_x]']);
});

test('the full module is loaded on the first call that needs it, once, and again after a failed load; each stash of the main module is handed over as the full module\'s own, opened once and closed with it', async () => {
  let loads = 0;
  const twins = [];
  const storages = [];
  const calledMain = [];
  class Stash {
    close() { this.closed = true; }
    free() { this.freed = true; }
  }
  // As wasm-bindgen's classes dispose of themselves.
  if (Symbol.dispose) Stash.prototype[Symbol.dispose] = Stash.prototype.free;
  const fullStash = { close() { this.closed = true; } };
  const full = {
    ...main,
    Stash: { __twin: async (storage) => { twins.push(storage); return fullStash; } },
    __fitContext: async (messages, options) => ({ changed: [], values: [], report: { stash: options.stash }, keys: new Float64Array(messages.length) }),
  };
  const api = bindApi({
    main: {
      ...main,
      Stash,
      CtxpackError: class extends Error {},
      __stashStorage: (stash) => {
        if (stash.closed) throw Object.assign(new Error('this stash was closed'), { name: 'CtxpackError', code: 'STASH_UNAVAILABLE' });
        if (stash.freed) throw Object.assign(new Error('expected a Stash from Stash.open()'), { name: 'CtxpackError', code: 'INVALID_OPTION' });
        storages.push(stash);
        return { map: 'records' };
      },
      // A call of the main module's on each call with a twinned stash would be noted here.
      __stashCheck: (stash) => calledMain.push(stash),
    },
    extras: () => ({}),
    loadFull: async () => {
      if (++loads === 1) throw new Error('offline');
      return full;
    },
    loadCodec: () => codec(() => 'x'),
  });
  assert.equal(api.fullLoaded(), false);
  const stash = new Stash();
  await assert.rejects(api.fitContext([], { stash }), /offline/);
  assert.equal(api.fullLoaded(), false, 'the failed load is forgotten');
  assert.equal((await api.fitContext([], { stash })).report.stash, fullStash);
  assert.equal((await api.fitContext([], { stash })).report.stash, fullStash);
  assert.equal(loads, 2);
  assert.deepEqual(twins, [{ map: 'records' }], 'the twin is opened once');
  assert.equal(storages.length, 1, 'what opens the twin is asked for once');
  assert.deepEqual(calledMain, [], 'a call with a stash that has its twin waits on no call of the main module');
  stash.close();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(fullStash.closed, true, 'closing the stash closes its twin');
  await assert.rejects(api.fitContext([], { stash }), (e) => e.code === 'STASH_UNAVAILABLE');
  // Freeing one (or disposing of it) lets go of its twin as closing does.
  for (const end of ['free', Symbol.dispose].filter(Boolean)) {
    fullStash.closed = false;
    const another = new Stash();
    assert.equal((await api.fitContext([], { stash: another })).report.stash, fullStash);
    another[end]();
    assert.equal(another.freed, true, 'the stash\'s own free ran');
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(fullStash.closed, true, `${String(end)} closes the twin`);
    await assert.rejects(api.fitContext([], { stash: another }), (e) => e.code === 'INVALID_OPTION');
  }
});

test('what calls remember of message objects is their stash\'s: another stash, or no stash, starts from nothing', async () => {
  const seen = [];
  const api = bindApi({
    main: {
      ...main,
      // Answers a key for each message it was asked to remember (-1).
      __compactContext: async (messages, options, keys) => {
        seen.push(keys && Array.from(keys));
        return { changed: [], values: [], report: {}, keys: Float64Array.from(keys ?? [], (k) => (k === -1 ? 7 : 0)) };
      },
    },
    extras: () => ({}),
    loadCodec: () => codec(() => 'x'),
  });
  const messages = [{ role: 'user', content: 'hello' }];
  const [a, b] = [{}, {}];
  for (let i = 0; i < 3; i++) await api.compactContext(messages, { stash: a });
  await api.compactContext(messages, { stash: b });
  await api.compactContext(messages, {});
  // Noted, read and remembered, then handed over by its key, with stash a;
  // stash b has only noted it, and a call without a stash remembers nothing.
  assert.deepEqual(seen, [[0], [-1], [7], [0], undefined]);
});

test('routeArtifact returns the extras module\'s answer or throws its error through the main module', () => {
  const api = bindApi({
    main,
    extras: () => ({ routeArtifact: (a) => (a ? { ok: { part: a } } : { error: { code: 'INVALID_ARGUMENT', message: 'no artifact', path: 'artifact' } }) }),
    loadCodec: () => codec(() => 'x'),
  });
  assert.deepEqual(api.routeArtifact('a', {}), { part: 'a' });
  assert.throws(() => api.routeArtifact(null, {}), (e) => e.code === 'INVALID_ARGUMENT' && e.path === 'artifact');
});

test('the Node flavour\'s CommonJS copy binds the same functions', () => {
  const cjs = createRequire(import.meta.url)(path.join(ROOT, 'dist/node/api.js'));
  const args = { main, extras: () => ({}), loadCodec: () => codec(() => 'x') };
  assert.deepEqual(Object.keys(cjs.bindApi(args)), Object.keys(bindApi(args)));
});
