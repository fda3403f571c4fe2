import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DESKTOP, expectAccessible, PHONE, screenshot } from '../helpers/browser.js';
import { cookieHeader, describePanel } from '../helpers/panel.js';

let dir: string;
let bigCsv: string;
let badCsv: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mensajero-panel-csv-'));
  const rows = Array.from(
    { length: 10_000 },
    (_, i) => `55${String(10_000_000 + i)},Cliente ${i},cliente${i}@example.com`,
  );
  bigCsv = join(dir, 'contacts.csv');
  writeFileSync(bigCsv, ['number,name,email', ...rows].join('\n'));
  badCsv = join(dir, 'bad.csv');
  writeFileSync(
    badCsv,
    [
      'number,name,email',
      '5511111111,Ana,ana@example.com',
      '12ab,Beto,',
      '5522222222,Carla,not-an-email',
      '5533333333,Dani,',
    ].join('\n'),
  );
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});

describePanel('panel contacts', { timeoutMs: 15_000 }, (panel) => {
  const countIn = async (listKey: string) =>
    Number(
      (
        await panel.h.ctx.db.kysely
          .selectFrom('contacts')
          .innerJoin('contact_lists', 'contact_lists.id', 'contacts.list_id')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('contact_lists.list_key', '=', listKey)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('imports 10,000 contacts from a CSV with a progress bar, refuses a file with bad rows whole, and exports', async () => {
    const { engine, h, base, context, page, errors } = panel;
    const a = await panel.signedIn(0, 'contacts 1');
    await page.goto(`${base}/panel/contacts`);
    await page.fill('#list-name', 'Clientes');
    await page.click('form[action="/panel/contacts/create-list"] button');
    expect(await page.textContent('[role=status]')).toContain('Lista creada');
    const listKey = (await page.getAttribute('[data-testid=lists] tr[data-list]', 'data-list'))!;
    await expectAccessible(page);

    // A file with bad rows: the errors per line, and nothing written (not even the good rows).
    const form = page.locator(`tr[data-list="${listKey}"] form.import`);
    await form.locator('input[type=file]').setInputFiles(badCsv);
    await form.locator('button').click();
    await page.waitForSelector(`tr[data-list="${listKey}"] .import-errors li`);
    const lines = await form.locator('.import-errors li').allTextContents();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^Línea 3: .*contact_03/);
    expect(lines[1]).toMatch(/^Línea 4: .*contact_05/);
    expect(await countIn(listKey)).toBe(0);

    // 10,000 rows: the bar moves through intermediate values to the end.
    await page.evaluate(() => {
      const bar = document.querySelector('form.import progress') as HTMLProgressElement;
      (window as any).seen = [];
      new MutationObserver(() => (window as any).seen.push(bar.value)).observe(bar, { attributes: true });
      setInterval(() => (window as any).seen.push(bar.value), 5);
    });
    await form.locator('input[type=file]').setInputFiles(bigCsv);
    await form.locator('button').click();
    await page.waitForFunction(
      () => /10000|10,000/.test(document.querySelector('form.import .import-status')!.textContent!),
      undefined,
      { timeout: 60_000 },
    );
    expect(await form.locator('.import-status').textContent()).toBe('Importados: 10000 contactos.');
    const seen: number[] = await page.evaluate(() => (window as any).seen);
    expect(seen.some((v) => v > 0 && v < 10_000)).toBe(true);
    expect(await form.locator('progress').getAttribute('max')).toBe('10000');
    expect(await countIn(listKey)).toBe(10_000);
    await screenshot(page, `${engine}-contacts-desktop`);
    await page.setViewportSize(PHONE);
    await page.reload();
    await screenshot(page, `${engine}-contacts-phone`);
    await page.setViewportSize(DESKTOP);

    // A second import: an existing number is updated (as /contacts/add does), a new one added, a repeat in the file kept once.
    const again = join(dir, 'again.csv');
    writeFileSync(
      again,
      ['number,name', '5510000000,Renombrado', '5599999999,Nuevo', '5599999999,Nuevo otra vez'].join('\n'),
    );
    await form.locator('input[type=file]').setInputFiles(again);
    await form.locator('button').click();
    await page.waitForFunction(() => document.querySelector('form.import .import-status')!.textContent!.includes('3'));
    expect(await countIn(listKey)).toBe(10_001);
    const renamed = await h.ctx.db.kysely
      .selectFrom('contacts')
      .select(['name', 'email'])
      .where('number', '=', '525510000000')
      .where('account_id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(renamed).toEqual({ name: 'Renombrado', email: 'cliente0@example.com' });

    const cookie = await cookieHeader(context);
    const exported = await fetch(`${base}/panel/contacts/export?list=${listKey}`, { headers: { cookie } });
    expect(exported.status).toBe(200);
    const csv = (await exported.text())
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(csv).toHaveLength(10_002);
    expect(csv[1]).toBe('5510000000,52,Renombrado,cliente0@example.com,,,,,,,');
    expect(errors).toEqual([]);
  }, 120_000);

  it('refuses an import into another account’s list and without the CSRF token', async () => {
    const { h, context, page } = panel;
    const owner = await h.createAccount(0);
    const list = await h.post('/agendas/add', { agenda_name: 'Ajena' }, owner.apikey);
    const foreignKey: string = list.body.list_key;
    expect(foreignKey).toBeTruthy();
    const cookie = await cookieHeader(context);
    const csrf = (await page.getAttribute('input[name=_csrf]', 'value'))!;
    const post = (key: string, token?: string) =>
      h.request('POST', `/panel/contacts/import?list=${encodeURIComponent(key)}`, {
        body: 'number\n5511111111\n',
        headers: {
          cookie,
          'content-type': 'text/csv',
          accept: 'application/json',
          ...(token ? { 'x-csrf-token': token } : {}),
        },
      });
    expect((await post(String(foreignKey))).status).toBe(403);
    const foreign = await post(String(foreignKey), csrf);
    expect(foreign.status).toBe(400);
    expect(foreign.body.success).toBe(false);
    expect(await countIn(String(foreignKey))).toBe(0);
  });
});
