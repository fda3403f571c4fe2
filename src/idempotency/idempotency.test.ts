import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeEngines,
  dropSchema,
  startHarness,
  testConfig,
  type Harness,
  type Reply,
  type TestAccount,
} from '../../test/helpers/harness.js';
import { startService, type RunningService } from '../app/serve.js';
import { insertAccount } from '../accounts/store.js';
import { toUnits } from '../accounts/credits.js';

describeEngines('Idempotency-Key', (engine) => {
  let h: Harness;
  let flakyCalls = 0;
  beforeAll(async () => {
    h = await startHarness(engine, {
      worker: false,
      extraApiRoutes(api) {
        // Fails with a 500 the first time, then answers: a failure worth retrying.
        api.post('/test/flaky-charge', { config: { idempotent: true } }, async () => {
          if (++flakyCalls === 1) throw new Error('database went away');
          return { success: true, calls: flakyCalls };
        });
      },
    });
  });
  afterAll(() => h.close());

  const send = (
    a: TestAccount,
    key: string | undefined,
    body: Record<string, unknown> = { numbers: '5512345678', message: 'Hola' },
  ) =>
    h.request('POST', '/sms/send', {
      apikey: a.apikey,
      body,
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
  const credit = async (a: TestAccount) => (await h.post('/credits/consult', {}, a.apikey)).body.credit;
  const campaigns = (a: TestAccount) =>
    h.ctx.db.kysely.selectFrom('campaigns').select('id').where('account_id', '=', a.id).execute();

  it('answers a repeat with the first response and sends nothing again', async () => {
    const a = await h.createAccount(10);
    const first = await send(a, 'order-1');
    expect(first.body.code).toBe('sms_11');
    const again = await send(a, 'order-1');
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await campaigns(a)).toHaveLength(1);
    expect(await credit(a)).toBe(9);
    // Without a key, or with another one, it is a new request.
    await send(a, undefined);
    await send(a, 'order-2');
    expect(await campaigns(a)).toHaveLength(3);
  });

  it('refuses the same key with a different request (422), and keys are per account', async () => {
    const a = await h.createAccount(10);
    await send(a, 'k');
    const other = await send(a, 'k', { numbers: '5512345679', message: 'Hola' });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ success: false, code: 'idempotency_key_mismatch' });
    const b = await h.createAccount(10);
    expect((await send(b, 'k')).body.code).toBe('sms_11');
    expect(await campaigns(a)).toHaveLength(1);
  });

  it('refuses a malformed key with 400', async () => {
    const a = await h.createAccount(10);
    for (const key of ['', 'x'.repeat(256), 'has space', 'ñ']) {
      const r = await send(a, key);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('idempotency_key_invalid');
    }
    expect(await campaigns(a)).toHaveLength(0);
  });

  it('replays an error answer too: the same request gets the same answer for 24 hours', async () => {
    const a = await h.createAccount(0);
    const poor = await send(a, 'p');
    expect(poor.body.code).toBe('sms_07');
    await h.ctx.db.kysely
      .updateTable('accounts')
      .set({ credits: toUnits(5) })
      .where('id', '=', a.id)
      .execute();
    // Same key, same request: the first answer (no credits) is the answer for 24 hours.
    expect((await send(a, 'p')).body.code).toBe('sms_07');
    expect(await campaigns(a)).toHaveLength(0);
  });

  it('does not keep a 5xx answer: a repeat runs again', async () => {
    const a = await h.createAccount(0);
    const key = { 'idempotency-key': 'flaky' };
    expect((await h.request('POST', '/test/flaky-charge', { apikey: a.apikey, body: {}, headers: key })).status).toBe(
      500,
    );
    const second = await h.request('POST', '/test/flaky-charge', { apikey: a.apikey, body: {}, headers: key });
    expect(second.body).toEqual({ success: true, calls: 2 });
    const third = await h.request('POST', '/test/flaky-charge', { apikey: a.apikey, body: {}, headers: key });
    expect(third.body).toEqual({ success: true, calls: 2 });
    expect(third.headers['idempotent-replayed']).toBe('true');
  });

  it('takes over a key whose first request died (its lock ran out), and only one repeat does', async () => {
    const a = await h.createAccount(10);
    const now = Date.now();
    await h.ctx.db.kysely
      .insertInto('idempotency_keys')
      .values({
        account_id: a.id,
        idem_key: 'orphan',
        request_hash: 'x',
        status_code: null,
        content_type: null,
        response_body: null,
        locked_until: now - 1,
        created_at: now - 61_000,
        expires_at: now + 3_600_000,
      })
      .execute();
    // A different stored hash: the key is refused for another request, dead or not.
    expect((await send(a, 'orphan')).status).toBe(422);
    await h.ctx.db.kysely.deleteFrom('idempotency_keys').where('idem_key', '=', 'orphan').execute();
    const first = await send(a, 'orphan');
    const hash = (
      await h.ctx.db.kysely
        .selectFrom('idempotency_keys')
        .select('request_hash')
        .where('idem_key', '=', 'orphan')
        .executeTakeFirstOrThrow()
    ).request_hash;
    await h.ctx.db.kysely
      .updateTable('idempotency_keys')
      .set({ status_code: null, response_body: null, locked_until: Date.now() - 1 })
      .where('idem_key', '=', 'orphan')
      .execute();
    const replies = await Promise.all([1, 2, 3, 4].map(() => send(a, 'orphan')));
    expect(hash).toHaveLength(64);
    expect(first.body.code).toBe('sms_11');
    expect(replies.every((r) => r.body.code === 'sms_11')).toBe(true);
    expect(replies.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(3);
    expect(await campaigns(a)).toHaveLength(2);
  });

  it('lets 12 parallel repeats wait for the first: one send, one charge, one answer', async () => {
    const a = await h.createAccount(10);
    const replies = await Promise.all(
      Array.from({ length: 12 }, () => send(a, 'burst', { numbers: '5512345678,5512345679', message: 'Hola' })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(new Set(replies.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(replies.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(11);
    expect(await campaigns(a)).toHaveLength(1);
    expect(await credit(a)).toBe(8);
  });

  it('never stores an OTP code shown with code_show 1: a replay answers without it', async () => {
    const a = await h.createAccount(10);
    const body = {
      phone_number: '5612345678',
      country_code: '52',
      company: 'Acme',
      code_show: 1,
      code_format: 'letters',
      code_length: 10,
    };
    const post = () =>
      h.request('POST', '/v2/otp', { apikey: a.apikey, body, headers: { 'idempotency-key': 'otp-1' } });
    const first = await post();
    expect(first.status).toBe(201);
    const code = first.body.code as string;
    expect(code).toMatch(/^[A-Z]{10}$/);
    const stored = await h.ctx.db.kysely
      .selectFrom('idempotency_keys')
      .select(['response_body'])
      .where('account_id', '=', a.id)
      .where('idem_key', '=', 'otp-1')
      .executeTakeFirstOrThrow();
    expect(stored.response_body).not.toBeNull();
    expect(stored.response_body).not.toContain(code);
    const again = await post();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.code).toBeUndefined();
    expect(again.body.warning).toMatch(/code_show/);
    const { code: _shown, ...rest } = first.body;
    expect(again.body).toMatchObject({ ...rest, warning: expect.any(String) });
    expect(await credit(a)).toBe(9);
  });

  it('moves sub-account credits once for a repeated transfer', async () => {
    const parent = await h.createAccount(10);
    const email = `sub-${randomBytes(3).toString('hex')}@example.com`;
    expect(
      (await h.post('/manager/subaccount/add', { email, password: 'secret123' }, parent.apikey)).body.success,
    ).toBe(true);
    const body = { email, type: 1, credits: 3 };
    const replies = await Promise.all(
      [1, 2, 3].map(() =>
        h.request('POST', '/manager/subaccount/credits/manage', {
          apikey: parent.apikey,
          body,
          headers: { 'idempotency-key': 'move-3' },
        }),
      ),
    );
    expect(replies.map((r) => r.body.credit)).toEqual([7, 7, 7]);
    expect(await credit(parent)).toBe(7);
  });
});

describeEngines('Idempotency-Key across processes', (engine) => {
  let dir: string;
  let schema: string | undefined;
  let services: RunningService[];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mensajero-idem-'));
    schema = engine === 'postgres' ? `i_${randomBytes(6).toString('hex')}` : undefined;
    const config = testConfig(engine, dir);
    services = [];
    // One after the other: the first creates the schema and runs the migrations.
    for (let i = 0; i < 2; i++)
      services.push(
        await startService(config, { pgSchema: schema, log: pino({ level: 'silent' }), listen: false, worker: false }),
      );
  });
  afterAll(async () => {
    for (const s of services) await s.stop();
    if (schema) await dropSchema(schema);
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends once when repeats reach two processes at once', async () => {
    const { account, apikey } = await insertAccount(services[0].ctx.db.kysely, services[0].ctx.secrets.keyEncryption, {
      email: 'idem@example.com',
      passwordHash: 'x',
      credits: toUnits(10),
    });
    const post = async (s: RunningService): Promise<Reply> => {
      const res = await s.app.inject({
        method: 'POST',
        url: '/sms/send',
        headers: { apikey, 'idempotency-key': 'two-processes' },
        payload: { numbers: '5512345678', message: 'Hola' },
      });
      return { status: res.statusCode, body: JSON.parse(res.body), headers: res.headers as Reply['headers'] };
    };
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => post(services[i % 2])));
    expect(new Set(replies.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(replies[0].body.code).toBe('sms_11');
    const campaigns = await services[1].ctx.db.kysely
      .selectFrom('campaigns')
      .select('id')
      .where('account_id', '=', account.id)
      .execute();
    expect(campaigns).toHaveLength(1);
  });
});
