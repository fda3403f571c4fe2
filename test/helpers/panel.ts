import type { Page } from 'playwright-core';
import { hashPassword } from '../../src/lib/passwords.js';
import type { Harness, TestAccount } from './harness.js';

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
