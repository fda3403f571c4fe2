import { receiptDate } from './time.js';

/**
 * The delivery receipt text of SMPP 3.4 Appendix B,
 * `id:IIII sub:SSS dlvrd:DDD submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:DDDDDDD err:E text:…`:
 * written by the SMPP server for its customers, read by the carrier
 * connector from its SMSCs.
 */
export interface ReceiptFields {
  id: string | null;
  stat: string | null;
  err: string | null;
}

/** Reads id, stat and err from a receipt text; fields may come in any order and any case. */
export function parseReceiptText(text: string): ReceiptFields {
  const field = (name: string) => new RegExp(`(?:^|\\s)${name}:\\s*([^\\s]+)`, 'i').exec(text)?.[1] ?? null;
  return { id: field('id'), stat: field('stat')?.toUpperCase() ?? null, err: field('err') };
}

export interface ReceiptText {
  id: string;
  /** Parts submitted and delivered, written as three digits. */
  sub: number;
  dlvrd: number;
  /** Epoch ms, written as YYMMDDhhmm in Mexico City time. */
  submitted: number;
  done: number;
  stat: string;
  /** Written as three digits. */
  err: number;
  /** The message's text: its first 20 characters are written, in ASCII. */
  text: string;
}

const three = (n: number) => String(n).padStart(3, '0');

/** Receipt text as ASCII: a character outside it shows as `?`. */
const ascii = (text: string) => [...text].map((ch) => (ch.charCodeAt(0) < 0x80 ? ch : '?')).join('');

export function formatReceiptText(r: ReceiptText): string {
  return (
    `id:${r.id} sub:${three(r.sub)} dlvrd:${three(r.dlvrd)} submit date:${receiptDate(r.submitted)} ` +
    `done date:${receiptDate(r.done)} stat:${r.stat} err:${three(r.err)} text:${ascii([...r.text].slice(0, 20).join(''))}`
  );
}

/** SMPP message_state TLV values (3.4 §5.2.28) → stat names. */
const MESSAGE_STATES: Record<number, string> = {
  1: 'ENROUTE',
  2: 'DELIVRD',
  3: 'EXPIRED',
  4: 'DELETED',
  5: 'UNDELIV',
  6: 'ACCEPTD',
  7: 'UNKNOWN',
  8: 'REJECTD',
};
export const messageStateName = (state: number | undefined): string | null =>
  state === undefined ? null : (MESSAGE_STATES[state] ?? null);
