import { expect, it } from 'vitest';
import { expectAccessible, screenshot } from '../helpers/browser.js';
import { eventually } from '../helpers/harness.js';
import { createOperator, describePanel, signIn } from '../helpers/panel.js';
import { PRICES_ENV } from '../helpers/prices.js';
import { formatLocalDate } from '../../src/lib/time.js';

/** The Margins page in Chromium: reached from the operator nav, its chart drawn, its filters, its accessibility. */
describePanel('panel margins in a browser', { env: PRICES_ENV, timeoutMs: 15_000 }, (panel) => {
  it('draws the chart of the period and regroups the table from the form', async () => {
    const { h, engine, base, page, errors } = panel;
    const a = await h.createAccount(10);
    const sent = await h.post('/sms/send', { numbers: '5512345678,5550000005', message: 'Hola' }, a.apikey);
    expect(sent.body.code).toBe('sms_11');
    await eventually(async () => {
      const open = await h.ctx.db.kysely.selectFrom('messages').select('id').where('stage', '<', 2).execute();
      return open.length === 0;
    });
    await createOperator(h, `ops-${engine}@example.com`, 'operator secret 1');
    await signIn(page, base, `ops-${engine}@example.com`, 'operator secret 1');
    await page.click('nav a[href="/panel/operator/margins"]');
    await page.waitForURL(/\/panel\/operator\/margins$/);
    await expect.poll(() => page.getAttribute('[data-testid=margins-chart]', 'data-drawn')).toBe('true');
    expect(await page.locator('[data-testid=margins-chart] canvas').count()).toBe(1);
    expect(await page.textContent('[data-testid=margins-totals]')).toContain('2');
    await expectAccessible(page);

    await page.selectOption('#by', 'carrier');
    await page.click('form[action="/panel/operator/margins"] button[type=submit]');
    await page.waitForURL(/by=carrier/);
    const today = formatLocalDate(Date.now());
    expect(page.url()).toContain(`to=${today}`);
    const keys = await page.$$eval('[data-testid=margins] tbody tr', (trs) => trs.map((tr) => tr.dataset.key));
    expect(keys).toEqual(['simulator']);
    await expect.poll(() => page.getAttribute('[data-testid=margins-chart]', 'data-drawn')).toBe('true');
    await expectAccessible(page);
    await screenshot(page, `${engine}-margins-desktop`);
    expect(errors).toEqual([]);
  });
});
