import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { hashingLoad } from '../lib/passwords.js';
import { growthRatio } from '../../test/helpers/growth.js';

const employee = (n: number, extra: Record<string, unknown> = {}) => ({
  type: 'cajero',
  employee_name: `Ana ${n}`,
  business_name: 'Tienda',
  number: String(5500000000 + n),
  password: `clave-${n}`,
  ...extra,
});

/** The attacks: endpoints that cost the server far more than the request. */
describeEngines('expensive endpoints', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, {
      worker: false,
      env: { PASSWORD_ENDPOINTS_PER_MINUTE: '6', WEBHOOK_ADD_PER_MINUTE: '3', WEBHOOK_ALLOW_PRIVATE: 'true' },
    });
  });
  afterAll(() => h.close());

  it('answers the cheap uniqueness checks before hashing a password', async () => {
    const a = await h.createAccount();
    expect((await h.post('/employee/add', employee(1), a.apikey)).body.code).toBe('toolusers_01');
    const before = hashingLoad().started;
    expect((await h.post('/employee/add', employee(1, { employee_name: 'Otra' }), a.apikey)).body.code).toBe(
      'toolusers_07',
    );
    expect((await h.post('/employee/add', employee(2, { employee_name: 'Ana 1' }), a.apikey)).body.code).toBe(
      'toolusers_08',
    );
    expect(hashingLoad().started).toBe(before);
    const sub = { email: `twice-${a.id}@example.com`, password: 'secret123' };
    expect((await h.post('/manager/subaccount/add', sub, a.apikey)).body.code).toBe('subaccount_01');
    const afterFirst = hashingLoad().started;
    expect((await h.post('/manager/subaccount/add', sub, a.apikey)).body.code).toBe('subaccount_07');
    expect(hashingLoad().started).toBe(afterFirst);
  });

  it('rate-limits the password endpoints per account (shared by both) and hashes a few at a time', async () => {
    const a = await h.createAccount();
    const replies = await Promise.all([
      ...[10, 11, 12, 13, 14].map((n) => h.post('/employee/add', employee(n), a.apikey)),
      ...[1, 2, 3, 4, 5].map((n) =>
        h.post('/manager/subaccount/add', { email: `hash${n}-${a.id}@example.com`, password: 'secret123' }, a.apikey),
      ),
    ]);
    const limited = replies.filter((r) => r.status === 429);
    expect(limited).toHaveLength(4);
    expect(limited.every((r) => r.body.code === 'rate_01' && Number(r.headers['retry-after']) > 0)).toBe(true);
    const load = hashingLoad();
    expect(load.peak).toBeLessThanOrEqual(load.limit);
  });

  it('refuses an over-long email before its format is looked at (no quadratic pattern on 60,000 characters)', async () => {
    const a = await h.createAccount();
    await h.ctx.db.kysely
      .updateTable('accounts')
      .set({ rate_limit_per_sec: 1_000_000 })
      .where('id', '=', a.id)
      .execute();
    const worst = (n: number) => `a@${'.'.repeat(n - 3)}@`;
    const payment = { number: '5512345678', country_code: '52', template: 'Pago', message: 'Paga aqui' };
    const routes: Array<[string, (email: string) => object, string]> = [
      ['/manager/subaccount/add', (email) => ({ email, password: 'secret123' }), 'subaccount_03'],
      ['/paymentrequest/send', (email) => ({ ...payment, email }), 'payment_11'],
    ];
    for (const [path, body, code] of routes) {
      const reply = await h.post(path, body(worst(60_000)), a.apikey);
      expect([reply.status, reply.body.code, reply.body.field]).toEqual([400, code, 'email']);
      // 6,000 characters ten times against 60,000 once: about 1 when the work is linear, about 10 when quadratic.
      expect(await growthRatio((email) => h.post(path, body(email), a.apikey), worst, 6_000, 60_000)).toBeLessThan(3);
    }
  }, 180_000);

  it('rate-limits /webhook/add and does not echo the connection error (no port-scanning oracle)', async () => {
    const a = await h.createAccount();
    const closed: Server = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const refused = await h.post('/webhook/add', { url: `http://127.0.0.1:${port}/hook`, status: '1' }, a.apikey);
    expect(refused.body.code).toBe('add_webhook_06');
    expect(refused.body.message).not.toMatch(/ECONNREFUSED|refused|127\.0\.0\.1/i);
    expect(refused.body.message).toContain('the connection failed');
    const more = await Promise.all(
      [1, 2, 3].map(() => h.post('/webhook/add', { url: `http://127.0.0.1:${port}/hook`, status: '1' }, a.apikey)),
    );
    expect(more.filter((r) => r.status === 429 && r.body.code === 'rate_01')).toHaveLength(1);
  });
});
