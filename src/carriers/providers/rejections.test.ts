import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { saveStripeSettings } from '../../payment-providers/stripe/settings.js';
import { enqueue } from '../../jobs/queue.js';
import { HOUSEKEEPING_JOB } from '../../app/housekeeping.js';
import { REJECTIONS_ITEMISED_PER_ADDRESS } from './store.js';

/** Junk posted at the public provider webhooks: refusals are counted per address and hour, not stored one row each. */
describeEngines('refused provider webhooks', (engine) => {
  let h: Harness;
  let address = 0;
  const from = () => ({ 'x-forwarded-for': `203.0.113.${++address}` });
  const db = () => h.ctx.db.kysely;

  beforeAll(async () => {
    h = await startHarness(engine, {
      env: { TRUST_PROXY: '127.0.0.1', REJECTIONS_KEEP_DAYS: '7', AUDIT_KEEP_DAYS: '30' },
    });
    await saveStripeSettings(h.ctx, {
      apiBase: 'http://127.0.0.1:9',
      secretKey: 'sk_test_unused',
      webhookSecret: 'whsec_test_secret',
    });
  });
  afterAll(() => h.close());

  /** `count` posts, 50 at a time. */
  async function junk(count: number, post: (i: number) => Promise<{ status: number }>) {
    for (let i = 0; i < count; i += 50) {
      const answers = await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, k) => post(i + k)));
      expect(answers.every((a) => a.status >= 400 && a.status < 500)).toBe(true);
    }
  }

  const rowsFrom = (ip: string) =>
    db().selectFrom('provider_rejections').selectAll().where('remote_address', '=', ip).execute();

  it('500 callbacks for made-up connectors from one address leave a bounded number of rows, every refusal counted', async () => {
    const headers = from();
    await junk(500, (i) =>
      h.request('POST', `/carriers/twiml-voice/made-up-${i}/status`, { form: { CallSid: 'CAjunk' }, headers }),
    );
    const rows = await rowsFrom(headers['x-forwarded-for']);
    expect(rows.length).toBeLessThanOrEqual(REJECTIONS_ITEMISED_PER_ADDRESS + 1);
    expect(rows.reduce((sum, r) => sum + Number(r.attempts), 0)).toBe(500);
  });

  it('500 wrongly signed Stripe events leave a bounded number of rows', async () => {
    const headers = {
      ...from(),
      'content-type': 'application/json',
      'stripe-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
    };
    const refusedBefore = await db()
      .selectFrom('payment_webhooks')
      .select('id')
      .where('outcome', '=', 'refused')
      .execute();
    await junk(500, (i) =>
      h.request('POST', '/payments/stripe/webhook', { body: JSON.stringify({ id: `evt_${i}` }), headers }),
    );
    const refusedAfter = await db()
      .selectFrom('payment_webhooks')
      .select('id')
      .where('outcome', '=', 'refused')
      .execute();
    const rows = await rowsFrom(headers['x-forwarded-for']);
    expect(refusedAfter.length - refusedBefore.length + rows.length).toBeLessThanOrEqual(2);
    expect(rows.find((r) => r.carrier === 'stripe')).toMatchObject({
      reason: 'bad_signature',
      attempts: REJECTIONS_ITEMISED_PER_ADDRESS,
    });
  });

  it('housekeeping prunes refusals older than REJECTIONS_KEEP_DAYS, throttle counters whose window ended, old failed hand-offs and audit entries past AUDIT_KEEP_DAYS', async () => {
    const now = Date.now();
    const old = now - 8 * 86_400_000;
    const row = (remote: string, at: number) => ({
      carrier: 'wa',
      reason: 'unsigned webhook',
      remote_address: remote,
      hour: at - (at % 3_600_000),
      attempts: 3,
      received_at: at,
      last_at: at,
    });
    await db()
      .insertInto('provider_rejections')
      .values([row('192.0.2.1', old), row('192.0.2.2', now)])
      .execute();
    await db()
      .insertInto('attempt_counters')
      .values([
        { key: 'signin-ip:192.0.2.1', expires_at: now - 1, attempts: 20, in_flight: 0 },
        { key: 'signin-ip:192.0.2.2', expires_at: now + 600_000, attempts: 2, in_flight: 0 },
      ])
      .execute();
    // Failed hand-offs, pruned by the messaging feature's own prune: one past MESSAGE_ATTEMPTS_KEEP_DAYS, one recent.
    const attemptsKept = h.ctx.config.MESSAGE_ATTEMPTS_KEEP_DAYS * 86_400_000;
    const attempt = (at: number) => ({ message_id: 999_998, carrier: 'x', at, code: null, error: 'refused' });
    await db()
      .insertInto('message_attempts')
      .values([attempt(now - attemptsKept - 60_000), attempt(now)])
      .execute();
    // Audit entries, pruned by retention past AUDIT_KEEP_DAYS: one old, one recent.
    const audit = (action: string, at: number) => ({
      at,
      actor: 'cli',
      action,
      target: null,
      detail: '{}',
      address: null,
    });
    await db()
      .insertInto('audit_log')
      .values([audit('housekeeping.old', now - 31 * 86_400_000), audit('housekeeping.recent', now)])
      .execute();
    await enqueue(db(), HOUSEKEEPING_JOB, null);
    h.ctx.worker.nudge(HOUSEKEEPING_JOB);
    await eventually(async () => (await rowsFrom('192.0.2.1')).length === 0);
    await eventually(
      async () =>
        (await db().selectFrom('audit_log').select('id').where('action', '=', 'housekeeping.old').execute()).length ===
        0,
    );
    const audited = await db()
      .selectFrom('audit_log')
      .select('action')
      .where('action', 'like', 'housekeeping.%')
      .execute();
    expect(audited.map((a) => a.action)).toEqual(['housekeeping.recent']);
    expect(await rowsFrom('192.0.2.2')).toHaveLength(1);
    const counters = await db()
      .selectFrom('attempt_counters')
      .select('key')
      .where('key', 'like', 'signin-ip:192.0.2.%')
      .execute();
    expect(counters.map((c) => c.key)).toEqual(['signin-ip:192.0.2.2']);
    const attempts = await db().selectFrom('message_attempts').select('at').where('message_id', '=', 999_998).execute();
    expect(attempts.map((a) => Number(a.at))).toEqual([now]);
    // The next run is queued: the schedule goes on.
    const next = await db()
      .selectFrom('jobs')
      .select('run_at')
      .where('kind', '=', HOUSEKEEPING_JOB)
      .where('run_at', '>', now)
      .execute();
    expect(next.length).toBeGreaterThan(0);
  });
});
