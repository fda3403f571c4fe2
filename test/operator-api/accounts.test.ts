import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { startOperatorApi, type OperatorApi } from '../helpers/operator-api.js';
import { listAudit } from '../../src/audit/service.js';
import { insertAccount } from '../../src/accounts/store.js';

describeEngines('operator API accounts', (engine) => {
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

  it('serves its OpenAPI 3.1 document, which validates', async () => {
    const doc = await call('GET', '/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc.body))).resolves.toBeDefined();
  });

  it('creates, shows, lists by pages and searches accounts', async () => {
    const created = await call('POST', '/accounts', { email: 'Shop@Example.com', credits: 12.5 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: 'shop@example.com', credits: 12.5, status: 'active', parent_id: null });
    expect(created.body.apikey).toMatch(/\S{20,}/);
    expect((await call('POST', '/accounts', { email: 'shop@example.com' })).status).toBe(409);
    expect((await call('POST', '/accounts', { email: 'not an email' })).body.code).toBe('op_email_invalid');
    expect((await call('POST', '/accounts', { email: 'x@example.com', credits: -1 })).body.code).toBe(
      'op_credits_invalid',
    );
    const one = await call('GET', `/accounts/${created.body.id}`);
    expect(one.body).toEqual({
      id: created.body.id,
      email: 'shop@example.com',
      credits: 12.5,
      status: 'active',
      parent_id: null,
    });
    expect((await call('GET', '/accounts/999999')).status).toBe(404);
    expect((await call('GET', '/accounts/abc')).status).toBe(404);
    for (let i = 0; i < 101; i++) await api.h.createAccount(0, `bulk${i}@example.org`);
    const first = await call('GET', '/accounts?search=example.org');
    expect(first.body.accounts).toHaveLength(100);
    expect(first.body).toMatchObject({ page: 1, has_more: true });
    const second = await call('GET', '/accounts?search=example.org&page=2');
    expect(second.body).toMatchObject({ page: 2, has_more: false });
    expect(second.body.accounts).toHaveLength(1);
    expect((await call('GET', '/accounts?search=shop@')).body.accounts.map((a: any) => a.email)).toEqual([
      'shop@example.com',
    ]);
    expect((await call('GET', '/accounts?page=0')).body.code).toBe('op_page_invalid');
  });

  it('adds and withdraws credits with a reason, never below zero', async () => {
    const a = await api.h.createAccount(10);
    expect((await call('POST', `/accounts/${a.id}/credits`, { amount: 5, reason: 'top-up' })).body).toEqual({
      id: a.id,
      credits: 15,
    });
    expect((await call('POST', `/accounts/${a.id}/credits`, { amount: -15, reason: 'refund' })).body).toEqual({
      id: a.id,
      credits: 0,
    });
    const below = await call('POST', `/accounts/${a.id}/credits`, { amount: -1, reason: 'too much' });
    expect(below.status).toBe(400);
    expect(below.body.code).toBe('op_below_zero');
    expect((await call('POST', `/accounts/${a.id}/credits`, { amount: 1 })).body.code).toBe('op_reason_required');
    expect((await call('POST', `/accounts/${a.id}/credits`, { amount: 1, reason: ' ' })).body.code).toBe(
      'op_reason_required',
    );
    expect((await call('POST', `/accounts/${a.id}/credits`, { amount: 0, reason: 'x' })).body.code).toBe(
      'op_amount_invalid',
    );
    expect((await call('POST', '/accounts/999999/credits', { amount: 1, reason: 'x' })).status).toBe(404);
  });

  it('refuses a reason with control or formatting characters with its own code', async () => {
    const a = await api.h.createAccount(10);
    for (const reason of ['a\u0000b', 'a\u001b[31mb', 'line\nbreak', 'top-up \u202eevil', 'zero\u200bwidth']) {
      const r = await call('POST', `/accounts/${a.id}/credits`, { amount: 1, reason });
      expect([r.status, r.body.code], JSON.stringify(reason)).toEqual([400, 'op_reason_invalid']);
    }
    expect((await call('GET', `/accounts/${a.id}`)).body.credits).toBe(10);
  });

  it('refuses a body with a field the document does not name (additionalProperties: false)', async () => {
    const a = await api.h.createAccount(10);
    const extra = [
      ['POST', `/accounts/${a.id}/credits`, { amount: 1, reason: 'x', credits: 5 }],
      ['POST', '/accounts', { email: 'extra@example.com', parent_id: 1 }],
      ['PUT', '/prices', { channel: 'sms', prefix: '52', credits: 1, account: 'x' }],
      ['POST', '/dnc', { number: '525512345678', note: 'x' }],
    ] as const;
    for (const [method, path, body] of extra) {
      const r = await call(method, path, body);
      expect([r.status, r.body.code], path).toEqual([400, 'op_field_unknown']);
    }
    expect((await call('GET', `/accounts/${a.id}`)).body.credits).toBe(10);
  });

  it('never takes a balance past 100000000 credits (op_balance_ceiling); a withdrawal still goes through', async () => {
    const a = await api.h.createAccount(0);
    expect((await call('POST', `/accounts/${a.id}/credits`, { amount: 100_000_000, reason: 'max' })).status).toBe(200);
    const over = await call('POST', `/accounts/${a.id}/credits`, { amount: 0.0001, reason: 'one more' });
    expect([over.status, over.body.code]).toEqual([400, 'op_balance_ceiling']);
    const parallel = await Promise.all(
      Array.from({ length: 10 }, () => call('POST', `/accounts/${a.id}/credits`, { amount: 100_000_000, reason: 'x' })),
    );
    expect(parallel.every((r) => r.body.code === 'op_balance_ceiling')).toBe(true);
    expect((await call('POST', `/accounts/${a.id}/credits`, { amount: -1, reason: 'refund' })).body.credits).toBe(
      99_999_999,
    );
    expect((await call('GET', `/accounts/${a.id}`)).body.credits).toBe(99_999_999);
  });

  it('parallel withdrawals never take a balance below zero', async () => {
    const a = await api.h.createAccount(10);
    const answers = await Promise.all(
      Array.from({ length: 25 }, () => call('POST', `/accounts/${a.id}/credits`, { amount: -1, reason: 'parallel' })),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(10);
    expect(answers.filter((r) => r.status === 400 && r.body.code === 'op_below_zero')).toHaveLength(15);
    expect((await call('GET', `/accounts/${a.id}`)).body.credits).toBe(0);
  });

  it('archives and unarchives an account (a new key once revived)', async () => {
    const a = await api.h.createAccount(1);
    const archived = await call('POST', `/accounts/${a.id}/archive`);
    expect(archived.body).toMatchObject({ id: a.id, status: 'archived' });
    const revived = await call('POST', `/accounts/${a.id}/unarchive`);
    expect(revived.body).toMatchObject({ id: a.id, status: 'active' });
    expect(revived.body.apikey).toBeTruthy();
    expect((await call('POST', `/accounts/${a.id}/unarchive`)).body).toEqual({ ...revived.body, apikey: undefined });
  });

  it('keeps a sub-account archived while its parent is (409 op_parent_archived)', async () => {
    const parent = await api.h.createAccount(1);
    const { account: child } = await insertAccount(api.h.ctx.db.kysely, api.h.ctx.secrets.keyEncryption, {
      email: `child-${parent.id}@example.com`,
      passwordHash: 'scrypt$unused',
      parentId: parent.id,
    });
    expect((await call('GET', `/accounts/${child.id}`)).body.parent_id).toBe(parent.id);
    expect((await call('POST', `/accounts/${parent.id}/archive`)).status).toBe(200);
    expect((await call('GET', `/accounts/${child.id}`)).body.status).toBe('archived');
    const refused = await call('POST', `/accounts/${child.id}/unarchive`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('op_parent_archived');
  });

  it('normalises emails (NFKC) and refuses invisible formatting characters; targets carry the account id', async () => {
    const nfc = await call('POST', '/accounts', { email: 'jos\u00e9@example.com' });
    expect(nfc.status).toBe(201);
    // The same address in NFD, and a full-width one, are the same account.
    expect((await call('POST', '/accounts', { email: 'jose\u0301@example.com' })).body.code).toBe('op_email_taken');
    const wide = await call('POST', '/accounts', { email: '\uff53\uff48\uff4f\uff50@wide.example.com' });
    expect(wide.body.email).toBe('shop@wide.example.com');
    for (const email of ['ad\u200bmin@example.com', 'evil\u202emoc.elpmaxe@x.com', 'a\u2060b@example.com']) {
      const r = await call('POST', '/accounts', { email });
      expect([r.status, r.body.code], JSON.stringify(email)).toEqual([400, 'op_email_invalid']);
    }
    // A sub-account may carry another tenant's email: the audit target names it by id.
    const parent = await api.h.createAccount(1);
    const sub = await insertAccount(api.h.ctx.db.kysely, api.h.ctx.secrets.keyEncryption, {
      email: `${parent.id} jos\u00e9@example.com`,
      passwordHash: 'x',
      parentId: parent.id,
    });
    await call('POST', `/accounts/${sub.account.id}/credits`, { amount: 1, reason: 'which one?' });
    const entry = (await listAudit(api.h.ctx.db.kysely, { since: 0, actor: 'ops' })).find(
      (e) => e.detail.reason === 'which one?',
    )!;
    expect(entry.target).toBe(`account:${sub.account.id} jos\u00e9@example.com`);
    const created = (await listAudit(api.h.ctx.db.kysely, { since: 0, actor: 'ops' })).find(
      (e) => e.action === 'accounts.create' && e.detail.id === nfc.body.id,
    )!;
    expect(created.target).toBe(`account:${nfc.body.id} jos\u00e9@example.com`);
  });

  it('records every change in the audit log as token:NAME, with the address and no secret', async () => {
    const entries = await listAudit(api.h.ctx.db.kysely, { since: 0, actor: 'ops' });
    const actions = new Set(entries.map((e) => e.action));
    for (const action of ['accounts.create', 'accounts.credits', 'accounts.archive', 'accounts.unarchive'])
      expect(actions).toContain(action);
    const credit = entries.find((e) => e.action === 'accounts.credits' && e.detail.reason === 'top-up')!;
    expect(credit).toMatchObject({ actor: 'token:ops', address: '127.0.0.1', detail: { amount: 5, credits: 15 } });
    const all = JSON.stringify(entries);
    expect(all).not.toContain(token.slice(4));
    expect(all).not.toMatch(/apikey/i);
    expect(entries.filter((e) => e.action === 'accounts.credits' && e.detail.reason === 'parallel')).toHaveLength(10);
    expect(api.validated).toBeGreaterThan(20);
  });
});
