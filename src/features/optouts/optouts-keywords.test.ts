import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { simulatedReply } from '../../../test/helpers/simulated-reply.js';
import { optoutTools } from '../../../test/helpers/optouts.js';
import { recordInboundReply } from '../../messaging/inbound-replies.js';
import { optoutKeyword } from '../../messaging/optouts.js';
import { firstWord } from '../../messaging/routed-replies.js';
import { keywordForm } from '../../text/keyword.js';
import { recordCarrier } from '../otp/testing.js';
import { setOptoutSettings } from './service.js';

describe('opt-out keywords', () => {
  it.each([
    'STOP',
    'stop',
    '  Baja ',
    'báJA',
    'ALTO',
    'alto\n',
    'Cancelar',
    'CANCELÁR',
    'unsubscribe',
    '\tUnSubscribe ',
  ])('%j puts the number on the list', (text) => expect(optoutKeyword(text)).toBe('stop'));
  it.each(['ALTA', ' alta', 'Álta', 'start', 'SUSCRIBIR', 'súscribir '])('%j takes it off', (text) =>
    expect(optoutKeyword(text)).toBe('start'),
  );
  it.each(['STOP please', 'ba ja', 'NO', '', 'STOPP', 'x'.repeat(10_000)])('%j is no keyword', (text) =>
    expect(optoutKeyword(text)).toBeNull(),
  );
  // Punctuation, quotes, width variants and invisible characters: compared as MO routes compare a first word.
  it.each([
    'BAJA.',
    'STOP!',
    '"STOP"',
    '“Stop”',
    '«baja»',
    '¡ALTO!',
    '(stop)',
    'Stop...',
    'ＳＴＯＰ',
    'Ｓｔｏｐ！',
    'ST\u200BOP',
    '\u200BSTOP\u200D',
    'ST\u00ADOP',
    '\u2066STOP\u2069',
    '\u00A0BAJA\u00A0',
    'BA\u0301JA',
  ])('%j puts the number on the list too', (text) => expect(optoutKeyword(text)).toBe('stop'));
  it.each(['ＡＬＴＡ。', '"start"', 'ALTA!'])('%j takes it off too', (text) =>
    expect(optoutKeyword(text)).toBe('start'),
  );
  it.each(['STOP please', '"STOP" please', 'ＳＴＯＰ ｐｌｅａｓｅ', 'S.T.O.P', 'ST OP', 'STOP!STOP', '!!!'])(
    '%j is still no keyword',
    (text) => expect(optoutKeyword(text)).toBeNull(),
  );
  it('is the form MO routes compare a first word in', () => {
    for (const text of ['BAJA.', 'ＳＴＯＰ', 'ST\u200BOP', '"Alta"']) expect(firstWord(text)).toBe(keywordForm(text));
  });
});

