import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { expect, it } from 'vitest';
import { eventually } from '../helpers/harness.js';
import { DESKTOP, expectAccessible, PHONE, screenshot } from '../helpers/browser.js';
import { describePanel, signIn, signOut, withPassword, cookieHeader } from '../helpers/panel.js';
import { runCommands } from '../helpers/cli.js';
import { walletCommands } from '../../src/features/wallet/cli.js';
import { loyaltyCommands } from '../../src/features/loyalty/cli.js';

interface Delivery {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that answers 200 and keeps what it got (HEAD checks aside). */
async function receiver(): Promise<{ url: string; deliveries: Delivery[]; close(): void }> {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method === 'POST' || (req.method === 'GET' && req.url!.includes('reference=')))
        deliveries.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.statusCode = 200;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    deliveries,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const env = { TRUST_PROXY: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE: 'true' };

describePanel('panel integrations', { env, freshCookies: true }, (panel) => {
  it('reveals the API key after the password, rotates it, and the API refuses the old key at once', async () => {
    const { engine, h, base, page, errors } = panel;
    const a = await panel.signedIn(3, 'integrations 1');
    await page.goto(`${base}/panel/integrations`);
    expect(await page.locator('[data-testid=api-key]').count()).toBe(0);
    await expectAccessible(page);

    await page.fill('#key-password', 'not my password');
    await page.click('form[action="/panel/integrations/reveal-key"] button');
    expect(await page.textContent('[role=alert]')).toContain('La contraseña no es correcta');
    expect(await page.locator('[data-testid=api-key]').count()).toBe(0);

    await page.fill('#key-password', a.password);
    await page.click('form[action="/panel/integrations/reveal-key"] button');
    expect(await page.textContent('[data-testid=api-key]')).toBe(a.apikey);
    await screenshot(page, `${engine}-integrations-desktop`);
    await page.setViewportSize(PHONE);
    await screenshot(page, `${engine}-integrations-phone`);
    await page.setViewportSize(DESKTOP);

    await page.click('[data-testid=rotate-key]');
    const rotated = (await page.textContent('[data-testid=api-key]'))!;
    expect(rotated).toMatch(/^mns_/);
    expect(rotated).not.toBe(a.apikey);
    expect((await h.post('/credits/consult', {}, a.apikey)).status).toBe(401);
    expect((await h.post('/credits/consult', {}, rotated)).status).toBe(200);
    expect(errors).toEqual([]);
    await signOut(page);
  });

  it('saves a validated IP allow-list, and the API refuses a request from elsewhere', async () => {
    const { h, base, page } = panel;
    const a = await panel.signedIn(3, 'integrations 2');
    await page.goto(`${base}/panel/integrations`);
    await page.fill('#allow', '203.0.113.0/24\n300.1.1.1');
    const refused = page.waitForResponse((r) => r.url().endsWith('/allow-list'));
    await page.click('form[action="/panel/integrations/allow-list"] button');
    expect((await refused).status()).toBe(400);
    expect(await page.textContent('[role=alert]')).toContain('300.1.1.1');
    expect((await h.post('/credits/consult', {}, a.apikey)).status).toBe(200);

    await page.fill('#allow', '203.0.113.0/24\n2001:db8::/32');
    await page.click('form[action="/panel/integrations/allow-list"] button');
    expect(await page.textContent('[role=status]')).toContain('Lista de IP guardada');
    expect(await page.inputValue('#allow')).toBe('203.0.113.0/24\n2001:db8::/32');
    const elsewhere = await h.post('/credits/consult', {}, a.apikey);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.code).toBe('auth_04');
    const inside = await h.request('POST', '/credits/consult', {
      apikey: a.apikey,
      body: {},
      headers: { 'x-forwarded-for': '203.0.113.77' },
    });
    expect(inside.status).toBe(200);

    await page.fill('#allow', '');
    await page.click('form[action="/panel/integrations/allow-list"] button');
    expect((await h.post('/credits/consult', {}, a.apikey)).status).toBe(200);
    await signOut(page);
  });

  it('registers a webhook, sends a signed test event to a local receiver, shows the log and redelivers', async () => {
    const { h, base, page, errors } = panel;
    const a = await withPassword(h, await h.createAccount(3), 'integrations 3');
    const hook = await receiver();
    try {
      await signIn(page, base, a.email, a.password);
      await page.goto(`${base}/panel/integrations`);
      await page.fill('#hook-url', hook.url);
      await page.click('form[action="/panel/integrations/webhook"] button');
      expect(await page.textContent('[role=status]')).toContain('Webhook guardado');
      expect((await h.post('/webhook/get', {}, a.apikey)).body.result).toEqual({ url: hook.url, status: '1' });

      await page.fill('#secret-password', a.password);
      await page.click('form[action="/panel/integrations/reveal-secret"] button');
      const secret = (await page.textContent('[data-testid=webhook-secret]'))!;
      expect(secret).toMatch(/^whsec_/);

      await page.click('form[action="/panel/integrations/test-event"] button');
      expect(await page.textContent('[role=status]')).toContain('Evento de prueba en camino');
      const first = await eventually(async () => hook.deliveries[0]);
      expect(first.method).toBe('POST');
      const fields = Object.fromEntries(new URLSearchParams(first.body));
      expect(fields).toMatchObject({ type: 'confirmation', status: '0', extra_params: '{"test":true}' });
      expect(fields.reference).toMatch(/^test-/);
      expect(() =>
        new Webhook(secret).verify(first.body, first.headers as Record<string, string>, { jsonParse: false }),
      ).not.toThrow();

      // The delivery method is chosen in the panel: GET from now on.
      await page.selectOption('#hook-method', 'GET');
      await page.click('form[action="/panel/integrations/webhook-method"] button');
      await page.goto(`${base}/panel/integrations?state=delivered`);
      await eventually(async () => {
        await page.reload();
        return (await page.locator('[data-testid=delivery-log] [data-testid=event-state]').allTextContents()).includes(
          'delivered',
        );
      });
      await expectAccessible(page);
      await page.click('[data-testid=delivery-log] form[action="/panel/integrations/redeliver"] button');
      expect(await page.textContent('[role=status]')).toContain('Evento en cola para reenviarse');
      const second = await eventually(async () => hook.deliveries[1]);
      expect(second.method).toBe('GET');
      expect(second.url).toContain(`reference=${fields.reference}`);

      // Every failed event since a day goes again (an event whose retries ran out, as the worker leaves it).
      await eventually(
        async () =>
          (await h.ctx.db.kysely.selectFrom('events').select('state').where('account_id', '=', a.id).executeTakeFirst())
            ?.state === 'delivered',
      );
      await h.ctx.db.kysely
        .updateTable('events')
        .set({ state: 'failed', attempts: 26 })
        .where('account_id', '=', a.id)
        .execute();
      await page.goto(`${base}/panel/integrations?state=failed`);
      expect(await page.locator('[data-testid=delivery-log] tr[data-event]').count()).toBe(1);
      await page.fill('#since', new Date(Date.now() - 86_400_000).toISOString().slice(0, 10));
      await page.click('form[action="/panel/integrations/redeliver-failed"] button');
      expect(await page.textContent('[role=status]')).toContain('1 eventos en cola');
      await eventually(async () => hook.deliveries[2]);
      expect(errors).toEqual([]);
      await signOut(page);
    } finally {
      hook.close();
    }
  });

  it('refuses a test event without an enabled webhook, and a redelivery of another account’s event', async () => {
    const { h, base, context, page } = panel;
    const a = await withPassword(h, await h.createAccount(3), 'integrations 4');
    const other = await h.createAccount(0);
    const [{ id: foreign }] = await h.ctx.db.kysely
      .insertInto('events')
      .values({
        account_id: other.id,
        type: 'confirmation',
        reference: 'x',
        payload: '{}',
        state: 'failed',
        created_at: Date.now(),
        delivered_at: null,
      })
      .returning('id')
      .execute();
    await signIn(page, base, a.email, a.password);
    const cookie = await cookieHeader(context);
    const csrf = await page.getAttribute('input[name=_csrf]', 'value');
    const post = (path: string, form: Record<string, string>) =>
      h.request('POST', path, { form: { _csrf: csrf!, ...form }, headers: { cookie } });
    const test = await post('/panel/integrations/test-event', {});
    expect(test.status).toBe(400);
    expect(test.body).toContain('Registra y activa un webhook');
    const redeliver = await post('/panel/integrations/redeliver', { id: String(foreign) });
    expect(redeliver.status).toBe(400);
    expect(redeliver.body).toContain('No existe ese evento');
    expect(
      (await h.ctx.db.kysely.selectFrom('events').select('state').where('id', '=', foreign).executeTakeFirstOrThrow())
        .state,
    ).toBe('failed');
    await signOut(page);
  });

  it('OTP: saves the abuse protection the API then applies, and lists verifications without their codes', async () => {
    const { h, base, page } = panel;
    const a = await panel.signedIn(20, 'integrations 5');
    await page.goto(`${base}/panel/otp`);
    await page.fill('#countries', '1,57');
    await page.fill('#per-hour', 'many');
    await page.click('form[action="/panel/otp/settings"] button');
    expect(await page.textContent('[role=alert]')).toContain('Países');
    // The refused form comes back as it was typed.
    expect(await page.inputValue('#countries')).toBe('1,57');
    expect(await page.inputValue('#per-hour')).toBe('many');
    await page.fill('#per-hour', '3');
    await page.click('form[action="/panel/otp/settings"] button');
    expect(await page.textContent('[role=status]')).toContain('Ajustes de OTP guardados');
    const refused = await h.post(
      '/v2/otp',
      { phone_number: '5512345678', country_code: '52', company: 'Acme', code_show: 1 },
      a.apikey,
    );
    expect(refused.status).toBe(403);
    expect(await page.inputValue('#countries')).toBe('1,57');
    await page.fill('#countries', '');
    await page.fill('#per-hour', '');
    await page.click('form[action="/panel/otp/settings"] button');
    const sent = await h.post(
      '/v2/otp',
      { phone_number: '5512345678', country_code: '52', company: 'Acme', code_show: 1 },
      a.apikey,
    );
    expect(sent.status).toBe(201);
    await page.goto(`${base}/panel/otp`);
    expect(await page.textContent('[data-testid=verifications]')).toContain('pending');
    expect(await page.content()).not.toContain(String(sent.body.code));
    await expectAccessible(page);
    await signOut(page);
  });

  it('sub-accounts: create, transfer credits, reveal the key, archive', async () => {
    const { h, base, page } = panel;
    const a = await panel.signedIn(20, 'integrations 6');
    await page.goto(`${base}/panel/subaccounts`);
    const sub = `child-${a.id}@example.com`;
    await page.fill('#sub-email', sub);
    await page.fill('#sub-password', 'child123');
    await page.click('form[action="/panel/subaccounts/create"] button');
    expect(await page.textContent('[role=status]')).toContain('Subcuenta creada');
    const row = page.locator(`tr[data-subaccount="${sub}"]`);
    await row.locator('input[name=credits]').fill('5');
    await row.locator('form[action="/panel/subaccounts/transfer"] button').click();
    expect(await page.textContent('[role=status]')).toContain('Transferencia hecha');
    expect(await page.textContent('[data-testid=balance]')).toBe('15');
    await page.locator(`tr[data-subaccount="${sub}"] input[name=password]`).fill(a.password);
    await page.locator(`tr[data-subaccount="${sub}"] form[action="/panel/subaccounts/key"] button`).click();
    const key = (await page.textContent('[data-testid=subaccount-key]'))!;
    expect((await h.post('/credits/consult', {}, key)).status).toBe(200);
    await expectAccessible(page);
    await page.locator(`tr[data-subaccount="${sub}"] form[action="/panel/subaccounts/archive"] button`).click();
    expect(await page.textContent('[role=status]')).toContain('Subcuenta archivada');
    expect(await page.textContent('[data-testid=balance]')).toBe('20');
    expect((await h.post('/credits/consult', {}, key)).status).toBe(401);
    await signOut(page);
  });

  it('shows wallet and loyalty programs and staff as read views', async () => {
    const { h, base, page } = panel;
    const a = await withPassword(h, await h.createAccount(0), 'integrations 7');
    expect(
      (await runCommands(h.ctx, [walletCommands], ['wallets', 'add', '--email', a.email, '--name', 'Monedero Centro']))
        .wallet_name,
    ).toBe('Monedero Centro');
    expect(
      (
        await runCommands(
          h.ctx,
          [loyaltyCommands],
          ['loyalty', 'add', '--email', a.email, '--name', 'Café 10', '--stamps', '8'],
        )
      ).loyalty_name,
    ).toBe('Café 10');
    await signIn(page, base, a.email, a.password);
    await page.goto(`${base}/panel/programs`);
    expect(await page.textContent('[data-testid=wallets]')).toContain('Monedero Centro');
    expect(await page.textContent('[data-testid=loyalty]')).toContain('Café 10');
    await expectAccessible(page);
    await signOut(page);
  });
});
