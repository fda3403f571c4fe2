import type { Readable } from 'node:stream';
import { fullNumber } from '../features/optouts/service.js';
import { readCsv, type CsvRows, type ImportLimits } from './csv-import.js';

/**
 * The numbers of an opt-out CSV, read as it arrives (readCsv: its limits
 * hold while it is read): the first column of every row (10 digits with
 * country code 52, or + and the full number), or the columns `number` and
 * `country_code` when the first row names them. A leading apostrophe (how
 * the export keeps +52… as text) is dropped; a repeated number counts once.
 */
export async function numbersOfCsv(body: Readable, limits: ImportLimits): Promise<CsvRows<string>> {
  let columns: [number, number] | undefined;
  const read = await readCsv<string>(body, limits, { sameColumns: false, maxRecordSize: 1024 }, (row) => {
    if (!columns) {
      const header = row.map((c) => c.toLowerCase());
      const named = header.includes('number');
      columns = named ? [header.indexOf('number'), header.indexOf('country_code')] : [0, -1];
      if (named) return null;
    }
    const [numberAt, ccAt] = columns;
    const cc = ccAt >= 0 && row[ccAt] ? row[ccAt] : '52';
    const full = /^\+?\d{1,3}$/.test(cc) ? fullNumber((row[numberAt] ?? '').replace(/^'/, ''), cc) : null;
    if (full) return { row: full };
    return { error: { code: 'optout_05', message: `malformed number: ${String(row[numberAt] ?? '').slice(0, 20)}` } };
  });
  return { ...read, rows: [...new Set(read.rows)] };
}
