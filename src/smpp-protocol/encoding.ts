import { GSM7_EXTENSION as GSM_EXTENSION, GSM7_TABLE as GSM_TABLE, isGsm7 } from '../text/gsm7.js';

/**
 * SMPP short_message encoding, done here rather than by the `smpp` package
 * (which sends GSM text as data_coding 1, decodes GSM wrongly and mangles
 * `@` and `$`). GSM 03.38 is src/text/gsm7.ts's: the basic table by position
 * (index = septet value; 0x1B is the escape), the extension table by septet.
 */

const ESC = 0x1b;
const gsmIndex = new Map<string, number>([...GSM_TABLE].map((ch, i) => [ch, i]));
const extensionChar = new Map<number, string>(Object.entries(GSM_EXTENSION).map(([ch, v]) => [v, ch]));

/** data_coding values this connector speaks. */
export const DataCoding = { GSM: 0x00, LATIN1: 0x03, UCS2: 0x08 } as const;
/** data_coding with message class 0 (flash), GSM alphabet. */
export const FLASH_GSM = 0x10;
/** data_coding with message class 0 (flash), UCS-2 alphabet. */
export const FLASH_UCS2 = 0x18;

export type Coding = 'gsm' | 'latin1' | 'ucs2';

/** GSM 03.38 septets, one per octet (extension characters as ESC + code). Unknown characters become '?'. */
export function gsmSeptets(text: string): number[] {
  const out: number[] = [];
  for (const ch of text) {
    const i = gsmIndex.get(ch);
    if (i !== undefined && i !== ESC) out.push(i);
    else if (GSM_EXTENSION[ch] !== undefined) out.push(ESC, GSM_EXTENSION[ch]);
    else out.push(0x3f);
  }
  return out;
}

/** Decodes GSM septets (one per octet); an escape before an unknown code reads as a space, per 03.38. */
export function gsmText(septets: ArrayLike<number>): string {
  let out = '';
  for (let i = 0; i < septets.length; i++) {
    const s = septets[i] & 0x7f;
    if (s === ESC) {
      const next = septets[++i];
      out += next === undefined ? '' : (extensionChar.get(next & 0x7f) ?? ' ');
    } else out += GSM_TABLE[s];
  }
  return out;
}

/** Packs septets 8 into 7 octets (GSM 03.38 §6.1.2.1.1), starting at bit `fillBits` (for a UDH boundary). */
export function packSeptets(septets: number[], fillBits = 0): Buffer {
  const bytes: number[] = [];
  let acc = 0;
  let bits = fillBits;
  for (const s of septets) {
    acc |= (s & 0x7f) << bits;
    bits += 7;
    while (bits >= 8) {
      bytes.push(acc & 0xff);
      acc >>>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) bytes.push(acc & 0xff);
  return Buffer.from(bytes);
}

/** Unpacks `count` septets (default: as many as fit) after skipping `fillBits`. */
export function unpackSeptets(packed: Uint8Array, count?: number, fillBits = 0): number[] {
  const n = count ?? Math.floor((packed.length * 8 - fillBits) / 7);
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const bit = fillBits + k * 7;
    const byte = bit >> 3;
    const shift = bit & 7;
    const word = packed[byte] | ((packed[byte + 1] ?? 0) << 8);
    out.push((word >> shift) & 0x7f);
  }
  return out;
}

/** Which coding a text needs: GSM when it fits, else UCS-2; `preferred` (a connector option) wins when the text fits it. */
export function chooseCoding(text: string, preferred: Coding = 'gsm'): Coding {
  if (preferred === 'gsm' && isGsm7(text)) return 'gsm';
  // eslint-disable-next-line no-control-regex -- Latin-1 is every code point up to U+00FF, controls included.
  if (preferred === 'latin1' && /^[\x00-\xff]*$/.test(text)) return 'latin1';
  if (preferred === 'ucs2') return 'ucs2';
  return isGsm7(text) ? 'gsm' : 'ucs2';
}

