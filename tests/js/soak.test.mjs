// A soak in headless Chromium: 2,000 sends of two growing conversations
// against one IndexedDB stash, with an injected clock (30 s a send), a TTL
// of 27,000 s, sweeps every 100 sends and a 2 MB budget that the two
// conversations together outgrow. Conversation A goes quiet halfway, so its
// images are evicted (least recently used) and then expire, while B — which
// fits the budget alone — keeps every one. Afterwards every placeholder expands to its
// exact original bytes or is reported missing because its record is gone —
// never anything else. Prints the counts.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { serve } from '../../scripts/serve.mjs';
import { launch } from './support/browser.mjs';

let server;
let browser;
before(async () => {
  server = await serve();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('2,000 sends with TTL sweeps and eviction: every placeholder is exact or honestly missing', { timeout: 600_000 }, async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}/tests/js/support/blank.html`);
  const out = await page.evaluate(async () => {
    const mod = await import('/dist/web/index.js');
    await mod.default();
    const { Stash, compactContext, expandContext } = mod;
    let now = 1_800_000_000_000;
    const name = `soak-${Math.random().toString(36).slice(2)}`;
    const stash = await Stash.open({ name, ttlSeconds: 27_000, maxBytes: 2_000_000, now: () => now });
    const originals = new Map();
    let seed = 7;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const newImage = (which) => {
      const bytes = new Uint8Array(which === 'A' ? 5000 + (rand() % 2000) : 1200 + (rand() % 600));
      for (let i = 0; i < bytes.length; i++) bytes[i] = rand() & 0xff;
      bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 0);
      let bin = '';
      for (const b of bytes) bin += String.fromCharCode(b);
      const b64 = btoa(bin);
      return b64;
    };
    const conversations = { A: [], B: [] };
    const totals = { stashed: 0, failed: 0, expired: 0, evicted: 0, sweptExpired: 0, sweptEvicted: 0, overBudget: 0 };
    for (let send = 0; send < 2000; send++) {
      now += 30_000;
      const which = send < 1000 && send % 2 === 0 ? 'A' : 'B';
      const history = conversations[which];
      const content = [{ type: 'text', text: `${which} message ${send}` }];
      if (send % 3 === 0) {
        const b64 = newImage(which);
        content.push({ type: 'image_url', image_url: { url: `data:image/png;base64,${b64}` } });
        originals.set(b64, true);
      }
      history.push({ role: 'user', content });
      const { messages, report } = await compactContext(history, { stash });
      totals.stashed += report.stashed;
      totals.failed += report.failed;
      totals.expired += report.expired;
      totals.evicted += report.evicted;
      totals.overBudget += report.overBudget ? 1 : 0;
      conversations[which] = [...messages, { role: 'assistant', content: `reply ${send}` }];
      if (send % 100 === 99) {
        const swept = await stash.sweep();
        totals.sweptExpired += swept.expired;
        totals.sweptEvicted += swept.evicted;
      }
    }
    // The final newest user turn holds its image inline; everything else is a placeholder.
    const live = new Set((await stash.list()).map((e) => e.id));
    const result = { totals, conversations: {} };
    for (const which of ['A', 'B']) {
      const { messages, report } = await expandContext(conversations[which], { stash });
      let exact = 0;
      let wrong = 0;
      for (const m of messages) {
        if (!Array.isArray(m.content)) continue;
        for (const p of m.content) {
          if (p.type !== 'image_url') continue;
          const b64 = p.image_url.url.slice(p.image_url.url.indexOf(',') + 1);
          if (originals.has(b64)) exact++;
          else wrong++;
        }
      }
      const missingButLive = report.missing.filter((x) => live.has(x.id)).length;
      result.conversations[which] = { exact, wrong, missing: report.missing.length, missingButLive, corrupted: report.corrupted };
    }
    stash.close();
    await new Promise((r) => { const d = indexedDB.deleteDatabase(name); d.onsuccess = d.onerror = r; });
    return result;
  });
  await page.close();
  console.log(`soak: ${JSON.stringify(out)}`);
  const { A, B } = out.conversations;
  assert.equal(A.wrong + B.wrong, 0, 'no image ever comes back different');
  assert.equal(A.missingButLive + B.missingButLive, 0, 'missing only when the record is gone');
  assert.equal(A.corrupted + B.corrupted, 0);
  assert.ok(A.missing > 0, 'the quiet conversation lost images to TTL or eviction (the soak exercised them)');
  assert.equal(B.missing, 0, 'the active conversation lost nothing');
  assert.ok(B.exact > 300);
  assert.equal(out.totals.failed, 0);
  const t = out.totals;
  assert.ok(t.evicted + t.sweptEvicted > 0, 'eviction was in play');
  assert.ok(t.expired + t.sweptExpired > 0, 'TTL expiry was in play');
});
