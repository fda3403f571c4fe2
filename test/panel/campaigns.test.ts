import { beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { eventually } from '../helpers/harness.js';
import { DESKTOP, expectAccessible, PHONE, screenshot } from '../helpers/browser.js';
import { describePanel, signIn, withPassword, cookieHeader } from '../helpers/panel.js';
import { csvCell } from '../../src/text/csv-cell.js';
import { formatLocalDate } from '../../src/lib/time.js';

/** The chart's numbers as its table shows them: status group → count, for one row. */
async function chartRow(page: Page, row: number): Promise<Record<string, number>> {
  const cells = page.locator('[data-testid=chart-table] tbody tr').nth(row).locator('td');
  const out: Record<string, number> = {};
  for (let i = 0; i < (await cells.count()); i++)
    out[(await cells.nth(i).getAttribute('data-series'))!] = Number(await cells.nth(i).textContent());
  return out;
}

describePanel('panel campaigns and overview', (panel) => {
  let a: Awaited<ReturnType<typeof withPassword>>;
  let campaignId: number;

  beforeAll(async () => {
    const { h, base, page } = panel;
    a = await withPassword(h, await h.createAccount(100), 'campaigns 1');
    // The simulated carrier reports 55500000NN as status NN (00 delivered, 01 not delivered) and refuses 5559999…
    const numbers = ['5550000000', '5512345678', '5512345679', '5550000001', '5550000004', '5559999001'];
    const sent = await h.post(
      '/sms/send',
      { numbers: numbers.join(','), message: '=Hola, "amigos"', name: 'Promo panel', showCampaignId: true },
      a.apikey,
    );
    expect(sent.body.success).toBe(true);
    await eventually(async () => {
      const rows = await h.ctx.db.kysely
        .selectFrom('messages')
        .select('status')
        .where('account_id', '=', a.id)
        .execute();
      return rows.length === 6 && rows.every((r) => ['delivered', 'undelivered', 'refused'].includes(r.status));
    }, 15_000);
    campaignId = Number(
      (
        await h.ctx.db.kysely
          .selectFrom('campaigns')
          .select('id')
          .where('account_id', '=', a.id)
          .executeTakeFirstOrThrow()
      ).id,
    );
    await signIn(page, base, a.email, a.password);
  });

  it("the overview counts today's messages and its 30-day chart shows them by status", async () => {
    const { engine, base, page, errors } = panel;
    await page.goto(`${base}/panel/overview`);
    expect(await page.textContent('[data-testid=messages-today]')).toBe('6');
    expect(await page.textContent('[data-testid=delivery-rate]')).toBe('50 %');
    expect(await page.locator('[data-testid=chart-table] tbody tr').count()).toBe(30);
    expect(await chartRow(page, 29)).toEqual({ delivered: 3, failed: 3, pending: 0, sandbox: 0 });
    await expect.poll(() => page.getAttribute('.chart', 'data-drawn')).toBe('true');
    expect(await page.locator('.chart canvas').count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, `${engine}-overview-desktop`);
    await page.setViewportSize(PHONE);
    await screenshot(page, `${engine}-overview-phone`);
    await page.setViewportSize(DESKTOP);
    expect(errors).toEqual([]);
  });

  it("a campaign's page charts its statuses and pages its messages", async () => {
    const { browser, engine, h, base, page, errors } = panel;
    await page.goto(`${base}/panel/campaigns`);
    await expectAccessible(page);
    await page.click('[data-testid=campaigns] a');
    expect(page.url()).toBe(`${base}/panel/campaigns/${campaignId}`);
    expect(await chartRow(page, 0)).toEqual({ delivered: 3, failed: 3, pending: 0, sandbox: 0 });
    await expect.poll(() => page.getAttribute('.chart', 'data-drawn')).toBe('true');
    expect(await page.locator('[data-testid=messages] tbody tr').count()).toBe(6);
    expect(await page.textContent('[data-testid=messages]')).toContain('not delivered');
    await expectAccessible(page);
    await screenshot(page, `${engine}-campaign-desktop`);
    // Another account's campaign is not found.
    const other = await withPassword(h, await h.createAccount(0), 'campaigns 2');
    const otherContext = await browser.newContext();
    try {
      const otherPage = await otherContext.newPage();
      await signIn(otherPage, base, other.email, other.password);
      expect((await otherPage.goto(`${base}/panel/campaigns/${campaignId}`))!.status()).toBe(404);
    } finally {
      await otherContext.close();
    }
    expect(errors).toEqual([]);
  });

  it("exports a period's messages as CSV", async () => {
    const { base, context } = panel;
    const today = formatLocalDate(Date.now());
    const cookie = await cookieHeader(context);
    const res = await fetch(`${base}/panel/campaigns/export?from=${today}&to=${today}`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await res.text())
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('name,created_date,reference,number,message,sent_date,status,status_code,operator,type');
    expect(lines).toHaveLength(7);
    expect(lines[1]).toContain(`Promo panel`);
    // A cell a spreadsheet would read as a formula is neutralised, and quotes are escaped.
    expect(lines[1]).toContain(`"'=Hola, ""amigos"""`);
    const bad = await fetch(`${base}/panel/campaigns/export?from=${today}&to=2001-01-01`, { headers: { cookie } });
    expect(bad.status).toBe(400);
    expect(csvCell('+1')).toBe("'+1");
  });

  it('sends from the Send page with a live counter, to numbers or a list, in sandbox or scheduled', async () => {
    const { engine, h, base, page, errors } = panel;
    await page.goto(`${base}/panel/send`);
    await expectAccessible(page);
    await page.fill('#numbers', '5512340001, 5512340002');
    await page.fill('#message', 'Canción “especial” {ok}');
    await expect
      .poll(() => page.textContent('[data-testid=counter]'))
      .toBe('25/160 caracteres GSM-7 · 2 destinatarios · costo 2 créditos');
    expect(await page.textContent('[data-testid=transliterated]')).toBe(
      'Se enviará transliterado: ó → o, “ → ", ” → "',
    );
    await screenshot(page, `${engine}-send-desktop`);
    await page.check('input[name=sandbox]');
    await page.fill('#name', 'Prueba sandbox');
    await page.click('form[action="/panel/send/submit"] button[type=submit]');
    expect(await page.textContent('[role=status]')).toBe('Campaña aceptada: 2 mensajes.');
    const sandbox = await h.ctx.db.kysely
      .selectFrom('campaigns')
      .select(['sandbox', 'total'])
      .where('account_id', '=', a.id)
      .where('name', '=', 'Prueba sandbox')
      .executeTakeFirstOrThrow();
    expect(sandbox).toMatchObject({ sandbox: 1, total: 2 });

    // Scheduled: a day ahead, Mexico City time.
    const tomorrow = formatLocalDate(Date.now() + 86_400_000);
    await page.fill('#numbers', '5512340003');
    await page.fill('#message', 'Mañana');
    await page.fill('#name', 'Programada');
    await page.fill('#date', `${tomorrow}T10:30`);
    await page.click('form[action="/panel/send/submit"] button[type=submit]');
    expect(await page.textContent('[role=status]')).toBe('Campaña aceptada: 1 mensajes.');
    const scheduled = await h.ctx.db.kysely
      .selectFrom('messages')
      .innerJoin('campaigns', 'campaigns.id', 'messages.campaign_id')
      .select(['messages.status'])
      .where('campaigns.name', '=', 'Programada')
      .executeTakeFirstOrThrow();
    expect(scheduled.status).toBe('scheduled');

    // The API's rules and codes: an empty message is refused with sms_01's reason, and nothing is sent.
    await page.fill('#numbers', '5512340004');
    await page.fill('#message', 'x'.repeat(161));
    await page.click('form[action="/panel/send/submit"] button[type=submit]');
    expect(await page.textContent('[role=alert]')).toContain('160');
    // Nothing typed is lost.
    expect(await page.inputValue('#numbers')).toBe('5512340004');
    expect(await page.inputValue('#message')).toBe('x'.repeat(161));
    expect(errors).toEqual([]);
  });
});
