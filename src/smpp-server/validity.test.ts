import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../test/helpers/harness.js';
import { ask, bindClient, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';
import type { Pdu } from '../smpp-protocol/pdu.js';

/**
 * No carrier takes SMS here (the operator disabled the simulator, so messages
 * wait for it), and a failed hand-off would be
 * retried only a minute later: a message whose validity_period ends first is
 * closed at that end, never sent.
 */
describeEngines('SMPP server: validity_period', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine, {
      env: { DISPATCH_RETRY_MS: '60000' },
      smpp: { deliverMs: 50 },
    });
    await h.ctx.db.kysely.updateTable('carriers').set({ enabled: 0 }).where('name', '=', 'simulator').execute();
    await h.ctx.carriers.manager.refreshNow();
  });
  afterAll(() => h.close());

  const message = (reference: string) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
  const balance = async (id: number) =>
    Number(
      (await h.ctx.db.kysely.selectFrom('accounts').select('credits').where('id', '=', id).executeTakeFirstOrThrow())
        .credits,
    );

  it('closes a message not handed over by its validity end as expired (3), refunded, with an EXPIRED receipt', async () => {
    const c = await smppCustomer(h);
    const before = await balance(c.id);
    const receipts: Pdu[] = [];
    const { session } = await bindClient(h.smppPort, c.systemId, c.password, 'transceiver', (s) =>
      s.on('deliver_sm', (pdu: Pdu) => {
        receipts.push(pdu);
        s.send(pdu.response());
      }),
    );
    const send = (fields: Record<string, unknown>) =>
      ask(session, 'submit_sm', {
        destination_addr: '525512345678',
        dest_addr_ton: 1,
        registered_delivery: 1,
        short_message: Buffer.from(gsmSeptets('valid for a moment')),
        ...fields,
      });
    const short = await send({ validity_period: '000000000002000R' });
    const open = await send({});
    expect([short.command_status, open.command_status]).toEqual([0, 0]);
    expect(Number((await message(short.message_id)).valid_until)).toBeGreaterThan(Date.now() - 5_000);
    expect(await balance(c.id)).toBeLessThan(before);

    await eventually(async () => receipts.length === 1, 20_000);
    expect(receipts[0].receipted_message_id).toBe(short.message_id);
    expect(receipts[0].message_state).toBe(3);
    expect(Buffer.from(receipts[0].short_message).toString('latin1')).toMatch(/ stat:EXPIRED err:003 /);
    const row = await message(short.message_id);
    expect(row).toMatchObject({ stage: 2, status: 'undelivered', dlr_code: 3, carrier: null });
    expect(Number(row.refunded)).toBe(1);
    const event = await h.ctx.db.kysely
      .selectFrom('events')
      .select('payload')
      .where('reference', '=', short.message_id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(event.payload)).toMatchObject({ type: 'confirmation', status: '3' });
    // The message without a validity end still waits for a carrier; only its price stays debited.
    expect(await message(open.message_id)).toMatchObject({ stage: 0, status: 'queued', dlr_code: null });
    expect(before - (await balance(c.id))).toBe(Number((await message(open.message_id)).price_units));
    session.close();
  });

  it('closes a scheduled message whose hand-off keeps failing at its validity end, not at the next retry', async () => {
    const c = await smppCustomer(h);
    const before = await balance(c.id);
    const { session } = await bindClient(h.smppPort, c.systemId, c.password);
    const resp = await ask(session, 'submit_sm', {
      destination_addr: '525512345678',
      dest_addr_ton: 1,
      short_message: Buffer.from(gsmSeptets('scheduled, then expired')),
      schedule_delivery_time: '000000000001000R',
      validity_period: '000000000003000R',
    });
    expect(resp.command_status).toBe(0);
    expect((await message(resp.message_id)).status).toBe('scheduled');
    await eventually(async () => (await message(resp.message_id)).dlr_code === 3, 20_000);
    expect(await message(resp.message_id)).toMatchObject({ stage: 2, status: 'undelivered' });
    expect(await balance(c.id)).toBe(before);
    session.close();
  });
});
