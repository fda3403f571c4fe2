/**
 * The one email check of every field (sub-accounts, payment requests,
 * contacts, accounts the operator creates): one `@` with text on both sides,
 * a dot inside the domain, no whitespace, control character or invisible
 * formatting character (`\p{Cf}`: zero-width spaces and joiners, U+202E,
 * which would reorder the rest of an `audit list` line). Plain scans,
 * linear in the length: the regular expression it replaces
 * (`^[^\s@]+@[^\s@]+\.[^\s@]+$`) took quadratic time on `a@....@`.
 */
const NOT_IN_EMAIL = /[\s@\p{Cc}\p{Cf}]/u;

export function isEmailAddress(text: string): boolean {
  const at = text.indexOf('@');
  if (at < 1) return false;
  const domain = text.slice(at + 1);
  return !NOT_IN_EMAIL.test(text.slice(0, at)) && !NOT_IN_EMAIL.test(domain) && domain.slice(1, -1).includes('.');
}

/**
 * An email as accounts, sub-accounts and operators are stored and looked up by: Unicode NFKC (an NFD `é` and its NFC
 * form, full-width `ｓｈｏｐ` and `shop`, are one address), trimmed, lower case. Applied to what is typed from now on;
 * emails stored before are left as they were (an account created with an NFD email is found by that form only).
 */
export const normalEmail = (text: string): string => text.normalize('NFKC').trim().toLowerCase();

/** The longest email of an account the operator creates (RFC 5321's 64 + @ + 255). */
export const MAX_ACCOUNT_EMAIL = 320;

/** An account's email as the operator's CLI and panel take it: the length first, then the format. */
export const isAccountEmail = (text: string): boolean => text.length <= MAX_ACCOUNT_EMAIL && isEmailAddress(text);
