import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';

/**
 * The "tried as a new user would": create a sub-account, move credits
 * to it, send an SMS (and a payment link) with its key, archive it, and see
 * its key refused.
 */
describeEngines('sub-account walk-through', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(() => h.close());

  it('create, fund, send with its key, archive, key refused', async () => {
    const parent = await h.createAccount(20);
    const email = `shop-${engine}-${Date.now()}@example.com`;

    const created = await h.post('/manager/subaccount/add', { email, password: 'branch-secret' }, parent.apikey);
    expect(created.body).toMatchObject({ success: true, code: 'subaccount_01', message: 'user_created', email });
    const subKey: string = created.body.apikey;
    expect((await h.post('/manager/subaccount/get_apikey', { email }, parent.apikey)).body.apikey).toBe(subKey);

    expect(
      (await h.post('/manager/subaccount/credits/manage', { email, type: '1', credits: '5' }, parent.apikey)).body,
    ).toMatchObject({ code: 'subaccount_01', credit: 15, subaccount_credit: 5 });

    const sms = await h.post('/sms/send', { numbers: '5512345678', message: 'Hola desde la sucursal' }, subKey);
    expect(sms.body).toMatchObject({ success: true, code: 'sms_11', total_messages: 1, credit: 1 });
    expect((await h.post('/credits/consult', {}, subKey)).body.credit).toBe(4);

    const sent = await h.post(
      '/paymentrequest/send',
      {
        number: '5512345678',
        country_code: '52',
        template: 'Pedido 7',
        message: 'Tu pedido esta listo, paga aqui:',
        amount: 99.9,
      },
      subKey,
    );
    expect(sent.body).toMatchObject({ success: true, code: 'sms_11', credit: 1 });
    expect((await h.post('/credits/consult', {}, subKey)).body.credit).toBe(3);
    h.ctx.worker.nudge();
    await eventually(
      async () =>
        (
          await h.ctx.db.kysely
            .selectFrom('messages')
            .select('status')
            .where('reference', '=', sent.body.reference)
            .executeTakeFirst()
        )?.status === 'delivered',
      15_000,
    );

    const archived = await h.post('/manager/subaccount/archive', { email }, parent.apikey);
    expect(archived.body).toMatchObject({
      success: true,
      code: 'subaccount_01',
      message: 'subaccount_archived',
      credits_returned: 3,
    });
    expect((await h.post('/credits/consult', {}, parent.apikey)).body.credit).toBe(18);

    for (const path of ['/credits/consult', '/sms/send', '/paymentrequest/send', '/manager/subaccount/add']) {
      const refused = await h.post(path, {}, subKey);
      expect(refused.status, path).toBe(401);
      expect(refused.body.code).toBe('auth_05');
    }
    // The payment link it sent still works for the payer.
    expect((await h.get(new URL(sent.body.payment_url).pathname)).status).toBe(200);
  });

  it('documents the routes in /openapi.json', async () => {
    const doc = (await h.get('/openapi.json')).body;
    for (const path of [
      '/manager/subaccount/add',
      '/manager/subaccount/archive',
      '/manager/subaccount/get_apikey',
      '/manager/subaccount/credits/manage',
      '/paymentrequest/send',
      '/paymentrequest/get',
      '/pay/{token}',
      '/pay/{token}/complete',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(doc.paths['/paymentrequest/send'].post.requestBody).toBeDefined();
  });
});
