import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../test/helpers/harness.js';
import { simulatedReply } from '../../test/helpers/simulated-reply.js';
import { ask, bindClient, closed, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';
import type { Pdu, SmppSession } from '../smpp-protocol/pdu.js';

/** Collects the deliver_sm a customer receives, answering each with `answer` (default 0). */
function collect(session: SmppSession, answer: (pdu: Pdu, index: number) => number = () => 0) {
  const got: Pdu[] = [];
  session.on('deliver_sm', (pdu: Pdu) => {
    const status = answer(pdu, got.length);
    if (status === 0) got.push(pdu);
    session.send(pdu.response({ command_status: status }));
  });
  return got;
}

const textOf = (pdu: Pdu) =>
  pdu.data_coding === 8
    ? Buffer.from(pdu.short_message).swap16().toString('utf16le')
    : Buffer.from(pdu.short_message.length ? pdu.short_message : pdu.message_payload).toString('latin1');

describeEngines('SMPP server: receipts and replies as deliver_sm', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine, { smpp: { deliverMs: 50 } });
  });
  afterAll(() => h.close());

  const submit = (session: SmppSession, text: string, registered_delivery = 1) =>
    ask(session, 'submit_sm', {
      destination_addr: '525512345678',
      dest_addr_ton: 1,
      registered_delivery,
      short_message: Buffer.from(gsmSeptets(text)),
    });

  it('sends the receipt in the format of docs/operators/smpp-server.md, with receipted_message_id and message_state', async () => {
    const c = await smppCustomer(h);
    const { session } = await bindClient(h.smppPort, c.systemId, c.password);
    const got = collect(session);
    const resp = await submit(session, 'Hola, ¿cómo estás? texto largo');
    await eventually(async () => got.length === 1);
    const receipt = got[0];
    expect(receipt.esm_class).toBe(0x04);
    expect(receipt.receipted_message_id).toBe(resp.message_id);
    expect(receipt.message_state).toBe(2);
    expect(receipt.source_addr).toBe('525512345678');
    expect(textOf(receipt)).toMatch(
      new RegExp(
        `^id:${resp.message_id} sub:001 dlvrd:001 submit date:\\d{10} done date:\\d{10} stat:DELIVRD err:000 text:Hola, \\?c\\?mo est\\?s\\? t$`,
      ),
    );
  });

  it('keeps receipts for a customer who binds later, and sends none when registered_delivery is 0 or 2 and delivered', async () => {
    const c = await smppCustomer(h);
    const tx = await bindClient(h.smppPort, c.systemId, c.password, 'transmitter');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await submit(tx.session, `m${i}`)).message_id);
    await submit(tx.session, 'no receipt', 0);
    await submit(tx.session, 'failures only', 2);
    await eventually(async () => {
      const waiting = await h.ctx.db.kysely
        .selectFrom('smpp_deliveries')
        .select('id')
        .where('account_id', '=', c.id)
        .execute();
      return waiting.length === 5;
    }, 15_000);
    tx.session.close();
    await closed(tx.session);
    let got: Pdu[] = [];
    await bindClient(h.smppPort, c.systemId, c.password, 'receiver', (s) => (got = collect(s)));
    await eventually(async () => got.length === 5);
    expect(got.map((p) => p.receipted_message_id).sort()).toEqual([...ids].sort());
    await eventually(
      async () =>
        (await h.ctx.db.kysely.selectFrom('smpp_deliveries').select('id').where('account_id', '=', c.id).execute())
          .length === 0,
    );
  });

  it('sends again what the customer refused (deliver_sm_resp not 0), and respects the window', async () => {
    const c = await smppCustomer(h, 100, { window: 1 });
    const { session } = await bindClient(h.smppPort, c.systemId, c.password);
    let inFlight = 0;
    let peak = 0;
    const got: Pdu[] = [];
    let refused = 0;
    session.on('deliver_sm', (pdu: Pdu) => {
      peak = Math.max(peak, ++inFlight);
      setTimeout(() => {
        inFlight--;
        const status = refused === 0 ? 0x08 : 0;
        if (status) refused++;
        else got.push(pdu);
        session.send(pdu.response({ command_status: status }));
      }, 20);
    });
    for (let i = 0; i < 3; i++) await submit(session, `w${i}`);
    await eventually(async () => got.length === 3, 10_000);
    expect(refused).toBe(1);
    expect(peak).toBe(1);
  });

  it('sends replies (esm_class 0) to the receiver binds, and still to the webhook events', async () => {
    const c = await smppCustomer(h);
    const { session } = await bindClient(h.smppPort, c.systemId, c.password);
    const got = collect(session);
    await submit(session, 'question', 0);
    const r = await simulatedReply(h, c.apikey, '5512345678', 'Sí, gracias ✓');
    expect(r.status).toBe(200);
    await eventually(async () => got.length === 1);
    expect(got[0].esm_class).toBe(0);
    expect(got[0].source_addr).toBe('525512345678');
    expect(textOf(got[0])).toBe('Sí, gracias ✓');
    const events = await h.ctx.db.kysely.selectFrom('events').select('type').where('account_id', '=', c.id).execute();
    expect(events.map((e) => e.type)).toContain('response');
  });

  it('drops what waited past SMPP_SERVER_DELIVERY_TTL_HOURS, counted in /metrics', async () => {
    const c = await smppCustomer(h);
    const tx = await bindClient(h.smppPort, c.systemId, c.password, 'transmitter');
    await submit(tx.session, 'old');
    await eventually(
      async () =>
        (await h.ctx.db.kysely.selectFrom('smpp_deliveries').select('id').where('account_id', '=', c.id).execute())
          .length === 1,
    );
    await h.ctx.db.kysely
      .updateTable('smpp_deliveries')
      .set({ created_at: Date.now() - 73 * 3_600_000 })
      .where('account_id', '=', c.id)
      .execute();
    expect(await h.smpp!.server.pump.prune()).toBe(1);
    expect(await h.ctx.metrics.render()).toMatch(/mensajero_smpp_server_dropped_total\{kind="receipt"\} 1/);
  });
});
