import { afterAll, beforeAll, expect, it } from 'vitest';
import { subaccountEmailKey } from '../../accounts/subaccount-email.js';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../../test/helpers/harness.js';

describeEngines('sub-accounts', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  let n = 0;
  const freshEmail = () => `sub${++n}-${engine}-${Date.now()}@example.com`;
  const credit = async (apikey: string) => (await h.post('/credits/consult', {}, apikey)).body.credit;
  const add = (parent: TestAccount, email: string, password = 'secret123') =>
    h.post('/manager/subaccount/add', { email, password }, parent.apikey);
  const manage = (parent: TestAccount, email: string, type: unknown, credits: unknown) =>
    h.post('/manager/subaccount/credits/manage', { email, type, credits }, parent.apikey);
  async function withSub(parentCredits = 0) {
    const parent = await h.createAccount(parentCredits);
    const email = freshEmail();
    const r = await add(parent, email);
    expect(r.status).toBe(200);
    return { parent, email, subKey: r.body.apikey as string };
  }

  it('creates a sub-account with its own key, a zero balance and a link to its parent', async () => {
    const parent = await h.createAccount(10);
    const email = freshEmail().toUpperCase();
    const r = await add(parent, email);
    expect(r.body).toEqual({
      success: true,
      message: 'user_created',
      status: 200,
      code: 'subaccount_01',
      apikey: expect.stringMatching(/^mns_/),
      email: email.toLowerCase(),
    });
    expect(r.body.apikey).not.toBe(parent.apikey);
    expect(await credit(r.body.apikey)).toBe(0);
    const row = await h.ctx.db.kysely
      .selectFrom('accounts')
      .selectAll()
      .where('email', '=', subaccountEmailKey(parent.id, email))
      .executeTakeFirstOrThrow();
    expect(row.parent_id).toBe(parent.id);
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain('secret123');
  });

  it.each([
    [{ password: 'secret123' }, 'subaccount_02'],
    [{ email: '', password: 'secret123' }, 'subaccount_02'],
    [{ email: `${'a'.repeat(60)}@example.com`, password: 'secret123' }, 'subaccount_03'],
    [{ email: 'not-an-email', password: 'secret123' }, 'subaccount_04'],
    [{ email: 'a b@example.com', password: 'secret123' }, 'subaccount_04'],
    [{ email: 'a\u0000b@example.com', password: 'secret123' }, 'subaccount_04'],
    [{ email: { $ne: 1 }, password: 'secret123' }, 'subaccount_02'],
    [{ email: 'ok@example.com' }, 'subaccount_05'],
    [{ email: 'ok@example.com', password: '12345' }, 'subaccount_06'],
    [{ email: 'ok@example.com', password: 'x'.repeat(37) }, 'subaccount_06'],
    [{ email: 'ok@example.com', password: ['secret123'] }, 'subaccount_05'],
  ])('add refuses %j with %s', async (body, code) => {
    const parent = await h.createAccount();
    const r = await h.post('/manager/subaccount/add', body, parent.apikey);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, status: 400, code });
  });

  it('accepts exactly 70-character emails and 6- and 36-character passwords, also as a form body', async () => {
    const parent = await h.createAccount();
    const local = `x${Date.now()}${engine}`;
    const email = `${local}${'a'.repeat(70 - local.length - '@example.com'.length)}@example.com`;
    expect(email).toHaveLength(70);
    expect((await add(parent, email, '123456')).status).toBe(200);
    const form = await h.request('POST', '/manager/subaccount/add', {
      apikey: parent.apikey,
      form: { email: freshEmail(), password: 'p'.repeat(36) },
    });
    expect(form.body).toMatchObject({ code: 'subaccount_01' });
  });

  it("refuses an email the caller's own sub-accounts already use (subaccount_07), also under parallel requests", async () => {
    const parent = await h.createAccount();
    const email = freshEmail();
    const replies = await Promise.all(Array.from({ length: 4 }, () => add(parent, email)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    expect(replies.filter((r) => r.body.code === 'subaccount_07')).toHaveLength(3);
  });

  it('a sub-account manages no sub-accounts (403 subaccount_13)', async () => {
    const { email, subKey } = await withSub();
    for (const [path, body] of [
      ['/manager/subaccount/add', { email: freshEmail(), password: 'secret123' }],
      ['/manager/subaccount/archive', { email }],
      ['/manager/subaccount/get_apikey', { email }],
      ['/manager/subaccount/credits/manage', { email, type: 1, credits: 1 }],
    ] as const) {
      const r = await h.post(path, body, subKey);
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ success: false, code: 'subaccount_13' });
    }
  });

  it("get_apikey returns the sub-account key; no account reaches another one's sub-accounts", async () => {
    const { parent, email, subKey } = await withSub(10);
    expect((await h.post('/manager/subaccount/get_apikey', { email }, parent.apikey)).body).toMatchObject({
      success: true,
      status: 200,
      apikey: subKey,
      email,
    });
    const stranger = await h.createAccount(10);
    for (const [path, body] of [
      ['/manager/subaccount/archive', { email }],
      ['/manager/subaccount/get_apikey', { email }],
      ['/manager/subaccount/credits/manage', { email, type: 1, credits: 1 }],
      // The parent's own email is not a sub-account of anyone.
      ['/manager/subaccount/get_apikey', { email: stranger.email }],
    ] as const) {
      const r = await h.post(path, body, stranger.apikey);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, code: 'subaccount_08' });
    }
    expect((await h.post('/manager/subaccount/get_apikey', { email: freshEmail() }, parent.apikey)).body.code).toBe(
      'subaccount_08',
    );
    expect(await credit(stranger.apikey)).toBe(10);
    expect(await credit(subKey)).toBe(0);
  });

  it('moves credits both ways with subaccount_01 and checks type, credits and the paying balance', async () => {
    const { parent, email, subKey } = await withSub(10);
    expect((await manage(parent, email, 1, 7)).body).toEqual({
      success: true,
      message: 'credits_added',
      status: 200,
      code: 'subaccount_01',
      credit: 3,
      subaccount_credit: 7,
    });
    expect((await manage(parent, email, '2', '2')).body).toMatchObject({
      code: 'subaccount_01',
      message: 'credits_withdrawn',
      credit: 5,
      subaccount_credit: 5,
    });
    expect(await credit(subKey)).toBe(5);
    for (const [type, credits, code] of [
      [undefined, 1, 'subaccount_10'],
      [3, 1, 'subaccount_10'],
      ['add', 1, 'subaccount_10'],
      [1, undefined, 'subaccount_11'],
      [1, 0, 'subaccount_11'],
      [1, -1, 'subaccount_11'],
      [1, 1.5, 'subaccount_11'],
      [1, '1.5', 'subaccount_11'],
      [1, 'abc', 'subaccount_11'],
      [1, 1e20, 'subaccount_11'],
      [1, 6, 'subaccount_12'],
      [2, 6, 'subaccount_12'],
    ] as const) {
      const r = await manage(parent, email, type, credits);
      expect(r.status, `${type} ${credits}`).toBe(400);
      expect(r.body.code, `${type} ${credits}`).toBe(code);
    }
    expect((await manage(parent, 'nobody@example.com', 1, 1)).body.code).toBe('subaccount_08');
    expect(await credit(parent.apikey)).toBe(5);
    expect(await credit(subKey)).toBe(5);
  });

  it('never changes the sum nor takes a balance below zero under parallel transfers both ways', async () => {
    const { parent, email, subKey } = await withSub(100);
    const ops = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0 ? manage(parent, email, 1, 7) : manage(parent, email, 2, 5),
    );
    const replies = await Promise.all(ops);
    for (const r of replies) expect([200, 400]).toContain(r.status);
    const added = replies.filter((r, i) => i % 2 === 0 && r.status === 200).length;
    const withdrawn = replies.filter((r, i) => i % 2 === 1 && r.status === 200).length;
    expect(replies.filter((r) => r.status === 400).every((r) => r.body.code === 'subaccount_12')).toBe(true);
    const p = await credit(parent.apikey);
    const s = await credit(subKey);
    expect(p + s).toBe(100);
    expect(p).toBe(100 - 7 * added + 5 * withdrawn);
    expect(p).toBeGreaterThanOrEqual(0);
    expect(s).toBeGreaterThanOrEqual(0);
  });

  it('never overdraws the paying side under parallel transfers', async () => {
    const { parent, email, subKey } = await withSub(100);
    const replies = await Promise.all(Array.from({ length: 25 }, () => manage(parent, email, 1, 10)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(10);
    expect(replies.filter((r) => r.body.code === 'subaccount_12')).toHaveLength(15);
    const back = await Promise.all(Array.from({ length: 25 }, () => manage(parent, email, 2, 10)));
    expect(back.filter((r) => r.status === 200)).toHaveLength(10);
    expect(await credit(parent.apikey)).toBe(100);
    expect(await credit(subKey)).toBe(0);
  });

  it('archive is one-way: the key stops working at once and the balance returns to the parent', async () => {
    const { parent, email, subKey } = await withSub(50);
    await manage(parent, email, 1, 20);
    expect(await credit(subKey)).toBe(20);
    const r = await h.post('/manager/subaccount/archive', { email }, parent.apikey);
    expect(r.body).toEqual({
      success: true,
      message: 'subaccount_archived',
      status: 200,
      code: 'subaccount_01',
      credits_returned: 20,
    });
    expect((await h.post('/credits/consult', {}, subKey)).status).toBe(401);
    expect((await h.post('/credits/consult', {}, subKey)).body.code).toBe('auth_05');
    expect(await credit(parent.apikey)).toBe(50);
    for (const [path, body] of [
      ['/manager/subaccount/archive', { email }],
      ['/manager/subaccount/get_apikey', { email }],
      ['/manager/subaccount/credits/manage', { email, type: 1, credits: 1 }],
      ['/manager/subaccount/credits/manage', { email, type: 2, credits: 1 }],
    ] as const) {
      expect((await h.post(path, body, parent.apikey)).body.code).toBe('subaccount_09');
    }
    // The email stays taken: the archived account still exists.
    expect((await add(parent, email)).body.code).toBe('subaccount_07');
  });

  it('archives once under parallel requests and keeps the sum with transfers racing it', async () => {
    const { parent, email, subKey } = await withSub(100);
    await manage(parent, email, 1, 50);
    const replies = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => manage(parent, email, i % 2 === 0 ? 1 : 2, 3)),
      h.post('/manager/subaccount/archive', { email }, parent.apikey),
      h.post('/manager/subaccount/archive', { email }, parent.apikey),
      h.post('/manager/subaccount/archive', { email }, parent.apikey),
    ]);
    const archives = replies.slice(6);
    expect(archives.filter((r) => r.status === 200)).toHaveLength(1);
    expect(archives.filter((r) => r.body.code === 'subaccount_09')).toHaveLength(2);
    expect(await credit(parent.apikey)).toBe(100);
    expect((await h.post('/credits/consult', {}, subKey)).status).toBe(401);
    const sub = await h.ctx.db.kysely
      .selectFrom('accounts')
      .selectAll()
      .where('email', '=', subaccountEmailKey(parent.id, email))
      .executeTakeFirstOrThrow();
    expect(sub).toMatchObject({ status: 'archived', credits: 0 });
  });

  it('never answers 500 to hostile input', async () => {
    const parent = await h.createAccount();
    for (const body of [
      '{"email": ',
      '[]',
      'null',
      JSON.stringify({ email: 'x'.repeat(100_000) + '@a.com', password: 'p'.repeat(100_000) }),
      JSON.stringify({ email: "' OR 1=1 --@a.co", type: 1, credits: 1 }),
    ]) {
      for (const path of [
        '/manager/subaccount/add',
        '/manager/subaccount/archive',
        '/manager/subaccount/get_apikey',
        '/manager/subaccount/credits/manage',
      ]) {
        const r = await h.request('POST', path, {
          apikey: parent.apikey,
          body,
          headers: { 'content-type': 'application/json' },
        });
        expect(r.status, `${path} ${body.slice(0, 30)}`).toBeLessThan(500);
        expect(r.body.success).toBe(false);
      }
    }
    expect((await h.post('/manager/subaccount/add', { email: freshEmail(), password: 'secret123' })).status).toBe(401);
  });
});
