import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHttpServer } from '../helpers/http-server.js';
import { describePanel } from '../helpers/panel.js';

/**
 * The panel's forms that do what an API endpoint does count on the API's
 * limits, in the same buckets: the API and the panel together get one budget.
 */
const env = { WEBHOOK_ADD_PER_MINUTE: '2', PASSWORD_ENDPOINTS_PER_MINUTE: '2', WEBHOOK_ALLOW_PRIVATE: 'true' };

describePanel('panel forms share the API limits', { over: 'http', env }, (panel) => {
  let receiver: Awaited<ReturnType<typeof startHttpServer>>;

  beforeAll(async () => {
    receiver = await startHttpServer(() => ({ status: 200 }));
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  const signedIn = (credits = 0) => panel.signedIn(credits, 'correct horse limits');

  const post = (s: { cookie: string; csrf: string }, path: string, form: Record<string, string>) =>
    panel.h.request('POST', path, { form: { _csrf: s.csrf, ...form }, headers: { cookie: s.cookie } });

  it('the webhook form counts on WEBHOOK_ADD_PER_MINUTE with /webhook/add', async () => {
    const { h } = panel;
    const a = await signedIn();
    for (const n of [1, 2])
      expect((await h.post('/webhook/add', { url: `${receiver.url}/hook${n}`, status: '1' }, a.apikey)).status).toBe(
        200,
      );
    const refused = await post(a, '/panel/integrations/webhook', { url: `${receiver.url}/hook3`, status: '1' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatch(/Demasiadas solicitudes seguidas\. Espera \d+ s/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(receiver.seen.some((r) => r.path === '/hook3')).toBe(false);
  });

  it('the sub-account form counts on PASSWORD_ENDPOINTS_PER_MINUTE with /manager/subaccount/add', async () => {
    const { h } = panel;
    const a = await signedIn();
    for (const n of [1, 2])
      expect(
        (
          await h.post(
            '/manager/subaccount/add',
            { email: `api${n}-${a.id}@example.com`, password: 'secret123' },
            a.apikey,
          )
        ).status,
      ).toBe(200);
    const refused = await post(a, '/panel/subaccounts/create', {
      email: `panel-${a.id}@example.com`,
      password: 'secret123',
    });
    expect(refused.status).toBe(429);
    expect(refused.body).toContain('Demasiadas solicitudes seguidas');
    expect(
      await h.ctx.db.kysely.selectFrom('accounts').select('id').where('parent_id', '=', a.id).execute(),
    ).toHaveLength(2);
  });

  it("the Send page counts on the account's per-second send limit", async () => {
    const { h } = panel;
    const a = await signedIn(100);
    await h.ctx.db.kysely.updateTable('accounts').set({ rate_limit_per_sec: 1 }).where('id', '=', a.id).execute();
    expect((await h.post('/sms/send', { numbers: '5512345678', message: 'hola', sandbox: 1 }, a.apikey)).status).toBe(
      200,
    );
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        post(a, '/panel/send/submit', { numbers: '5512345678', message: 'hola', sandbox: '1' }),
      ),
    );
    // One point a second, already spent by the API: at most one of the five (a second later) gets through.
    const refused = answers.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(4);
    expect(refused.every((r) => r.body.includes('Demasiadas solicitudes seguidas'))).toBe(true);
  });
});
