import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../test/helpers/harness.js';
import { ask, bindClient, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { SMPP_ENV, smppTools } from '../../test/helpers/smpp-suite.js';
import type { TestSmsc } from '../../test/helpers/smsc.js';
import { CREDIT_UNITS } from '../accounts/credits.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';
import type { SmppSession } from '../smpp-protocol/pdu.js';

/** A UDH of one part of a concatenated message (8-bit reference), claiming part 1 of 2. */
const UDH = Buffer.from([0x05, 0x00, 0x03, 0x2a, 0x02, 0x01]);
const udhPart = (text: string) => ({
  esm_class: 0x40,
  message_payload: Buffer.concat([UDH, Buffer.from(gsmSeptets(text))]),
});

/**
 * Parts of an SMPP customer's submit_sm are those the carrier connector sends:
 * a carrier (a test SMSC) counts the submit_sm it receives for each message,
 * and the credits charged and the throughput taken equal them, whatever
 * concatenation (UDH or SAR) the customer claimed and whatever data_coding it used.
 */
describeEngines('SMPP server: parts charged are the segments the carrier receives', (engine) => {
  let h: Harness & { smppPort: number };
  let smsc: TestSmsc;
  let destinations = 0;
  beforeAll(async () => {
    h = await startSmppHarness(engine, { env: SMPP_ENV });
    smsc = (await tools.carrier({}, [], { prefix: '52' })).smsc;
  });
  afterAll(() => h.close());
  const tools = smppTools(() => h);

  const bound = async (credits: number, throughput = 0) => {
    const c = await smppCustomer(h, credits, { throughput });
    const { session, status } = await bindClient(h.smppPort, c.systemId, c.password, 'transmitter');
    expect(status).toBe(0);
    return { c, session };
  };
  const balance = async (id: number) =>
    Number(
      (await h.ctx.db.kysely.selectFrom('accounts').select('credits').where('id', '=', id).executeTakeFirstOrThrow())
        .credits,
    ) / CREDIT_UNITS;

  /** Submits to a destination of its own; the credits it cost, the segments the carrier received and the parts recorded. */
  async function sendCounted(session: SmppSession, accountId: number, fields: Record<string, unknown>) {
    const destination = `5255${String(++destinations).padStart(8, '0')}`;
    const before = await balance(accountId);
    const resp = await ask(session, 'submit_sm', { destination_addr: destination, dest_addr_ton: 1, ...fields });
    expect(resp.command_status).toBe(0);
    const sent = await eventually(
      () =>
        h.ctx.db.kysely
          .selectFrom('messages')
          .select(['parts', 'sent_at'])
          .where('reference', '=', resp.message_id)
          .where('sent_at', 'is not', null)
          .executeTakeFirst(),
      30_000,
    );
    return {
      charged: before - (await balance(accountId)),
      received: smsc.submitted.filter((s) => s.destination === destination).length,
      recorded: Number(sent.parts),
    };
  }

  it('charges a UDH or SAR "part" of 1,000 characters for the 7 segments the carrier receives', async () => {
    const { c, session } = await bound(100);
    expect(await sendCounted(session, c.id, udhPart('a'.repeat(1000)))).toEqual({
      charged: 7,
      received: 7,
      recorded: 7,
    });
    const sar = { sar_msg_ref_num: 9, sar_total_segments: 2, sar_segment_seqnum: 1 };
    const long = { message_payload: Buffer.from(gsmSeptets('b'.repeat(1000))) };
    expect(await sendCounted(session, c.id, { ...sar, ...long })).toEqual({ charged: 7, received: 7, recorded: 7 });
  });

  it('charges a UDH "part" of 60,000 characters for its 393 segments', async () => {
    const { c, session } = await bound(1000);
    expect(await sendCounted(session, c.id, udhPart('c'.repeat(60_000)))).toEqual({
      charged: 393,
      received: 393,
      recorded: 393,
    });
  });

  it('counts escape septets (1,000 € in 14 segments) and text sent as UCS-2 (140 Latin-1 with þ in 3)', async () => {
    const { c, session } = await bound(100);
    const euros = { message_payload: Buffer.from(gsmSeptets('€'.repeat(1000))) };
    expect(await sendCounted(session, c.id, euros)).toEqual({ charged: 14, received: 14, recorded: 14 });
    const latin1 = { data_coding: 3, short_message: Buffer.from('þ' + 'e'.repeat(139), 'latin1') };
    expect(await sendCounted(session, c.id, latin1)).toEqual({ charged: 3, received: 3, recorded: 3 });
  });

  it('takes the real segments from the throughput: 280 segments claimed as one part are refused under 50 a second', async () => {
    const { c, session } = await bound(1000, 50);
    const resp = await ask(session, 'submit_sm', {
      destination_addr: '525599000001',
      dest_addr_ton: 1,
      ...udhPart('d'.repeat(280 * 153)),
    });
    expect(resp.command_status).toBe(0x58);
    expect(await balance(c.id)).toBe(1000);
    const multi = await ask(session, 'submit_multi', {
      dest_address: [{ dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: '525599000002' }],
      ...udhPart('e'.repeat(51 * 153)),
    });
    expect(multi.command_status).toBe(0x58);
    expect(await balance(c.id)).toBe(1000);
  });
});
