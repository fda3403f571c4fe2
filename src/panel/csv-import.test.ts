import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { readCsv } from './csv-import.js';

const limits = { rows: 1_000, bytes: 1_000_000, shown: 2 };
const shape = { sameColumns: true, maxRecordSize: 1024 };

/** Counts the turns of the event loop other work gets while `work` runs. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ turns: number; result: T }> {
  let turns = 0;
  let running = true;
  const ticker = (async () => {
    while (running) {
      await nextTurn();
      turns++;
    }
  })();
  const result = await work();
  running = false;
  await ticker;
  return { turns, result };
}

/** The CSV reader both panel imports share (contacts, opt-outs). */
describe('readCsv', () => {
  it('gives the event loop turns while rows are checked, however slow the check', async () => {
    const csv = 'number\n' + Array.from({ length: 200 }, (_, i) => String(i)).join('\n');
    const { turns, result } = await turnsDuring(() =>
      readCsv(Readable.from([csv]), limits, shape, (record, line) => {
        if (line === 1) return null;
        const until = performance.now() + 0.5;
        while (performance.now() < until);
        return { row: record[0] };
      }),
    );
    expect(result.rows).toHaveLength(200);
    // 0.5 ms a row: a turn every few rows, not one for the file's single slice.
    expect(turns).toBeGreaterThanOrEqual(20);
  });

  it('counts every error, keeps the first ones by line, and stops at the row limit', async () => {
    const read = (record: string[]) =>
      /^\d+$/.test(record[0]) ? { row: record[0] } : { error: { code: 'bad', message: record[0] } };
    const result = await readCsv(Readable.from(['1\nx\n\n2\ny\nz\n']), limits, shape, read);
    expect(result).toEqual({
      rows: ['1', '2'],
      errors: [
        { line: 2, code: 'bad', message: 'x' },
        { line: 5, code: 'bad', message: 'y' },
      ],
      errorCount: 3,
    });
    const many = Readable.from(['1\n'.repeat(limits.rows + 1)]);
    await expect(readCsv(many, limits, shape, read)).rejects.toMatchObject({ code: 'import_too_many' });
  });

  it('refuses a row of another width when the columns must match, and a body without rows', async () => {
    const read = (record: string[]) => ({ row: record });
    await expect(readCsv(Readable.from(['a,b\n1\n']), limits, shape, read)).rejects.toMatchObject({
      code: 'import_malformed',
    });
    expect((await readCsv(Readable.from(['a,b\n1\n']), limits, { ...shape, sameColumns: false }, read)).rows).toEqual([
      ['a', 'b'],
      ['1'],
    ]);
    await expect(readCsv(Readable.from(['\n\n']), limits, shape, read)).rejects.toMatchObject({ code: 'import_empty' });
  });
});
