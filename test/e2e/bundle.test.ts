import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, type EngineName } from '../helpers/harness.js';
import { MAIN, cliEnv, runMensajero, startServe, type CliEnv } from '../helpers/cli.js';
import { migrations } from '../../src/db/migrations/index.js';

// What ships is the esbuild bundle (scripts/build-bundle.mjs) the bin and `npm start` run, not the TypeScript the
// rest of the suite imports: a module the bundle fails to include, or a file it can no longer find, fails here.
const root = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};

async function appliedMigrations(engine: EngineName, url: string): Promise<string[]> {
  if (engine === 'sqlite') {
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      return (db.prepare('select name from kysely_migration order by name').all() as Array<{ name: string }>).map(
        (r) => r.name,
      );
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ name: string }>('select name from kysely_migration order by name')).rows.map(
      (r) => r.name,
    );
  } finally {
    await client.end();
  }
}

describe('the built bundle', () => {
  it('is what the mensajero command runs', () => {
    expect(relative(root, MAIN)).toBe(pkg.bin.mensajero);
  });

  it('prints the package version', async () => {
    const r = await runMensajero(['--version'], { ...(process.env as Record<string, string>) });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });
});

describeEngines('the built bundle against a database', (engine) => {
  let e: CliEnv;
  beforeAll(async () => {
    e = await cliEnv(engine);
  });
  afterAll(() => e.cleanup());

  it('applies every migration, each loaded from its own chunk', async () => {
    const r = await runMensajero(['migrate', '--json'], e.env);
    expect(r.stderr).toBe('');
    expect(r.json).toEqual({ migrated: true });
    expect(await appliedMigrations(engine, e.env.DATABASE_URL)).toEqual(Object.keys(migrations).sort());
  });

  it('creates an account', async () => {
    const r = await runMensajero(
      ['accounts', 'create', '--email', 'bundle@example.com', '--password', 'secret123', '--json'],
      e.env,
    );
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ email: 'bundle@example.com', apikey: expect.any(String) });
  });

  it('serves /healthz, the panel and its built assets', async () => {
    const serve = await startServe(e.env);
    try {
      expect((await fetch(`${serve.base}/healthz`)).status).toBe(200);
      const panel = await fetch(`${serve.base}/panel/`);
      expect(panel.status).toBe(200);
      const script = /\/panel\/assets\/panel\.[0-9a-f]{12}\.js/.exec(await panel.text())?.[0];
      expect(script).toBeDefined();
      const asset = await fetch(`${serve.base}${script}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toContain('text/javascript');
      expect((await asset.text()).length).toBeGreaterThan(0);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });
});
