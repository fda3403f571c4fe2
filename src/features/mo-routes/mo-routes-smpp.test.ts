import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { runCommands } from '../../../test/helpers/cli.js';
import { SMPP_ENV, smppTools } from '../../../test/helpers/smpp-suite.js';
import { smsCommands } from '../sms/cli.js';
import { moRouteCommands } from './cli.js';

/** A webhook receiver on 127.0.0.1 that keeps the fields of each event it gets. */
async function webhookReceiver() {
  const forms: Array<Record<string, string>> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      // The event's fields: a GET's query string, a POST's form body (the account's webhook method).
      const query = (req.url ?? '').split('?')[1];
      if (req.method === 'POST' || (req.method === 'GET' && query))
        forms.push(Object.fromEntries(new URLSearchParams(req.method === 'POST' ? body : query)));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    forms,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describeEngines('MO routes for replies from an SMPP carrier', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { carrier, send, message, cli } = smppTools(() => h);
  const routes = (...args: string[]) => runCommands(h.ctx, [moRouteCommands], ['mo-routes', ...args, '--json']);
  const repliesFrom = (number: string) =>
    h.ctx.db.kysely
      .selectFrom('replies')
      .select(['account_id', 'message_id', 'route_id', 'destination', 'text'])
      .where('number', '=', number)
      .execute();
  const arrived = (number: string) =>
    eventually(async () => {
      const rows = await repliesFrom(number);
      return rows.length > 0 ? rows : null;
    }, 10_000);

  it('number and keyword, then number, then keyword; a reply to a sent message keeps its account; none: unmatched', async () => {
    const { smsc, name } = await carrier({}, [], { prefix: '525543' });
    const [a, b, c, d] = [
      await h.createAccount(10),
      await h.createAccount(10),
      await h.createAccount(10),
      await h.createAccount(10),
    ];
    const both = await routes('add', '--email', a.email, '--number', '55123', '--keyword', 'info');
    const number = await routes('add', '--email', b.email, '--number', '55123');
    const keyword = await routes('add', '--email', c.email, '--keyword', 'INFO');
    const otherNumber = await routes('add', '--email', d.email, '--number', '55124');
    const hook = await webhookReceiver();
    try {
      for (const account of [a, b])
        expect((await h.post('/webhook/add', { url: hook.url, status: '1' }, account.apikey)).body.code).toBe(
          'add_webhook_01',
        );
      smsc.sendReply('525543000001', '55123', 'Info por favor');
      smsc.sendReply('525543000002', '55123', 'Hola');
      smsc.sendReply('525543000003', '55999', '¡ínfo!', 'ucs2');
      smsc.sendReply('525543000004', '+55123', 'INFO ya');
      smsc.sendReply('525543000007', '55124', 'info');
      const routed = { message_id: 0 };
      expect(await arrived('525543000001')).toEqual([
        { ...routed, account_id: a.id, route_id: both.id, destination: '55123', text: 'Info por favor' },
      ]);
      expect(await arrived('525543000002')).toEqual([
        { ...routed, account_id: b.id, route_id: number.id, destination: '55123', text: 'Hola' },
      ]);
      expect(await arrived('525543000003')).toEqual([
        { ...routed, account_id: c.id, route_id: keyword.id, destination: '55999', text: '¡ínfo!' },
      ]);
      expect((await arrived('525543000004'))[0]).toMatchObject({ account_id: a.id, destination: '55123' });
      // A number route and a keyword route both match: the number wins.
      expect((await arrived('525543000007'))[0]).toMatchObject({ account_id: d.id, route_id: otherNumber.id });
      // A's webhook gets the response event: the fields of a matched reply, those of the sent message empty, and
      // where it went: our number, the route's keyword and the route.
      const form = await eventually(async () => hook.forms.find((f) => f.number === '525543000001'), 10_000);
      expect(form).toEqual({
        type: 'response',
        reference: '',
        number: '525543000001',
        message: '',
        response: 'Info por favor',
        send_date: '',
        response_date: expect.stringMatching(/^\d{14}$/),
        to: '55123',
        keyword: 'INFO',
        route_id: String(both.id),
      });
      // B's route takes any first word: its keyword is empty (a form has no null).
      const formB = await eventually(async () => hook.forms.find((f) => f.number === '525543000002'), 10_000);
      expect(formB).toMatchObject({ response: 'Hola', to: '55123', keyword: '', route_id: String(number.id) });
    } finally {
      await hook.close();
    }

    // D wrote to this number through this carrier: a reply to an address nobody owns or routes answers D's
    // message, whatever the keyword routes say; one to a's short code is a's, whatever D sent.
    const [ref] = await send(d.apikey, '5543000005');
    await eventually(async () => (await message(ref)).carrier === name, 10_000);
    smsc.sendReply('525543000005', '55999', 'info');
    expect(await arrived('525543000005')).toEqual([
      { account_id: d.id, message_id: (await message(ref)).id, route_id: null, destination: '55999', text: 'info' },
    ]);
    smsc.sendReply('525543000005', '55123', 'info');
    await eventually(async () => (await repliesFrom('525543000005')).length === 2, 10_000);
    expect((await repliesFrom('525543000005')).find((r) => r.destination === '55123')).toEqual({
      account_id: a.id,
      message_id: 0,
      route_id: both.id,
      destination: '55123',
      text: 'info',
    });

    // No route for it: unmatched, as before routes existed.
    smsc.sendReply('525543000006', '55999', 'Hola');
    const unmatched = await eventually(async () => {
      const r = await cli('carriers', 'replies', '--unmatched');
      return r.replies.find((x: { number: string }) => x.number === '525543000006');
    }, 10_000);
    expect(unmatched).toMatchObject({ to: '55999', text: 'Hola' });
    expect(await repliesFrom('525543000006')).toEqual([]);
  });

  it('a reply to an address an account owns or routes is that account’s, whatever another sent through the connector', async () => {
    const { smsc, name } = await carrier({}, [], { prefix: '525545' });
    const [a, b] = [await h.createAccount(10), await h.createAccount(10)];
    const senders = (...args: string[]) => runCommands(h.ctx, [smsCommands], ['senders', 'add', ...args, '--json']);
    const info = await routes('add', '--email', a.email, '--number', '56123', '--keyword', 'info');
    expect(await senders('--email', a.email, '--sender', '56124')).toEqual({ sender: '56124', rcs: false });
    const listOf = async (key: string) =>
      (await h.get('/optouts', key)).body.optouts.map((o: { number: string }) => o.number);
    const handed = async (ref: string) => {
      await eventually(async () => (await message(ref)).carrier === name, 10_000);
      return (await message(ref)).id;
    };
    const replyOf = (number: string, text: string) =>
      eventually(async () => (await repliesFrom(number)).find((r) => r.text === text), 10_000);

    // b writes to the person once, through the connector a's numbers go through.
    await handed((await send(b.apikey, '5545000001'))[0]);
    // Their INFO to a's short code is a's (its route), their STOP to a's number puts them on a's list.
    smsc.sendReply('525545000001', '56123', 'INFO');
    expect(await replyOf('525545000001', 'INFO')).toEqual({
      account_id: a.id,
      message_id: 0,
      route_id: info.id,
      destination: '56123',
      text: 'INFO',
    });
    smsc.sendReply('525545000001', '56124', 'STOP');
    expect(await replyOf('525545000001', 'STOP')).toMatchObject({ account_id: a.id, message_id: 0, route_id: null });
    expect(await listOf(a.apikey)).toEqual(['525545000001']);
    expect(await listOf(b.apikey)).toEqual([]);
    const refused = await h.post('/sms/send', { numbers: '5545000001', message: 'Promo' }, a.apikey);
    expect(refused.body.credit).toBe(0);
    // A text to a's short code that no route of it takes: unmatched, never b's.
    smsc.sendReply('525545000001', '56123', 'Hola');
    await eventually(async () => {
      const r = await cli('carriers', 'replies', '--unmatched');
      return r.replies.some((x: { number: string; text: string }) => x.number === '525545000001' && x.text === 'Hola');
    }, 10_000);
    expect((await repliesFrom('525545000001')).map((r) => r.account_id)).toEqual([a.id, a.id]);

    // The owner wrote first from its number, b later: the reply answers the owner's message.
    const ownMessage = await handed((await send(a.apikey, '5545000002', { sender: '56124' }))[0]);
    await handed((await send(b.apikey, '5545000002'))[0]);
    smsc.sendReply('525545000002', '56124', 'baja');
    expect(await replyOf('525545000002', 'baja')).toMatchObject({ account_id: a.id, message_id: ownMessage });
    expect(await listOf(a.apikey)).toEqual(['525545000001', '525545000002']);
    expect(await listOf(b.apikey)).toEqual([]);

    // An address nobody owns or routes (the connector's shared number): the latest message through it, b's.
    const bMessage = await handed((await send(b.apikey, '5545000003'))[0]);
    smsc.sendReply('525545000003', '56999', 'STOP');
    expect(await replyOf('525545000003', 'STOP')).toMatchObject({ account_id: b.id, message_id: bMessage });
    expect(await listOf(b.apikey)).toEqual(['525545000003']);
  });

  it('a removed route, or one of an archived account, takes nothing: the next most specific one does', async () => {
    const { smsc } = await carrier({}, [], { prefix: '525544' });
    const [a, b] = [await h.createAccount(10), await h.createAccount(10)];
    const first = await routes('add', '--email', a.email, '--number', '55321', '--keyword', 'cita');
    const fallback = await routes('add', '--email', b.email, '--number', '55321');
    expect(await routes('remove', '--id', String(first.id))).toEqual({ removed: true });
    smsc.sendReply('525544000001', '55321', 'cita');
    expect((await arrived('525544000001'))[0]).toMatchObject({ account_id: b.id, route_id: fallback.id });
    await h.ctx.db.kysely.updateTable('accounts').set({ status: 'archived' }).where('id', '=', b.id).execute();
    smsc.sendReply('525544000002', '55321', 'cita');
    await eventually(async () => {
      const r = await cli('carriers', 'replies', '--unmatched');
      return r.replies.some((x: { number: string }) => x.number === '525544000002');
    }, 10_000);
    expect(await repliesFrom('525544000002')).toEqual([]);
  });
});
