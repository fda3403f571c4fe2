// The quick start as a user runs it, on whatever `node` is first on PATH: start the built service on a fresh
// SQLite file, create an account, send one SMS, wait for its delivery report, open the panel. CI runs it on the
// oldest supported Node.js line (the full suite runs on the newest). It fails (exit code 1) unless the report says
// delivered. The steps are those of the README's five-minute tour (scripts/quick-start.json; a test holds the two
// together).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const main = join(import.meta.dirname, '..', 'dist', 'bundle', 'main.js');
const tour = JSON.parse(readFileSync(join(import.meta.dirname, 'quick-start.json'), 'utf8'));
const dataDir = mkdtempSync(join(tmpdir(), 'mensajero-smoke-'));
const env = { ...process.env, DATABASE_URL: `sqlite:${join(dataDir, 'smoke.db')}`, LOG_LEVEL: 'warn' };

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

function cli(args, input) {
  return JSON.parse(execFileSync(process.execPath, [main, ...args, '--json'], { env, encoding: 'utf8', input }));
}

async function waitFor(what, probe, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`smoke: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function post(base, path, apikey, body) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { apikey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.json();
}

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, [main, 'serve'], {
  env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
  stdio: 'inherit',
});
try {
  // The service migrates the new database as it starts: the account is created once it answers, as the quick start
  // does (two processes migrating one new SQLite file at the same instant would race).
  await waitFor('the service to answer', async () => (await fetch(`${base}/healthz`)).ok);
  const { apikey } = cli(tour.account, `${tour.password}\n`);
  const sent = await post(base, tour.send.path, apikey, tour.send.body);
  const reference = sent.references?.[0]?.reference;
  if (!sent.success || !reference) throw new Error(`smoke: send refused: ${JSON.stringify(sent)}`);
  // Reports take Mexico City dates: a day either side of today's UTC date covers every time zone.
  const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const row = await waitFor('the delivery report', async () => {
    const [from, to] = tour.report.days;
    const answer = await post(base, tour.report.path, apikey, { start_date: day(from), end_date: day(to) });
    const found = answer.report?.find((r) => r.reference === reference);
    return found?.status === 'delivered' ? found : undefined;
  });
  const panel = await fetch(`${base}${tour.panel}`);
  if (!panel.ok) throw new Error(`smoke: the panel answered ${panel.status}`);
  console.log(`smoke: Node ${process.version}: sent ${reference}, report ${row.status}, panel ${panel.status}`);
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
