import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../helpers/harness.js';
import { chaosScale } from './scale.js';
import { startWebhookReceiver } from './peers.js';

/** The webhook receiver is down (port closed) while a campaign's confirmations are written, then comes back. */
describeEngines('chaos: webhook receiver down, then up', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, {
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_HOST_CONCURRENCY: '32' },
    });
  });
  afterAll(() => h.close());

  it('delivers every confirmation once the receiver is back', { timeout: 180_000 }, async () => {
    const total = chaosScale(100, 2000);
    const hooks = await startWebhookReceiver();
    try {
      const a = await h.createAccount(total * 2);
      expect((await h.post('/webhook/add', { url: hooks.url, status: '1' }, a.apikey)).body.code).toBe(
        'add_webhook_01',
      );
      await hooks.down();
      const references: string[] = [];
      for (let i = 0; i < total; i += 500) {
        const numbers = Array.from({ length: Math.min(500, total - i) }, (_, k) => String(5510000000 + i + k)).join(
          ',',
        );
        const r = await h.post('/sms/send', { numbers, message: 'Hola' }, a.apikey);
        references.push(...r.body.references.map((x: { reference: string }) => x.reference));
      }
      // Deliveries fail against the closed port (the host's slots then hold the rest back).
      await eventually(
        async () => {
          const failed = await h.ctx.db.kysely
            .selectFrom('event_attempts')
            .innerJoin('events', 'events.id', 'event_attempts.event_id')
            .select('events.id')
            .distinct()
            .where('events.account_id', '=', a.id)
            .execute();
          return failed.length >= 20;
        },
        60_000,
        100,
      );
      expect(hooks.references.size).toBe(0);
      await hooks.up();
      await eventually(async () => references.every((r) => hooks.references.has(r)), 150_000, 100);
      console.info(
        'chaos webhook outage',
        JSON.stringify({ engine, total, confirmed: references.filter((r) => hooks.references.has(r)).length }),
      );
      const events = await h.ctx.db.kysely
        .selectFrom('events')
        .select('state')
        .where('account_id', '=', a.id)
        .execute();
      expect(events).toHaveLength(total);
      await eventually(
        async () =>
          (
            await h.ctx.db.kysely
              .selectFrom('events')
              .select('id')
              .where('account_id', '=', a.id)
              .where('state', '!=', 'delivered')
              .execute()
          ).length === 0,
        10_000,
      );
    } finally {
      await hooks.stop().catch(() => undefined);
    }
  });
});
