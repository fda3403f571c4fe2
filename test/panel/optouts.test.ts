import { expect, it } from 'vitest';
import { describePanel } from '../helpers/panel.js';
import { panelOptouts } from '../helpers/optouts.js';
import { MAX_OPTOUT_ROWS } from '../../src/panel/pages/optouts/actions.js';

const NOTICE = /<p class="notice" role="status">([^<]*)<\/p>/;
const signedIn = panelOptouts;

/** The panel's Opt-outs page: the family's list, forms, CSV import (bounded, all or nothing) and export. */
describePanel('panel opt-outs', { over: 'http' }, (panel) => {
  it('adds and removes numbers from the forms, with source panel and a notice', async () => {
    const p = await signedIn(panel.h);
    const added = await p.action('add', { numbers: '5512360001, 5512360002', country_code: '52' });
    expect(added.status).toBe(303);
    expect(NOTICE.exec(await p.page(added.headers.location as string))?.[1]).toBe('Números agregados a la lista: 2.');
    expect(await p.list()).toMatchObject([
      { number: '525512360001', source: 'panel' },
      { number: '525512360002', source: 'panel' },
    ]);
    const shown = await p.page();
    expect(shown).toContain('+525512360001');
    expect(shown).toContain('href="/panel/optouts"');
    const removed = await p.action('remove', { numbers: '5512360001', country_code: '52' });
    expect(NOTICE.exec(await p.page(removed.headers.location as string))?.[1]).toBe('Números quitados de la lista: 1.');
    const bad = await p.action('add', { numbers: '5512360003,12', country_code: '52' });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('malformed');
    expect((await p.list()).map((e) => e.number)).toEqual(['525512360002']);
  });

  it('imports a national list (plain numbers or named columns), all or nothing, and exports it back', async () => {
    const p = await signedIn(panel.h);
    const rows = Array.from({ length: 12_000 }, (_, i) => `55${String(40_000_000 + i)}`);
    const imported = await p.upload(rows.join('\r\n') + '\r\n5540000000\r\n');
    expect(imported.status).toBe(200);
    const lines = String(imported.body)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ total: 12_000 });
    expect(lines.at(-1)).toEqual({ done: true, written: 12_000 });
    const named = await p.upload('name,number,country_code\nAna,2025550123,1\nBeto,+525512360010,\n');
    expect(String(named.body)).toContain('"done":true');
    const csv = (await panel.h.request('GET', '/panel/optouts/export', { headers: { cookie: p.cookie } }))
      .body as string;
    const lines2 = csv
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(lines2[0]).toBe('number,source,created_at');
    expect(lines2).toHaveLength(1 + 12_002);
    expect(lines2[1]).toMatch(/^'\+525540000000,panel,\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(lines2.slice(-2).map((l) => l.split(',')[0])).toEqual(["'+12025550123", "'+525512360010"]);
    // The export imports back as it was: nothing new.
    const again = await p.upload(csv);
    expect(String(again.body)).toContain('"done":true');
    const { n } = await panel.h.ctx.db.kysely
      .selectFrom('optouts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', p.account.id)
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(12_002);
  }, 60_000);

  it('refuses a file with a bad row, too many rows, no rows or no CSRF token, writing nothing', async () => {
    const p = await signedIn(panel.h);
    const bad = await p.upload('5512360020\n55123\n5512360021\n+52abc\n');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'import_rows', error_count: 2 });
    expect(bad.body.errors.map((e: { line: number }) => e.line)).toEqual([2, 4]);
    const many = Array.from({ length: MAX_OPTOUT_ROWS + 1 }, (_, i) => `55${String(50_000_000 + i)}`).join('\n');
    expect((await p.upload(many)).status).toBe(400);
    expect((await p.upload('number\n')).status).toBe(400);
    expect((await p.upload('5512360022\n', 'not-the-token')).status).toBe(403);
    expect(await p.list()).toEqual([]);
  }, 60_000);

  it('the Send page obeys the list: the opted-out recipient is recorded with status 10 and not charged', async () => {
    const p = await signedIn(panel.h);
    await p.action('add', { numbers: '5512360040', country_code: '52' });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await p.page('/panel/send'))![1];
    const form = { _csrf: csrf, numbers: '5512360040, 5512360041', message: 'Hola' };
    expect((await panel.h.request('POST', '/panel/send/submit', { headers: { cookie: p.cookie }, form })).status).toBe(
      303,
    );
    const rows = await panel.h.ctx.db.kysely
      .selectFrom('messages')
      .select(['number', 'dlr_code', 'price_units'])
      .where('account_id', '=', p.account.id)
      .orderBy('number')
      .execute();
    expect(rows).toMatchObject([
      { number: '525512360040', dlr_code: 10, price_units: 0 },
      { number: '525512360041', dlr_code: null },
    ]);
    expect((await panel.h.post('/credits/consult', {}, p.account.apikey)).body.credit).toBe(9);
  });

  it('is the family’s list: a sub-account’s page shows and changes its parent’s', async () => {
    const parent = await signedIn(panel.h);
    const sub = await signedIn(panel.h, parent.account.id);
    await sub.upload('5512360030\n');
    await parent.action('add', { numbers: '5512360031', country_code: '52' });
    for (const p of [parent, sub]) {
      expect((await p.list()).map((e) => e.number)).toEqual(['525512360030', '525512360031']);
      expect(await p.page()).toContain('+525512360030');
    }
  });
});
