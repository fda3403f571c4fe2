import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { runCommands } from '../../test/helpers/cli.js';
import { operatorEndpoint, operatorSecret } from '../../test/helpers/alerts.js';
import { receiver } from '../../test/helpers/webhook-delivery.js';
import { enqueue } from '../jobs/queue.js';
import { alertCommands } from './cli.js';
import { carrierCommands } from '../carriers/cli.js';
import { closeEpisode, openEpisode } from './episodes.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeEngines('operator alert episodes', (engine) => {
  let h: Harness;
  let op: Awaited<ReturnType<typeof operatorEndpoint>>;
  beforeAll(async () => {
    let failures = 2;
    op = await operatorEndpoint((r) => (r.body.includes('"retry1"') && failures-- > 0 ? 503 : 200));
    h = await startHarness(engine, {
      env: {
        ALERT_CHECK_MS: '50',
        ALERT_QUEUE_DELAY_SECONDS: '1',
        OPERATOR_WEBHOOK_URL: op.url,
        OPERATOR_WEBHOOK_SECRET: operatorSecret(),
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_BASE_MS: '50',
        WEBHOOK_DISABLE_AFTER_HOURS: '1',
      },
    });
  });
  afterAll(async () => {
    await h.close();
    await op.stop();
  });

  const cli = (...args: string[]) => runCommands(h.ctx, [alertCommands], [...args, '--json']);
  const typesFor = (subject: string) =>
    op
      .alerts()
      .filter((x) => x.alert.carrier === subject || x.alert.account === subject)
      .map((x) => x.alert.type);
  const episode = (subject: string) =>
    cli('alerts', 'list').then((r) => r.episodes.filter((e: { subject: string }) => e.subject === subject));

  it('parallel opens and closes of one episode: one opens it, one closes it, one alert each', async () => {
    // A connector that exists and never binds (ALERT_CARRIER_DOWN_SECONDS is a minute): only these calls open and close its episode.
    const added = await runCommands(
      h.ctx,
      [carrierCommands],
      [
        ...['carriers', 'add', 'smpp', '--name', 'par1', '--host', '127.0.0.1', '--port', '9'],
        ...['--system-id', 'acme', '--password', 'secret1', '--json'],
      ],
    );
    expect(added.error).toBeUndefined();
    const body = { type: 'carrier_down' as const, carrier: 'par1', since: new Date().toISOString() };
    const opens = await Promise.all(
      Array.from({ length: 20 }, () =>
        h.ctx.db.kysely
          .transaction()
          .execute((trx) =>
            openEpisode(trx, h.ctx.config, { type: 'carrier_down', subject: 'par1', since: Date.now(), body }),
          ),
      ),
    );
    expect(opens.filter(Boolean)).toHaveLength(1);
    const up = { type: 'carrier_up' as const, carrier: 'par1', since: new Date().toISOString() };
    const closes = await Promise.all(
      Array.from({ length: 20 }, () =>
        h.ctx.db.kysely.transaction().execute((trx) => closeEpisode(trx, h.ctx.config, 'carrier_down', 'par1', up)),
      ),
    );
    expect(closes.filter(Boolean)).toHaveLength(1);
    await eventually(async () => typesFor('par1').length === 2, 10_000);
    await pause(300);
    expect(typesFor('par1').sort()).toEqual(['carrier_down', 'carrier_up']);
    expect(await episode('par1')).toEqual([expect.objectContaining({ state: 'closed' })]);
    // A new episode of the same subject can open once the last one closed.
    expect(
      await h.ctx.db.kysely
        .transaction()
        .execute((trx) =>
          openEpisode(trx, h.ctx.config, { type: 'carrier_down', subject: 'par1', since: Date.now(), body }),
        ),
    ).toBe(true);
  });

  it('queue_delayed once while the oldest due job waits too long, ended quietly when it is gone', async () => {
    const runAt = Date.now() - 5_000;
    await enqueue(h.ctx.db.kysely, 'test.nobody-runs-this', null, { runAt });
    await eventually(async () => op.alerts().some((x) => x.alert.type === 'queue_delayed'), 10_000);
    await pause(500);
    const delayed = op.alerts().filter((x) => x.alert.type === 'queue_delayed');
    expect(delayed.map((x) => x.alert)).toEqual([{ type: 'queue_delayed', since: new Date(runAt).toISOString() }]);
    await h.ctx.db.kysely.deleteFrom('jobs').where('kind', '=', 'test.nobody-runs-this').execute();
    await eventually(async () => (await episode('')).some((e: { state: string }) => e.state === 'closed'));
    expect(op.alerts().filter((x) => x.alert.type === 'queue_delayed')).toHaveLength(1);
  });

  it('carrier_demoted once while route quality keeps a connector demoted, ended quietly when it recovers', async () => {
    const added = await runCommands(
      h.ctx,
      [carrierCommands],
      [
        ...['carriers', 'add', 'smpp', '--name', 'dem1', '--host', '127.0.0.1', '--port', '9'],
        ...['--system-id', 'acme', '--password', 'secret1', '--json'],
      ],
    );
    expect(added.error).toBeUndefined();
    const demotedAt = Date.now() - 1_000;
    // What src/carriers/quality.ts writes when the delivery rate falls below the connector's minimum.
    await h.ctx.db.kysely
      .insertInto('carrier_quality')
      .values({ carrier: 'dem1', min_delivery_rate: 8000, demoted_at: demotedAt, changed_at: demotedAt })
      .execute();
    await eventually(async () => typesFor('dem1').length > 0, 10_000);
    await pause(300);
    expect(
      op
        .alerts()
        .filter((x) => x.alert.carrier === 'dem1')
        .map((x) => x.alert),
    ).toEqual([{ type: 'carrier_demoted', carrier: 'dem1', since: new Date(demotedAt).toISOString() }]);
    await h.ctx.db.kysely
      .updateTable('carrier_quality')
      .set({ demoted_at: null, changed_at: Date.now() })
      .where('carrier', '=', 'dem1')
      .execute();
    await eventually(async () => (await episode('dem1'))[0]?.state === 'closed');
    expect(typesFor('dem1')).toEqual(['carrier_demoted']);
  });

  it('webhook_disabled when deliveries disable a customer endpoint (its query left out), ended when re-enabled', async () => {
    const hook = await receiver((r) => (r.method === 'GET' ? 200 : 500));
    try {
      const account = await h.createAccount(10, 'shop@example.com');
      const apikey = account.apikey;
      const post = (url: string, body: object) =>
        h.app.inject({ method: 'POST', url, headers: { apikey }, payload: body }).then((r) => r.json());
      expect((await post('/webhook/add', { url: `${hook.url}?token=s3cret`, status: '1' })).code).toBe(
        'add_webhook_01',
      );
      // Failing for two hours already: the next failed delivery disables it.
      await h.ctx.db.kysely
        .updateTable('webhooks')
        .set({ failing_since: Date.now() - 2 * 3600_000 })
        .where('account_id', '=', account.id)
        .execute();
      expect((await post('/sms/send', { numbers: '5512345678', message: 'Hola' })).code).toBe('sms_11');
      await eventually(async () => typesFor('shop@example.com').length > 0, 10_000);
      const [alert] = op.alerts().filter((x) => x.alert.type === 'webhook_disabled');
      expect(alert.alert).toEqual({
        type: 'webhook_disabled',
        account: 'shop@example.com',
        url: hook.url,
        failing_since: expect.any(String),
        since: expect.any(String),
      });
      expect(alert.body).not.toContain('s3cret');
      expect((await post('/webhook/status', { status: 1 })).code).toBe('status_webhook_01');
      await eventually(async () => (await episode('shop@example.com'))[0]?.state === 'closed');
      expect(typesFor('shop@example.com')).toEqual(['webhook_disabled']);
    } finally {
      await hook.stop();
    }
  });

  it('retries an alert the operator endpoint refused, with the same webhook-id, until a 2xx', async () => {
    const body = { type: 'carrier_down' as const, carrier: 'retry1', since: new Date().toISOString() };
    await h.ctx.db.kysely
      .transaction()
      .execute((trx) =>
        openEpisode(trx, h.ctx.config, { type: 'carrier_down', subject: 'retry1', since: Date.now(), body }),
      );
    await eventually(async () => (await episode('retry1'))[0]?.deliveries[0]?.state === 'delivered', 10_000);
    const tries = op.alerts().filter((x) => x.alert.carrier === 'retry1');
    expect(tries).toHaveLength(3);
    expect(new Set(tries.map((t) => t.headers['webhook-id'])).size).toBe(1);
    expect((await episode('retry1'))[0].deliveries).toEqual([
      { alert: 'carrier_down', channel: 'webhook', state: 'delivered', attempts: 3, last_error: null },
    ]);
  });
});
