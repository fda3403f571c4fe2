import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { describePanel } from '../helpers/panel.js';
import { csvBody, csvUploads, progress } from '../helpers/imports.js';
import { CONTACT_IMPORT_CHUNK } from '../../src/features/contacts/service.js';
import { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from '../../src/panel/pages/contacts/actions.js';
import { createSession, SESSION_COOKIE } from '../../src/panel/session.js';
import type { Harness } from '../helpers/harness.js';

/** A signed-in panel account (a sub-account of `parentId` when given) with one contact list, and its imports. */
async function panelContacts(h: Harness, parentId?: number) {
  const account = await h.createAccount(10);
  if (parentId)
    await h.ctx.db.kysely.updateTable('accounts').set({ parent_id: parentId }).where('id', '=', account.id).execute();
  const listKey = String((await h.post('/agendas/add', { agenda_name: 'Clientes' }, account.apikey)).body.list_key);
  const cookie = `${SESSION_COOKIE}=${await createSession(h.ctx.db.kysely, 'account', account.id, 1)}`;
  const page = await h.request('GET', '/panel/contacts', { headers: { cookie } });
  const token = /name="_csrf" value="([^"]+)"/.exec(page.body as string)![1];
  const csrf = async () => token;
  const uploads = csvUploads(h, cookie, csrf);
  const url = `/panel/contacts/import?list=${encodeURIComponent(listKey)}`;
  return {
    account,
    listKey,
    upload: (csv: string) => uploads.upload(url, csv),
    uploadStream: (body: Readable) => uploads.uploadStream(url, body),
  };
}

