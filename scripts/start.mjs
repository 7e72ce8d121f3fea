// `npm start`: installs what the build is missing (Rust, Node and npm are all
// it needs; the browser and the other test tools are `npm test`'s), builds the
// package, makes the demo's full-size samples when missing, and serves the
// demo page on localhost.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
execFileSync('bash', ['scripts/setup.sh'], { cwd: root, stdio: 'inherit' });
execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });

const { ensureDemoSamples } = await import('./demo-samples.mjs');
await ensureDemoSamples();
const { serve } = await import('./serve.mjs');
const port = Number(process.env.PORT || 8080);
// Port 8080 (or $PORT); another free port when that one is taken.
const server = await serve({ port }).catch((e) => (e.code === 'EADDRINUSE' ? serve({ port: 0 }) : Promise.reject(e)));
console.log(`\nctxpack demo: ${server.url}/www/\n(Ctrl+C to stop)`);
