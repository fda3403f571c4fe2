/**
 * Characters no database or carrier takes: NUL (PostgreSQL refuses it in
 * text, SQLite would keep it and C-string carriers cut the message there),
 * the other C0 controls except tab, line feed and carriage return, DEL,
 * the noncharacters U+FFFE and U+FFFF, and unpaired UTF-16 surrogates
 * (not valid UTF-8: PostgreSQL and SQLite would store U+FFFD instead).
 * Refused with the field's code on both engines alike.
 */
const UNSTORABLE =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point.
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const isStorable = (s: string): boolean => !UNSTORABLE.test(s);

const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/**
 * Text someone else wrote (a carrier's error, a receipt's fields) as we keep
 * it: unstorable characters (and tab, line feed, carriage return) become
 * spaces, and it is cut to `max` characters, the last one then `…`.
 */
export function storableText(text: string, max: number): string {
  const clean = text.replace(UNSTORABLE_ALL, ' ').replace(/[\t\n\r]/g, ' ');
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max - 1);
  // Not half of a surrogate pair.
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

/**
 * The path (`a.b.0`) of the first string in `value` that is not storable, '' for the value itself, or null when all are.
 * Walks with its own stack (a hostile body can nest deeper than the call stack)
 * and builds the path only for the string it reports.
 */
export function unstorablePath(value: unknown): string | null {
  type Node = { value: unknown; key: string; parent: Node | null };
  const pending: Node[] = [{ value, key: '', parent: null }];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (typeof node.value === 'string') {
      if (isStorable(node.value)) continue;
      const path: string[] = [];
      for (let n: Node | null = node; n?.parent; n = n.parent) path.push(n.key);
      return path.reverse().join('.');
    }
    if (node.value === null || typeof node.value !== 'object') continue;
    const entries = Object.entries(node.value);
    for (let i = entries.length - 1; i >= 0; i--)
      pending.push({ value: entries[i][1], key: entries[i][0], parent: node });
  }
  return null;
}
