/**
 * The normalised form of an http(s) URL (`new URL(…).href`): tabs and line
 * breaks removed, non-ASCII percent-encoded or punycoded, so it is always a
 * valid Location header. Undefined when it is not an http(s) URL.
 */
export function normaliseHttpUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return VISIBLE_ASCII.test(url.href) ? url.href : undefined;
}

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * A stored redirect target made safe for the Location header. Rows written
 * before URLs were normalised at send time may hold CR/LF or non-Latin-1
 * characters, which made the redirect answer 500.
 */
export const redirectTarget = (stored: string): string | undefined => normaliseHttpUrl(stored);
