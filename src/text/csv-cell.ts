/**
 * A cell of a CSV export (the panel's campaign reports and contact lists, `messages export`).
 * A value a spreadsheet would run as a formula — its first character other
 * than whitespace is = + - @, or it starts with a tab or carriage return —
 * gets a leading apostrophe, so it is shown as text. A cell with a quote, a
 * comma, a semicolon (the separator of spreadsheets in locales such as
 * Colombia's), a tab or a line break is quoted.
 */
const FORMULA = /^\s*[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",;\t\n\r]/;

export function csvCell(value: string): string {
  const safe = FORMULA.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
