// Start a command that serves the demo (node demo/serve.mjs, npm start) on a free port, in its
// own process group, and wait for the URL it prints.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Resolves to { url, port, exited(), stop() } once the command prints its http:// URL. */
export function startServer(cmd, args) {
  const child = spawn(cmd, args, {
    cwd: root,
    env: { ...process.env, PORT: '0' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exited = false,
    out = '';
  child.on('exit', () => {
    exited = true;
  });
  const stop = () => {
    if (!exited) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* gone */
      }
    }
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no URL printed: ${out}`));
    }, 60000);
    const onData = (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[0], port: Number(m[1]), exited: () => exited, stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}: ${out}`));
    });
  });
}
