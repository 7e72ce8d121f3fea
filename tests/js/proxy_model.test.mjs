// The proxy reads a body's own top-level "model" without parsing the body:
// a "model" inside the messages, in a string or after a long payload is not
// taken for it.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const require = createRequire(import.meta.url);
const { topLevelModel } = require('../../dist/proxy/model.cjs');

test('the top-level model is found wherever it lies among the body\'s fields', () => {
  assert.equal(topLevelModel('{"model":"claude-sonnet-5-5","messages":[]}'), 'claude-sonnet-5-5');
  assert.equal(topLevelModel(' {\n "messages": [{"role":"user","content":"{\\"model\\":\\"fake\\"}"}],\n "model" : "gpt-4o"}'), 'gpt-4o');
  assert.equal(topLevelModel('{"messages":[{"model":"nested","content":[{"model":"deeper"}]}],"stream":true,"model":"top"}'), 'top');
  assert.equal(topLevelModel(`{"input":[{"data":"${'A'.repeat(1 << 20)}\\\\"}],"model":"after-a-payload"}`), 'after-a-payload');
  assert.equal(topLevelModel('{"model":"caf\\u00e9"}'), 'café');
});

test('no top-level model, or a body that is not a JSON object, gives undefined', () => {
  for (const body of ['{"messages":[{"model":"nested"}]}', '[{"model":"x"}]', 'not json', '{"model":42}', '{"model":"unterminated', '']) {
    assert.equal(topLevelModel(body), undefined, body);
  }
});
