import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { MAIN } from '../../test/helpers/cli.js';

/** The built `mensajero --version` with its cache root in `cacheHome` (XDG_CACHE_HOME). */
function version(cacheHome: string, extra: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: cacheHome };
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  Object.assign(env, extra);
  const r = spawnSync(process.execPath, [MAIN, '--version'], { env, encoding: 'utf8' });
  expect(r.status).toBe(0);
}

const roots: string[] = [];
const cacheHome = () => {
  const root = mkdtempSync(join(tmpdir(), 'mensajero-cache-'));
  roots.push(root);
  return root;
};
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

it("keeps the CLI's compiled code in a folder only its user can open", () => {
  const home = cacheHome();
  version(home);
  const dir = join(home, 'mensajero', 'node-compile-cache');
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(readdirSync(dir).length).toBeGreaterThan(0);
});

it('runs without the cache when another account could write to its folder, or when told not to use one', () => {
  const shared = cacheHome();
  mkdirSync(join(shared, 'mensajero'));
  chmodSync(join(shared, 'mensajero'), 0o777);
  version(shared);
  expect(existsSync(join(shared, 'mensajero', 'node-compile-cache'))).toBe(false);

  const off = cacheHome();
  version(off, { NODE_DISABLE_COMPILE_CACHE: '1' });
  expect(existsSync(join(off, 'mensajero'))).toBe(false);
});
