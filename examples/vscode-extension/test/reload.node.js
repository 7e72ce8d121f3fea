// The integration tests in the desktop (Node) extension host, after a
// reload: a new host on the same storage still serves what the first stashed.
'use strict';
const { check, extension, answerChecks, stashedBefore } = require('./suite.js');

async function run() {
  const api = await extension();
  const { md5, messages } = await stashedBefore();
  await answerChecks(api, md5);
  const { messages: shown, report } = await require('ctxpack').expandContext(messages, { stash: api.stash });
  check(report.missing.length === 0 && !JSON.stringify(shown).includes('[Picture:history_'), 'the history expands again');
}

module.exports = { run };
