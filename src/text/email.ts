/**
 * The one email check of every field (sub-accounts, payment requests,
 * contacts, accounts the operator creates): one `@` with text on both sides,
 * a dot inside the domain, no whitespace or control character. Plain scans,
 * linear in the length: the regular expression it replaces
 * (`^[^\s@]+@[^\s@]+\.[^\s@]+$`) took quadratic time on `a@....@`.
 */
const NOT_IN_EMAIL = /[\s@\p{Cc}]/u;

export function isEmailAddress(text: string): boolean {
  const at = text.indexOf('@');
  if (at < 1) return false;
  const domain = text.slice(at + 1);
  return !NOT_IN_EMAIL.test(text.slice(0, at)) && !NOT_IN_EMAIL.test(domain) && domain.slice(1, -1).includes('.');
}

/** The longest email of an account the operator creates (RFC 5321's 64 + @ + 255). */
export const MAX_ACCOUNT_EMAIL = 320;

/** An account's email as the operator's CLI and panel take it: the length first, then the format. */
export const isAccountEmail = (text: string): boolean => text.length <= MAX_ACCOUNT_EMAIL && isEmailAddress(text);
