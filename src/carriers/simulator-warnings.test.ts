import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import type { CarrierDriver, OutboundMessage, SubmitOutcome } from '../messaging/ports.js';
import { simulatorWarnings } from './simulator-warnings.js';
import { usePaymentProvider } from '../payment-providers/registry.js';
import type { PaymentProvider } from '../payment-providers/provider.js';

class RealSmsDriver implements CarrierDriver {
  readonly name = 'acme-smpp';
  readonly channels = ['sms'] as const;
  readonly messagesPerSecond = 100;
  readonly maxBatch = 10;
  async submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]> {
    return batch.map(() => ({ ok: true }));
  }
}

describeEngines('start-up warnings about simulators beside real peers', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  it('says nothing while only simulators are configured', async () => {
    expect(await simulatorWarnings(h.ctx)).toEqual([]);
  });

  it('warns about SIMULATORS and the simulated payment provider once a real carrier is configured', async () => {
    h.ctx.carriers.use(new RealSmsDriver());
    const warnings = await simulatorWarnings(h.ctx);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(
      /SIMULATORS=true beside the real carrier acme-smpp: channels .*rcs.* are still simulated/,
    );
    expect(warnings[1]).toMatch(/simulated payment provider .* without any money moving/);
    usePaymentProvider(h.ctx, { name: 'acme-pay' } as PaymentProvider);
    expect(await simulatorWarnings(h.ctx)).toHaveLength(1);
  });

  it('counts an enabled SMPP connector of the database as a real carrier', async () => {
    const h2 = await startHarness(engine, { worker: false });
    try {
      const now = Date.now();
      await h2.ctx.db.kysely
        .insertInto('carriers')
        .values({
          name: 'acme',
          type: 'smpp',
          enabled: 1,
          settings: '{}',
          password_enc: null,
          version: 1,
          created_at: now,
          updated_at: now,
        })
        .execute();
      const warnings = await simulatorWarnings(h2.ctx);
      expect(warnings[0]).toMatch(/SIMULATORS=true beside the real carrier acme: channels .*sms.* are still simulated/);
    } finally {
      await h2.close();
    }
  });
});
