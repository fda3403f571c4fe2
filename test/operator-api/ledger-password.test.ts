import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { startOperatorApi, type OperatorApi } from '../helpers/operator-api.js';
import { listAudit } from '../../src/audit/service.js';
import { resetTokenAccount } from '../../src/accounts/passwords.js';
import { formatLocalDate } from '../../src/lib/time.js';

/** GET /operator/v1/accounts/{id}/ledger and POST …/password-reset, every answer checked against the document. */
describeEngines('operator API ledger and password reset', (engine) => {
  let api: OperatorApi;
  let token: string;
  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { token, body });
  beforeAll(async () => {
    api = await startOperatorApi(engine);
    token = await api.token('ops');
  }, 60_000);
  afterAll(async () => {
    await api?.h.close();
  });

  it('answers the ledger newest first, by Mexico City days, paged; its entries add up to the change of the balance', async () => {
    const created = await call('POST', '/accounts', { email: 'libro@example.com', credits: 20 });
    const id = created.body.id;
    await call('POST', `/accounts/${id}/credits`, { amount: 5, reason: 'pago de diciembre' });
    await call('POST', `/accounts/${id}/credits`, { amount: -2.5, reason: 'ajuste' });
    const sent = await api.h.post(
      '/sms/send',
      { numbers: '5512345671,5512345672', message: 'Hola' },
      created.body.apikey,
    );
    expect(sent.body.code).toBe('sms_11');
    const today = formatLocalDate(Date.now());
    const ledger = await call('GET', `/accounts/${id}/ledger?from=${today}&to=${today}`);
    expect(ledger.status).toBe(200);
    expect(ledger.body).toMatchObject({
      page: 1,
      has_more: false,
      entries: [
        { kind: 'send', amount: -2, balance_after: 20.5, actor: 'account', reason: null },
        { kind: 'adjustment', amount: -2.5, balance_after: 22.5, actor: 'token:ops', reason: 'ajuste' },
        { kind: 'credit', amount: 5, balance_after: 25, actor: 'token:ops', reason: 'pago de diciembre' },
        { kind: 'credit', amount: 20, balance_after: 20, reason: 'opening balance' },
      ],
    });
    const sum = ledger.body.entries.reduce((n: number, e: { amount: number }) => n + e.amount, 0);
    expect(sum).toBe((await call('GET', `/accounts/${id}`)).body.credits);
    expect((await call('GET', `/accounts/${id}/ledger`)).body).toEqual(ledger.body);
    // A period before the account's first movement holds nothing.
    expect((await call('GET', `/accounts/${id}/ledger?to=2020-01-31`)).body).toEqual({
      entries: [],
      page: 1,
      has_more: false,
    });
    expect((await call('GET', `/accounts/${id}/ledger?page=2`)).body).toEqual({
      entries: [],
      page: 2,
      has_more: false,
    });
    for (const query of ['from=2026-02-30', 'from=ayer', 'from=2026-03-02&to=2026-03-01', 'page=0', 'page=x']) {
      const bad = await call('GET', `/accounts/${id}/ledger?${query}`);
      expect([bad.status, bad.body.code], query).toEqual([400, 'op_ledger_invalid']);
    }
    expect((await call('GET', '/accounts/999999/ledger')).status).toBe(404);
  });

  it('makes a one-time reset link (stored hashed, valid 1 hour), audited without the token', async () => {
    const a = await api.h.createAccount(0);
    const reset = await call('POST', `/accounts/${a.id}/password-reset`);
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({
      id: a.id,
      email: a.email,
      reset_url: expect.stringMatching(new RegExp(`^${api.base}/panel/reset\\?token=[\\w-]{43}$`)),
      expires_at: expect.any(String),
    });
    const secret = new URL(reset.body.reset_url).searchParams.get('token')!;
    expect(await resetTokenAccount(api.h.ctx.db.kysely, secret)).toMatchObject({ id: a.id });
    expect(await resetTokenAccount(api.h.ctx.db.kysely, secret, Date.parse(reset.body.expires_at))).toBeUndefined();
    const rows = await api.h.ctx.db.kysely.selectFrom('reset_links').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(secret);
    const entries = await listAudit(api.h.ctx.db.kysely, { since: 0, actor: 'ops' });
    expect(entries.find((e) => e.action === 'accounts.password-reset')).toMatchObject({
      actor: 'token:ops',
      detail: { expires_at: reset.body.expires_at },
    });
    expect(JSON.stringify(entries)).not.toContain(secret);
    expect((await call('POST', '/accounts/999999/password-reset')).status).toBe(404);
    await call('POST', `/accounts/${a.id}/archive`);
    const archived = await call('POST', `/accounts/${a.id}/password-reset`);
    expect([archived.status, archived.body.code]).toEqual([409, 'op_account_archived']);
    // An archived account's open link opens nothing.
    expect(await resetTokenAccount(api.h.ctx.db.kysely, secret)).toBeUndefined();
    expect(api.validated).toBeGreaterThan(10);
  });
});
