// The integration tests in the web worker extension host, after a reload: a
// new host on the same IndexedDB still serves what the first stashed.
import { extension, answerChecks, stashedBefore } from './suite.js';

export async function run() {
  const api = await extension();
  await answerChecks(api, (await stashedBefore()).md5);
}
