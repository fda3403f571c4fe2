import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { loyaltyShops } from '../../../test/helpers/loyalty.js';
import { loyaltyCommands } from './cli.js';
import { createLoyalty } from './service.js';
import { listMovements } from './store.js';
import { runCommands } from '../../../test/helpers/cli.js';

describeEngines('loyalty programs', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  const { addStaff, enrolled, cardOf, stamp } = loyaltyShops(() => h);

  it('lists the programs of the account with loyalty_get_01', async () => {
    const s = await enrolled(8);
    const item = {
      loyalty_name: 'Café',
      loyalty_key: s.key,
      loyalty_app_client: '',
      loyalty_plan_type: 'stamps',
      loyalty_stamps_required: 8,
    };
    expect((await h.post('/loyalty/get', {}, s.apikey)).body).toEqual({
      success: true,
      message: 'loyalty_programs',
      status: 200,
      code: 'loyalty_get_01',
      result: [item],
      loyalty_cards: [item],
    });
    const other = await h.createAccount();
    expect((await h.post('/loyalty/get', {}, other.apikey)).body.result).toEqual([]);
  });

  it('enrolls with loyalty_sale_01, mirrors the contact in the linked list, and lists loyalty contact items', async () => {
    const account = await h.createAccount();
    const staffId = await addStaff(account);
    const program = await createLoyalty(h.ctx, account.id, 'Tacos', 5);
    const add = await h.post(
      '/loyalty/contact/add',
      {
        loyalty_key: program.loyalty_key,
        phone: '5512345678',
        customer_name: 'Carla',
        usertool_id: staffId,
        birthdate: '1990-02-28',
      },
      account.apikey,
    );
    expect(add.body).toEqual({
      success: true,
      message: 'contact_added',
      status: 200,
      code: 'loyalty_sale_01',
      stamps: 0,
      stamps_required: 5,
      card_completed: false,
      contact_total_loyalty_completes: 0,
      contact_current_redeem: 0,
    });
    await h.post(
      '/loyalty/contact/add',
      {
        loyalty_key: program.loyalty_key,
        phone: '5587654321',
        customer_name: 'Beto',
        usertool_id: staffId,
        birthdate: '1990-02-30',
      },
      account.apikey,
    );
    const odd = await h.post(
      '/loyalty/contact/add',
      {
        loyalty_key: program.loyalty_key,
        phone: '5500001111',
        customer_name: 'Odd',
        usertool_id: staffId,
        birthdate: { y: 1990 },
      },
      account.apikey,
    );
    expect(odd.body.code).toBe('loyalty_sale_01');
    const got = await h.post('/loyalty/contact/get', { loyalty_key: program.loyalty_key }, account.apikey);
    expect(got.body.contacts).toEqual(got.body.result);
    expect(got.body).toMatchObject({
      success: true,
      message: 'loyalty_contacts',
      status: 200,
      code: 'loyalty_contact_get_01',
      result: [
        {
          contact_name: 'Carla',
          contact_phone: '5512345678',
          contact_birthdate: '1990-02-28',
          contact_total_loyalty_completes: 0,
          contact_current_redeem: 0,
          contact_current_stamps: 0,
        },
        {
          contact_name: 'Beto',
          contact_phone: '5587654321',
          contact_birthdate: '',
          contact_total_loyalty_completes: 0,
          contact_current_redeem: 0,
          contact_current_stamps: 0,
        },
        {
          contact_name: 'Odd',
          contact_phone: '5500001111',
          contact_birthdate: '',
          contact_total_loyalty_completes: 0,
          contact_current_redeem: 0,
          contact_current_stamps: 0,
        },
      ],
    });
    expect(
      (
        await h.post('/loyalty/contact/get', { loyalty_key: program.loyalty_key, phone: '5587654321' }, account.apikey)
      ).body.result.map((c: any) => c.contact_name),
    ).toEqual(['Beto']);
    const list = await h.ctx.db.kysely
      .selectFrom('contact_lists')
      .selectAll()
      .where('id', '=', program.list_id)
      .executeTakeFirstOrThrow();
    expect(list.linked_tool).toBe('loyalty');
    const contacts = await h.ctx.db.kysely
      .selectFrom('contacts')
      .selectAll()
      .where('list_id', '=', list.id)
      .orderBy('id')
      .execute();
    expect(contacts.map((c) => [c.number, c.name, c.birthday_date])).toEqual([
      ['525512345678', 'Carla', '1990-02-28'],
      ['525587654321', 'Beto', null],
      ['525500001111', 'Odd', null],
    ]);
    for (const path of ['/contacts/add', '/contacts/delete']) {
      expect(
        (await h.post(path, { list_key: list.list_key, number: '5512345678', name: 'Intrusa' }, account.apikey)).body
          .code,
        path,
      ).toBe('contact_17');
    }
  });

  it('adds one stamp per sale; the Nth completes the card, earns a reward and starts a new card', async () => {
    const s = await enrolled(3);
    expect((await stamp(s)).body).toEqual({
      success: true,
      message: 'stamp_added',
      status: 200,
      code: 'loyalty_sale_01',
      stamps: 1,
      stamps_required: 3,
      card_completed: false,
      contact_total_loyalty_completes: 0,
      contact_current_redeem: 0,
    });
    expect((await stamp(s)).body).toMatchObject({ message: 'stamp_added', stamps: 2 });
    expect((await stamp(s)).body).toMatchObject({
      message: 'card_completed',
      code: 'loyalty_sale_01',
      stamps: 0,
      card_completed: true,
      contact_total_loyalty_completes: 1,
      contact_current_redeem: 1,
    });
    expect((await stamp(s)).body).toMatchObject({
      stamps: 1,
      contact_total_loyalty_completes: 1,
      contact_current_redeem: 1,
    });
    expect(await cardOf(s)).toMatchObject({
      contact_current_stamps: 1,
      contact_total_loyalty_completes: 1,
      contact_current_redeem: 1,
    });
    const member = await h.ctx.db.kysely
      .selectFrom('loyalty_members')
      .selectAll()
      .where('program_id', '=', s.program.id)
      .executeTakeFirstOrThrow();
    const ledger = await listMovements(h.ctx.db.kysely, member.id);
    expect(ledger.map((m) => [m.kind, m.stamps_after, m.card_completed, m.staff_user_id])).toEqual([
      ['stamp', 1, 0, s.staffId],
      ['stamp', 2, 0, s.staffId],
      ['stamp', 0, 1, s.staffId],
      ['stamp', 1, 0, s.staffId],
    ]);
  });

  it('completes a card on every sale when the program needs one stamp', async () => {
    const s = await enrolled(1);
    expect((await stamp(s)).body).toMatchObject({ card_completed: true, stamps: 0, contact_current_redeem: 1 });
    expect((await stamp(s)).body).toMatchObject({
      card_completed: true,
      stamps: 0,
      contact_total_loyalty_completes: 2,
      contact_current_redeem: 2,
    });
  });

  it('CLI loyalty add prints loyalty_key and loyalty_name; --stamps defaults to 10', async () => {
    const a = await h.createAccount();
    const out = await runCli(['loyalty', 'add', '--email', a.email, '--name', 'Café', '--json']);
    expect(out).toEqual({ loyalty_key: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), loyalty_name: 'Café' });
    const five = await runCli(['loyalty', 'add', '--email', a.email, '--name', 'Tacos', '--stamps', '5', '--json']);
    const programs = (await h.post('/loyalty/get', {}, a.apikey)).body.result;
    expect(programs.map((p: any) => [p.loyalty_key, p.loyalty_name, p.loyalty_stamps_required])).toEqual([
      [out.loyalty_key, 'Café', 10],
      [five.loyalty_key, 'Tacos', 5],
    ]);
    for (const bad of ['0', '-1', '2.5', 'x', '101'])
      expect(await runCli(['loyalty', 'add', '--email', a.email, '--name', 'X', '--stamps', bad, '--json'])).toEqual({
        error: expect.stringMatching(/--stamps/),
      });
    expect(await runCli(['loyalty', 'add', '--email', 'nobody@example.com', '--name', 'X', '--json'])).toEqual({
      error: expect.stringMatching(/no account/),
    });
    expect((await h.post('/loyalty/get', {}, a.apikey)).body.result).toHaveLength(2);
  });

  const runCli = (args: string[]) => runCommands(h.ctx, [loyaltyCommands], args);
});
