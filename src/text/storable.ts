/**
 * Characters no database or carrier takes: NUL (PostgreSQL refuses it in
 * text, SQLite would keep it and C-string carriers cut the message there),
 * the other C0 controls except tab, line feed and carriage return, DEL,
 * the noncharacters U+FFFE and U+FFFF, and unpaired UTF-16 surrogates
 * (not valid UTF-8: PostgreSQL and SQLite would store U+FFFD instead).
 * Refused with the field's code on both engines alike.
 */
const UNSTORABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const isStorable = (s: string): boolean => !UNSTORABLE.test(s);

/** The path (`a.b.0`) of the first string in `value` that is not storable, '' for the value itself, or null when all are. */
export function unstorablePath(value: unknown, path: string[] = []): string | null {
  if (typeof value === 'string') return isStorable(value) ? null : path.join('.');
  if (value === null || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value)) {
    const found = unstorablePath(v, [...path, k]);
    if (found !== null) return found;
  }
  return null;
}
