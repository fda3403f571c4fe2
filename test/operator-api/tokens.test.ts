import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { startOperatorApi, type OperatorApi } from '../helpers/operator-api.js';
import { listOperatorTokens, revokeOperatorToken } from '../../src/operator-api/tokens.js';

describeEngines('operator API tokens', (engine) => {
  let api: OperatorApi;
  beforeAll(async () => {
    api = await startOperatorApi(engine);
  }, 60_000);
  afterAll(async () => {
    await api?.h.close();
  });

  it('is not served at all (404) while no unrevoked token exists, then 401 without or with a wrong token', async () => {
    expect((await api.call('GET', '/accounts')).status).toBe(404);
    expect((await api.call('GET', '/openapi.json')).status).toBe(404);
    const token = await api.token('deploy');
    const missing = await api.call('GET', '/accounts');
    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe('op_token');
    expect((await api.call('GET', '/accounts', { token: token.slice(0, -2) + 'xx' })).status).toBe(401);
    expect((await api.call('GET', '/accounts', { headers: { authorization: token } })).status).toBe(401);
    expect((await api.call('GET', '/accounts', { token })).status).toBe(200);
    const [row] = await api.h.ctx.db.kysely
      .selectFrom('operator_tokens')
      .selectAll()
      .where('name', '=', 'deploy')
      .execute();
    // Hashed at rest: the row holds no part of the token.
    expect(JSON.stringify(row)).not.toContain(token.slice(4, 20));
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    await revokeOperatorToken(api.h.ctx.db.kysely, row.id);
    // Revoked, and no other token: the API is off again.
    expect((await api.call('GET', '/accounts', { token })).status).toBe(404);
  });

  it('401 for a revoked token while another exists; 403 for a write with a read-only token', async () => {
    const old = await api.token('old');
    const reader = await api.token('reader', true);
    const id = (await listOperatorTokens(api.h.ctx.db.kysely)).find((t) => t.name === 'old')!.id;
    await revokeOperatorToken(api.h.ctx.db.kysely, id);
    expect((await api.call('GET', '/accounts', { token: old })).status).toBe(401);
    expect((await api.call('GET', '/accounts', { token: reader })).status).toBe(200);
    expect((await api.call('GET', '/openapi.json', { token: reader })).status).toBe(200);
    const write = await api.call('POST', '/accounts', { token: reader, body: { email: 'ro@example.com' } });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('op_read_only');
  });

  it('records when a token was last used', async () => {
    const token = await api.token('used');
    const before = (await listOperatorTokens(api.h.ctx.db.kysely)).find((t) => t.name === 'used')!;
    expect(before.last_used_at).toBeNull();
    await api.call('GET', '/carriers', { token });
    const after = (await listOperatorTokens(api.h.ctx.db.kysely)).find((t) => t.name === 'used')!;
    expect(after.last_used_at).not.toBeNull();
    expect(JSON.stringify(after)).not.toContain(token);
  });
});
