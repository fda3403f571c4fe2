import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { verifyPassword } from '../../lib/passwords.js';

export const employee = (over: Record<string, unknown> = {}) => ({
  type: 'cajero',
  employee_name: 'Ana López',
  business_name: 'Sucursal Centro',
  number: '5512345678',
  password: 'pass-ana-1',
  ...over,
});

describeEngines('staff users', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  it('adds an employee and lists it as a tool user item', async () => {
    const a = await h.createAccount();
    const added = await h.post('/employee/add', employee({ type: 'gerente' }), a.apikey);
    expect(added.status).toBe(200);
    expect(added.body).toEqual({
      success: true,
      message: 'partner_created_successfully',
      status: 200,
      code: 'toolusers_01',
      collaboratorId: expect.any(Number),
    });
    const list = await h.post('/toolusers/get', {}, a.apikey);
    expect(list.body).toEqual({
      success: true,
      message: 'tool_users',
      status: 200,
      code: 'tool_users_01',
      result: [
        {
          usertool_id: added.body.collaboratorId,
          usertool_name: 'Ana López',
          usertool_number: '5512345678',
          usertool_branch: 'Sucursal Centro',
          usertool_type: 'gerente',
          usertool_status: 'active',
        },
      ],
    });
  });

  it('stores the password with scrypt, never in clear', async () => {
    const a = await h.createAccount();
    const added = await h.post('/employee/add', employee({ password: 'clave-secreta' }), a.apikey);
    const row = await h.ctx.db.kysely
      .selectFrom('staff_users')
      .selectAll()
      .where('id', '=', added.body.collaboratorId)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(row)).not.toContain('clave-secreta');
    expect(await verifyPassword('clave-secreta', row.password_hash)).toBe(true);
  });

  it('accepts a form body and numbers given as numbers', async () => {
    const a = await h.createAccount();
    const form = await h.request('POST', '/employee/add', {
      apikey: a.apikey,
      form: { ...employee(), number: '5511111111' } as Record<string, string>,
    });
    expect(form.body.code).toBe('toolusers_01');
    const numeric = await h.post(
      '/employee/add',
      employee({ number: 5522222222, employee_name: 'Beto', password: 12345, type: ' CAJERO ' }),
      a.apikey,
    );
    expect(numeric.body.code).toBe('toolusers_01');
    const list = (await h.post('/toolusers/get', {}, a.apikey)).body.result;
    expect(list.map((u: any) => [u.usertool_number, u.usertool_type])).toEqual([
      ['5511111111', 'cajero'],
      ['5522222222', 'cajero'],
    ]);
  });

  it.each([
    [{ type: undefined }, 'toolusers_02'],
    [{ type: 'jefe' }, 'toolusers_02'],
    [{ type: ['cajero'] }, 'toolusers_02'],
    [{ employee_name: undefined }, 'toolusers_03'],
    [{ employee_name: '   ' }, 'toolusers_03'],
    [{ employee_name: 'x'.repeat(101) }, 'toolusers_03'],
    [{ employee_name: 'Ana\u0000' }, 'toolusers_03'],
    [{ employee_name: { $gt: '' } }, 'toolusers_03'],
    [{ business_name: undefined }, 'toolusers_04'],
    [{ business_name: 'y'.repeat(200_000) }, 'toolusers_04'],
    [{ number: undefined }, 'toolusers_05'],
    [{ number: '551234567' }, 'toolusers_05'],
    [{ number: '55123456789' }, 'toolusers_05'],
    [{ number: '55-1234-567' }, 'toolusers_05'],
    [{ number: 5512345.5 }, 'toolusers_05'],
    [{ password: undefined }, 'toolusers_06'],
    [{ password: '' }, 'toolusers_06'],
    [{ password: 'p'.repeat(51) }, 'toolusers_06'],
  ])('refuses %j with %s', async (over, code) => {
    const a = await h.createAccount();
    const r = await h.post('/employee/add', employee(over), a.apikey);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, status: 400, code });
    expect((await h.post('/toolusers/get', {}, a.apikey)).body.result).toEqual([]);
  });

  it('accepts a password of exactly 50 characters', async () => {
    const a = await h.createAccount();
    expect((await h.post('/employee/add', employee({ password: 'p'.repeat(50) }), a.apikey)).body.code).toBe(
      'toolusers_01',
    );
  });

  it('keeps number, name (any case) and password unique among the active staff of an account', async () => {
    const a = await h.createAccount();
    expect((await h.post('/employee/add', employee(), a.apikey)).body.code).toBe('toolusers_01');
    expect(
      (await h.post('/employee/add', employee({ employee_name: 'Otra', password: 'otra-clave' }), a.apikey)).body.code,
    ).toBe('toolusers_07');
    expect(
      (
        await h.post(
          '/employee/add',
          employee({ number: '5599999999', employee_name: '  ANA lópez ', password: 'otra-clave' }),
          a.apikey,
        )
      ).body.code,
    ).toBe('toolusers_08');
    expect(
      (await h.post('/employee/add', employee({ number: '5599999999', employee_name: 'Otra' }), a.apikey)).body.code,
    ).toBe('toolusers_09');
    expect(
      (
        await h.post(
          '/employee/add',
          employee({ number: '5599999999', employee_name: 'Otra', password: 'otra-clave' }),
          a.apikey,
        )
      ).body.code,
    ).toBe('toolusers_01');
    // Another account may use the same number, name and password.
    const b = await h.createAccount();
    expect((await h.post('/employee/add', employee(), b.apikey)).body.code).toBe('toolusers_01');
  });

  it('lets exactly one of parallel adds with the same number through', async () => {
    const a = await h.createAccount();
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        h.post('/employee/add', employee({ employee_name: `Empleado ${i}`, password: `clave-${i}` }), a.apikey),
      ),
    );
    expect(replies.filter((r) => r.body.code === 'toolusers_01')).toHaveLength(1);
    expect(replies.filter((r) => r.body.code === 'toolusers_07')).toHaveLength(5);
    expect(replies.every((r) => r.status === 200 || r.status === 400)).toBe(true);
    expect((await h.post('/toolusers/get', {}, a.apikey)).body.result).toHaveLength(1);
  });

  it('disables by number; a disabled user frees its number, name and password', async () => {
    const a = await h.createAccount();
    const first = (await h.post('/employee/add', employee(), a.apikey)).body.collaboratorId;
    const off = await h.post('/employee/disable', { number: '5512345678' }, a.apikey);
    expect(off.body).toEqual({ success: true, message: 'partner_disabled', status: 200, code: 'toolusers_01' });
    expect((await h.post('/employee/disable', { number: '5512345678' }, a.apikey)).body).toMatchObject({
      status: 400,
      code: 'toolusers_10',
    });
    const again = await h.post('/employee/add', employee(), a.apikey);
    expect(again.body.code).toBe('toolusers_01');
    expect(again.body.collaboratorId).not.toBe(first);
    const list = (await h.post('/toolusers/get', {}, a.apikey)).body.result;
    expect(list.map((u: any) => [u.usertool_id, u.usertool_status])).toEqual([
      [first, 'disabled'],
      [again.body.collaboratorId, 'active'],
    ]);
  });

  it('refuses to disable an unknown or malformed number', async () => {
    const a = await h.createAccount();
    expect((await h.post('/employee/disable', { number: '5500000000' }, a.apikey)).body).toMatchObject({
      status: 400,
      code: 'toolusers_10',
    });
    expect((await h.post('/employee/disable', {}, a.apikey)).body).toMatchObject({ status: 400, code: 'toolusers_05' });
    expect((await h.post('/employee/disable', { number: 'abc' }, a.apikey)).body).toMatchObject({
      status: 400,
      code: 'toolusers_05',
    });
  });

  it("never shows or disables another account's staff", async () => {
    const a = await h.createAccount();
    const b = await h.createAccount();
    await h.post('/employee/add', employee(), a.apikey);
    expect((await h.post('/toolusers/get', {}, b.apikey)).body.result).toEqual([]);
    expect((await h.post('/employee/disable', { number: '5512345678' }, b.apikey)).body.code).toBe('toolusers_10');
    expect((await h.post('/toolusers/get', {}, a.apikey)).body.result[0].usertool_status).toBe('active');
  });

  it('documents every staff, wallet and loyalty route in /openapi.json', async () => {
    const paths = (await h.get('/openapi.json')).body.paths;
    for (const path of [
      '/toolusers/get',
      '/employee/add',
      '/employee/disable',
      '/wallet/get',
      '/wallet/contact/add',
      '/wallet/contact/get',
      '/wallet/balance/update',
      '/wallet/sale',
      '/loyalty/get',
      '/loyalty/contact/add',
      '/loyalty/contact/get',
      '/loyalty/sale',
      '/loyalty/redeem',
    ]) {
      expect(paths[path]?.post?.summary, path).toEqual(expect.any(String));
      expect(paths[path].post.responses['200'], path).toBeDefined();
    }
    expect(paths['/employee/add'].post.requestBody.content['application/json'].schema.properties).toHaveProperty(
      'password',
    );
  });

  it('requires the apikey', async () => {
    for (const path of ['/toolusers/get', '/employee/add', '/employee/disable']) {
      const r = await h.post(path, employee());
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('auth_05');
    }
  });
});