/** The list's contacts that are committed: read outside the import's connection (SQLite's read connection). */
async function committed(h: Harness, listKey: string): Promise<number> {
  const query =
    'select count(*) as n from contacts join contact_lists on contact_lists.id = contacts.list_id where list_key = ?';
  if (h.engine === 'sqlite') return Number(h.ctx.db.readRow!<{ n: number }>(query, [listKey])!.n);
  const { n } = await h.ctx.db.kysely
    .selectFrom('contacts')
    .innerJoin('contact_lists', 'contact_lists.id', 'contacts.list_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('list_key', '=', listKey)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** A file of valid rows, numbers from `from`: 410 bytes a row when `padded` (name and custom fields full). */
function validRows(count: number, from: number, padded = false) {
  const fill = padded ? `${'n'.repeat(100)},${'a'.repeat(255)},${'b'.repeat(41)}` : 'Cliente,,';
  const rows = Array.from({ length: count }, (_, i) => `55${String(from + i)},${fill}\n`);
  return 'number,name,custom_field_1,custom_field_2\n' + rows.join('');
}

/**
 * Asks for /healthz again and again (one always under way, so any stall of
 * the event loop holds one) and sends another tenant's SMS every 20 ms or
 * so, until stopped. Returns the slowest answer of each (wall milliseconds,
 * reported) and the most CPU this process spent between two turns of a 1 ms
 * timer (`stall`, CPU milliseconds): the longest stretch in which nothing else
 * could be served. The CPU measure is what the test holds, because it does not
 * grow when other processes share the machine's cores; wall time does.
 */
function watchLatency(h: Harness, apikey: string) {
  let sent = 0;
  const worst = { healthz: 0, send: 0, stall: 0 };
  let watching = true;
  const cpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  let last = cpuMs();
  const sampler = setInterval(() => {
    const now = cpuMs();
    worst.stall = Math.max(worst.stall, now - last);
    last = now;
  }, 1);
  const every = async (name: 'healthz' | 'send', pause: number, call: () => Promise<{ status: number }>) => {
    while (watching) {
      await sleep(pause);
      const start = performance.now();
      const res = await call();
      worst[name] = Math.max(worst[name], performance.now() - start);
      expect(res.status).toBe(200);
    }
  };
  const loops = Promise.all([
    every('healthz', 0, () => h.get('/healthz')),
    // A new number each time: the destination caps hold 20 messages to one number an hour.
    every('send', 20, () =>
      h.post('/sms/send', { numbers: `551${String(++sent).padStart(7, '0')}`, message: 'Hola' }, apikey),
    ),
  ]);
  return async () => {
    watching = false;
    await loops;
    clearInterval(sampler);
    return worst;
  };
}

/** Contact imports are bounded while they are read and written: rows, bytes, one at a time per family, short transactions. */
describePanel('panel contact imports under load', { over: 'http' }, (panel) => {
  it('never holds the event loop from /healthz and another tenant’s send during two parallel 20 MiB imports', async () => {
    const { h } = panel;
    const tenant = await h.createAccount(100_000);
    const [a, b] = [await panelContacts(h), await panelContacts(h)];
    // Warm: the first send and the first import load what they use (the second import's rows include these numbers).
    expect((await h.post('/sms/send', { numbers: '5512345678', message: 'Hola' }, tenant.apikey)).status).toBe(200);
    expect(String((await a.upload('number\n5510000000\n')).body)).toContain('"done":true');
    expect(String((await b.upload('number\n5520000000\n')).body)).toContain('"done":true');
    // One-character rows: the row limit stops both long before their 20 MiB.
    const bodies = [a, b].map(() => csvBody('1\n', MAX_IMPORT_BYTES, 'number\n'));
    let stop = watchLatency(h, tenant.apikey);
    const refused = await Promise.all([a.uploadStream(bodies[0].stream), b.uploadStream(bodies[1].stream)]);
    let worst = await stop();
    for (const res of refused) {
      expect(res.statusCode).toBe(400);
      expect((await progress(res).next()).value).toMatchObject({ code: 'import_too_many' });
    }
    for (const body of bodies) expect(body.pulled).toBeLessThan(2 * 1024 * 1024);
    // Before: one synchronous parse of each 20 MiB body (10 s and more of CPU without a turn).
    expect(worst.stall).toBeLessThan(1_000);

    // 50,000 valid rows of 410 bytes (19.6 MiB) each: read, checked and written beside the sends.
    const files = [validRows(MAX_IMPORT_ROWS, 10_000_000, true), validRows(MAX_IMPORT_ROWS, 20_000_000, true)];
    stop = watchLatency(h, tenant.apikey);
    const written = await Promise.all(
      [a, b].map(async (p, i) => {
        const res = await p.uploadStream(Readable.from([files[i]]));
        let last: Record<string, unknown> = {};
        for await (const line of progress(res)) last = line;
        return last;
      }),
    );
    worst = await stop();
    expect(written).toEqual([
      { done: true, written: MAX_IMPORT_ROWS },
      { done: true, written: MAX_IMPORT_ROWS },
    ]);
    expect(await committed(h, a.listKey)).toBe(MAX_IMPORT_ROWS);
    // Before: one synchronous parse of each 20 MiB body (10 s and more of CPU without a turn).
    expect(worst.stall).toBeLessThan(1_000);
  }, 180_000);

  it('stops reading a file at the row limit instead of parsing all of it', async () => {
    const p = await panelContacts(panel.h);
    const body = csvBody('5511111111\n', 8 * 1024 * 1024, 'number\n');
    const res = await p.uploadStream(body.stream);
    expect(res.statusCode).toBe(400);
    expect((await progress(res).next()).value).toMatchObject({ code: 'import_too_many' });
    // 50,001 rows of 11 bytes are read, and what the socket had buffered: not the 8 MiB behind them.
    expect(body.pulled).toBeGreaterThan(11 * MAX_IMPORT_ROWS);
    expect(body.pulled).toBeLessThan(2 * 1024 * 1024);
    expect(await committed(panel.h, p.listKey)).toBe(0);
  });

  it('refuses a body over 20 MiB, declared or not', async () => {
    const p = await panelContacts(panel.h);
    // Rows of 523 bytes: the byte limit comes before the row limit.
    const row = `5511111111,${'x'.repeat(255)},${'y'.repeat(255)}\n`;
    const head = 'number,custom_field_1,custom_field_2\n';
    const declared = await p.upload(head + row.repeat(Math.ceil(MAX_IMPORT_BYTES / row.length)));
    expect(declared.status).toBe(413);
    expect(declared.body).toMatchObject({ code: 'import_too_large' });
    const streamed = await p.uploadStream(csvBody(row, MAX_IMPORT_BYTES + row.length, head).stream);
    expect(streamed.statusCode).toBe(413);
    expect((await progress(streamed).next()).value).toMatchObject({ code: 'import_too_large' });
    expect(await committed(panel.h, p.listKey)).toBe(0);
  });

  it('writes in short transactions: the first chunk is committed when its progress line arrives', async () => {
    const p = await panelContacts(panel.h);
    const total = 10 * CONTACT_IMPORT_CHUNK;
    const res = await p.uploadStream(Readable.from([validRows(total, 30_000_000)]));
    expect(res.statusCode).toBe(200);
    const lines = progress(res);
    expect((await lines.next()).value).toEqual({ total });
    const first = (await lines.next()).value as { written: number };
    expect(first.written).toBe(CONTACT_IMPORT_CHUNK);
    expect(await committed(panel.h, p.listKey)).toBeGreaterThanOrEqual(CONTACT_IMPORT_CHUNK);
    let last: Record<string, unknown> = first;
    for await (const line of lines) last = line;
    expect(last).toEqual({ done: true, written: total });
    expect(await committed(panel.h, p.listKey)).toBe(total);
  });

  it('runs one import at a time per family: another, from the account or a sub-account, gets 429', async () => {
    const p = await panelContacts(panel.h);
    const sub = await panelContacts(panel.h, p.account.id);
    const other = await panelContacts(panel.h);
    const total = 10 * CONTACT_IMPORT_CHUNK;
    const res = await p.uploadStream(Readable.from([validRows(total, 40_000_000)]));
    const lines = progress(res);
    expect((await lines.next()).value).toEqual({ total });
    for (const busy of [await p.upload('number\n5512360100\n'), await sub.upload('number\n5512360100\n')]) {
      expect(busy.status).toBe(429);
      expect(busy.body).toMatchObject({ success: false, status: 429, code: 'import_busy' });
    }
    // Another family is not held up.
    expect(String((await other.upload('number\n5512360101\n')).body)).toContain('"done":true');
    for await (const line of lines) void line;
    expect(String((await sub.upload('number\n5512360100\n')).body)).toContain('"done":true');
    expect(await committed(panel.h, p.listKey)).toBe(total);
    expect(await committed(panel.h, sub.listKey)).toBe(1);
  });

  it('refuses a file with bad rows whole: every error counted, the first 100 listed by line, nothing written', async () => {
    const p = await panelContacts(panel.h);
    const rows = Array.from({ length: 300 }, (_, i) => (i % 2 ? `55${String(50_000_000 + i)},Ana` : `12ab${i},Beto`));
    const res = await p.upload(['number,name', '', ...rows].join('\n'));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'import_rows', error_count: 150 });
    expect(res.body.message).toBe('150 rows are not valid; nothing was imported');
    expect(res.body.errors).toHaveLength(100);
    // Lines of the file: the header is line 1, the empty line 2.
    expect(res.body.errors[0]).toEqual({ line: 3, code: 'contact_03', message: expect.any(String) });
    expect(res.body.errors[1].line).toBe(5);
    expect(await committed(panel.h, p.listKey)).toBe(0);
    for (const [csv, code] of [
      ['name\nAna\n', 'import_no_number'],
      ['number\n', 'import_empty'],
      ['number,name\n5511111111\n', 'import_malformed'],
    ])
      expect((await p.upload(csv)).body).toMatchObject({ code });
  });
});
