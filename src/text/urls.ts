import { trimEndWhere } from './trim.js';

/**
 * URLs written in a message: http(s)://… or www.…, up to the next space.
 * Trailing punctuation that usually closes a sentence ("see https://x.mx.")
 * is not part of the URL.
 */
const URL_PATTERN = /\b(?:https?:\/\/|www\.)[^\s<>"]+/gi;
const TRAILING = '.,;:!?)]}\'"¡¿';

export interface FoundUrl {
  /** Offsets in the text: text.slice(start, end) is the URL as written. */
  start: number;
  end: number;
  /** The URL to open: www.… gets https:// in front. */
  href: string;
}

export function findUrls(text: string): FoundUrl[] {
  const found: FoundUrl[] = [];
  for (const m of text.matchAll(URL_PATTERN)) {
    const written = trimEndWhere(m[0], (c) => TRAILING.includes(c));
    if (written.length < 5 || /^(?:https?:\/\/|www\.)$/i.test(written)) continue;
    const start = m.index;
    found.push({ start, end: start + written.length, href: /^www\./i.test(written) ? `https://${written}` : written });
  }
  return found;
}
