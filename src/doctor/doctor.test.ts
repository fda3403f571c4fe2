import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { engines } from '../../test/helpers/harness.js';
import { cliEnv, runMensajero, type CliEnv } from '../../test/helpers/cli.js';
import { closedPort, doctor } from '../../test/helpers/doctor.js';
import { openDatabase } from '../db/engine.js';

/** An install as an operator leaves it: migrated, one account (so one stored key), on a port nothing holds. */
async function installed(cli: CliEnv): Promise<Record<string, string>> {
  const env = { ...cli.env, PORT: String(await closedPort()), HOST: '127.0.0.1' };
  const created = await runMensajero(['accounts', 'create', '--email', 'a@example.com', '--json'], {
    ...env,
    MENSAJERO_PASSWORD: 'a long enough password',
  });
  expect(created.code, created.stderr).toBe(0);
  return env;
}

async function withDatabase(
  env: Record<string, string>,
  work: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<void>,
) {
  const db = await openDatabase(env.DATABASE_URL);
  try {
    await work(db);
  } finally {
    await db.close();
  }
}

for (const engine of engines) {
  describe(`mensajero doctor (${engine})`, () => {
    // Migrated as `installed` would leave it: a copy of the test process's migrated database, not a run of every
    // migration by the first command. The test of a database nobody migrated starts from an empty one.
    let cli: CliEnv;
    beforeEach(async () => {
      cli = await cliEnv(engine, {}, { migrated: true });
    });
    afterEach(() => cli.cleanup());

    it('is all green on a freshly installed database serving Mexico, and exits 0', async () => {
      const r = await doctor({ ...(await installed(cli)), SMS_COUNTRY_CODES: '52' });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json.ok).toBe(true);
      expect(r.json.checks.map((c: { status: string }) => c.status)).toEqual(r.json.checks.map(() => 'ok'));
      expect(Object.keys(r.checks)).toEqual([
        'configuration',
        'database',
        'secret',
        'http port',
        'carrier simulator',
        'routes',
        'prices',
      ]);
      expect(r.checks.secret.detail).toContain('opens the stored API keys');
      expect(r.checks.database.detail).toContain('reachable and migrated');
    });

    it('warns about accepted country codes without an SMS price, until the deployment prices them', async () => {
      const env = await installed(cli);
      const before = await doctor(env);
      expect(before.code, before.stderr).toBe(0);
      expect(before.checks.prices.status).toBe('warn');
      expect(before.checks.prices.detail).toContain('SMS_COUNTRY_CODES accepts 1, 57 with no SMS price');
      const price = (prefix: string, channel = 'sms') =>
        runMensajero(['prices', 'set', '--channel', channel, '--prefix', prefix, '--credits', '2'], env);
      // A price for part of a code (1212) or for another channel leaves the code unpriced.
      expect((await price('1212')).code).toBe(0);
      expect((await price('57', 'rcs')).code).toBe(0);
      expect((await doctor(env)).checks.prices.detail).toContain('accepts 1, 57 with');
      expect((await price('1')).code).toBe(0);
      expect((await doctor(env)).checks.prices.detail).toContain('accepts 57 with');
      expect((await price('57')).code).toBe(0);
      expect((await doctor(env)).checks.prices).toMatchObject({ status: 'ok' });
    });

    it('lists a pending migration as a warning, and fails on one this version does not know', async () => {
      const env = await installed(cli);
      await withDatabase(env, async (db) => {
        await db.kysely
          .deleteFrom('kysely_migration' as never)
          .where('name' as never, '=', '0031_carrier_receipts' as never)
          .execute();
      });
      const pending = await doctor(env);
      expect(pending.code).toBe(0);
      expect(pending.checks.database).toMatchObject({ status: 'warn', detail: expect.stringContaining('1 pending') });
      expect(pending.checks.database.detail).toContain('0031_carrier_receipts');

      await withDatabase(env, async (db) => {
        await db.kysely
          .insertInto('kysely_migration' as never)
          .values({ name: '0031_carrier_receipts', timestamp: new Date().toISOString() } as never)
          .execute();
        await db.kysely
          .insertInto('kysely_migration' as never)
          .values({ name: '9999_from_a_newer_version', timestamp: new Date().toISOString() } as never)
          .execute();
      });
      const newer = await doctor(env);
      expect(newer.code).toBe(1);
      expect(newer.json.ok).toBe(false);
      expect(newer.checks.database).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('9999_from_a_newer_version'),
      });
    });

    it('fails when the secret is not the one the stored keys were sealed with, or is gone', async () => {
      const env = await installed(cli);
      const other = 'ab'.repeat(32);
      const changed = await doctor({ ...env, MENSAJERO_SECRET: other });
      expect(changed.code).toBe(1);
      expect(changed.checks.secret).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('secret changed'),
      });
      expect(changed.stdout).not.toContain(other);

      const malformed = await doctor({ ...env, MENSAJERO_SECRET: 'not-32-bytes-of-secret' });
      expect(malformed.checks.secret).toMatchObject({ status: 'fail', detail: expect.stringContaining('64 hex') });
      expect(malformed.stdout).not.toContain('not-32-bytes-of-secret');

      const stored = readFileSync(join(env.DATA_DIR, 'secret.key'), 'utf8').trim();
      expect((await doctor({ ...env, MENSAJERO_SECRET: stored })).checks.secret.status).toBe('ok');

      rmSync(join(env.DATA_DIR, 'secret.key'));
      const gone = await doctor(env);
      expect(gone.code).toBe(1);
      expect(gone.checks.secret).toMatchObject({ status: 'fail', detail: expect.stringContaining('no secret') });
    });

    it('warns when a carrier has fewer binds than the processes that hand messages to it', async () => {
      const env = await installed(cli);
      const added = await runMensajero(
        [
          ...['carriers', 'add', 'smpp', '--name', 'telcel', '--host', '127.0.0.1', '--port', '2775'],
          ...['--system-id', 'acme', '--password', 'secret1', '--binds', '2'],
        ],
        env,
      );
      expect(added.code, added.stderr).toBe(0);
      const enough = await doctor({ ...env, WEB_CONCURRENCY: '2' });
      expect(enough.checks['carrier telcel'].status).toBe('ok');
      const short = await doctor({ ...env, WEB_CONCURRENCY: '4' });
      expect(short.checks['carrier telcel'].status).toBe('warn');
      expect(short.checks['carrier telcel'].detail).toContain(
        '--binds 2 is fewer than the 4 processes that hand messages to it (WEB_CONCURRENCY=4)',
      );
      expect(short.checks['carrier telcel'].detail).toContain('mensajero carriers set --name telcel --binds 4');
      expect(short.checks['carrier simulator'].status).toBe('ok');
    });

    it('reports a database nobody migrated without migrating it or creating a secret', async () => {
      const cli = await cliEnv(engine);
      try {
        await nobodyMigrated(cli);
      } finally {
        await cli.cleanup();
      }
    });
  });
}

