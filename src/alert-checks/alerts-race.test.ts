import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, engines, eventually, testConfig } from '../../test/helpers/harness.js';
import { runCommands } from '../../test/helpers/cli.js';
import { operatorEndpoint, operatorSecret } from '../../test/helpers/alerts.js';
import { startService, type RunningService } from '../app/serve.js';
import { carrierCommands } from '../carriers/cli.js';
import { insertAccount } from '../accounts/store.js';
import { toUnits } from '../accounts/credits.js';
import { alertCommands } from '../alerts/cli.js';
import { closeEpisode, openEpisode } from '../alerts/episodes.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Two services (two evaluators, two connection pools) on one PostgreSQL database, as two processes of a deployment
 * are. Not on SQLite: there a process waiting for the write lock blocks its whole thread, the other service's too.
 */
describe.runIf(engines.includes('postgres'))('operator alerts across processes [postgres]', () => {
  const engine = 'postgres' as const;
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-alerts-'));
  const pgSchema = engine === 'postgres' ? `t_${randomBytes(6).toString('hex')}` : undefined;
  let a: RunningService;
  let b: RunningService;
  let op: Awaited<ReturnType<typeof operatorEndpoint>>;
  beforeAll(async () => {
    op = await operatorEndpoint();
    const env = {
      CARRIER_POLL_MS: '100',
      ALERT_CHECK_MS: '50',
      ALERT_CARRIER_DOWN_SECONDS: '1',
      ALERT_QUEUE_DELAY_SECONDS: '1',
      OPERATOR_WEBHOOK_URL: op.url,
      OPERATOR_WEBHOOK_SECRET: operatorSecret(),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_DISABLE_AFTER_HOURS: '1',
      RATE_LIMIT_PER_SECOND: '10000',
    };
    const start = () =>
      startService(testConfig(engine, dir, env), { pgSchema, log: pino({ level: 'silent' }), listen: false });
    a = await start();
    b = await start();
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
    await op.stop();
    if (pgSchema) await dropSchema(pgSchema);
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => runCommands(a.ctx, [carrierCommands, alertCommands], [...args, '--json']);
  const typesFor = (subject: string) =>
    op
      .alerts()
      .filter((x) => x.alert.carrier === subject || x.alert.account === subject)
      .map((x) => x.alert.type);
  const episode = (subject: string) =>
    cli('alerts', 'list').then((r) => r.episodes.filter((e: { subject: string }) => e.subject === subject));

  it('two evaluators seeing the same connector down raise one carrier_down', async () => {
    const name = 'race1';
    const added = await cli(
      ...['carriers', 'add', 'smpp', '--name', name, '--host', '127.0.0.1', '--port', '9'],
      ...['--system-id', 'acme', '--password', 'secret1'],
    );
    expect(added.error).toBeUndefined();
    await eventually(async () => typesFor(name).length > 0, 10_000);
    await pause(1_000);
    expect(typesFor(name)).toEqual(['carrier_down']);
    expect((await cli('carriers', 'remove', '--name', name)).error).toBeUndefined();
  });

  it('parallel opens and closes of one episode from both processes: one opens it (one alert), one closes it', async () => {
    // carrier_demoted: a type the evaluators leave alone, so only these calls open and close it.
    const body = { type: 'carrier_demoted' as const, carrier: 'race2', since: new Date().toISOString() };
    const opens = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).ctx.db.kysely
          .transaction()
          .execute((trx) =>
            openEpisode(trx, a.ctx.config, { type: 'carrier_demoted', subject: 'race2', since: Date.now(), body }),
          ),
      ),
    );
    expect(opens.filter(Boolean)).toHaveLength(1);
    const closes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).ctx.db.kysely
          .transaction()
          .execute((trx) => closeEpisode(trx, a.ctx.config, 'carrier_demoted', 'race2')),
      ),
    );
    expect(closes.filter(Boolean)).toHaveLength(1);
    await eventually(async () => typesFor('race2').length > 0, 10_000);
    await pause(300);
    expect(typesFor('race2')).toEqual(['carrier_demoted']);
    expect(await episode('race2')).toEqual([expect.objectContaining({ state: 'closed' })]);
  });

  it('100 parallel sends through both processes crossing a low-balance threshold produce one event', async () => {
    const { account, apikey } = await insertAccount(a.ctx.db.kysely, a.ctx.secrets.keyEncryption, {
      email: 'race@example.com',
      passwordHash: 'scrypt$unused',
      credits: toUnits(150),
    });
    await a.ctx.db.kysely
      .updateTable('accounts')
      .set({ low_balance_units: toUnits(100) })
      .where('id', '=', account.id)
      .execute();
    const sends = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 ? a : b).app
          .inject({
            method: 'POST',
            url: '/sms/send',
            headers: { apikey },
            payload: { numbers: '5512345678', message: 'Hola' },
          })
          .then((r) => r.json().code),
      ),
    );
    expect(sends.every((code) => code === 'sms_11')).toBe(true);
    const events = await a.ctx.db.kysely
      .selectFrom('events')
      .select('payload')
      .where('account_id', '=', account.id)
      .where('type', '=', 'low_balance')
      .execute();
    expect(events.map((e) => JSON.parse(e.payload).credits)).toEqual(['99']);
  });
});
