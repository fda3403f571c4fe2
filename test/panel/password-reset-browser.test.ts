import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { issuePasswordReset, RESET_PATH } from '../../src/accounts/index.js';
import { listAudit } from '../../src/audit/service.js';
import { startSmtp } from '../helpers/alerts.js';
import { expectAccessible, sharedBrowser } from '../helpers/browser.js';
import { describeEngines } from '../helpers/harness.js';
import { signIn, startPanel, withPassword } from '../helpers/panel.js';

/** A mail's text as sent (quoted-printable): soft line breaks joined, =XX bytes decoded. */
const decoded = (text: string) =>
  Buffer.from(
    text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

/** The forgotten password in Chromium: the sign-in page's link, the mailed link, the reset form, a spent link. */
describeEngines('panel password reset in a browser', (engine) => {
  let browser: Browser;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let panel: Awaited<ReturnType<typeof startPanel>>;
  beforeAll(async () => {
    browser = await sharedBrowser();
    smtp = await startSmtp();
    panel = await startPanel(
      browser,
      engine,
      { SMTP_URL: smtp.url, ALERT_EMAIL_FROM: 'panel@mensajero.test', PASSWORD_ENDPOINTS_PER_MINUTE: '4' },
      15_000,
    );
  });
  afterAll(async () => {
    await panel?.close();
    await smtp?.stop();
  });

  it("sets a new password through an operator's link: the form in Spanish, every session ends, the link is spent", async () => {
    const { h, base, page } = panel;
    const a = await withPassword(h, await h.createAccount(0), 'contraseña vieja');
    await signIn(page, base, a.email, a.password);
    const { token } = await issuePasswordReset(h.ctx.db.kysely, a.id);
    const other = await browser.newContext();
    const reset = await other.newPage();
    await reset.goto(`${base}${RESET_PATH}${token}`);
    expect(await reset.textContent('h1')).toContain('Elige una contraseña nueva');
    await expectAccessible(reset);
    await reset.fill('input[name=password]', 'contraseña nueva');
    await reset.fill('input[name=confirm]', 'otra distinta');
    await reset.click('button[type=submit]');
    expect(await reset.textContent('[role=alert], .error')).toContain('de 8 a 128 caracteres');
    await reset.fill('input[name=password]', 'contraseña nueva');
    await reset.fill('input[name=confirm]', 'contraseña nueva');
    await reset.click('button[type=submit]');
    expect(await reset.textContent('[role=status]')).toContain('Contraseña guardada');
    // The session signed in before the reset is gone; the old password no longer opens the panel, the new one does.
    await page.goto(`${base}/panel/overview`);
    await page.waitForSelector('input[name=password]');
    await signIn(page, base, a.email, 'contraseña nueva');
    const again = await reset.goto(`${base}${RESET_PATH}${token}`);
    expect(again?.status()).toBe(410);
    expect(await reset.textContent('body')).toContain('ya se usó o caducó');
    await other.close();
    const audit = await listAudit(h.ctx.db.kysely, { since: 0 });
    expect(audit.find((e) => e.action === 'accounts.password-set')).toMatchObject({ target: a.email });
    expect(JSON.stringify(audit)).not.toContain(token);
  });

  it('mails the link from the sign-in page, and answers the same for an email of no account', async () => {
    const { h, base } = panel;
    const a = await withPassword(h, await h.createAccount(0), 'olvidada 123');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/panel/`);
    await page.click('text=¿Olvidaste tu contraseña?');
    await expectAccessible(page);
    await page.fill('input[name=email]', 'nadie@example.com');
    await page.click('button[type=submit]');
    const unknown = await page.textContent('[role=status]');
    await page.goto(`${base}/panel/forgot`);
    await page.fill('input[name=email]', a.email);
    await page.click('button[type=submit]');
    expect(await page.textContent('[role=status]')).toBe(unknown);
    expect(unknown).toContain('Si el correo corresponde a una cuenta');
    await expect.poll(() => smtp.mails.filter((m) => m.to.includes(a.email)).length, { timeout: 10_000 }).toBe(1);
    expect(smtp.mails.filter((m) => m.to.includes('nadie@example.com'))).toEqual([]);
    const text = decoded(smtp.mails.find((m) => m.to.includes(a.email))!.text);
    const link = new RegExp(`${base}/panel/reset\\?token=[\\w-]+`).exec(text)![0];
    await page.goto(link);
    await page.fill('input[name=password]', 'recordada 456');
    await page.fill('input[name=confirm]', 'recordada 456');
    await page.click('button[type=submit]');
    expect(await page.textContent('[role=status]')).toContain('Contraseña guardada');
    await signIn(page, base, a.email, 'recordada 456');
    await context.close();
  });

  it('counts requests on the rate limiter: past PASSWORD_ENDPOINTS_PER_MINUTE per address, 429', async () => {
    const { h } = panel;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const form = await h.request('GET', '/panel/forgot');
      const cookie = String([form.headers['set-cookie']].flat()[0]).split(';')[0];
      const _csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1];
      const r = await h.request('POST', '/panel/forgot', {
        form: { _csrf, email: `limite${i}@example.com` },
        headers: { cookie },
      });
      statuses.push(r.status);
    }
    // The two earlier tests used two of the address's four.
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
  });
});
