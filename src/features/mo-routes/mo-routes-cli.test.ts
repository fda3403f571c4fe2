import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { runCommands } from '../../../test/helpers/cli.js';
import { firstWord } from '../../messaging/routed-replies.js';
import { moRouteCommands, routeTable } from './cli.js';

describe('the first word of a reply, as MO routes compare it', () => {
  it.each([
    ['info', 'INFO'],
    ['  Ínfo por favor', 'INFO'],
    ['¡Cita! mañana', 'CITA'],
    ['PROMO2x1, gracias', 'PROMO2X1'],
    ['', ''],
    ['   ', ''],
    ['ＩＮＦＯ por favor', 'INFO'],
    ['"Info", gracias', 'INFO'],
    ['IN\u200BFO', 'INFO'],
  ])('%j → %j', (text, word) => expect(firstWord(text)).toBe(word));
});

describe('mo-routes list as text', () => {
  it('is a table with one line a route, (any) where the route takes any', () => {
    const text = routeTable([
      { id: 1, email: 'a@example.com', number: '55123', keyword: 'INFO' },
      { id: 12, email: 'b@example.com', number: null, keyword: 'CITA' },
    ]);
    expect(text.split('\n')).toEqual([
      'id  number  keyword  account',
      '1   55123   INFO     a@example.com',
      '12  (any)   CITA     b@example.com',
    ]);
    expect(routeTable([])).toBe('no MO routes');
  });
});

