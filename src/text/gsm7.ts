/**
 * GSM 03.38 (GSM-7): the alphabet of SMS, the one definition of it (the SMPP encoding, src/smpp-protocol/encoding.ts, reads
 * it too). Characters of the basic table count one, characters of the extension table count two (an escape plus the
 * character); anything else must be transliterated before sending.
 */

/** The basic table by position: index = septet value; 0x1B is the escape to the extension table. */
export const GSM7_TABLE =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** The extension table: character → septet after the escape. */
export const GSM7_EXTENSION: Readonly<Record<string, number>> = {
  '\f': 0x0a,
  '^': 0x14,
  '{': 0x28,
  '}': 0x29,
  '\\': 0x2f,
  '[': 0x3c,
  '~': 0x3d,
  ']': 0x3e,
  '|': 0x40,
  '€': 0x65,
};

const basic = new Set([...GSM7_TABLE].filter((ch) => ch !== '\x1b'));
const extension = new Set(Object.keys(GSM7_EXTENSION));

/** Replacements for common characters GSM-7 lacks, beyond stripping accents. */
const REPLACEMENTS: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201a': "'",
  '\u201b': "'",
  '\u2032': "'",
  '`': "'",
  '´': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u201f': '"',
  '\u2033': '"',
  '«': '"',
  '»': '"',
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
  '\u2026': '...',
  '\u2022': '*',
  '·': '.',
  '\t': ' ',
  '\u00a0': ' ',
  '\u2007': ' ',
  '\u202f': ' ',
  '\u2009': ' ',
  '\u200b': '',
  '¢': 'c',
  '©': '(c)',
  '®': '(R)',
  '™': 'TM',
  '°': 'o',
  º: 'o',
  ª: 'a',
  '×': 'x',
  '÷': '/',
  ç: 'c',
  œ: 'oe',
  Œ: 'OE',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'Th',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  '\u20b1': 'P',
  '\u2030': '%',
  '¦': '|',
  '¬': '-',
  '¨': '"',
  '¯': '-',
  '¸': ',',
  '¹': '1',
  '²': '2',
  '³': '3',
  '¼': '1/4',
  '½': '1/2',
  '¾': '3/4',
};

/** True when every character of `text` is in GSM-7 (basic or extension table). */
export function isGsm7(text: string): boolean {
  for (const ch of text) if (!basic.has(ch) && !extension.has(ch)) return false;
  return true;
}

/** Length in GSM-7 septets: extension characters count two. */
export function gsm7Length(text: string): number {
  let n = 0;
  for (const ch of text) n += extension.has(ch) ? 2 : 1;
  return n;
}

/**
 * Makes `text` GSM-7: characters GSM-7 has (ñ, é, ü, ¿, ¡, €, …) are kept,
 * accented letters it lacks lose their accent (á → a), typographic
 * punctuation becomes its plain form (“ → ", – → -), and whatever is left
 * (emoji, other scripts) becomes '?'.
 */
export function toGsm7(text: string): string {
  let out = '';
  for (const ch of text) {
    if (basic.has(ch) || extension.has(ch)) {
      out += ch;
      continue;
    }
    const replacement = REPLACEMENTS[ch];
    if (replacement !== undefined) {
      out += replacement;
      continue;
    }
    const stripped = ch.normalize('NFD').replace(/\p{M}+/gu, '');
    out += stripped !== '' && [...stripped].every((c) => basic.has(c) || extension.has(c)) ? stripped : '?';
  }
  return out;
}
