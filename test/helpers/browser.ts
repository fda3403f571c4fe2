import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing). */
export const CHROMIUM = '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

let shared: Promise<Browser> | undefined;

/**
 * The browser of this test process, shared by the files it runs: launched at
 * first use (again if it went away), never closed by a file, ended by
 * playwright when the process exits. Each suite works in contexts of its own
 * (cookies, storage, pages) and closes them.
 */
export async function sharedBrowser(): Promise<Browser> {
  const browser = await shared?.catch(() => undefined);
  if (browser?.isConnected()) return browser;
  shared = launchBrowser();
  return shared;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core (WCAG 2 A and AA rules) on the page and fails on any
 * violation. Injected through the DevTools protocol, so the page's
 * Content-Security-Policy stays as strict as it is in production.
 */
export async function expectAccessible(page: Page): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations.map(
      (v: any) => `${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target.join(' ')).join(', ')})`,
    );
  });
  expect(violations, `accessibility violations on ${page.url()}`).toEqual([]);
}

/** Where screenshots go: PANEL_SCREENSHOTS, or a folder in the temp directory. */
export const screenshotDir = process.env.PANEL_SCREENSHOTS ?? join(tmpdir(), 'mensajero-panel-screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

/** Collects the page's Content-Security-Policy violations and script errors: a test expects none. */
export function watchPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    // Error statuses the test provokes (a refused sign-in answers 401) are not script errors.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };
