import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { startOperatorApi, type OperatorApi } from '../helpers/operator-api.js';
import { listAudit } from '../../src/audit/service.js';

describeEngines('operator API do-not-contact list', (engine) => {
  let api: OperatorApi;
  let token: string;
  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { token, body });
  beforeAll(async () => {
    api = await startOperatorApi(engine);
    token = await api.token('dnc');
  }, 60_000);
  afterAll(async () => {
    await api?.h.close();
  });

  it('adds, lists by pages, and removes numbers, each change in the audit log', async () => {
    expect(await call('POST', '/dnc', { number: '525512345678' })).toMatchObject({
      status: 201,
      body: { number: '525512345678' },
    });
    await call('POST', '/dnc', { number: '525512345679' });
    expect((await call('GET', '/dnc')).body).toEqual({ numbers: ['525512345678', '525512345679'] });
    expect((await call('GET', '/dnc?limit=1')).body).toEqual({ numbers: ['525512345678'] });
    expect((await call('GET', '/dnc?after=525512345678')).body).toEqual({ numbers: ['525512345679'] });
    expect((await call('DELETE', '/dnc/525512345678')).body).toEqual({ removed: true });
    expect((await call('DELETE', '/dnc/525512345678')).body).toEqual({ removed: false });
    expect((await call('GET', '/dnc')).body).toEqual({ numbers: ['525512345679'] });
    const actions = (await listAudit(api.h.ctx.db.kysely, { since: 0, actor: 'token:dnc' })).map((e) => e.action);
    expect(actions).toEqual(['dnc.remove', 'dnc.add', 'dnc.add']);
  });

  it('refuses a malformed number with its code, and a write with a read-only token', async () => {
    for (const number of ['+525512345678', '12345', '5255123456781234', 'abc']) {
      const r = await call('POST', '/dnc', { number });
      expect([r.status, r.body.code]).toEqual([400, 'op_number_invalid']);
    }
    for (const query of ['limit=0', 'limit=1001', 'after=12ab'])
      expect((await call('GET', `/dnc?${query}`)).body.code).toBe('op_list_invalid');
    expect((await call('DELETE', '/dnc/12345')).body.code).toBe('op_number_invalid');
    const readOnly = await api.token('dnc-reader', true);
    expect((await api.call('POST', '/dnc', { token: readOnly, body: { number: '525512345670' } })).status).toBe(403);
    expect((await api.call('GET', '/dnc', { token: readOnly })).status).toBe(200);
  });
});
