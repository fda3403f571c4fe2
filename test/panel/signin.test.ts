import { describe, expect, it } from 'vitest';
import { DESKTOP, expectAccessible, PHONE, screenshot } from '../helpers/browser.js';
import { createOperator, describePanel, signIn, signOut, withPassword } from '../helpers/panel.js';
import { postSignin, signinEnv as env } from '../helpers/panel-signin.js';
import { Secret, TOTP } from 'otpauth';
import { TestSmsc } from '../helpers/smsc.js';
import { encrypt } from '../../src/lib/secrets.js';
import { parseSmppSettings } from '../../src/carriers/smpp/settings.js';

/** Panel sign-in as people use it. Cookies, CSP, throttling, CSRF, sessions, isolation: signin-security.test.ts. */
describePanel('panel sign-in', { env, freshCookies: true }, (panel) => {
  it('signs in with the form, shows the balance on every page, and signs out', async () => {
    const { engine, h, base, context, page, errors } = panel;
    const a = await withPassword(h, await h.createAccount(12.5), 'correct horse 1');
    await page.goto(`${base}/panel/`);
    await expect.poll(() => page.locator('input[name=email]').count()).toBe(1);
    expect(await page.getAttribute('html', 'lang')).toBe('es');
    await expectAccessible(page);
    await screenshot(page, `${engine}-signin-desktop`);

    await page.fill('input[name=email]', a.email);
    await page.fill('input[name=password]', 'wrong password');
    await page.click('button[type=submit]');
    expect(await page.textContent('[role=alert]')).toContain('Correo o contraseña incorrectos');

    await signIn(page, base, a.email, a.password);
    expect(page.url()).toBe(`${base}/panel/overview`);
    expect(await page.textContent('[data-testid=balance]')).toBe('12.5');
    await expectAccessible(page);
    for (const path of ['/panel/integrations', '/panel/subaccounts', '/panel/account']) {
      await page.goto(base + path);
      expect(await page.textContent('[data-testid=balance]'), path).toBe('12.5');
      await expectAccessible(page);
    }
    // The session lives in the database: one row, and only the hash of the cookie's token.
    const cookie = (await context.cookies()).find((c) => c.name === 'mns_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/panel', secure: false });
    const rows = await h.ctx.db.kysely
      .selectFrom('panel_sessions')
      .selectAll()
      .where('principal_id', '=', a.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).not.toContain(cookie.value);

    await signOut(page);
    expect(
      await h.ctx.db.kysely.selectFrom('panel_sessions').selectAll().where('principal_id', '=', a.id).execute(),
    ).toHaveLength(0);
    await page.goto(`${base}/panel/overview`);
    expect(page.url()).toBe(`${base}/panel/`);
    expect(errors).toEqual([]);
  });

  it('serves its assets from the service with long cache headers', async () => {
    const { h } = panel;
    const form = await h.request('GET', '/panel/');
    const assets = [...form.body.matchAll(/(?:href|src)="(\/panel\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const url of assets) {
      const res = await h.request('GET', url);
      expect(res.status, url).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    expect((await h.request('GET', '/panel/assets/nothing.js')).status).toBe(404);
  });

  it('switches to English and back', async () => {
    const { base, page } = panel;
    await page.goto(`${base}/panel/`);
    await page.click('a[hreflang=en]');
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.textContent('h1')).toBe('Sign in');
    await page.click('a[hreflang=es]');
    expect(await page.textContent('h1')).toBe('Iniciar sesión');
  });

  it('one plain email under two parents and as a top-level account: each password opens its own account', async () => {
    const { h, base, page } = panel;
    const [p1, p2] = await Promise.all([h.createAccount(1), h.createAccount(2)]);
    const email = `shared-${p1.id}@example.com`;
    expect((await h.post('/manager/subaccount/add', { email, password: 'first child' }, p1.apikey)).body.success).toBe(
      true,
    );
    expect((await h.post('/manager/subaccount/add', { email, password: 'second child' }, p2.apikey)).body.success).toBe(
      true,
    );
    expect(
      (await h.post('/manager/subaccount/credits/manage', { email, credits: 1, type: 1 }, p2.apikey)).body.code,
    ).toBe('subaccount_01');
    const top = await withPassword(h, await h.createAccount(9, email), 'top level');
    const keyOf = async (password: string) => {
      await signIn(page, base, email, password);
      expect(await page.textContent('header .who')).toBe(email);
      const balance = await page.textContent('[data-testid=balance]');
      await signOut(page);
      return balance;
    };
    expect(await keyOf('top level')).toBe('9');
    expect(await keyOf('first child')).toBe('0');
    expect(await keyOf('second child')).toBe('1');
    expect((await postSignin(h, email, 'nobody has this')).status).toBe(401);
    expect(top.email).toBe(email);
  });

  it('operators sign in to the operator view, which lists accounts; account holders cannot see it', async () => {
    const { engine, h, base, page } = panel;
    const a = await withPassword(h, await h.createAccount(7), 'holder password');
    await createOperator(h, `op-${a.id}@example.com`, 'operator password');
    await signIn(page, base, `op-${a.id}@example.com`, 'operator password');
    expect(page.url()).toBe(`${base}/panel/operator`);
    expect(await page.locator(`[data-testid=accounts] tr[data-account="${a.email}"]`).count()).toBe(1);
    expect(await page.textContent('[data-testid=routes]')).toContain('simulator');
    // A SMPP carrier on a real SMSC: the page shows its live state as `carriers status` reports it.
    const smsc = await new TestSmsc({ systemId: 'panel', password: 'pw' }).start();
    try {
      const now = Date.now();
      const settings = parseSmppSettings({ host: '127.0.0.1', port: smsc.port, system_id: 'panel' });
      await h.ctx.db.kysely
        .insertInto('carriers')
        .values({
          name: `smsc-${a.id}`,
          type: 'smpp',
          enabled: 1,
          settings: JSON.stringify(settings),
          password_enc: encrypt(h.ctx.secrets.keyEncryption, 'pw'),
          version: 1,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await h.ctx.db.kysely
        .insertInto('carrier_routes')
        .values({
          channel: 'sms',
          prefix: '52',
          account_id: 0,
          carriers: JSON.stringify([`smsc-${a.id}`, 'simulator']),
          created_at: now,
        })
        .execute();
      const row = page.locator(`[data-testid=carriers] tr[data-carrier="smsc-${a.id}"]`);
      await expect
        .poll(async () => (await page.reload(), row.locator('[data-state]').getAttribute('data-state')), {
          timeout: 20_000,
          interval: 300,
        })
        .toBe('bound');
      expect(await row.textContent()).toContain('Conectado');
      await expectAccessible(page);
      await screenshot(page, `${engine}-operator-carriers`);
      expect(await page.textContent('[data-testid=routes]')).toContain(`smsc-${a.id} → simulator`);
      expect(await page.textContent('[data-testid=routes]')).toContain('+52');
    } finally {
      await h.ctx.db.kysely.deleteFrom('carrier_routes').where('prefix', '=', '52').execute();
      await h.ctx.db.kysely.deleteFrom('carriers').where('name', '=', `smsc-${a.id}`).execute();
      await smsc.stop();
    }
    await expectAccessible(page);
    await screenshot(page, `${engine}-operator-desktop`);
    await page.setViewportSize(PHONE);
    await screenshot(page, `${engine}-operator-phone`);
    await page.setViewportSize(DESKTOP);
    expect((await page.goto(`${base}/panel/overview`))!.status()).toBe(403);
    await page.goto(`${base}/panel/operator`);
    await signOut(page);
    await signIn(page, base, a.email, a.password);
    expect((await page.goto(`${base}/panel/operator`))!.status()).toBe(403);
    await page.goto(`${base}/panel/overview`);
    await signOut(page);
  });

  it('optional two-step sign-in with an authenticator app: set up, then the code is asked, refused when wrong or reused', async () => {
    const { base, page } = panel;
    const a = await panel.signedIn(0, 'two step password');
    await page.goto(`${base}/panel/account`);
    await page.fill('#totp-password', a.password);
    await page.click('form[action="/panel/account/totp-start"] button');
    const secret = (await page.textContent('[data-testid=totp-secret]'))!;
    const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
    await expectAccessible(page);
    await page.fill('#totp-first', '000000' === totp.generate() ? '111111' : '000000');
    await page.click('form[action="/panel/account/totp-confirm"] button');
    expect(await page.textContent('[role=alert]')).toContain('El código no es correcto');
    // Still off after a wrong first code: set up again and confirm with the right one.
    await page.fill('#totp-password', a.password);
    await page.click('form[action="/panel/account/totp-start"] button');
    const secret2 = (await page.textContent('[data-testid=totp-secret]'))!;
    const totp2 = new TOTP({ secret: Secret.fromBase32(secret2), digits: 6, period: 30, algorithm: 'SHA1' });
    const first = totp2.generate();
    await page.fill('#totp-first', first);
    await page.click('form[action="/panel/account/totp-confirm"] button');
    expect(await page.textContent('[role=status]')).toContain('Verificación en dos pasos activada');
    await signOut(page);

    // The password alone opens only the code page.
    await page.goto(`${base}/panel/`);
    await page.fill('input[name=email]', a.email);
    await page.fill('input[name=password]', a.password);
    await page.click('button[type=submit]');
    expect(page.url()).toBe(`${base}/panel/totp`);
    expect(await page.locator('[data-testid=balance]').count()).toBe(0);
    await page.goto(`${base}/panel/integrations`);
    expect(page.url()).toBe(`${base}/panel/totp`);
    await expectAccessible(page);
    // The code that turned it on was used up: the same step's code is refused.
    await page.fill('#code', first);
    await page.click('button[type=submit]');
    expect(await page.textContent('[role=alert]')).toContain('El código no es correcto o ya se usó');
    // The next step's code (allowed for clock drift) signs in.
    await page.fill('#code', totp2.generate({ timestamp: Date.now() + 30_000 }));
    await page.click('button[type=submit]');
    expect(page.url()).toBe(`${base}/panel/overview`);
    expect(await page.locator('[data-testid=balance]').count()).toBe(1);
    await page.goto(`${base}/panel/account`);
    expect(await page.textContent('[data-testid=totp-state]')).toContain('activa');
    await signOut(page);
  });
});

describe('panel assets', () => {
  it('are built with content-hashed names', async () => {
    const { readFileSync } = await import('node:fs');
    const manifest = JSON.parse(
      readFileSync(new URL('../../dist/panel-assets/manifest.json', import.meta.url), 'utf8'),
    );
    expect(Object.keys(manifest).sort()).toEqual(['panel.css', 'panel.js', 'uPlot.iife.min.js', 'uPlot.min.css']);
  });
});
