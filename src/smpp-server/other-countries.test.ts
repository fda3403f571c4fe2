import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, type Harness } from '../../test/helpers/harness.js';
import { ask, bindClient, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';

/** The SMPP server takes numbers of another country of SMS_COUNTRY_CODES by the send path's one rule. */
describeEngines('SMPP server: numbers of other countries', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine, { env: { SMS_COUNTRY_CODES: '52,1,57,34' } });
  });
  afterAll(() => h.close());

  it('takes 34612345678, stored and charged; a Spanish number of the wrong length is ESME_RINVDSTADR', async () => {
    const c = await smppCustomer(h, 100);
    const { session, status } = await bindClient(h.smppPort, c.systemId, c.password);
    expect(status).toBe(0);
    const submit = (destination_addr: string) =>
      ask(session, 'submit_sm', { destination_addr, dest_addr_ton: 1, short_message: Buffer.from(gsmSeptets('Hola')) });
    const ok = await submit('34612345678');
    expect(ok.command_status).toBe(0);
    const row = await h.ctx.db.kysely
      .selectFrom('messages')
      .select(['number', 'price_units'])
      .where('reference', '=', ok.message_id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ number: '34612345678', price_units: 10_000 });
    for (const wrong of ['3461234567', '346123456789']) expect((await submit(wrong)).command_status).toBe(0x0b);
    expect((await submit('447911123456')).command_status).toBe(0x0b);
    session.close();
  });
});
