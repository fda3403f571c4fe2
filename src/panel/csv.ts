import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { csvCell } from '../text/csv-cell.js';

/** A number as a spreadsheet reads it, sign included: not a formula. */
const DECIMAL = /^-?\d{1,20}(\.\d{1,10})?$/;

/**
 * Sends a CSV download streamed page by page: `page(after)` returns the rows
 * with an id above `after` in id order (a few thousand at a time), so an
 * export of any size holds one page in memory. A BOM first, so spreadsheets
 * read UTF-8; every cell through csvCell, except a plain decimal number
 * (-3.10) in a column of `numeric` (money that may be negative), which a
 * spreadsheet reads as the number it is.
 */
export function sendCsv<R extends { id: number | string }>(
  reply: FastifyReply,
  filename: string,
  header: readonly string[],
  page: (after: number) => Promise<R[]>,
  cells: (row: R) => string[],
  options: { numeric?: ReadonlySet<number> } = {},
): FastifyReply {
  const numeric = options.numeric ?? new Set<number>();
  const cell = (value: string, i: number) => (numeric.has(i) && DECIMAL.test(value) ? value : csvCell(value));
  async function* lines(): AsyncGenerator<string> {
    yield '\ufeff' + header.join(',') + '\r\n';
    for (let after = 0; ;) {
      const rows = await page(after);
      if (rows.length === 0) return;
      yield rows.map((r) => cells(r).map(cell).join(',')).join('\r\n') + '\r\n';
      after = Number(rows[rows.length - 1].id);
    }
  }
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(Readable.from(lines()));
}
