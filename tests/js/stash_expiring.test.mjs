// A StashAdapter whose store expires records by itself (`expires: true`,
// as a shared Redis does): a call looks up only the metas it names, in one
// `getMany`, writes each call's records in one atomic `putMany`, and never
// lists the store's keys nor sweeps it — so its cost does not grow with
// what else the store holds.
import test from 'node:test';
import assert from 'node:assert/strict';
import { Stash, compactContext, expandContext, fitContext, getHistoryImage } from 'ctxpack';
import { makeImage } from '../fixtures/make.mjs';

/** A Map-backed adapter that counts its calls; `keys()` lists everything (and is counted). */
function expiringAdapter({ expires = true, others = 0 } = {}) {
  const map = new Map();
  for (let i = 0; i < others; i++) map.set(`other-tenant-${i}`, { data: 'x' });
  const calls = { get: 0, getMany: 0, put: 0, putMany: 0, delete: 0, keys: 0, entries: [] };
  return {
    map,
    calls,
    expires,
    async get(key) { calls.get++; return map.get(key); },
    async getMany(keys) { calls.getMany++; return keys.map((k) => map.get(k)); },
    async put(key, value) { calls.put++; map.set(key, structuredClone(value)); },
    async putMany(entries) { calls.putMany++; calls.entries.push(entries.map(([k]) => k)); for (const [k, v] of entries) map.set(k, structuredClone(v)); },
    async delete(key) { calls.delete++; map.delete(key); },
    async keys() { calls.keys++; return [...map.keys()]; },
  };
}

const png = async (seed) => (await makeImage('png', 40, 30, seed)).toString('base64');
const history = async () => [
  { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${await png(1)}` } }, { type: 'text', text: 'one' }] },
  { role: 'assistant', content: 'ok' },
  { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${await png(2)}` } }, { type: 'text', text: 'two' }] },
  { role: 'assistant', content: 'ok' },
  { role: 'user', content: 'and now?' },
];

test('a store that expires by itself is never listed: one lookup and one atomic write a compaction', async () => {
  const adapter = expiringAdapter({ others: 5000 });
  const stash = await Stash.open({ backend: adapter, maxBytes: 10 });
  const messages = await history();
  const first = await compactContext(messages, { stash, slack: false });
  assert.equal(first.report.stashed, 2);
  assert.equal(first.report.written, 2);
  assert.equal(adapter.calls.keys, 0, 'keys() is never called');
  assert.equal(adapter.calls.getMany, 1, 'one lookup of the metas the call names');
  assert.equal(adapter.calls.putMany, 1, 'one atomic write');
  assert.equal(adapter.calls.put, 0);
  assert.equal(adapter.calls.entries[0].length, 4, "each record's image and meta together");
  // maxBytes is the store's own business: nothing swept, nothing evicted.
  assert.equal(first.report.evicted, 0);
  assert.equal(adapter.calls.delete, 0);

  // Sent again: the records are confirmed by their metas, nothing written.
  const again = await compactContext(messages, { stash, slack: false });
  assert.equal(again.report.stashed, 2);
  assert.equal(again.report.written, 0);
  assert.equal(adapter.calls.keys, 0);
  assert.equal(adapter.calls.putMany, 1);

  // Expansion and the tool find them without listing.
  const back = await expandContext(first.messages, { stash });
  assert.deepEqual(back.messages, messages);
  const id = first.messages[0].content[0].text.match(/history_[0-9a-f]{32}/)[0];
  const parts = await getHistoryImage(stash, id);
  assert.equal(parts.at(-1).type, 'image_url');
  await fitContext(messages, { model: 'gpt-4o', stash });
  assert.equal(adapter.calls.keys, 0, 'no call lists the store');
});

test('a record the store expired (its meta gone) is written again, never a placeholder for nothing', async () => {
  const adapter = expiringAdapter();
  const stash = await Stash.open({ backend: adapter });
  const messages = await history();
  await compactContext(messages, { stash, slack: false });
  for (const k of [...adapter.map.keys()]) if (k.endsWith('.meta')) adapter.map.delete(k);
  const out = await compactContext(messages, { stash, slack: false });
  assert.equal(out.report.written, 2);
  assert.equal(out.report.stashed, 2);
  assert.equal(adapter.calls.keys, 0);
});

test('an adapter without expires is listed and swept as before', async () => {
  const adapter = expiringAdapter({ expires: false });
  const stash = await Stash.open({ backend: adapter });
  await compactContext(await history(), { stash, slack: false });
  assert.ok(adapter.calls.keys >= 1);
  // It has putMany: the records still go in one write.
  assert.equal(adapter.calls.putMany, 1);
});
