import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { registerSender } from '../features/sms/senders.js';
import { acceptSender } from './accept.js';
import { Refusal } from './refusal.js';

describeEngines('the acceptance step: the sender', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => 'accepted',
      (err: unknown) => (err instanceof Refusal ? err.code : err),
    );

  it('takes a registered sender, else the default one (null); RCS needs a sender linked for RCS', async () => {
    const a = await h.createAccount(10);
    await registerSender(h.ctx, a.id, 'ACME', false);
    await registerSender(h.ctx, a.id, 'RCSCO', true);
    expect(await acceptSender(h.ctx, a.id, ' ACME ', 'sms')).toBe('ACME');
    expect(await acceptSender(h.ctx, a.id, 'Unknown', 'sms')).toBeNull();
    expect(await acceptSender(h.ctx, a.id, undefined, 'sms')).toBeNull();
    expect(await acceptSender(h.ctx, a.id, 'RCSCO', 'rcs')).toBe('RCSCO');
    expect(await refusal(acceptSender(h.ctx, a.id, ' ', 'rcs'))).toBe('sender_required');
    expect(await refusal(acceptSender(h.ctx, a.id, 'ACME', 'rcs'))).toBe('sender_not_rcs');
    expect(await refusal(acceptSender(h.ctx, a.id, 'Unknown', 'rcs'))).toBe('sender_not_rcs');
  });
});
