import { Readable } from 'node:stream';
import { expect, it } from 'vitest';
import { describePanel } from '../helpers/panel.js';
import { panelOptouts } from '../helpers/optouts.js';
import { csvBody, progress } from '../helpers/imports.js';
import { IMPORT_CHUNK, MAX_OPTOUT_BYTES, MAX_OPTOUT_ROWS } from '../../src/panel/pages/optouts/actions.js';
import type { Harness } from '../helpers/harness.js';

/** Numbers 10 digits each, one a row. */
const numbersCsv = (count: number, from: number) =>
  Array.from({ length: count }, (_, i) => `55${String(from + i)}`).join('\n') + '\n';

/** The family's entries that are committed: read outside the import's connection (SQLite's read connection). */
async function committed(h: Harness, owner: number): Promise<number> {
  const query = 'select count(*) as n from optouts where account_id = ?';
  if (h.engine === 'sqlite') return Number(h.ctx.db.readRow!<{ n: number }>(query, [owner])!.n);
  const { n } = await h.ctx.db.kysely
    .selectFrom('optouts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', owner)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** Imports are bounded while they are read and written: rows, bytes, one at a time per family, short transactions. */
describePanel('panel opt-out imports under load', { over: 'http' }, (panel) => {
  it('stops reading a file at the row limit instead of parsing all of it', async () => {
    const p = await panelOptouts(panel.h);
    const body = csvBody('1\n', 8 * 1024 * 1024);
    const res = await p.uploadStream(body.stream);
    expect(res.statusCode).toBe(400);
    expect((await progress(res).next()).value).toMatchObject({ code: 'import_too_many' });
    // 200,001 rows of two bytes are read, and what the socket had buffered: not the 8 MiB behind them.
    expect(body.pulled).toBeGreaterThan(2 * MAX_OPTOUT_ROWS);
    expect(body.pulled).toBeLessThan(2 * 1024 * 1024);
    expect(await p.list()).toEqual([]);
  });

  it('refuses a body over the bytes the row limit needs, declared or not', async () => {
    const p = await panelOptouts(panel.h);
    const row = `+525512345678,${'x'.repeat(80)}\n`;
    const declared = await p.upload(row.repeat(Math.ceil((MAX_OPTOUT_BYTES + 1) / row.length)));
    expect(declared.status).toBe(413);
    const streamed = await p.uploadStream(csvBody(row, MAX_OPTOUT_BYTES + row.length).stream);
    expect(streamed.statusCode).toBe(413);
    expect(await p.list()).toEqual([]);
  });

  it('writes in short transactions: the first chunk is committed when its progress line arrives', async () => {
    const p = await panelOptouts(panel.h);
    const total = 20 * IMPORT_CHUNK;
    const res = await p.uploadStream(Readable.from([numbersCsv(total, 41_000_000)]));
    expect(res.statusCode).toBe(200);
    const lines = progress(res);
    expect((await lines.next()).value).toEqual({ total });
    const first = (await lines.next()).value as { written: number };
    expect(first.written).toBe(IMPORT_CHUNK);
    expect(await committed(panel.h, p.account.id)).toBeGreaterThanOrEqual(IMPORT_CHUNK);
    let last: Record<string, unknown> = first;
    for await (const line of lines) last = line;
    expect(last).toEqual({ done: true, written: total });
    expect(await committed(panel.h, p.account.id)).toBe(total);
  });

  it('runs one import at a time per family: another, from the account or a sub-account, gets 429', async () => {
    const p = await panelOptouts(panel.h);
    const sub = await panelOptouts(panel.h, p.account.id);
    const other = await panelOptouts(panel.h);
    const res = await p.uploadStream(Readable.from([numbersCsv(20 * IMPORT_CHUNK, 42_000_000)]));
    const lines = progress(res);
    expect((await lines.next()).value).toEqual({ total: 20 * IMPORT_CHUNK });
    for (const busy of [await p.upload('5512360100\n'), await sub.upload('5512360100\n')]) {
      expect(busy.status).toBe(429);
      expect(busy.body).toMatchObject({ success: false, status: 429, code: 'import_busy' });
    }
    // Another family is not held up.
    expect(String((await other.upload('5512360101\n')).body)).toContain('"done":true');
    for await (const line of lines) void line;
    expect(String((await sub.upload('5512360100\n')).body)).toContain('"done":true');
    expect(await committed(panel.h, p.account.id)).toBe(20 * IMPORT_CHUNK + 1);
  });
});
