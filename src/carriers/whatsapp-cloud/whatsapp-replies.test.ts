import { beforeAll, expect, it, vi } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../../test/helpers/harness.js';
import { whatsappSuite } from '../../../test/helpers/whatsapp-cloud-suite.js';

// These wait on dispatch retries and webhook deliveries; CI runs them beside the crash suite, which loads both cores.
vi.setConfig({ testTimeout: 90_000 });

describeEngines('WhatsApp Cloud API connector', (engine) => {
  const { suite, setup, sent, events, webhook, incomingMessage, repliesTo } = whatsappSuite(engine);
  let h: Harness;
  let wa: typeof suite.wa;
  beforeAll(() => {
    ({ h, wa } = suite);
  });

  it('an incoming message becomes a response event for the account that wrote to that number', async () => {
    const a = await setup();
    const r = await h.post(
      '/chatapp/send',
      { instance_id: a.instance, number: '5512340000', message: '¿Confirma su cita?' },
      a.apikey,
    );
    await sent(r.body.reference);
    const incoming = wa.payload({
      contacts: [{ profile: { name: 'Ana' }, wa_id: '525512340000' }],
      messages: [
        {
          from: '525512340000',
          id: 'wamid.IN1',
          timestamp: '1700000100',
          type: 'text',
          text: { body: 'Sí, confirmo' },
        },
      ],
    });
    await Promise.all([webhook(incoming, wa.sign(incoming)), webhook(incoming, wa.sign(incoming))]);
    await eventually(async () => events(a.id).some((e) => e.type === 'response'), 40_000);
    expect(events(a.id).filter((e) => e.type === 'response')).toEqual([
      expect.objectContaining({ reference: r.body.reference, response: 'Sí, confirmo', message: '¿Confirma su cita?' }),
    ]);
    expect(await h.ctx.db.kysely.selectFrom('replies').select('text').where('account_id', '=', a.id).execute()).toEqual(
      [{ text: 'Sí, confirmo' }],
    );
  });

  it('a reply on the shared number goes to the message it quotes; otherwise to the latest one within the match window, and after it to nobody', async () => {
    const [a, b] = [await setup(), await setup()];
    const fromA = await sent(
      (
        await h.post(
          '/chatapp/send',
          { instance_id: a.instance, number: '5512349000', message: 'Su pedido de A' },
          a.apikey,
        )
      ).body.reference,
    );
    const fromB = await sent(
      (
        await h.post(
          '/chatapp/send',
          { instance_id: b.instance, number: '5512349000', message: 'Promoción de B' },
          b.apikey,
        )
      ).body.reference,
    );
    const deliverIncoming = async (body: string) => expect((await webhook(body, wa.sign(body))).status).toBe(200);

    // Quoting A's message (its wamid): A's, although B wrote to that number since.
    await deliverIncoming(incomingMessage('525512349000', 'wamid.Q1', 'Sí, el pedido', fromA.carrier_id!));
    // No quote: the latest message to that number through this connector, B's.
    await deliverIncoming(incomingMessage('525512349000', 'wamid.Q2', 'Gracias'));
    expect(await repliesTo('525512349000')).toEqual([
      { account_id: a.id, message_id: fromA.id, text: 'Sí, el pedido' },
      { account_id: b.id, message_id: fromB.id, text: 'Gracias' },
    ]);

    // Both sent longer ago than REPLY_MATCH_WINDOW_HOURS: an unquoted reply matches nobody and is kept as unmatched.
    const past = Date.now() - (h.config.REPLY_MATCH_WINDOW_HOURS + 1) * 3_600_000;
    await h.ctx.db.kysely
      .updateTable('messages')
      .set({ created_at: past, sent_at: past })
      .where('id', 'in', [fromA.id, fromB.id])
      .execute();
    await deliverIncoming(incomingMessage('525512349000', 'wamid.Q3', '¿Quién es?'));
    // A quote still names its message.
    await deliverIncoming(incomingMessage('525512349000', 'wamid.Q4', 'Lo recibí', fromA.carrier_id!));
    expect((await repliesTo('525512349000')).slice(2)).toEqual([
      { account_id: a.id, message_id: fromA.id, text: 'Lo recibí' },
    ]);
    const unmatched = await h.ctx.db.kysely
      .selectFrom('unmatched_replies')
      .select(['carrier', 'text'])
      .where('source', '=', '525512349000')
      .execute();
    expect(unmatched).toEqual([{ carrier: 'wa', text: '¿Quién es?' }]);
  });
});