describeEngines('mo-routes commands and simulated replies', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(() => h.close());
  const mensajero = (...args: string[]) => runCommands(h.ctx, [moRouteCommands], ['mo-routes', ...args, '--json']);

  it('add prints the route (the keyword as compared), list shows them all, remove takes one away', async () => {
    const [a, b] = [await h.createAccount(0), await h.createAccount(0)];
    const both = await mensajero('add', '--email', a.email, '--number', '55100', '--keyword', 'Ínfo');
    expect(both).toEqual({ id: expect.any(Number), email: a.email, number: '55100', keyword: 'INFO' });
    const number = await mensajero('add', '--email', a.email, '--number', '55100');
    expect(number).toEqual({ id: expect.any(Number), email: a.email, number: '55100', keyword: null });
    const keyword = await mensajero('add', '--email', b.email, '--keyword', 'cita');
    expect(keyword).toEqual({ id: expect.any(Number), email: b.email, number: null, keyword: 'CITA' });
    // The same route again for the same account: that route, not a second one.
    expect(await mensajero('add', '--email', a.email, '--keyword', 'INFO', '--number', '55100')).toEqual(both);
    const listed = (await mensajero('list')).routes;
    expect(listed.filter((r: { id: number }) => [both.id, number.id, keyword.id].includes(r.id))).toEqual([
      both,
      number,
      keyword,
    ]);
    expect(await mensajero('remove', '--id', String(number.id))).toEqual({ removed: true });
    expect((await mensajero('list')).routes.map((r: { id: number }) => r.id)).not.toContain(number.id);
  });

  it('refuses a route without number and keyword, malformed ones, one another account holds, unknown ids', async () => {
    const [a, b] = [await h.createAccount(0), await h.createAccount(0)];
    expect((await mensajero('add', '--email', a.email)).error).toBe('give --number, --keyword or both');
    expect((await mensajero('add', '--email', a.email, '--number', '12')).error).toMatch(/3 to 15 digits/);
    expect((await mensajero('add', '--email', a.email, '--number', '+5255')).error).toMatch(/3 to 15 digits/);
    expect((await mensajero('add', '--email', a.email, '--keyword', 'two words')).error).toMatch(/one word/);
    expect((await mensajero('add', '--email', a.email, '--keyword', 'x'.repeat(31))).error).toMatch(/one word/);
    expect((await mensajero('add', '--email', 'nobody@example.com', '--keyword', 'X')).error).toMatch(/no account/);
    const held = await mensajero('add', '--email', a.email, '--number', '55200', '--keyword', 'pago');
    expect((await mensajero('add', '--email', b.email, '--number', '55200', '--keyword', 'PAGO')).error).toBe(
      `number 55200 and keyword PAGO is already routed to ${a.email} (id ${held.id})`,
    );
    expect((await mensajero('remove', '--id', '999999')).error).toBe('no MO route with id 999999');
    expect((await mensajero('remove', '--id', 'x')).error).toBe('--id is a route id');
  });

  it("a sub-account's route (--parent) is that sub-account's", async () => {
    const parent = await h.createAccount(5);
    const added = await h.post(
      '/manager/subaccount/add',
      { email: 'branch@example.com', password: 'secret123' },
      parent.apikey,
    );
    expect(added.body.code).toBe('subaccount_01');
    const sub = await h.ctx.db.kysely
      .selectFrom('accounts')
      .select('id')
      .where('parent_id', '=', parent.id)
      .executeTakeFirstOrThrow();
    const route = await mensajero(
      'add',
      '--email',
      'branch@example.com',
      '--parent',
      parent.email,
      '--keyword',
      'sucursal',
    );
    expect(route).toMatchObject({ email: 'branch@example.com', keyword: 'SUCURSAL' });
    const stored = await h.ctx.db.kysely
      .selectFrom('mo_routes')
      .select('account_id')
      .where('id', '=', route.id)
      .execute();
    expect(stored).toEqual([{ account_id: sub.id }]);
  });

  it("the simulator's reply to a number the account never wrote goes through that account's own routes only", async () => {
    const [a, b] = [await h.createAccount(0), await h.createAccount(0)];
    await mensajero('add', '--email', a.email, '--number', '55777', '--keyword', 'cita');
    await mensajero('add', '--email', b.email, '--keyword', 'pagoxyz');
    const reply = (apikey: string, body: Record<string, string>) => h.post('/simulator/replies', body, apikey);
    const routed = await reply(a.apikey, { number: '5512340000', response: 'Cita mañana', to: '55777' });
    expect(routed.status).toBe(200);
    expect(routed.body).toMatchObject({ code: 'simulator_01', reference: null, route_id: expect.any(Number) });
    const event = await h.ctx.db.kysely
      .selectFrom('events')
      .select(['type', 'reference', 'payload'])
      .where('account_id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect({ ...event, payload: JSON.parse(event.payload) }).toEqual({
      type: 'response',
      reference: '',
      payload: {
        type: 'response',
        reference: '',
        number: '525512340000',
        message: '',
        response: 'Cita mañana',
        send_date: '',
        response_date: expect.stringMatching(/^\d{14}$/),
        to: '55777',
        keyword: 'CITA',
        route_id: String(routed.body.route_id),
      },
    });
    const stored = await h.ctx.db.kysely.selectFrom('replies').selectAll().where('account_id', '=', a.id).execute();
    expect(stored).toEqual([
      expect.objectContaining({ message_id: 0, number: '525512340000', destination: '55777', text: 'Cita mañana' }),
    ]);
    // Another account's route is not this account's to inject into; no route: 404 as before.
    expect((await reply(a.apikey, { number: '5512340000', response: 'pagoxyz' })).body.code).toBe('simulator_04');
    expect((await reply(a.apikey, { number: '5512340000', response: 'cita', to: '55778' })).body.code).toBe(
      'simulator_04',
    );
    const bad = await reply(a.apikey, { number: '5512340000', response: 'cita', to: '5a' });
    expect([bad.status, bad.body.code]).toEqual([400, 'simulator_05']);

    // An opt-out keyword that reaches the account through a route changes the account's list, and sends nothing back.
    await mensajero('add', '--email', a.email, '--number', '55888');
    const optouts = () =>
      h.ctx.db.kysely.selectFrom('optouts').select('number').where('account_id', '=', a.id).execute();
    expect((await reply(a.apikey, { number: '5512340001', response: 'Baja', to: '55888' })).status).toBe(200);
    expect(await optouts()).toEqual([{ number: '525512340001' }]);
    expect((await reply(a.apikey, { number: '5512340001', response: 'ALTA', to: '55888' })).status).toBe(200);
    expect(await optouts()).toEqual([]);
    expect(await h.ctx.db.kysely.selectFrom('messages').select('id').where('account_id', '=', a.id).execute()).toEqual(
      [],
    );
  });
});
