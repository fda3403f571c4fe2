import { sql } from 'kysely';
import { fetch } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findAccountByEmail } from '../../src/accounts/store.js';
import { listDoNotContact } from '../../src/features/dnc/service.js';
import { describeEngines } from '../helpers/harness.js';
import { startOperatorApi, type OperatorApi } from '../helpers/operator-api.js';

/**
 * The operator API's changes and their audit entries commit together or not at all: with the audit log unwritable
 * (its table renamed away), a change is refused and leaves nothing behind, where it used to be made unrecorded.
 */
describeEngines('operator API changes and their audit entries, in one transaction', (engine) => {
  let api: OperatorApi;
  let token: string;
  const raw = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api.base}/operator/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.text();
    return res.status;
  };
  beforeAll(async () => {
    api = await startOperatorApi(engine);
    token = await api.token('tx');
    expect(await raw('POST', '/dnc', { number: '525512340001' })).toBe(201);
    await sql`alter table audit_log rename to audit_log_away`.execute(api.h.ctx.db.kysely);
  }, 60_000);
  afterAll(async () => {
    await sql`alter table audit_log_away rename to audit_log`.execute(api.h.ctx.db.kysely).catch(() => undefined);
    await api?.h.close();
  });

  it('dnc add and remove change nothing when their entry cannot be written', async () => {
    expect(await raw('POST', '/dnc', { number: '525512340002' })).toBe(500);
    expect(await raw('DELETE', '/dnc/525512340001')).toBe(500);
    expect((await listDoNotContact(api.h.ctx.db, { limit: 10 })).numbers).toEqual(['525512340001']);
  });

  it('accounts create creates nothing when its entry cannot be written', async () => {
    expect(await raw('POST', '/accounts', { email: 'unrecorded@example.com' })).toBe(500);
    expect(await findAccountByEmail(api.h.ctx.db.kysely, 'unrecorded@example.com')).toBeUndefined();
  });
});
