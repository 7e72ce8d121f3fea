// The TypeScript declarations of results cannot drift from what the Rust
// side returns: every interface named here is read out of the shipped
// .d.ts and compared, key by key, with real results of the built package —
// every key a result has is declared, and every key declared as required is
// there.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  Stash, compactContext, expandContext, estimate, parseMarkdownImages, toMultimodal, routeArtifact,
} from 'ctxpack';

const dts = readFileSync(new URL('../../dist/node/ctxpack.d.ts', import.meta.url), 'utf8');

/** The members of `export interface name { … }`: name → optional? */
function members(name) {
  const m = dts.match(new RegExp(`export interface ${name} \\{\\n([\\s\\S]*?)\\n\\}`));
  assert.ok(m, `interface ${name} is declared`);
  const out = new Map();
  for (const line of m[1].split('\n')) {
    const member = line.match(/^\s*(?:readonly\s+)?([A-Za-z_$][\w$]*)(\?)?:/);
    if (member) out.set(member[1], member[2] === '?');
  }
  return out;
}

function assertShape(name, value) {
  const declared = members(name);
  for (const key of Object.keys(value)) {
    assert.ok(declared.has(key), `${name}.${key} is returned but not declared`);
  }
  for (const [key, optional] of declared) {
    if (!optional) assert.ok(key in value, `${name}.${key} is declared required but missing`);
  }
}

const png = readFileSync(new URL('../fixtures/chart.png', import.meta.url)).toString('base64');
const gif = readFileSync(new URL('../fixtures/anim.gif', import.meta.url)).toString('base64');

test('reports of compactContext and expandContext match CompactReport, CompactFailure, ExpandReport', async () => {
  const stash = await Stash.open({ backend: 'memory' });
  const messages = [
    { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,@@@@' } }] },
    { role: 'user', content: 'newest' },
  ];
  const { messages: out, report } = await compactContext(messages, { stash, model: { provider: 'anthropic' } });
  assertShape('CompactReport', report);
  assert.equal(report.failures.length, 1);
  assertShape('CompactFailure', report.failures[0]);
  const expanded = await expandContext(out, { stash });
  assertShape('ExpandReport', expanded.report);
  const entries = await stash.list();
  assertShape('StashEntry', entries[0]);
});

test('estimate, parseMarkdownImages, toMultimodal and routeArtifact match their interfaces', async () => {
  const messages = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] }];
  const report = estimate(messages, { provider: 'openai' });
  assertShape('EstimateReport', report);
  assertShape('RequestLimits', report.limits);

  assertShape('MarkdownImage', parseMarkdownImages('![a](x.png "t")')[0]);

  const text = `see ![c](data:image/png;base64,${gif}) and ![gone](file:///nowhere.png)`;
  const mm = await toMultimodal(text);
  assertShape('MultimodalContent', mm);
  assertShape('ImageInfo', mm.images[0]);
  assertShape('MissingImage', mm.missing[0]);
  assertShape('MimeCorrection', mm.corrected[0]);

  assertShape('RouteResult', routeArtifact({ id: 'a', filename: 'a.png', base64: png }, { vision: true }));
});
