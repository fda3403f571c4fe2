import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { startOperatorApi, type OperatorApi } from '../helpers/operator-api.js';
import { listAudit } from '../../src/audit/service.js';

/** GET /operator/v1/otp/blocks and DELETE /operator/v1/otp/blocks/{id}, every answer checked against the document. */
describeEngines('operator API OTP pumping blocks', (engine) => {
  let api: OperatorApi;
  let token: string;
  const call = (method: string, path: string, t = token) => api.call(method, path, { token: t });
  beforeAll(async () => {
    api = await startOperatorApi(engine);
    token = await api.token('ops');
  }, 60_000);
  afterAll(async () => {
    await api?.h.close();
  });

  it('lists a block the guard made and removes it; the family sends to the prefix again', async () => {
    expect((await call('GET', '/otp/blocks')).body).toEqual({ blocks: [] });
    const a = await api.h.createAccount(100, 'pumped@example.com');
    const code = (i: number) =>
      api.h.post(
        '/v2/otp',
        { phone_number: `561${String(i).padStart(7, '0')}`, country_code: '52', company: 'Acme' },
        a.apikey,
      );
    for (let i = 0; i < 30; i++) expect((await code(i)).status).toBe(201);
    expect((await code(30)).body.error).toBe('otp_prefix_blocked');
    const listed = await call('GET', '/otp/blocks');
    expect(listed.body).toEqual({
      blocks: [
        {
          id: expect.any(Number),
          scope: 'account',
          email: 'pumped@example.com',
          prefix: '52561',
          until: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
          created: 30,
          verified: 0,
        },
      ],
    });
    const id = listed.body.blocks[0].id;
    const readOnly = await api.token('viewer', true);
    expect((await call('DELETE', `/otp/blocks/${id}`, readOnly)).status).toBe(403);
    expect((await call('DELETE', `/otp/blocks/${id}`)).body).toEqual({ removed: true });
    expect((await call('DELETE', `/otp/blocks/${id}`)).status).toBe(404);
    expect((await call('DELETE', '/otp/blocks/0x1')).status).toBe(404);
    expect((await call('GET', '/otp/blocks')).body).toEqual({ blocks: [] });
    // Its counts start again: the next code goes out.
    expect((await code(31)).status).toBe(201);
    const entries = await listAudit(api.h.ctx.db.kysely, { since: 0, actor: 'ops' });
    expect(entries.find((e) => e.action === 'otp.blocks.remove')).toMatchObject({
      actor: 'token:ops',
      action: 'otp.blocks.remove',
      target: String(id),
    });
  }, 120_000);
});
