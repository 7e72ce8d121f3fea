// `npm start`: installs what is missing, builds the package, and serves the
// demo page on localhost.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
execFileSync('bash', ['scripts/setup.sh'], { cwd: root, stdio: 'inherit' });
execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });

const { serve } = await import('./serve.mjs');
const port = Number(process.env.PORT || 8080);
const server = await serve({ port });
console.log(`\nctxpack demo: ${server.url}/www/\n(Ctrl+C to stop)`);
