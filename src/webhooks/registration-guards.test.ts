import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { receiver } from '../../test/helpers/check-receiver.js';
import { archiveAccount } from '../accounts/store.js';

describeEngines('webhook configuration: address checks and races', (engine) => {
  let h: Harness;
  let strict: Harness;
  beforeAll(async () => {
    [h, strict] = await Promise.all([
      startHarness(engine, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } }),
      startHarness(engine),
    ]);
  });
  afterAll(async () => {
    await h.close();
    await strict.close();
  });

  it.each([
    ['http://127.0.0.1:PORT/hook'],
    ['http://localhost:PORT/hook'],
    ['http://[::1]:PORT/hook'],
    ['http://[::ffff:127.0.0.1]:PORT/hook'],
    ['http://[::ffff:7f00:1]:PORT/hook'],
    ['http://2130706433:PORT/hook'],
    ['http://0x7f.1:PORT/hook'],
    ['http://10.0.0.1/hook'],
    ['http://192.168.0.10/hook'],
    ['http://169.254.169.254/latest/meta-data/'],
    ['http://100.64.0.1/hook'],
    ['http://0.0.0.0:PORT/hook'],
    ['http://[fe80::1]/hook'],
    ['http://224.0.0.1/hook'],
  ])('refuses %s with add_webhook_03 without WEBHOOK_ALLOW_PRIVATE, before any request', async (template) => {
    const r = await receiver();
    try {
      const a = await strict.createAccount();
      const res = await strict.post(
        '/webhook/add',
        { url: template.replace('PORT', String(r.port)), status: '1' },
        a.apikey,
      );
      expect(res.body).toMatchObject({ success: false, code: 'add_webhook_03' });
      expect(r.received).toHaveLength(0);
      expect((await strict.post('/webhook/get', {}, a.apikey)).body.result.url).toBeNull();
    } finally {
      await r.close();
    }
  });

  it('saves exactly one of parallel registrations; the others get add_webhook_08 and change nothing', async () => {
    // Every check is answered only once all five are in flight, so all five read the webhook before any saves.
    let release: () => void = () => undefined;
    let gate = new Promise<void>((resolve) => (release = resolve));
    let arrived = 0;
    const r = await receiver(async () => {
      if (++arrived % 5 === 0) {
        release();
        gate = new Promise<void>((resolve) => (release = resolve));
      } else await gate;
      return 200;
    });
    try {
      const a = await h.createAccount();
      const urls = Array.from({ length: 5 }, (_, i) => `${r.url}/${i}`);
      const replies = await Promise.all(urls.map((url) => h.post('/webhook/add', { url, status: '1' }, a.apikey)));
      const codes = replies.map((x) => x.body.code);
      expect(codes.filter((c) => c === 'add_webhook_01')).toHaveLength(1);
      expect(codes.filter((c) => c === 'add_webhook_08')).toHaveLength(4);
      const winner = urls[codes.indexOf('add_webhook_01')];
      expect((await h.post('/webhook/get', {}, a.apikey)).body.result.url).toBe(winner);
      // With one registered, parallel replacements race the same way.
      const again = await Promise.all(urls.map((url) => h.post('/webhook/add', { url, status: '0' }, a.apikey)));
      expect(again.filter((x) => x.body.code === 'add_webhook_01')).toHaveLength(1);
      expect(again.filter((x) => x.body.code === 'add_webhook_08')).toHaveLength(4);
    } finally {
      await r.close();
    }
  });

  it('saves nothing with add_webhook_07 when the account is closed during the check', async () => {
    const a = await h.createAccount();
    const r = await receiver(async () => {
      await archiveAccount(h.ctx.db.kysely, a.id);
      return 200;
    });
    try {
      expect((await h.post('/webhook/add', { url: r.url, status: '1' }, a.apikey)).body).toMatchObject({
        success: false,
        code: 'add_webhook_07',
      });
      expect(
        await h.ctx.db.kysely.selectFrom('webhooks').select('url').where('account_id', '=', a.id).execute(),
      ).toHaveLength(0);
    } finally {
      await r.close();
    }
  });
});
