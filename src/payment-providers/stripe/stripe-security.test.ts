import { beforeAll, expect, it } from 'vitest';
import { describeEngines, type Harness } from '../../../test/helpers/harness.js';
import type { TestStripe } from '../../../test/helpers/stripe.js';
import { stripeSuite } from '../../../test/helpers/stripe-suite.js';
import { createHmac } from 'node:crypto';
import { describe } from 'vitest';
import { signatureProblem } from './webhook.js';

describe('Stripe-Signature', () => {
  it('accepts a matching v1 within the tolerance and names each problem', () => {
    const body = '{"id":"evt_1"}';
    const t = 1_700_000_000;
    const v1 = createHmac('sha256', 'whsec_abc').update(`${t}.${body}`).digest('hex');
    expect(signatureProblem(`t=${t},v1=${v1}`, body, 'whsec_abc', t * 1000)).toBeNull();
    expect(signatureProblem(`t=${t},v0=00,v1=${'0'.repeat(64)},v1=${v1}`, body, 'whsec_abc', t * 1000)).toBeNull();
    expect(signatureProblem(undefined, body, 'whsec_abc')).toBe('missing_signature');
    expect(signatureProblem(`v1=${v1}`, body, 'whsec_abc')).toBe('malformed_signature');
    expect(signatureProblem(`t=${t},v1=${v1}`, body + ' ', 'whsec_abc', t * 1000)).toBe('bad_signature');
    expect(signatureProblem(`t=${t},v1=${v1}`, body, 'whsec_abc', (t + 301) * 1000)).toBe('stale_timestamp');
  });
});

describeEngines('payment links through Stripe Checkout', (engine) => {
  const { suite, send, row, deliver } = stripeSuite(engine);
  let h: Harness;
  let stripe: TestStripe;
  beforeAll(() => {
    ({ h, stripe } = suite);
  });

  it('refuses and records unsigned, forged and stale webhooks; the request stays pending', async () => {
    const a = await h.createAccount(5);
    const r = await send(a);
    const session = stripe.sessions.get((await row(r.body.request_id)).checkout_id)!;
    const paid = { ...session, status: 'complete' as const, payment_status: 'paid' as const };
    const forged = stripe.signedEvent('checkout.session.completed', paid, { secret: 'whsec_not_the_right_one' });
    const stale = stripe.signedEvent('checkout.session.completed', paid, { at: Math.floor(Date.now() / 1000) - 600 });
    for (const attempt of [{ body: forged.body }, forged, stale, { body: 'not json', signature: 't=1,v1=zz' }]) {
      const answer = await deliver(attempt);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ success: false, code: 'payment_webhook_01' });
      expect(JSON.stringify(answer.body)).not.toContain(stripe.webhookSecret);
    }
    // Counted with the other refused provider webhooks (`carriers rejections`), not one row each.
    const refused = await h.ctx.db.kysely
      .selectFrom('provider_rejections')
      .select(['reason', 'attempts'])
      .where('carrier', '=', 'stripe')
      .orderBy('id')
      .execute();
    expect(refused).toEqual([
      { reason: 'missing_signature', attempts: 1 },
      { reason: 'bad_signature', attempts: 1 },
      { reason: 'stale_timestamp', attempts: 1 },
      { reason: 'malformed_signature', attempts: 1 },
    ]);
    expect(
      await h.ctx.db.kysely.selectFrom('payment_webhooks').select('id').where('outcome', '=', 'refused').execute(),
    ).toEqual([]);
    expect((await row(r.body.request_id)).status).toBe('pending');
  });
});
