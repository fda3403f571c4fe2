/** A letter or a digit: what a keyword is made of (anything else around it is dropped). */
const isWordChar = (char: string): boolean => /[\p{L}\p{N}]/u.test(char);

/**
 * A text as keywords compare it, the one form for opt-out keywords and MO
 * routes' first words: compatibility forms folded (NFKC: full-width `ＳＴＯＰ`
 * is `STOP`, a no-break space a space), invisible format characters dropped
 * (`\p{Cf}`: zero-width spaces and joiners, soft hyphens, direction marks),
 * accents dropped, upper case, and blanks, punctuation and quotes around it
 * dropped (`" Bája. "`, `"STOP!"`, `«baja»` and `¡Ínfo!` are `BAJA`, `STOP`,
 * `BAJA` and `INFO`). What is inside stays: `STOP please` is `STOP PLEASE`.
 * Linear in the text (scans, no backtracking pattern).
 */
export function keywordForm(text: string): string {
  const folded = text
    .normalize('NFKC')
    .replace(/\p{Cf}/gu, '')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase();
  const chars = [...folded];
  let start = 0;
  let end = chars.length;
  while (start < end && !isWordChar(chars[start])) start++;
  while (end > start && !isWordChar(chars[end - 1])) end--;
  return chars.slice(start, end).join('');
}
