import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../../../test/helpers/harness.js';
import { cliEnv, runMensajero, runMensajeroJson, type CliEnv } from '../../../test/helpers/cli.js';
import { openDatabase } from '../../db/engine.js';
import { verifyPassword } from '../../lib/passwords.js';
import { resetTokenAccount } from '../../accounts/passwords.js';
import { createPanelSession as createSession } from '../../accounts/index.js';

/** The built `mensajero accounts` commands of the ledger and of passwords, on a migrated database. */
describeEngines('accounts ledger, credits --reason, set --password-stdin and password-reset', (engine) => {
  let cli: CliEnv;
  const run = (...args: string[]) => runMensajero([...args, '--json'], cli.env);
  const withDb = async <T>(work: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>) => {
    const db = await openDatabase(cli.env.DATABASE_URL);
    try {
      return await work(db);
    } finally {
      await db.close();
    }
  };
  beforeAll(async () => {
    cli = await cliEnv(engine, { PUBLIC_BASE_URL: 'https://sms.example.mx' }, { migrated: true });
    const created = await runMensajero(
      ['accounts', 'create', '--email', 'libro@example.com', '--credits', '10', '--json'],
      { ...cli.env, MENSAJERO_PASSWORD: 'primera contraseña' },
    );
    expect(created.code, created.stderr).toBe(0);
  });
  afterAll(async () => {
    await cli?.cleanup();
  });

  it('keeps the reason of accounts credits in the ledger and the audit log, newest first', async () => {
    expect(
      (await run('accounts', 'credits', '--email', 'libro@example.com', '--add', '5', '--reason', 'pago 7')).code,
    ).toBe(0);
    expect((await run('accounts', 'credits', '--email', 'libro@example.com', '--add', '-1.5')).code).toBe(0);
    const bad = await run('accounts', 'credits', '--email', 'libro@example.com', '--add', '1', '--reason', 'a\u0007b');
    expect(bad.code).toBe(2);
    const ledger = await run('accounts', 'ledger', '--email', 'libro@example.com', '--since', '30d');
    expect(ledger.code, ledger.stderr).toBe(0);
    expect(ledger.json).toEqual({
      entries: [
        {
          at: expect.any(String),
          kind: 'adjustment',
          amount: -1.5,
          balance_after: 13.5,
          reason: null,
          actor: 'cli',
          reference: null,
        },
        {
          at: expect.any(String),
          kind: 'credit',
          amount: 5,
          balance_after: 15,
          reason: 'pago 7',
          actor: 'cli',
          reference: null,
        },
        {
          at: expect.any(String),
          kind: 'credit',
          amount: 10,
          balance_after: 10,
          reason: 'opening balance',
          actor: 'operator',
          reference: null,
        },
      ],
      page: 1,
      has_more: false,
    });
    expect(new Date(ledger.json.entries[0].at).toISOString()).toBe(ledger.json.entries[0].at);
    const audit = await run('audit', 'list', '--since', '1h');
    const credits = audit.json.entries.filter((e: { action: string }) => e.action === 'accounts.credits');
    expect(credits[credits.length - 1].detail).toMatchObject({ reason: 'pago 7' });
    // Reading the ledger changes nothing: no audit entry.
    expect(audit.json.entries.some((e: { action: string }) => e.action === 'accounts.ledger')).toBe(false);
    expect((await run('accounts', 'ledger', '--email', 'libro@example.com', '--since', 'ayer')).code).toBe(2);
    expect((await run('accounts', 'ledger', '--email', 'nadie@example.com')).code).toBe(2);
  });

  it('sets the panel password from standard input only, under the panel rule, and makes a one-time reset link', async () => {
    const id = await withDb(async (db) => {
      const row = await db.kysely
        .selectFrom('accounts')
        .select('id')
        .where('email', '=', 'libro@example.com')
        .executeTakeFirstOrThrow();
      await createSession(db.kysely, 'account', Number(row.id), 8);
      return Number(row.id);
    });
    const sessions = () =>
      withDb((db) => db.kysely.selectFrom('panel_sessions').select('id').where('principal_id', '=', id).execute());
    expect(await sessions()).toHaveLength(1);
    const set = runMensajeroJson(
      ['accounts', 'set', '--email', 'libro@example.com', '--password-stdin'],
      cli.env,
      'otra contraseña\n',
    );
    expect(set.code, set.out).toBe(0);
    expect(set.json).toEqual({ id: expect.any(Number), email: 'libro@example.com', password_set: true });
    const stored = await withDb((db) =>
      db.kysely
        .selectFrom('accounts')
        .select('password_hash')
        .where('email', '=', 'libro@example.com')
        .executeTakeFirstOrThrow(),
    );
    expect(await verifyPassword('otra contraseña', stored.password_hash)).toBe(true);
    expect(await sessions()).toEqual([]);
    const short = runMensajeroJson(
      ['accounts', 'set', '--email', 'libro@example.com', '--password-stdin'],
      cli.env,
      'corta\n',
    );
    expect(short.code).toBe(2);
    expect(short.out).toContain('8 to 128 characters');
    const mixed = runMensajeroJson(
      ['accounts', 'set', '--email', 'libro@example.com', '--password-stdin', '--rate-limit', '5'],
      cli.env,
      'otra contraseña\n',
    );
    expect(mixed.code).toBe(2);

    const reset = await run('accounts', 'password-reset', '--email', 'libro@example.com');
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.json).toEqual({
      id: set.json.id,
      email: 'libro@example.com',
      reset_url: expect.stringMatching(/^https:\/\/sms\.example\.mx\/panel\/reset\?token=[\w-]{43}$/),
      expires_at: expect.any(String),
    });
    const lasts = Date.parse(reset.json.expires_at) - Date.now();
    expect(lasts).toBeGreaterThan(3_500_000);
    expect(lasts).toBeLessThanOrEqual(3_600_000);
    const token = new URL(reset.json.reset_url).searchParams.get('token')!;
    // Stored hashed: the token itself is in no row, nor in the audit log.
    await withDb(async (db) => {
      const rows = await db.kysely.selectFrom('reset_links').selectAll().execute();
      expect(JSON.stringify(rows)).not.toContain(token);
      expect(await resetTokenAccount(db.kysely, token)).toMatchObject({ email: 'libro@example.com' });
    });
    const audit = await run('audit', 'list', '--since', '1h');
    expect(JSON.stringify(audit.json)).not.toContain(token);
    expect(audit.json.entries.map((e: { action: string }) => e.action)).toContain('accounts.password-reset');
  });
});
