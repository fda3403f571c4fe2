import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { expectAccessible } from '../helpers/browser.js';
import { describePanel, signIn, signOut, withPassword, cookieHeader } from '../helpers/panel.js';
import { postSignin, signinEnv as env } from '../helpers/panel-signin.js';

/** Panel sign-in under attack: cookie flags and CSP, throttling, CSRF, other sessions, a sub-account's bounds. */
describePanel('panel sign-in', { env, freshCookies: true }, (panel) => {
  it('marks the cookie Secure behind HTTPS and sends a strict Content-Security-Policy', async () => {
    const { h } = panel;
    const a = await withPassword(h, await h.createAccount(1), 'correct horse 2');
    const res = await postSignin(h, a.email, a.password, { 'x-forwarded-proto': 'https' });
    expect(res.status).toBe(303);
    const session = [res.headers['set-cookie']]
      .flat()
      .map(String)
      .find((c) => c.startsWith('mns_session='))!;
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; Secure/);
    expect(session).toMatch(/; SameSite=Lax/);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('throttles sign-in per account after wrong passwords, with a clear message', async () => {
    const { h, base, page } = panel;
    const a = await withPassword(h, await h.createAccount(0), 'correct horse 3');
    // Wrong passwords in parallel: the count is in the database, so none slips past the limit.
    const wrong = await Promise.all(Array.from({ length: 8 }, () => postSignin(h, a.email, 'nope nope')));
    expect(wrong.every((r) => r.status === 401 || r.status === 429)).toBe(true);
    await page.goto(`${base}/panel/`);
    await page.fill('input[name=email]', a.email);
    await page.fill('input[name=password]', a.password);
    await page.click('button[type=submit]');
    expect(await page.textContent('[role=alert]')).toMatch(
      /Demasiados intentos fallidos\. Vuelve a intentarlo en \d+ min/,
    );
    expect(await page.locator('[data-testid=balance]').count()).toBe(0);
    // Another account from the same address is not locked by it.
    const b = await withPassword(h, await h.createAccount(0), 'correct horse 4');
    expect((await postSignin(h, b.email, b.password)).status).toBe(303);
  });

  it('throttles sign-in per address across accounts', async () => {
    const { h } = panel;
    const victim = await withPassword(h, await h.createAccount(0), 'correct horse 5');
    const from = { 'x-forwarded-for': '203.0.113.9' };
    await Promise.all(Array.from({ length: 20 }, (_, i) => postSignin(h, `nobody${i}@example.com`, 'guess', from)));
    const refused = await postSignin(h, victim.email, victim.password, from);
    expect(refused.status).toBe(429);
    expect(refused.body).toContain('Demasiados intentos fallidos');
    expect((await postSignin(h, victim.email, victim.password)).status).toBe(303);
  });

  it('refuses a cross-site form post and any post without the CSRF token', async () => {
    const { h, base, context, page } = panel;
    const a = await panel.signedIn(0, 'correct horse 6');
    const before = await h.ctx.db.kysely
      .selectFrom('api_keys')
      .select('key_hash')
      .where('account_id', '=', a.id)
      .where('revoked_at', 'is', null)
      .execute();

    // A page of another origin that posts to the panel as soon as it opens.
    const evil: Server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form id="f" method="post" action="${base}/panel/integrations/rotate-key"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    try {
      const answer = page.waitForResponse((r) => r.url().endsWith('/panel/integrations/rotate-key'), {
        timeout: 10_000,
      });
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      expect((await answer).status()).toBe(403);
      expect(await page.textContent('[role=alert]')).toContain('Solicitud rechazada');
    } finally {
      evil.closeAllConnections();
      evil.close();
    }
    // The same request from the panel's origin but without the token is refused too.
    const cookie = await cookieHeader(context);
    const noToken = await h.request('POST', '/panel/integrations/rotate-key', {
      form: {},
      headers: { cookie, origin: base },
    });
    expect(noToken.status).toBe(403);
    const after = await h.ctx.db.kysely
      .selectFrom('api_keys')
      .select('key_hash')
      .where('account_id', '=', a.id)
      .where('revoked_at', 'is', null)
      .execute();
    expect(after).toEqual(before);
    await page.goto(`${base}/panel/overview`);
    await signOut(page);
  });

  it('changing the password signs out every other browser', async () => {
    const { browser, h, base, page } = panel;
    const a = await withPassword(h, await h.createAccount(0), 'correct horse 7');
    const other = await browser.newContext();
    try {
      const otherPage = await other.newPage();
      await signIn(otherPage, base, a.email, a.password);
      await signIn(page, base, a.email, a.password);
      await page.goto(`${base}/panel/account`);
      await expectAccessible(page);
      await page.fill('#current', a.password);
      await page.fill('#new', 'a brand new secret');
      await page.fill('#confirm', 'a brand new secret');
      await page.click('form[action="/panel/account/password"] button');
      expect(await page.textContent('[role=status]')).toContain('Contraseña cambiada');
      await otherPage.goto(`${base}/panel/overview`);
      expect(otherPage.url()).toBe(`${base}/panel/`);
      expect(await page.locator('[data-testid=balance]').count()).toBe(1);
      expect((await postSignin(h, a.email, a.password)).status).toBe(401);
      expect((await postSignin(h, a.email, 'a brand new secret')).status).toBe(303);
    } finally {
      await other.close();
    }
    await signOut(page);
  });

  it('a sub-account sees only its own data', async () => {
    const { h, base, page } = panel;
    const parent = await withPassword(h, await h.createAccount(50), 'parent password');
    expect(
      (
        await h.post(
          '/manager/subaccount/add',
          { email: `sub-${parent.id}@example.com`, password: 'child1' },
          parent.apikey,
        )
      ).body.success,
    ).toBe(true);
    await signIn(page, base, `sub-${parent.id}@example.com`, 'child1');
    expect(await page.textContent('[data-testid=balance]')).toBe('0');
    expect(await page.locator('nav a[href="/panel/subaccounts"]').count()).toBe(0);
    expect((await page.goto(`${base}/panel/subaccounts`))!.status()).toBe(403);
    expect((await page.goto(`${base}/panel/operator`))!.status()).toBe(403);
    await page.goto(`${base}/panel/integrations`);
    await page.fill('#key-password', 'child1');
    await page.click('form[action="/panel/integrations/reveal-key"] button');
    const shown = await page.textContent('[data-testid=api-key]');
    expect(shown).not.toBe(parent.apikey);
    expect(
      (await h.post('/credits/consult', {}, shown!)).body.credits ??
        (await h.post('/credits/consult', {}, shown!)).body,
    ).toBeDefined();
    const html = await page.content();
    expect(html).not.toContain(parent.email);
    expect(html).not.toContain(parent.apikey);
    // The plain email is shown, never the stored '<parent id> <email>'.
    expect(await page.textContent('header .who')).toBe(`sub-${parent.id}@example.com`);
    await signOut(page);
  });
});
