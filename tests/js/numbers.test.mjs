// Numbers in tool results come back exactly, whether the result is an
// object or JSON text, when ctxpack rewrites it (a binary field stashed).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Stash, sanitizeToolResult } from 'ctxpack';

const chart = readFileSync(new URL('../fixtures/chart.png', import.meta.url));
const png = Buffer.concat([chart, chart, chart]).toString('base64');
const numbers = [-0, 5e-324, 2.2250738585072014e-308, 0.30000000000000004, 1.7976931348623157e308, 9007199254740991, -9007199254740991, 123456789.12345679, 1e21];

test('an object tool result keeps -0, subnormals and 17-digit decimals', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const result = { n: numbers, nested: { z: -0 }, image: `data:image/png;base64,${png}` };
  const out = await sanitizeToolResult(result, { stash });
  assert.match(out.image, /^\[Binary:history_[0-9a-f]{32} /);
  assert.equal(out.n.length, numbers.length);
  out.n.forEach((v, i) => assert.ok(Object.is(v, numbers[i]), `${numbers[i]} came back as ${v}`));
  assert.ok(Object.is(out.nested.z, -0));
});

test('a JSON-text tool result keeps integers beyond 2^53 and every float bit for bit', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const text = `{"big":[9007199254740993,18446744073709551615,-9223372036854775808],"f":[5e-324,0.30000000000000004,-0.0],"image":"data:image/png;base64,${png}"}`;
  const out = await sanitizeToolResult(text, { stash });
  assert.match(out, /"big":\[9007199254740993,18446744073709551615,-9223372036854775808\]/);
  const f = JSON.parse(out).f;
  assert.ok(Object.is(f[0], 5e-324) && Object.is(f[1], 0.30000000000000004) && Object.is(f[2], -0));
});
