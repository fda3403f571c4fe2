import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectAccessible, screenshot } from '../helpers/browser.js';
import { describePanel } from '../helpers/panel.js';

let dir: string;
let listCsv: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mensajero-panel-optouts-'));
  listCsv = join(dir, 'repep.csv');
  writeFileSync(listCsv, Array.from({ length: 300 }, (_, i) => `55${String(60_000_000 + i)}`).join('\n'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The Opt-outs page in Chromium: the import form's script, and the page's accessibility. */
describePanel('panel opt-outs in a browser', { timeoutMs: 15_000 }, (panel) => {
  it('imports a CSV with the page’s form and lists what it holds', async () => {
    const { engine, base, page, errors } = panel;
    await panel.signedIn(0, 'optouts 1');
    await page.goto(`${base}/panel/optouts`);
    await page.click('nav a[href="/panel/optouts"]');
    await expectAccessible(page);
    await page.locator('form.import input[type=file]').setInputFiles(listCsv);
    await page.click('form.import button');
    await page.waitForFunction(() =>
      document.querySelector('form.import .import-status')!.textContent!.includes('300'),
    );
    expect(await page.textContent('form.import .import-status')).toBe('Importados: 300 números.');
    await page.reload();
    expect(await page.textContent('[data-testid=optout-count]')).toContain('300');
    expect(await page.locator('[data-testid=optouts] tbody tr').count()).toBe(100);
    await expectAccessible(page);
    await screenshot(page, `${engine}-optouts-desktop`);
    expect(errors).toEqual([]);
  });
});
