import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { runCommands } from '../../test/helpers/cli.js';
import { operatorEndpoint, operatorSecret, startSmtp } from '../../test/helpers/alerts.js';
import { loadConfig } from '../config.js';
import { alertCommands } from './cli.js';
import { openEpisode } from './episodes.js';

it('refuses an operator webhook without a valid signing secret at start', () => {
  const url = 'https://ops.example.com/alerts';
  expect(() => loadConfig({ OPERATOR_WEBHOOK_URL: url })).toThrow(/OPERATOR_WEBHOOK_SECRET: required/);
  expect(() => loadConfig({ OPERATOR_WEBHOOK_URL: url, OPERATOR_WEBHOOK_SECRET: 'hunter2' })).toThrow(
    /OPERATOR_WEBHOOK_SECRET/,
  );
  expect(() => loadConfig({ OPERATOR_WEBHOOK_URL: 'ftp://ops.example.com' })).toThrow(/OPERATOR_WEBHOOK_URL/);
  expect(() => loadConfig({ SMTP_URL: 'http://mail.example.com' })).toThrow(/SMTP_URL/);
  const secret = operatorSecret();
  expect(loadConfig({ OPERATOR_WEBHOOK_URL: url, OPERATOR_WEBHOOK_SECRET: secret }).OPERATOR_WEBHOOK_SECRET).toBe(
    secret,
  );
});

describeEngines('operator alerts that fail keep their secrets', (engine) => {
  let h: Harness;
  let op: Awaited<ReturnType<typeof operatorEndpoint>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const secret = operatorSecret();
  beforeAll(async () => {
    op = await operatorEndpoint(() => 500);
    smtp = await startSmtp('alerts', 'the-right-one');
    h = await startHarness(engine, {
      env: {
        OPERATOR_WEBHOOK_URL: op.url,
        OPERATOR_WEBHOOK_SECRET: secret,
        // The server takes another password: every email attempt fails at AUTH.
        SMTP_URL: smtp.url.replace('the-right-one', 'Wr0ng-Pa55'),
        ALERT_EMAIL_TO: 'ops@example.com',
        WEBHOOK_RETRY_BASE_MS: '50',
      },
    });
  });
  afterAll(async () => {
    await h.close();
    await op.stop();
    await smtp.stop();
  });

  it('records why a delivery failed, retries it, and never writes the SMTP password or the signing secret', async () => {
    const body = { type: 'carrier_demoted' as const, carrier: 'secretive', since: new Date().toISOString() };
    await h.ctx.db.kysely
      .transaction()
      .execute((trx) =>
        openEpisode(trx, h.ctx.config, { type: 'carrier_demoted', subject: 'secretive', since: Date.now(), body }),
      );
    const list = () => runCommands(h.ctx, [alertCommands], ['alerts', 'list', '--json']);
    const failing = await eventually(async () => {
      const [episode] = (await list()).episodes;
      return episode?.deliveries.every((d: { attempts: number }) => d.attempts >= 2) ? episode : null;
    }, 15_000);
    const byChannel = Object.fromEntries(failing.deliveries.map((d: { channel: string }) => [d.channel, d]));
    expect(byChannel.webhook).toMatchObject({ state: 'pending', last_error: 'answered 500' });
    expect(byChannel.email.state).toBe('pending');
    expect(byChannel.email.last_error).toMatch(/auth|login|credentials/i);
    const stored = JSON.stringify([
      await list(),
      await h.ctx.db.kysely.selectFrom('alert_deliveries').selectAll().execute(),
      await h.ctx.db.kysely.selectFrom('jobs').select(['payload', 'last_error']).execute(),
    ]);
    for (const leaked of ['Wr0ng-Pa55', secret, secret.slice('whsec_'.length)]) expect(stored).not.toContain(leaked);
    expect(smtp.mails).toEqual([]);
  });
});
