import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../test/helpers/harness.js';
import { ask, bindClient, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';
import type { Pdu, SmppSession } from '../smpp-protocol/pdu.js';
import { newPdu, PduReader } from './pdus.js';

describe('SMPP server: submit_multi framing', () => {
  it('reads its destinations, and a destination count past the end of the PDU is malformed', () => {
    const raw = newPdu('submit_multi', {
      sequence_number: 1,
      dest_address: [{ dest_addr_ton: 1, destination_addr: '525512345678' }, { dl_name: 'all' }],
      short_message: Buffer.from('hi'),
    }).toBuffer();
    const reader = new PduReader();
    reader.push(raw);
    expect((reader.next() as Pdu).dest_address).toEqual([
      { dest_addr_ton: 1, dest_addr_npi: 0, destination_addr: '525512345678' },
      { dl_name: 'all' },
    ]);
    const hostile = Buffer.from(raw);
    hostile[16 + 4] = 200; // number_of_dests, after service_type "" and the source's TON, NPI and ""
    const next = new PduReader();
    next.push(hostile);
    expect(next.next()).toBe('malformed');
  });
});

describeEngines('SMPP server: submit_multi', (engine) => {
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
  const sme = (destination_addr: string) => ({ dest_addr_ton: 1, dest_addr_npi: 1, destination_addr });
  const multi = (session: SmppSession, dest_address: unknown[], fields: Record<string, unknown> = {}) =>
    ask(session, 'submit_multi', { dest_address, short_message: Buffer.from(gsmSeptets('to all')), ...fields });

  it('sends one message to each SME destination, lists the refused ones in unsuccess_sme, receipts name the message_id', async () => {
    const c = await smppCustomer(h);
    const before = await balance(c.id);
    const receipts: Pdu[] = [];
    const { session } = await bindClient(h.smppPort, c.systemId, c.password, 'transceiver', (s) =>
      s.on('deliver_sm', (pdu: Pdu) => {
        receipts.push(pdu);
        s.send(pdu.response());
      }),
    );
    const resp = await multi(
      session,
      [
        sme('525512345678'),
        { dl_name: 'friends' },
        sme('abc'),
        sme('525587654321'),
        { ...sme('5512345678'), dest_addr_ton: 0 }, // the first destination again, written as 10 digits
      ],
      { registered_delivery: 1 },
    );
    expect(resp.command_status).toBe(0);
    expect(resp.unsuccess_sme).toEqual([
      { dest_addr_ton: 0, dest_addr_npi: 0, destination_addr: 'friends', error_status_code: 0x34 },
      { dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: 'abc', error_status_code: 0x0b },
      { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: '5512345678', error_status_code: 0x0b },
    ]);
    const rows = await messagesOf(c.id);
    expect(rows.map((r) => r.number)).toEqual(['525512345678', '525587654321']);
    expect(rows[0].reference).toBe(resp.message_id);
    expect(rows[1].campaign_id).toBe(rows[0].campaign_id);
    expect(rows.map((r) => JSON.parse(r.meta!).smpp.message_id)).toEqual([resp.message_id, resp.message_id]);
    expect(before - (await balance(c.id))).toBe(Number(rows[0].price_units) + Number(rows[1].price_units));
    await eventually(async () => receipts.length === 2, 10_000);
    expect(receipts.map((r) => r.receipted_message_id)).toEqual([resp.message_id, resp.message_id]);
    expect(receipts.map((r) => r.source_addr).sort()).toEqual(['525512345678', '525587654321']);
    const query = await ask(session, 'query_sm', { message_id: resp.message_id });
    expect(query.command_status).toBe(0);
  });

  it('answers the refusal when no destination is accepted, and refuses the whole message for credits', async () => {
    const c = await smppCustomer(h);
    const { session } = await bindClient(h.smppPort, c.systemId, c.password);
    expect((await multi(session, [sme('abc'), sme('12345')])).command_status).toBe(0x0b);
    expect((await multi(session, [{ dl_name: 'all' }])).command_status).toBe(0x34);
    expect((await multi(session, [])).command_status).toBe(0x33);
    const poor = await smppCustomer(h, 0);
    const bound = await bindClient(h.smppPort, poor.systemId, poor.password);
    expect((await multi(bound.session, [sme('525512345678'), sme('525587654321')])).command_status).toBe(0x45);
    expect(await messagesOf(c.id)).toEqual([]);
    expect(await messagesOf(poor.id)).toEqual([]);
    const receiver = await bindClient(h.smppPort, c.systemId, c.password, 'receiver');
    expect((await multi(receiver.session, [sme('525512345678')])).command_status).toBe(0x04);
  });

  it('cancel_sm with a scheduled submit_multi message_id cancels every destination and refunds them', async () => {
    const c = await smppCustomer(h);
    const before = await balance(c.id);
    const { session } = await bindClient(h.smppPort, c.systemId, c.password);
    const resp = await multi(session, [sme('525512345678'), sme('525587654321')], {
      schedule_delivery_time: '000000010000000R',
    });
    expect(resp.command_status).toBe(0);
    expect(await balance(c.id)).toBeLessThan(before);
    expect((await ask(session, 'cancel_sm', { message_id: resp.message_id })).command_status).toBe(0);
    expect((await messagesOf(c.id)).map((r) => r.status)).toEqual(['refused', 'refused']);
    expect(await balance(c.id)).toBe(before);
  });
});