export interface EncodeOptions {
  coding: Coding;
  /** GSM only: pack septets (some SMSCs expect this); default unpacked octets. */
  packed?: boolean;
  flash?: boolean;
}

export interface EncodedSegment {
  dataCoding: number;
  esmClass: number;
  shortMessage: Buffer;
}

/** UCS-2 big-endian, surrogate pairs kept as two units (as handsets do). */
const fromUcs2 = (b: Uint8Array) =>
  Buffer.from(b.length % 2 ? b.subarray(0, b.length - 1) : b)
    .swap16()
    .toString('utf16le');

/** Room per segment in units of the coding (septets, octets or UTF-16 units): single, then concatenated (6-octet UDH). */
const ROOM: Record<Coding, [number, number]> = { gsm: [160, 153], latin1: [140, 134], ucs2: [70, 67] };

function units(text: string, coding: Coding): number[][] {
  // One entry per character, never splitting an escape pair or a surrogate pair.
  if (coding === 'gsm') return [...text].map((ch) => gsmSeptets(ch));
  if (coding === 'latin1') return [...text].map((ch) => [ch.charCodeAt(0) & 0xff]);
  return [...text].map((ch) => [...Array(ch.length).keys()].map((k) => ch.charCodeAt(k)));
}

/** The coding a text goes in when it is flashed: message class 0 has no Latin-1, so flash Latin-1 goes as UCS-2. */
const effectiveCoding = (coding: Coding, flash?: boolean): Coding => (flash && coding === 'latin1' ? 'ucs2' : coding);

/**
 * The units of each segment a text is sent as, in `coding`: one segment when
 * the whole text fits one SMS, else as many as the concatenated room takes,
 * never splitting an escape pair or a surrogate pair. The one splitting of
 * the connector: encodeMessage sends these, smsParts counts them.
 */
function splitSegments(text: string, coding: Coding): number[][] {
  const [single, part] = ROOM[coding];
  // The common case, one segment, without per-character arrays.
  const whole =
    coding === 'gsm'
      ? gsmSeptets(text)
      : coding === 'latin1'
        ? [...text].map((ch) => ch.charCodeAt(0) & 0xff)
        : Array.from({ length: text.length }, (_, k) => text.charCodeAt(k));
  if (whole.length <= single) return [whole];
  const parts: number[][] = [];
  let current: number[] = [];
  for (const u of units(text, coding)) {
    if (current.length + u.length > part) {
      parts.push(current);
      current = [];
    }
    current.push(...u);
  }
  if (current.length > 0) parts.push(current);
  return parts;
}

/**
 * Encodes a message into one or more submit_sm segments. Long texts are
 * split with an 8-bit concatenation UDH (esm_class 0x40) using `reference`.
 */
export function encodeMessage(text: string, opts: EncodeOptions, reference = 0): EncodedSegment[] {
  const effective = effectiveCoding(opts.coding, opts.flash);
  const base = effective === 'gsm' ? DataCoding.GSM : effective === 'latin1' ? DataCoding.LATIN1 : DataCoding.UCS2;
  const dataCoding = opts.flash ? (effective === 'ucs2' ? FLASH_UCS2 : FLASH_GSM) : base;
  const parts = splitSegments(text, effective);
  return parts.map((p, i) => {
    const udh =
      parts.length > 1 ? Buffer.from([0x05, 0x00, 0x03, reference & 0xff, parts.length, i + 1]) : Buffer.alloc(0);
    let body: Buffer;
    if (effective === 'gsm') body = opts.packed ? packSeptets(p, udh.length ? 1 : 0) : Buffer.from(p);
    else if (effective === 'latin1') body = Buffer.from(p);
    else body = Buffer.from(new Uint16Array(p).buffer).swap16();
    return { dataCoding, esmClass: udh.length ? 0x40 : 0, shortMessage: Buffer.concat([udh, body]) };
  });
}

