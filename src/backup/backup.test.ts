import { join } from 'node:path';
import { existsSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startHarness, testConfig, type Harness } from '../../test/helpers/harness.js';
import { cliEnv, runMensajero } from '../../test/helpers/cli.js';
import { openDatabase } from '../db/engine.js';
import { startService } from '../app/serve.js';
import { toUnits } from '../accounts/credits.js';
import { sql } from 'kysely';

describe('mensajero backup (SQLite)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('sqlite');
  });
  afterAll(() => h.close());

  it('takes a consistent copy while the service keeps sending, and the copy restores', async () => {
    const a = await h.createAccount(1000);
    const copy = join(h.config.DATA_DIR, 'backup.db');
    const env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: h.config.DATABASE_URL,
      DATA_DIR: h.config.DATA_DIR,
      LOG_LEVEL: 'warn',
    };
    let sent = 0;
    let backingUp = true;
    const sending = (async () => {
      for (let i = 0; backingUp || i < 3; i++) {
        const r = await h.post('/sms/send', { numbers: String(5510000000 + i), message: 'Hola' }, a.apikey);
        if (r.body.code === 'sms_11') sent++;
      }
    })();
    const result = await runMensajero(['backup', '--to', copy, '--json'], env);
    backingUp = false;
    await sending;
    expect(result.code, result.stderr).toBe(0);
    expect(result.json).toMatchObject({ to: copy, pages: expect.any(Number) });
    expect(existsSync(`${copy}-wal`)).toBe(false);

    const db = await openDatabase(`sqlite:${copy}`);
    try {
      expect((await sql<{ quick_check: string }>`pragma quick_check`.execute(db.kysely)).rows[0].quick_check).toBe(
        'ok',
      );
      const messages = await db.kysely
        .selectFrom('messages')
        .select(['price_units'])
        .where('account_id', '=', a.id)
        .execute();
      const account = await db.kysely
        .selectFrom('accounts')
        .select('credits')
        .where('id', '=', a.id)
        .executeTakeFirstOrThrow();
      // One snapshot: each charge is there with its message, never one without the other.
      expect(account.credits + messages.reduce((s, m) => s + m.price_units, 0)).toBe(toUnits(1000));
      expect(messages.length).toBeLessThanOrEqual(sent);
    } finally {
      await db.close();
    }

    // Restore: a service on the copy (with the same DATA_DIR, which holds the server secret) answers the same key.
    const restored = await startService(testConfig('sqlite', h.config.DATA_DIR, { DATABASE_URL: `sqlite:${copy}` }), {
      log: pino({ level: 'silent' }),
      listen: false,
      worker: false,
    });
    try {
      const res = await restored.app.inject({ method: 'POST', url: '/credits/consult', headers: { apikey: a.apikey } });
      expect(JSON.parse(res.body).success).toBe(true);
    } finally {
      await restored.stop();
    }

    const again = await runMensajero(['backup', '--to', copy], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists/);
  });
});

if (engines.includes('postgres')) {
  describe('mensajero backup (PostgreSQL)', () => {
    it('points at pg_dump', async () => {
      const cli = await cliEnv('postgres');
      try {
        const r = await runMensajero(['backup', '--to', join(cli.env.DATA_DIR, 'x.db')], cli.env);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/pg_dump/);
      } finally {
        await cli.cleanup();
      }
    });
  });
}