describeEngines('opt-out keywords in replies', (engine) => {
  let h: Harness;
  let carrier: ReturnType<typeof recordCarrier>;
  beforeAll(async () => {
    h = await startHarness(engine);
    carrier = recordCarrier(h.ctx);
  });
  afterAll(() => h.close());
  const { credit, list, events, subAccountOf } = optoutTools(() => h);
  const send = (key: string, numbers: string) => h.post('/sms/send', { numbers, message: 'Promo' }, key);
  const reply = (key: string, number: string, response: string) => simulatedReply(h, key, number, response);

  it('a reply of " Bája " opts the number out of the family’s list, and its response event still goes out', async () => {
    const parent = await h.createAccount(10);
    const sub = await subAccountOf(parent, 10);
    await send(sub.apikey, '5512350001');
    expect((await reply(sub.apikey, '5512350001', ' Bája ')).status).toBe(200);
    expect(await events(sub.id, 'response')).toMatchObject([{ number: '525512350001', response: ' Bája ' }]);
    for (const key of [parent.apikey, sub.apikey])
      expect(await list(key)).toMatchObject([{ number: '525512350001', source: 'keyword' }]);
    expect((await send(parent.apikey, '5512350001')).body.credit).toBe(0);
  });

  it('ALTA takes the number off again; other texts change nothing', async () => {
    const a = await h.createAccount(10);
    await send(a.apikey, '5512350002');
    await reply(a.apikey, '5512350002', 'stop');
    expect(await list(a.apikey)).toHaveLength(1);
    await reply(a.apikey, '5512350002', 'stop please');
    await reply(a.apikey, '5512350002', 'Súscribir');
    expect(await list(a.apikey)).toEqual([]);
    expect((await send(a.apikey, '5512350002')).body.credit).toBe(1);
  });

  it('"BAJA." and full-width ＳＴＯＰ opt out, "ALTA!" opts back in, "STOP please" changes nothing', async () => {
    const a = await h.createAccount(10);
    await send(a.apikey, '5512350005');
    await reply(a.apikey, '5512350005', 'BAJA.');
    expect(await list(a.apikey)).toMatchObject([{ number: '525512350005', source: 'keyword' }]);
    await reply(a.apikey, '5512350005', '¡ALTA!');
    expect(await list(a.apikey)).toEqual([]);
    await reply(a.apikey, '5512350005', 'STOP please');
    expect(await list(a.apikey)).toEqual([]);
    await reply(a.apikey, '5512350005', 'Ｓ\u200BＴＯＰ');
    expect(await list(a.apikey)).toHaveLength(1);
  });

  it('the confirmation text goes back once, free, through the send path', async () => {
    const a = await h.createAccount(1);
    await setOptoutSettings(h.ctx.db.kysely, a.id, { confirmation: 'Ya no recibirás mensajes. ALTA para volver.' });
    await send(a.apikey, '5512350003');
    expect(await credit(a.apikey)).toBe(0);
    await reply(a.apikey, '5512350003', 'BAJA');
    await reply(a.apikey, '5512350003', 'baja');
    await eventually(async () => carrier.textsTo('525512350003').length === 2);
    expect(carrier.textsTo('525512350003')).toEqual(['Promo', 'Ya no recibirás mensajes. ALTA para volver.']);
    expect(await credit(a.apikey)).toBe(0);
    // Back on and off again within the day: listed again, not confirmed again (CONFIRMATION_PERIOD_MS).
    await reply(a.apikey, '5512350003', 'ALTA');
    await reply(a.apikey, '5512350003', 'STOP');
    expect(await list(a.apikey)).toHaveLength(1);
    expect(carrier.textsTo('525512350003')).toHaveLength(2);
    expect(await credit(a.apikey)).toBe(0);
  });

  it('a carrier reply opts out at the account the one matching rule gives it to, not every account that wrote', async () => {
    const first = await h.createAccount(5);
    const second = await h.createAccount(5);
    await send(first.apikey, '5512350004');
    await send(second.apikey, '5512350004');
    await eventually(async () => carrier.textsTo('525512350004').length === 2);
    // Our address belongs to `first` (a registered sender, a bound instance): the reply is its customer's.
    const reply = { carrier: 'simulator', source: '525512350004', destination: 'X', text: 'ALTO', at: Date.now() };
    expect(await recordInboundReply(h.ctx, { ...reply, owners: [first.id] })).toBe('matched');
    expect(await list(first.apikey)).toMatchObject([{ number: '525512350004', source: 'keyword' }]);
    expect(await list(second.apikey)).toEqual([]);
    // No owner: the latest message through that connector, `second`'s.
    expect(await recordInboundReply(h.ctx, { ...reply, owners: [], at: Date.now() })).toBe('matched');
    expect(await list(second.apikey)).toHaveLength(1);
  });

  it('a keyword nobody can be matched to changes no list', async () => {
    const a = await h.createAccount(1);
    const r = {
      carrier: 'simulator',
      source: '525512350099',
      destination: '',
      text: 'STOP',
      at: Date.now(),
      owners: [],
    };
    expect(await recordInboundReply(h.ctx, r)).toBe('unmatched');
    expect(await list(a.apikey)).toEqual([]);
    expect(await h.ctx.db.kysely.selectFrom('optouts').select('id').where('number', '=', r.source).execute()).toEqual(
      [],
    );
  });
});
