import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fmt } from './lib.js';
import { hashPassword } from '../src/lib/passwords.js';

// What ships (the esbuild bundle of scripts/build-bundle.mjs), and the same sources as tsc emits them, one file each.
const MAIN = resolve(import.meta.dirname, '../bundle/main.js');
const UNBUNDLED = resolve(import.meta.dirname, '../src/app/main.js');
const ROUNDS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function wallMs(args: string[], env: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`startup bench: ${args.join(' ')} failed: ${r.stderr}`);
  return performance.now() - t0;
}

const freePort = () =>
  new Promise<number>((r) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => r(port));
    });
  });

/** Milliseconds from spawning `args` to the first 200 of GET url(port); the process is killed afterwards. */
async function msToFirst200(args: string[], env: NodeJS.ProcessEnv, path: string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`startup bench: ${args.join(' ')} exited`);
      if (performance.now() - t0 > 30_000) throw new Error(`startup bench: ${args.join(' ')} did not answer`);
      const ok = await fetch(`http://127.0.0.1:${port}${path}`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return performance.now() - t0;
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  }
}

const BARE_FASTIFY = `import Fastify from 'fastify';
const app = Fastify();
app.get('/healthz', async () => ({ ok: true }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });`;

/**
 * Start-up: a CLI command (`accounts create`) against bare `node -e ''`, and
 * `mensajero serve` to its first 200 (/healthz) against a bare Fastify server
 * to its first 200; rounds interleaved, medians compared.
 */
export async function benchStartup(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-bench-startup-'));
  const env = { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'b.db')}`, DATA_DIR: dir, LOG_LEVEL: 'warn' };
  try {
    wallMs([MAIN, 'migrate'], env);
    const bare: number[] = [];
    const cli: number[] = [];
    const uncached: number[] = [];
    const fastify: number[] = [];
    const serve: number[] = [];
    const cliUnbundled: number[] = [];
    const serveUnbundled: number[] = [];
    const hashing: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // The command's own work: it hashes the password once (scrypt, as stored).
      const h0 = performance.now();
      await hashPassword('secret123');
      hashing.push(performance.now() - h0);
      bare.push(wallMs(['-e', ''], env));
      cli.push(
        wallMs(
          [MAIN, 'accounts', 'create', '--email', `bench${i}@example.com`, '--password', 'secret123', '--json'],
          env,
        ),
      );
      // The same command with Node's compile cache off: what the cache saves (the first round fills it).
      uncached.push(
        wallMs(
          [MAIN, 'accounts', 'create', '--email', `bench-nc${i}@example.com`, '--password', 'secret123', '--json'],
          { ...env, NODE_DISABLE_COMPILE_CACHE: '1' },
        ),
      );
      cliUnbundled.push(
        wallMs(
          [UNBUNDLED, 'accounts', 'create', '--email', `bench-ub${i}@example.com`, '--password', 'secret123', '--json'],
          env,
        ),
      );
      // The bare server runs from this package's directory so it finds the same fastify.
      fastify.push(await msToFirst200(['--input-type=module', '-e', BARE_FASTIFY], env, '/healthz'));
      serve.push(await msToFirst200([MAIN, 'serve'], env, '/healthz'));
      serveUnbundled.push(await msToFirst200([UNBUNDLED, 'serve'], env, '/healthz'));
    }
    const [b, c, f, s, h, u] = [bare, cli, fastify, serve, hashing, uncached].map(median);
    const [cu, su] = [cliUnbundled, serveUnbundled].map(median);
    return [
      '## Start-up: CLI command and `serve` to its first 200 (SQLite)',
      '',
      `Medians of ${ROUNDS} interleaved rounds, wall time from spawn, of the bundle the \`mensajero\` command runs (dist/bundle) unless the row says unbundled. The CLI keeps Node's compile cache in its own folder (src/lib/compile-cache.ts); the first round fills it, as the first command after an install does.`,
      '',
      '| path | ms |',
      '|---|---:|',
      `| bare \`node -e ''\` (baseline) | ${fmt(b)} |`,
      `| \`mensajero accounts create\` | ${fmt(c)} |`,
      `| of which hashing the password (scrypt, measured in the bench process) | ${fmt(h)} (${fmt((100 * h) / c)} %) |`,
      `| \`mensajero accounts create\` with the compile cache off (NODE_DISABLE_COMPILE_CACHE=1) | ${fmt(u)} |`,
      `| \`mensajero accounts create\` unbundled (dist/src/app/main.js, one file per module) | ${fmt(cu)} |`,
      `| bare Fastify server to first 200 (baseline) | ${fmt(f)} |`,
      `| \`mensajero serve\` to first 200 (/healthz) | ${fmt(s)} |`,
      `| \`mensajero serve\` unbundled (dist/src/app/main.js) to first 200 | ${fmt(su)} |`,
      '',
      `CLI ÷ bare node: **${fmt(c / b, 1)}×** (target ≤ 3×). serve ÷ bare Fastify: **${fmt(s / f, 1)}×** (target ≤ 2.5×).`,
      '',
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
