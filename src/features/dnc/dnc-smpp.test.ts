import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../../test/helpers/harness.js';
import { ask, bindClient, smppCustomer, startSmppHarness } from '../../../test/helpers/smpp-server.js';
import { gsmSeptets } from '../../smpp-protocol/encoding.js';
import type { Pdu } from '../../smpp-protocol/pdu.js';
import { DNC_ERROR } from '../../messaging/optouts.js';
import { addDoNotContact } from './service.js';

/** A customer bound over SMPP sends through the same rule: accepted, recorded with status 10, never charged. */
describeEngines('the do-not-contact list and the SMPP server', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine, { smpp: { deliverMs: 50 } });
  });
  afterAll(() => h.close());

  const messagesOf = (accountId: number) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  const balance = async (id: number) =>
    Number(
      (await h.ctx.db.kysely.selectFrom('accounts').select('credits').where('id', '=', id).executeTakeFirstOrThrow())
        .credits,
    );

  it('submit_sm and submit_multi to a listed number: message_id given, status 10, REJECTD receipt, no debit', async () => {
    await addDoNotContact(h.ctx.db, '525512360001');
    const c = await smppCustomer(h);
    const before = await balance(c.id);
    const receipts: Pdu[] = [];
    const { session } = await bindClient(h.smppPort, c.systemId, c.password, 'transceiver', (s) =>
      s.on('deliver_sm', (pdu: Pdu) => {
        receipts.push(pdu);
        s.send(pdu.response());
      }),
    );
    const text = Buffer.from(gsmSeptets('Oferta'));
    const one = await ask(session, 'submit_sm', {
      destination_addr: '525512360001',
      dest_addr_ton: 1,
      short_message: text,
      registered_delivery: 1,
    });
    expect(one.command_status).toBe(0);
    const dest = (destination_addr: string) => ({ dest_addr_ton: 1, dest_addr_npi: 1, destination_addr });
    const multi = await ask(session, 'submit_multi', {
      dest_address: [dest('525512360001'), dest('525512360002')],
      short_message: text,
    });
    expect(multi.command_status).toBe(0);
    const rows = await messagesOf(c.id);
    expect(rows.map((m) => [m.number, m.dlr_code === 10, m.error === DNC_ERROR])).toEqual([
      ['525512360001', true, true],
      ['525512360001', true, true],
      ['525512360002', false, false],
    ]);
    expect(rows[0]).toMatchObject({ reference: one.message_id, price_units: 0, carrier: null });
    expect(before - (await balance(c.id))).toBe(Number(rows[2].price_units));
    await eventually(async () => receipts.length >= 1);
    expect(receipts[0]).toMatchObject({ receipted_message_id: one.message_id, message_state: 8 });
    expect(Buffer.from(receipts[0].short_message).toString('latin1')).toMatch(/ stat:REJECTD err:010 /);
    session.close();
  });
});
