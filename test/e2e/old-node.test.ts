import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAIN } from '../helpers/cli.js';

const MINIMUM = 22;

/** A Node.js older than the minimum on this machine (every `node` on PATH, and the system's), or undefined. */
function olderNode(): { path: string; version: string } | undefined {
  const candidates = new Set(['/usr/bin/node', '/usr/local/bin/node', '/bin/node']);
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir) candidates.add(join(dir, 'node'));
  for (const path of candidates) {
    try {
      const version = execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
      if (Number(/^v(\d+)\./.exec(version)?.[1]) < MINIMUM) return { path, version };
    } catch {
      /* not there, or not a node */
    }
  }
  return undefined;
}

it(`the minimum the command checks is package.json's engines (>=${MINIMUM})`, () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  expect(pkg.engines.node).toBe(`>=${MINIMUM}`);
  expect(readFileSync(new URL('../../src/app/main.ts', import.meta.url), 'utf8')).toContain(
    `const MIN_NODE_MAJOR = ${MINIMUM};`,
  );
});

const older = olderNode();
if (!older) console.warn(`no Node.js older than ${MINIMUM} on this machine: the command is not tried on one`);

describe.skipIf(!older)(`mensajero on Node.js older than ${MINIMUM} (${older?.version}, ${older?.path})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-old-node-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = { ...process.env, DATA_DIR: dir, DATABASE_URL: `sqlite:${join(dir, 'old.db')}`, PORT: '0' };

  it.each([['doctor'], ['serve'], ['migrate'], ['accounts', 'list', '--json']])(
    '`%s` stops with a clear message before any native module loads',
    (...args: string[]) => {
      const r = spawnSync(older!.path, [MAIN, ...args], { env, encoding: 'utf8', timeout: 30_000 });
      expect(r.signal, r.stderr).toBeNull();
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`mensajero needs Node.js ${MINIMUM} or later`);
      expect(r.stderr).toContain(older!.version);
      // Nothing was opened: no database file, no secret.
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it('`--version` still prints the version', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const r = spawnSync(older!.path, [MAIN, '--version'], { env, encoding: 'utf8', timeout: 30_000 });
    expect({ status: r.status, stdout: r.stdout.trim() }).toEqual({ status: 0, stdout: version });
  });
});
