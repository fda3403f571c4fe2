import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';
import { loyaltyCommands } from './cli.js';
import { createLoyalty } from './service.js';
import { listMovements } from './store.js';
import { runCommands } from '../../../test/helpers/cli.js';

let staffCounter = 0;

describeEngines('loyalty programs', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  async function addStaff(account: TestAccount): Promise<number> {
    const n = ++staffCounter;
    const r = await h.post(
      '/employee/add',
      {
        type: 'gerente',
        employee_name: `Gerente ${n}`,
        business_name: 'Norte',
        number: String(5540000000 + n),
        password: `clave-${n}`,
      },
      account.apikey,
    );
    expect(r.body.code).toBe('toolusers_01');
    return r.body.collaboratorId;
  }

  /** An account with one active staff user and a program of `stamps` stamps with one enrolled phone. */
  async function enrolled(stamps = 3, phone = '5512345678') {
    const account = await h.createAccount();
    const staffId = await addStaff(account);
    const program = await createLoyalty(h.ctx, account.id, 'Café', stamps);
    const s = { account, apikey: account.apikey, staffId, key: program.loyalty_key, program, phone };
    const r = await h.post(
      '/loyalty/contact/add',
      { loyalty_key: s.key, phone, customer_name: 'Carla', usertool_id: staffId },
      s.apikey,
    );
    expect(r.body.code).toBe('loyalty_sale_01');
    return s;
  }

  let shared: Awaited<ReturnType<typeof enrolled>> | undefined;
  const sharedShop = async () => (shared ??= await enrolled(3, '5544443333'));

  const cardOf = async (s: { apikey: string; key: string; phone: string }) =>
    (await h.post('/loyalty/contact/get', { loyalty_key: s.key, phone: s.phone }, s.apikey)).body.result[0];
  const stamp = (s: { apikey: string; key: string; phone: string; staffId: number }) =>
    h.post('/loyalty/sale', { loyalty_key: s.key, phone: s.phone, usertool_id: s.staffId }, s.apikey);
  const redeem = (s: { apikey: string; key: string; phone: string; staffId: number }) =>
    h.post('/loyalty/redeem', { loyalty_key: s.key, phone: s.phone, usertool_id: s.staffId }, s.apikey);

  it('lists the programs of the account with loyalty_get_01', async () => {
    const s = await enrolled(8);
    expect((await h.post('/loyalty/get', {}, s.apikey)).body).toEqual({
      success: true,
      message: 'loyalty_programs',
      status: 200,
      code: 'loyalty_get_01',
      result: [
        {
          loyalty_name: 'Café',
          loyalty_key: s.key,
          loyalty_app_client: '',
          loyalty_plan_type: 'stamps',
          loyalty_stamps_required: 8,
        },
      ],
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
    expect(got.body).toEqual({
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

  it('refuses a phone already enrolled, also under parallel requests', async () => {
    const s = await enrolled();
    expect(
      (
        await h.post(
          '/loyalty/contact/add',
          { loyalty_key: s.key, phone: s.phone, customer_name: 'Otra', usertool_id: s.staffId },
          s.apikey,
        )
      ).body,
    ).toMatchObject({ status: 400, code: 'loyalty_11' });
    const replies = await Promise.all(
      Array.from({ length: 5 }, () =>
        h.post(
          '/loyalty/contact/add',
          { loyalty_key: s.key, phone: '5587654321', customer_name: 'Par', usertool_id: s.staffId },
          s.apikey,
        ),
      ),
    );
    expect(replies.filter((r) => r.body.code === 'loyalty_sale_01')).toHaveLength(1);
    expect(replies.filter((r) => r.body.code === 'loyalty_11')).toHaveLength(4);
  });

  it.each([
    [{ loyalty_key: undefined }, 'loyalty_02'],
    [{ loyalty_key: 'nope' }, 'loyalty_03'],
    [{ loyalty_key: { $ne: null } }, 'loyalty_02'],
    [{ phone: undefined }, 'loyalty_04'],
    [{ phone: '12345678901' }, 'loyalty_04'],
    [{ customer_name: undefined }, 'loyalty_05'],
    [{ customer_name: '\u0007bell' }, 'loyalty_05'],
    [{ usertool_id: undefined }, 'loyalty_06'],
    [{ usertool_id: -3 }, 'loyalty_06'],
    [{ usertool_id: 1.5 }, 'loyalty_06'],
    [{ usertool_id: 424242 }, 'loyalty_07'],
  ])('contact/add refuses %j with %s', async (over, code) => {
    const s = await sharedShop();
    const r = await h.post(
      '/loyalty/contact/add',
      { loyalty_key: s.key, phone: '5512345679', customer_name: 'Carla', usertool_id: s.staffId, ...over },
      s.apikey,
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code });
  });

  it.each([
    [{ loyalty_key: undefined }, 'loyalty_02'],
    [{ loyalty_key: 'nope' }, 'loyalty_03'],
    [{ phone: 'abc' }, 'loyalty_04'],
    [{ phone: '5599999999' }, 'loyalty_10'],
    [{ usertool_id: undefined }, 'loyalty_06'],
    [{ usertool_id: 424242 }, 'loyalty_07'],
  ])('sale and redeem refuse %j with %s', async (over, code) => {
    const s = await sharedShop();
    for (const path of ['/loyalty/sale', '/loyalty/redeem']) {
      const r = await h.post(path, { loyalty_key: s.key, phone: s.phone, usertool_id: s.staffId, ...over }, s.apikey);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, code });
    }
    expect(await cardOf(s)).toMatchObject({ contact_current_stamps: 0, contact_total_loyalty_completes: 0 });
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

  it('counts every stamp of parallel sales exactly', async () => {
    const s = await enrolled(3);
    const replies = await Promise.all(Array.from({ length: 10 }, () => stamp(s)));
    expect(replies.every((r) => r.body.code === 'loyalty_sale_01')).toBe(true);
    expect(replies.filter((r) => r.body.card_completed)).toHaveLength(3);
    expect(await cardOf(s)).toMatchObject({
      contact_current_stamps: 1,
      contact_total_loyalty_completes: 3,
      contact_current_redeem: 3,
    });
  });

  it('redeems an earned reward once, never more than earned, also in parallel', async () => {
    const s = await enrolled(2);
    expect((await redeem(s)).body).toMatchObject({ status: 400, code: 'loyalty_12' });
    for (let i = 0; i < 4; i++) await stamp(s);
    expect(await cardOf(s)).toMatchObject({ contact_current_redeem: 2 });
    const replies = await Promise.all(Array.from({ length: 6 }, () => redeem(s)));
    expect(replies.filter((r) => r.body.code === 'loyalty_redeem_01')).toHaveLength(2);
    expect(replies.filter((r) => r.body.code === 'loyalty_12')).toHaveLength(4);
    expect(replies.find((r) => r.body.code === 'loyalty_redeem_01')!.body).toMatchObject({
      success: true,
      message: 'reward_redeemed',
      status: 200,
    });
    expect(await cardOf(s)).toMatchObject({ contact_current_redeem: 0, contact_total_loyalty_completes: 2 });
    const member = await h.ctx.db.kysely
      .selectFrom('loyalty_members')
      .selectAll()
      .where('program_id', '=', s.program.id)
      .executeTakeFirstOrThrow();
    expect(member.rewards_redeemed).toBe(2);
    expect((await listMovements(h.ctx.db.kysely, member.id)).filter((m) => m.kind === 'redeem')).toHaveLength(2);
  });

  it('refuses sales and redeems by a disabled staff user', async () => {
    const s = await enrolled(1);
    await stamp(s);
    const number = (await h.post('/toolusers/get', {}, s.apikey)).body.result[0].usertool_number;
    await h.post('/employee/disable', { number }, s.apikey);
    expect((await stamp(s)).body.code).toBe('loyalty_07');
    expect((await redeem(s)).body.code).toBe('loyalty_07');
    expect(await cardOf(s)).toMatchObject({ contact_total_loyalty_completes: 1, contact_current_redeem: 1 });
  });

  it("treats another account's program key as absent and refuses its staff", async () => {
    const s = await enrolled(1);
    const intruder = await h.createAccount();
    const intruderStaff = await addStaff(intruder);
    const calls: Array<[string, Record<string, unknown>]> = [
      [
        '/loyalty/contact/add',
        { loyalty_key: s.key, phone: '5599990000', customer_name: 'X', usertool_id: intruderStaff },
      ],
      ['/loyalty/contact/get', { loyalty_key: s.key }],
      ['/loyalty/sale', { loyalty_key: s.key, phone: s.phone, usertool_id: intruderStaff }],
      ['/loyalty/redeem', { loyalty_key: s.key, phone: s.phone, usertool_id: intruderStaff }],
    ];
    for (const [path, body] of calls)
      expect((await h.post(path, body, intruder.apikey)).body).toMatchObject({ status: 400, code: 'loyalty_03' });
    // The owner's key with the intruder's staff user is refused too.
    expect(
      (await h.post('/loyalty/sale', { loyalty_key: s.key, phone: s.phone, usertool_id: intruderStaff }, s.apikey)).body
        .code,
    ).toBe('loyalty_07');
    expect(await cardOf(s)).toMatchObject({ contact_current_stamps: 0, contact_total_loyalty_completes: 0 });
  });

  it('never answers 500 to hostile bodies', async () => {
    const s = await sharedShop();
    const bodies: unknown[] = [
      [],
      { loyalty_key: ['a'] },
      { loyalty_key: s.key, phone: [5544443333], usertool_id: '1e400' },
      { loyalty_key: 'k'.repeat(100_000) },
    ];
    for (const path of ['/loyalty/contact/add', '/loyalty/contact/get', '/loyalty/sale', '/loyalty/redeem']) {
      for (const body of bodies) {
        const r = await h.post(path, body, s.apikey);
        expect(r.status).toBe(400);
      }
      const form = await h.request('POST', path, {
        apikey: s.apikey,
        form: { loyalty_key: s.key, phone: '5544443333', usertool_id: String(s.staffId), customer_name: 'F' },
      });
      expect(form.status).toBeLessThan(500);
    }
    expect((await h.post('/loyalty/get', {})).status).toBe(401);
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
