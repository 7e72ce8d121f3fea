// One app server of the Redis tests, in an OS process of its own:
//
//   node redis_peer.mjs compact '{"client", "ports", "cluster", "prefix", "file"}'
//     compacts the messages in `file` into the stash; prints {messages, report}
//   node redis_peer.mjs answer '{…, "ids"}'
//     answers get_history_image for each of `ids` and expands the messages
//     in `file`; prints {answers, messages, report}
import { readFileSync } from 'node:fs';
import { Stash, compactContext, expandContext, getHistoryImage } from 'ctxpack';
import { redisStash } from 'ctxpack/redis';
import { connectCluster, connectSingle } from './redis_cluster.mjs';

const [job, json] = process.argv.slice(2);
const options = JSON.parse(json);
const { client, close } = options.cluster ? await connectCluster(options.client, options.ports) : await connectSingle(options.client, options.ports[0]);
try {
  const stash = await Stash.open({ backend: redisStash(client, { prefix: options.prefix }), ttlSeconds: 7200 });
  const messages = JSON.parse(readFileSync(options.file, 'utf8'));
  let out;
  if (job === 'compact') {
    out = await compactContext(messages, { stash, slack: false });
  } else {
    const answers = [];
    for (const id of options.ids) answers.push(await getHistoryImage(stash, `history_${id}`));
    out = { answers, ...(await expandContext(messages, { stash })) };
  }
  process.stdout.write(JSON.stringify({ pid: process.pid, ...out }));
} finally {
  await close();
}