/**
 * The SMS parts (submit_sm segments) a text is sent as by a connector with
 * the default coding: GSM-7 when every character has a GSM-7 form (an
 * extension character such as `€` taking two septets), else UCS-2; 160/70
 * units in one SMS, 153/67 a part once concatenated. What a message is
 * charged and counted for, whatever concatenation its submitter claimed.
 */
export function smsParts(text: string, flash = false): number {
  return splitSegments(text, effectiveCoding(chooseCoding(text), flash)).length;
}

export interface Concatenation {
  reference: number;
  total: number;
  sequence: number;
}

export interface DecodedMessage {
  text: string;
  concat: Concatenation | null;
}

/**
 * Decodes an inbound short_message: splits off the UDH when esm_class says
 * so (reading a concatenation element, 8- or 16-bit reference), then decodes
 * by data_coding: GSM (0, 1 read as GSM too, 0x10–0x13/0xF0–0xF3 class
 * variants), Latin-1 (3), UCS-2 (8, 0x18–0x1B). `packed` decodes GSM from
 * packed septets.
 */
export function decodeMessage(
  message: Uint8Array,
  dataCoding: number,
  esmClass: number,
  packed = false,
): DecodedMessage {
  let body = Buffer.from(message);
  let concat: Concatenation | null = null;
  let udhLength = 0;
  if (esmClass & 0x40 && body.length > 0) {
    udhLength = body[0] + 1;
    const udh = body.subarray(1, udhLength);
    for (let i = 0; i + 1 < udh.length; i += 2 + udh[i + 1]) {
      const [iei, len] = [udh[i], udh[i + 1]];
      if (iei === 0x00 && len === 3) concat = { reference: udh[i + 2], total: udh[i + 3], sequence: udh[i + 4] };
      if (iei === 0x08 && len === 4)
        concat = { reference: (udh[i + 2] << 8) | udh[i + 3], total: udh[i + 4], sequence: udh[i + 5] };
    }
    body = body.subarray(Math.min(udhLength, body.length));
  }
  const alphabet = alphabetOf(dataCoding);
  let text: string;
  if (alphabet === 'ucs2') text = fromUcs2(body);
  else if (alphabet === 'latin1') text = body.toString('latin1');
  else if (packed) {
    const fill = udhLength ? (7 - ((udhLength * 8) % 7)) % 7 : 0;
    const packedBody = udhLength ? Buffer.from(message).subarray(udhLength) : body;
    const septets = unpackSeptets(packedBody, undefined, fill);
    // 8 septets fill 7 octets exactly; a 7-septet text leaves 7 zero bits that read as a trailing '@' (03.38 §6.1.2.3.1).
    if ((packedBody.length * 8 - fill) % 7 === 0 && septets.at(-1) === 0) septets.pop();
    text = gsmText(septets);
  } else text = gsmText(body);
  return { text, concat };
}

/**
 * The text of a delivery receipt: UCS-2 when data_coding says so (some SMSCs
 * write receipts that way), otherwise read byte for byte. SMPP 3.4 Appendix B
 * writes receipts in ASCII, so GSM's few differences from ASCII (`_`, `@`)
 * would only corrupt an id that the submit_sm_resp gave in ASCII.
 */
export function receiptText(body: Uint8Array, dataCoding: number): string {
  return alphabetOf(dataCoding) === 'ucs2' ? fromUcs2(body) : Buffer.from(body).toString('latin1');
}

function alphabetOf(dataCoding: number): Coding {
  if (dataCoding === 0x03) return 'latin1';
  if (dataCoding === 0x08) return 'ucs2';
  // General data coding group 00xx: bits 3..2 are the alphabet (00 GSM, 01 8-bit, 10 UCS-2).
  if ((dataCoding & 0xc0) === 0x00 && dataCoding & 0x10) return (dataCoding & 0x0c) === 0x08 ? 'ucs2' : 'gsm';
  if ((dataCoding & 0xf0) === 0xf0) return 'gsm';
  return 'gsm';
}
