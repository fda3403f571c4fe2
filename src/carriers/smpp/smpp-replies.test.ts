import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { SMPP_ENV, smppTools } from '../../../test/helpers/smpp-suite.js';

describeEngines('SMPP carriers end to end', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { cli, carrier, send, message } = smppTools(() => h);

  it('turns a reply into a response event, reassembles a concatenated UCS-2 reply, and keeps a reply that matches nothing', async () => {
    const { smsc } = await carrier({}, [], { prefix: '525521' });
    const a = await h.createAccount(10);
    await h.ctx.db.kysely
      .insertInto('senders')
      .values({ account_id: a.id, name: '55123', rcs: 0, created_at: Date.now() })
      .execute();
    const [ref] = await send(a.apikey, '5521000001', { sender: '55123' });
    await eventually(async () => smsc.submitted.length === 1);
    const long = 'Sí, confirmo mi cita del jueves 😀 '.repeat(4);
    smsc.sendReply('525521000001', '55123', long, 'ucs2', { reference: 77 });
    smsc.sendReply('525521000001', '55123', 'ok @ $5', 'gsm');
    smsc.sendReply('529999999999', '55999', 'quién es?', 'latin1');
    const responses = await eventually(async () => {
      const rows = await h.ctx.db.kysely
        .selectFrom('events')
        .select('payload')
        .where('reference', '=', ref)
        .where('type', '=', 'response')
        .execute();
      return rows.length === 2 ? rows.map((r) => JSON.parse(r.payload)) : null;
    });
    expect(responses.map((r) => r.response).sort()).toEqual([long, 'ok @ $5'].sort());
    expect(responses[0]).toMatchObject({ type: 'response', reference: ref, number: '525521000001', message: 'Hola' });
    const unmatched = await eventually(async () => {
      const r = await cli('carriers', 'replies', '--unmatched');
      return r.replies.length > 0 ? r.replies : null;
    });
    expect(unmatched[0]).toMatchObject({ number: '529999999999', to: '55999', text: 'quién es?' });
    // Someone a never wrote to, writing to a's registered number: a's, answering no message (and never unmatched).
    smsc.sendReply('529999999998', '55123', 'hola', 'gsm');
    const loose = await eventually(() =>
      h.ctx.db.kysely
        .selectFrom('replies')
        .select(['account_id', 'message_id', 'route_id', 'destination'])
        .where('number', '=', '529999999998')
        .executeTakeFirst(),
    );
    expect(loose).toEqual({ account_id: a.id, message_id: 0, route_id: null, destination: '55123' });
    expect(await h.ctx.db.kysely.selectFrom('smpp_reply_parts').selectAll().execute()).toEqual([]);
  });

  it('a reply to an address no account claims goes to the latest message to that number through this connector within the match window, else to nobody', async () => {
    const { smsc, name } = await carrier({}, [], { prefix: '525523' });
    const [a, b] = [await h.createAccount(10), await h.createAccount(10)];
    // B's messages to these numbers go through the simulator: B never wrote to anyone through this SMSC.
    expect(
      (
        await cli(
          'routes',
          'add',
          '--channel',
          'sms',
          '--prefix',
          '525523',
          '--carriers',
          'simulator',
          '--account',
          b.email,
        )
      ).error,
    ).toBeUndefined();
    await eventually(async () =>
      h.ctx.carriers.manager.routes.some((r) => r.prefix === '525523' && r.accountId === b.id),
    );
    const [old] = await send(a.apikey, '5523000001');
    await eventually(async () => (await message(old)).carrier === name);
    const past = Date.now() - (h.config.REPLY_MATCH_WINDOW_HOURS + 1) * 3_600_000;
    await h.ctx.db.kysely
      .updateTable('messages')
      .set({ created_at: past, sent_at: past })
      .where('reference', '=', old)
      .execute();
    const [other] = await send(b.apikey, '5523000001');
    await eventually(async () => (await message(other)).carrier === 'simulator');

    const replies = () =>
      h.ctx.db.kysely
        .selectFrom('replies')
        .select(['account_id', 'text'])
        .where('number', '=', '525523000001')
        .orderBy('id')
        .execute();
    const unmatched = () =>
      h.ctx.db.kysely
        .selectFrom('unmatched_replies')
        .select(['carrier', 'destination', 'text'])
        .where('source', '=', '525523000001')
        .execute();
    // A's message is older than the window, B's went elsewhere: nobody's.
    smsc.sendReply('525523000001', '55990', '¿Quién habla?');
    expect(await eventually(async () => ((await unmatched()).length > 0 ? unmatched() : null), 10_000)).toEqual([
      { carrier: name, destination: '55990', text: '¿Quién habla?' },
    ]);
    expect(await replies()).toEqual([]);

    // A writes again through this SMSC: the next reply is A's.
    const [recent] = await send(a.apikey, '5523000001');
    // The reply matches by the connector recorded on the message, written once the SMSC answered the submit_sm.
    await eventually(async () => (await message(recent)).carrier === name);
    smsc.sendReply('525523000001', '55990', 'Ya veo, gracias');
    expect(await eventually(async () => ((await replies()).length > 0 ? replies() : null), 10_000)).toEqual([
      { account_id: a.id, text: 'Ya veo, gracias' },
    ]);
    expect(
      (
        await h.ctx.db.kysely
          .selectFrom('replies')
          .select('message_id')
          .where('number', '=', '525523000001')
          .executeTakeFirstOrThrow()
      ).message_id,
    ).toBe((await message(recent)).id);
  });

  it('reassembles a reply sent with SAR TLVs', async () => {
    const { smsc, name } = await carrier({}, [], { prefix: '525522' });
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5522000001');
    // The reply matches by the connector recorded on the message once the SMSC answered, not when it received the submit_sm.
    await eventually(async () => (await message(ref)).carrier === name);
    const long = 'Quiero cambiar la fecha de entrega al proximo lunes por la tarde, gracias. '.repeat(3);
    smsc.sendReply('525522000001', '', long, 'gsm', { sar: true, reference: 9 });
    const row = await eventually(() =>
      h.ctx.db.kysely
        .selectFrom('events')
        .select('payload')
        .where('reference', '=', ref)
        .where('type', '=', 'response')
        .executeTakeFirst(),
    );
    expect(JSON.parse(row.payload).response).toBe(long);
  });
});
