import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, type Harness } from '../../test/helpers/harness.js';
import { ask, bindClient, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';
import { Status } from '../smpp-protocol/status.js';
import { addFilter } from '../features/filters/service.js';
import { saveSendRules } from '../messaging/send-rules.js';

const settle = () => new Promise((resolve) => setTimeout(resolve, 250));

/** The abuse controls over SMPP: a bound customer's flood, phishing text and foreign sender refused, nothing charged. */
describeEngines('abuse controls and the SMPP server', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine, { smpp: { deliverMs: 50 } });
  });
  afterAll(() => h.close());

  const balance = async (id: number) =>
    Number(
      (await h.ctx.db.kysely.selectFrom('accounts').select('credits').where('id', '=', id).executeTakeFirstOrThrow())
        .credits,
    );
  const text = (t: string) => Buffer.from(gsmSeptets(t));

  it('submit_sm past the cap is ESME_RTHROTTLED, a blocked text ESME_RSUBMITFAIL, an unregistered sender ESME_RINVSRCADR', async () => {
    const c = await smppCustomer(h);
    await saveSendRules(h.ctx.db.kysely, c.id, { max_per_number_hour: 2, senders_registered: 1 });
    await addFilter(h.ctx.db, { action: 'block', account: { id: c.id, email: 'smpp' }, domain: 'phish.example' });
    await settle();
    const { session } = await bindClient(h.smppPort, c.systemId, c.password, 'transceiver');
    const submit = (destination_addr: string, message: string, source_addr = '') =>
      ask(session, 'submit_sm', { destination_addr, dest_addr_ton: 1, source_addr, short_message: text(message) });
    expect((await submit('525512390001', 'Uno')).command_status).toBe(Status.OK);
    expect((await submit('525512390001', 'Dos')).command_status).toBe(Status.OK);
    const before = await balance(c.id);
    expect((await submit('525512390001', 'Tres')).command_status).toBe(Status.THROTTLED);
    expect((await submit('525512390002', 'Entra a phish.example/x')).command_status).toBe(Status.SUBMITFAIL);
    expect((await submit('525512390002', 'Hola', 'OtroBanco')).command_status).toBe(Status.INVSRCADR);
    expect(await balance(c.id)).toBe(before);
    // Honest traffic of the same bind: another number, no link, no sender.
    expect((await submit('525512390002', 'Su pedido va en camino')).command_status).toBe(Status.OK);
    const dest = (destination_addr: string) => ({ dest_addr_ton: 1, dest_addr_npi: 1, destination_addr });
    const multi = await ask(session, 'submit_multi', {
      dest_address: [dest('525512390001'), dest('525512390003')],
      short_message: text('Cuatro'),
    });
    expect(multi.command_status).toBe(Status.THROTTLED);
  });
});
