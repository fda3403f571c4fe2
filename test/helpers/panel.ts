import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword } from '../../src/lib/passwords.js';
import { startHarness, type EngineName, type Harness, type TestAccount } from './harness.js';
import { DESKTOP, watchPageErrors } from './browser.js';

/** Gives a test account a real password (the harness creates accounts without one). */
export async function withPassword(h: Harness, account: TestAccount, password: string): Promise<TestAccount & { password: string }> {
  await h.ctx.db.kysely.updateTable('accounts').set({ password_hash: await hashPassword(password) }).where('id', '=', account.id).execute();
  return { ...account, password };
}

export async function createOperator(h: Harness, email: string, password: string): Promise<void> {
  await h.ctx.db.kysely.insertInto('panel_operators').values({ email, password_hash: await hashPassword(password), created_at: Date.now() }).execute();
}

/** Signs in through the form at /panel/ (the CONTRACT's names) and waits for the signed-in page. */
export async function signIn(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/panel/`);
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', password);
  await page.click('button[type=submit]');
  await page.waitForSelector('[data-testid=balance]');
}

export async function signOut(page: Page): Promise<void> {
  await page.click('header form[action="/panel/signout"] button');
  await page.waitForURL(/\/panel\/$/);
}

/** A listening service on the engine and a fresh browser context with one page, watched for script and CSP errors. */
export async function startPanel(browser: Browser, engine: EngineName, env: Record<string, string> = {}, timeoutMs = 8000) {
  const h = await startHarness(engine, { listen: true, env });
  const context = await browser.newContext({ viewport: DESKTOP });
  context.setDefaultTimeout(timeoutMs);
  const page = await context.newPage();
  const errors = watchPageErrors(page);
  return {
    h,
    base: h.config.publicBaseUrl,
    context,
    page,
    errors,
    async close() {
      await context.close();
      await h.close();
    },
  };
}

/** The browser's cookies as a Cookie header, for requests made beside the browser. */
export async function cookieHeader(context: BrowserContext): Promise<string> {
  return (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
}

/** Signs in with the form's posts, without a browser: the session cookie and its CSRF token, for h.request. */
export async function panelSession(h: Harness, email: string, password: string, headers: Record<string, string> = {}): Promise<{ cookie: string; csrf: string }> {
  const form = await h.request('GET', '/panel/');
  const signinCookie = String([form.headers['set-cookie']].flat()[0]).split(';')[0];
  const token = /name="_csrf" value="([^"]+)"/.exec(form.body)![1];
  const res = await h.request('POST', '/panel/signin', { form: { _csrf: token, email, password }, headers: { cookie: signinCookie, ...headers } });
  const session = [res.headers['set-cookie']].flat().map(String).find((c) => c.startsWith('mns_session='));
  if (res.status !== 303 || !session) throw new Error(`sign-in failed: ${res.status}`);
  const cookie = session.split(';')[0];
  const page = await h.request('GET', '/panel/account', { headers: { cookie } });
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(page.body)![1] };
}
