import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { numbersOfCsv } from './optouts-csv.js';

const limits = { rows: 200_000, bytes: 10_000_000, shown: 100 };
const rows = (count: number) => Array.from({ length: count }, (_, i) => `55${String(70_000_000 + i)}`).join('\n');

/** The opt-out CSV reader: parsing is CPU, so it must leave the event loop turns however the body arrives. */
describe('numbersOfCsv', () => {
  it('gives the event loop a turn every few kilobytes, even for a body that arrives in one piece', async () => {
    const csv = rows(100_000);
    let turns = 0;
    let reading = true;
    const ticker = (async () => {
      while (reading) {
        await nextTurn();
        turns++;
      }
    })();
    const read = await numbersOfCsv(Readable.from([Buffer.from(csv)]), limits);
    reading = false;
    await ticker;
    expect(read.rows).toHaveLength(100_000);
    // 1.1 MB in slices of 16 KiB: about 67 turns at least.
    expect(turns).toBeGreaterThanOrEqual(Math.floor(csv.length / (16 * 1024)));
  });

  it('reads named columns, drops the export’s apostrophe and reports bad rows by their line', async () => {
    const csv = "name,number,country_code\nAna,2025550123,1\n\nBeto,'+525512360010,\nCeci,55123,52\n";
    const read = await numbersOfCsv(Readable.from([csv]), limits);
    expect(read.rows).toEqual(['12025550123', '525512360010']);
    expect(read.errorCount).toBe(1);
    expect(read.errors).toEqual([{ line: 5, code: 'optout_05', message: 'malformed number: 55123' }]);
  });
});
