// Debian's redis-server for the tests: started on a free port of
// 127.0.0.1 with append-only persistence in a folder of its own.
import { spawn } from 'node:child_process';
import net from 'node:net';

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** redis-server on `port`, its data in `dir`; resolves with the process once it answers. */
export async function startRedis(port, dir) {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '', '--daemonize', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((resolve) => {
      const c = net.connect(port, '127.0.0.1', () => { c.end(); resolve(true); });
      c.on('error', () => resolve(false));
    });
    if (up) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill();
  throw new Error('redis-server did not start');
}
