import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, type Harness } from '../../test/helpers/harness.js';
import { ask, bindClient, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { encodeMessage, gsmSeptets } from '../smpp-protocol/encoding.js';
import type { SmppSession } from '../smpp-protocol/pdu.js';

describeEngines('SMPP server: submit_sm', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine);
  });
  afterAll(() => h.close());

  const message = (reference: string) =>
    h.ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
  const balance = async (id: number) =>
    Number(
      (await h.ctx.db.kysely.selectFrom('accounts').select('credits').where('id', '=', id).executeTakeFirstOrThrow())
        .credits,
    );
  const bound = async (credits = 100, input = {}) => {
    const c = await smppCustomer(h, credits, input);
    const { session, status } = await bindClient(h.smppPort, c.systemId, c.password);
    expect(status).toBe(0);
    return { c, session };
  };
  const submit = (session: SmppSession, fields: Record<string, unknown>) =>
    ask(session, 'submit_sm', { destination_addr: '525512345678', dest_addr_ton: 1, ...fields });

  it('takes a GSM submit_sm through the send path: message_id is the reference, the text as sent', async () => {
    const { c, session } = await bound();
    const before = await balance(c.id);
    const resp = await submit(session, {
      short_message: Buffer.from(gsmSeptets('Hola @ $ {x}')),
      registered_delivery: 1,
    });
    expect(resp.command_status).toBe(0);
    const row = await message(resp.message_id);
    expect(row).toMatchObject({ account_id: c.id, number: '525512345678', text: 'Hola @ $ {x}', flash: 0 });
    expect(before - (await balance(c.id))).toBe(Number(row.price_units));
    expect(Number(row.price_units)).toBeGreaterThan(0);
  });

  it('reads Latin-1 (3), UCS-2 (8) and flash, and a 10-digit number as Mexican', async () => {
    const { session } = await bound();
    const latin = await submit(session, { data_coding: 3, short_message: Buffer.from('canción ¿sí?', 'latin1') });
    expect((await message(latin.message_id)).text).toBe('canción ¿sí?');
    const ucs2 = Buffer.from('Ñandú ✓ 你好', 'utf16le').swap16();
    const wide = await submit(session, {
      data_coding: 8,
      short_message: ucs2,
      destination_addr: '5512345678',
      dest_addr_ton: 0,
    });
    expect(await message(wide.message_id)).toMatchObject({ text: 'Ñandú ✓ 你好', number: '525512345678' });
    const flash = await submit(session, { data_coding: 0x10, short_message: Buffer.from(gsmSeptets('now')) });
    expect((await message(flash.message_id)).flash).toBe(1);
  });

  it('gives each part of a UDH or SAR message its own message_id; the credits equal the parts', async () => {
    const { c, session } = await bound();
    const text = 'x'.repeat(150) + 'y'.repeat(100);
    const segments = encodeMessage(text, { coding: 'gsm' }, 7);
    expect(segments).toHaveLength(2);
    const before = await balance(c.id);
    const ids = [];
    for (const s of segments)
      ids.push((await submit(session, { esm_class: s.esmClass, short_message: s.shortMessage })).message_id);
    expect(new Set(ids).size).toBe(2);
    const rows = await Promise.all(ids.map(message));
    expect(rows.map((r) => r.text).join('')).toBe(text);
    const unit = Number(rows[0].price_units);
    expect(before - (await balance(c.id))).toBe(2 * unit);
    const sar = await submit(session, {
      short_message: Buffer.from(gsmSeptets('part one')),
      sar_msg_ref_num: 9,
      sar_total_segments: 2,
      sar_segment_seqnum: 1,
    });
    expect(JSON.parse((await message(sar.message_id)).meta!).smpp.concat).toEqual({
      reference: 9,
      total: 2,
      sequence: 1,
    });
    // A long message_payload in one submit_sm is charged for every part it takes.
    const payload = await submit(session, { message_payload: Buffer.from(gsmSeptets('z'.repeat(300))) });
    expect(Number((await message(payload.message_id)).price_units)).toBe(2 * unit);
  });

  it('maps refusals: 0x0B bad destinations, 0x45 too few credits, 0x04 on a receiver bind', async () => {
    const { session } = await bound();
    const text = { short_message: Buffer.from(gsmSeptets('hi')) };
    for (const destination_addr of ['abc', '12345', '99912345678901'])
      expect((await submit(session, { ...text, destination_addr })).command_status).toBe(0x0b);
    const poor = await bound(0);
    expect((await submit(poor.session, text)).command_status).toBe(0x45);
    const c = await smppCustomer(h);
    const receiver = await bindClient(h.smppPort, c.systemId, c.password, 'receiver');
    expect((await submit(receiver.session, text)).command_status).toBe(0x04);
  });

  it('answers each submit_sm of one read on its own; the balance covers the first ones it can', async () => {
    const { c, session } = await bound(3);
    const text = { short_message: Buffer.from(gsmSeptets('hi')) };
    // One write: the server reads them together and sends them as one turn.
    const socket = (session as unknown as { socket: import('node:net').Socket }).socket;
    socket.cork();
    const asked = [
      submit(session, { ...text, destination_addr: 'abc' }),
      ...Array.from({ length: 4 }, () => submit(session, text)),
      submit(session, { ...text, schedule_delivery_time: 'tomorrow' }),
    ];
    socket.uncork();
    const answers = await Promise.all(asked);
    expect(answers.map((a) => a.command_status)).toEqual([0x0b, 0, 0, 0, 0x45, 0x61]);
    const ids = answers.filter((a) => a.command_status === 0).map((a) => a.message_id);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(await message(id)).toMatchObject({ account_id: c.id, text: 'hi' });
    expect(await balance(c.id)).toBe(0);
  });

  it('answers 0x58 over the throughput in parts per second', async () => {
    const { session } = await bound(100, { throughput: 3 });
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => submit(session, { short_message: Buffer.from(gsmSeptets('hi')) })),
    );
    const statuses = answers.map((a) => a.command_status).sort();
    expect(statuses).toEqual([0, 0, 0, 0x58, 0x58, 0x58]);
  });

  it('grants a turn its throughput in order, as one by one: refused parts count, so the rest is refused too', async () => {
    const { session } = await bound(100, { throughput: 3 });
    const socket = (session as unknown as { socket: import('node:net').Socket }).socket;
    const long = { message_payload: Buffer.from(gsmSeptets('z'.repeat(300))) };
    socket.cork();
    const asked = [long, long, { short_message: Buffer.from(gsmSeptets('hi')) }].map((fields) =>
      submit(session, fields),
    );
    socket.uncork();
    expect((await Promise.all(asked)).map((a) => a.command_status)).toEqual([0, 0x58, 0x58]);
  });

  it('schedules by schedule_delivery_time, relative or absolute, and refuses a malformed one', async () => {
    const { session } = await bound();
    const text = { short_message: Buffer.from(gsmSeptets('later')) };
    const now = Date.now();
    const relative = await submit(session, { ...text, schedule_delivery_time: '000000010000000R' });
    const row = await message(relative.message_id);
    expect(row.status).toBe('scheduled');
    expect(Number(row.scheduled_at) - now).toBeGreaterThanOrEqual(3_600_000 - 5_000);
    expect(Number(row.scheduled_at) - now).toBeLessThanOrEqual(3_600_000 + 5_000);
    const at = new Date(now + 2 * 3_600_000);
    const p = (n: number) => String(n).padStart(2, '0');
    const absolute = `${p(at.getUTCFullYear() % 100)}${p(at.getUTCMonth() + 1)}${p(at.getUTCDate())}${p(at.getUTCHours())}${p(at.getUTCMinutes())}${p(at.getUTCSeconds())}000+`;
    const abs = await message((await submit(session, { ...text, schedule_delivery_time: absolute })).message_id);
    expect(Math.abs(Number(abs.scheduled_at) - Math.floor(at.getTime() / 1000) * 1000)).toBeLessThan(1000);
    expect((await submit(session, { ...text, schedule_delivery_time: 'tomorrow' })).command_status).toBe(0x61);
    expect(
      (
        await submit(session, {
          ...text,
          validity_period: '000000000001000R',
          schedule_delivery_time: '000000010000000R',
        })
      ).command_status,
    ).toBe(0x62);
  });
});
