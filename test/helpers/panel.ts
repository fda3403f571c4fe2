import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { hashPassword } from '../../src/lib/passwords.js';
import { describeEngines, startHarness, type EngineName, type Harness, type TestAccount } from './harness.js';
import { DESKTOP, sharedBrowser, watchPageErrors } from './browser.js';

/** Gives a test account a real password (the harness creates accounts without one). */
export async function withPassword(
  h: Harness,
  account: TestAccount,
  password: string,
): Promise<TestAccount & { password: string }> {
  await h.ctx.db.kysely
    .updateTable('accounts')
    .set({ password_hash: await hashPassword(password) })
    .where('id', '=', account.id)
    .execute();
  return { ...account, password };
}

export async function createOperator(h: Harness, email: string, password: string): Promise<void> {
  await h.ctx.db.kysely
    .insertInto('panel_operators')
    .values({ email, password_hash: await hashPassword(password), created_at: Date.now() })
    .execute();
}

/** Signs in through the form at /panel/ (the names of docs/operators/panel.md) and waits for the signed-in page. */
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
export async function startPanel(
  browser: Browser,
  engine: EngineName,
  env: Record<string, string> = {},
  timeoutMs = 8000,
) {
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
export async function panelSession(
  h: Harness,
  email: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<{ cookie: string; csrf: string }> {
  const form = await h.request('GET', '/panel/');
  const signinCookie = String([form.headers['set-cookie']].flat()[0]).split(';')[0];
  const token = /name="_csrf" value="([^"]+)"/.exec(form.body)![1];
  const res = await h.request('POST', '/panel/signin', {
    form: { _csrf: token, email, password },
    headers: { cookie: signinCookie, ...headers },
  });
  const session = [res.headers['set-cookie']]
    .flat()
    .map(String)
    .find((c) => c.startsWith('mns_session='));
  if (res.status !== 303 || !session) throw new Error(`sign-in failed: ${res.status}`);
  const cookie = session.split(';')[0];
  const page = await h.request('GET', '/panel/account', { headers: { cookie } });
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(page.body)![1] };
}

interface PanelOptions {
  /** Environment of the service under test. */
  env?: Record<string, string>;
}
interface BrowserPanelOptions extends PanelOptions {
  over?: 'browser';
  /** Default timeout of the page's steps. */
  timeoutMs?: number;
  /** Clears the browser's cookies before each test, so each one starts signed out. */
  freshCookies?: boolean;
}
interface HttpPanelOptions extends PanelOptions {
  /** Plain HTTP requests through the harness, no browser and no worker. */
  over: 'http';
}

type PanelAccount = TestAccount & { password: string };

/** What a panel suite's tests use; filled in before its first test. */
export interface HttpPanel {
  engine: EngineName;
  h: Harness;
  /** A new account with this password and balance, signed in with the form's posts: its cookie and CSRF token. */
  signedIn(credits: number, password: string): Promise<PanelAccount & { cookie: string; csrf: string }>;
}
export interface BrowserPanel {
  engine: EngineName;
  h: Harness;
  base: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Script and Content-Security-Policy errors of `page`. */
  errors: string[];
  /** A new account with this password and balance, signed in through the form in `page`. */
  signedIn(credits: number, password: string): Promise<PanelAccount>;
}

/**
 * A panel suite on each engine: the service (listening, in Chromium) or the
 * harness (over HTTP), started before the suite's tests and closed after them.
 */
export function describePanel(title: string, body: (panel: BrowserPanel) => void): void;
export function describePanel(title: string, options: BrowserPanelOptions, body: (panel: BrowserPanel) => void): void;
export function describePanel(title: string, options: HttpPanelOptions, body: (panel: HttpPanel) => void): void;
export function describePanel(title: string, ...args: unknown[]): void {
  type Body = (panel: HttpPanel | BrowserPanel) => void;
  const [options, body] = (args.length === 1 ? [{}, args[0]] : args) as [BrowserPanelOptions | HttpPanelOptions, Body];
  if (options.over === 'http') describeHttpPanel(title, options, body);
  else describeBrowserPanel(title, options, body);
}

function describeHttpPanel(title: string, options: HttpPanelOptions, body: (panel: HttpPanel) => void): void {
  describeEngines(title, (engine) => {
    const panel = { engine } as HttpPanel;
    panel.signedIn = async (credits, password) => {
      const a = await withPassword(panel.h, await panel.h.createAccount(credits), password);
      return { ...a, ...(await panelSession(panel.h, a.email, a.password)) };
    };
    beforeAll(async () => {
      panel.h = await startHarness(engine, { worker: false, env: options.env });
    });
    afterAll(async () => {
      await panel.h?.close();
    });
    body(panel);
  });
}

function describeBrowserPanel(title: string, options: BrowserPanelOptions, body: (panel: BrowserPanel) => void): void {
  // The process's browser (browser.ts): a context of the suite's own in it, closed after the suite.
  let browser: Browser;
  beforeAll(async () => {
    browser = await sharedBrowser();
  });
  describeEngines(title, (engine) => {
    const panel = { engine } as BrowserPanel;
    let running: Awaited<ReturnType<typeof startPanel>> | undefined;
    panel.signedIn = async (credits, password) => {
      const a = await withPassword(panel.h, await panel.h.createAccount(credits), password);
      await signIn(panel.page, panel.base, a.email, a.password);
      return a;
    };
    beforeAll(async () => {
      running = await startPanel(browser, engine, options.env, options.timeoutMs);
      const { h, base, context, page, errors } = running;
      Object.assign(panel, { browser, h, base, context, page, errors });
    });
    afterAll(async () => {
      await running?.close();
    });
    if (options.freshCookies) {
      beforeEach(async () => {
        await panel.context.clearCookies();
      });
    }
    body(panel);
  });
}
