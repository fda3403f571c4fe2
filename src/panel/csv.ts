import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

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

/**
 * A cell of the panel's CSV exports (campaign reports, contact lists).
 * A value a spreadsheet would run as a formula — its first character other
 * than whitespace is = + - @, or it starts with a tab or carriage return —
 * gets a leading apostrophe, so it is shown as text. A cell with a quote, a
 * comma, a semicolon (the separator of spreadsheets in locales such as
 * Colombia's), a tab or a line break is quoted.
 */
const FORMULA = /^\s*[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",;\t\n\r]/;
/** A number as a spreadsheet reads it, sign included: not a formula. */
const DECIMAL = /^-?\d{1,20}(\.\d{1,10})?$/;

export function csvCell(value: string): string {
  const safe = FORMULA.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
