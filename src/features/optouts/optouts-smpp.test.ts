import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { SMPP_ENV, smppTools } from '../../../test/helpers/smpp-suite.js';
import { optoutTools } from '../../../test/helpers/optouts.js';
import { setOptoutSettings } from './service.js';

/** A keyword reply through a real SMPP carrier (an SMSC on the smpp package): the list, the confirmation, no more sends. */
describeEngines('opt-out keywords from an SMPP carrier', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { carrier, send } = smppTools(() => h);
  const { credit, list, events } = optoutTools(() => h);

  it('a deliver_sm of " Bája " opts out; the confirmation goes back free; ALTA lets messages through again', async () => {
    const { smsc } = await carrier({}, [], { prefix: '525524' });
    const a = await h.createAccount(2);
    await h.ctx.db.kysely
      .insertInto('senders')
      .values({ account_id: a.id, name: '55124', rcs: 0, created_at: Date.now() })
      .execute();
    await setOptoutSettings(h.ctx.db.kysely, a.id, { confirmation: 'Baja confirmada. ALTA para volver.' });
    await send(a.apikey, '5524000001', { sender: '55124' });
    await eventually(async () => smsc.submitted.length === 1);
    smsc.sendReply('525524000001', '55124', ' Bája ', 'ucs2');
    await eventually(async () => (await list(a.apikey)).length === 1);
    expect(await list(a.apikey)).toMatchObject([{ number: '525524000001', source: 'keyword' }]);
    await eventually(async () => smsc.submitted.length === 2);
    expect(smsc.submitted[1].destination).toBe('525524000001');
    expect(smsc.submitted[1].shortMessage.toString('latin1')).toBe('Baja confirmada. ALTA para volver.');
    expect(await events(a.id, 'response')).toMatchObject([{ response: ' Bája ' }]);
    expect(await credit(a.apikey)).toBe(1);

    const r = await h.post('/sms/send', { numbers: '5524000001', message: 'Oferta', sender: '55124' }, a.apikey);
    expect(r.body.credit).toBe(0);
    smsc.sendReply('525524000001', '55124', 'alta', 'gsm');
    await eventually(async () => (await list(a.apikey)).length === 0);
    await send(a.apikey, '5524000001', { sender: '55124' });
    await eventually(async () => smsc.submitted.length === 3);
    expect(smsc.submitted.map((s) => s.shortMessage.toString('latin1'))).toEqual([
      'Hola',
      'Baja confirmada. ALTA para volver.',
      'Hola',
    ]);
    expect(await credit(a.apikey)).toBe(0);
  });
});