async function nobodyMigrated(cli: CliEnv) {
  if (cli.env.DATABASE_URL.startsWith('sqlite:')) {
    // A SQLite file that is not there yet is reported, not created (an empty one would be a database).
    const file = cli.env.DATABASE_URL.slice('sqlite:'.length);
    const none = await doctor({ ...cli.env, PORT: String(await closedPort()) });
    expect(none.code, none.stdout).toBe(0);
    expect(none.checks.database).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('does not exist yet'),
    });
    expect(existsSync(file)).toBe(false);
    writeFileSync(file, '');
  }
  const r = await doctor({ ...cli.env, PORT: String(await closedPort()) });
  expect(r.code).toBe(0);
  expect(r.checks.database).toMatchObject({ status: 'warn', detail: expect.stringContaining('0001_foundation') });
  expect(r.checks.secret.status).toBe('warn');
  expect(r.checks.carriers.detail).toContain('not checked');
  const again = await doctor({ ...cli.env, PORT: '0' });
  expect(again.checks.database.detail).toContain('0001_foundation');
  expect(existsSync(join(cli.env.DATA_DIR, 'secret.key'))).toBe(false);
}

describe('mensajero doctor: configuration', () => {
  it('names each refused variable and fails; the checks that need it say they did not run', async () => {
    const refused = { PORT: 'eighty', RATE_LIMIT_STORE: 'memcached', TRUST_PROXY: 'true', METRICS_TOKEN: 'short-tok' };
    const cli = await cliEnv('sqlite', refused);
    try {
      const r = await doctor(cli.env);
      expect(r.code).toBe(1);
      expect(r.checks.configuration.status).toBe('fail');
      expect(r.stdout).not.toContain('short-tok');
      for (const name of ['PORT', 'RATE_LIMIT_STORE', 'TRUST_PROXY', 'METRICS_TOKEN'])
        expect(r.checks.configuration.detail).toContain(`${name}:`);
      expect(r.checks.database).toMatchObject({ status: 'warn', detail: expect.stringContaining('not checked') });
    } finally {
      await cli.cleanup();
    }
  });

  it('prints one line per check without --json', async () => {
    const cli = await cliEnv('sqlite', { PORT: String(await closedPort()) });
    try {
      const r = await runMensajero(['doctor'], cli.env);
      expect(r.stdout).toMatch(/^ok +configuration +every variable is valid$/m);
      expect(r.stdout).toMatch(/^warn +database +sqlite:.* does not exist yet/m);
    } finally {
      await cli.cleanup();
    }
  });
});

it('mensajero --version and -V print the package version', async () => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  for (const flag of ['--version', '-V']) {
    const r = await runMensajero([flag], process.env as Record<string, string>);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(version);
  }
});
