import { expect, it } from 'vitest';
import { expectAccessible, screenshot } from '../helpers/browser.js';
import { eventually } from '../helpers/harness.js';
import { createOperator, describePanel, signIn } from '../helpers/panel.js';

/** The carrier analytics page in Chromium: its volume and delivery rate charts drawn, the prefix view, accessibility. */
describePanel('panel carrier analytics in a browser', { timeoutMs: 15_000 }, (panel) => {
  it('draws volume and delivery rate per carrier over time, and shows the figures per prefix', async () => {
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
    await page.click('nav a[href="/panel/operator/carriers"]');
    await page.waitForURL(/\/panel\/operator\/carriers$/);
    await expect.poll(() => page.getAttribute('[data-chart]', 'data-drawn')).toBe('true');
    await expect.poll(() => page.getAttribute('[data-testid=rate-chart]', 'data-drawn')).toBe('true');
    expect(await page.locator('.chart canvas').count()).toBe(2);
    expect(await page.textContent('[data-testid=rate-chart-table]')).toContain('50 %');
    await expectAccessible(page);

    await page.selectOption('#by', 'prefix');
    await page.click('form[action="/panel/operator/carriers"] button[type=submit]');
    await page.waitForURL(/by=prefix/);
    expect(await page.locator('[data-testid=carrier-figures] tbody tr[data-prefix]').count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, `${engine}-carrier-analytics-desktop`);
    expect(errors).toEqual([]);
  });
});
