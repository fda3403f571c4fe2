/**
 * `text` without the characters at its end that `drop` accepts. A backwards
 * scan: the `[…]+$` pattern it replaces took quadratic time on a long run of
 * such characters followed by one other ("a......a").
 */
export function trimEndWhere(text: string, drop: (char: string) => boolean): string {
  let end = text.length;
  while (end > 0 && drop(text[end - 1])) end--;
  return text.slice(0, end);
}
