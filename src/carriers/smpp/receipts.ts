/**
 * Carriers' delivery receipts (their text is read by src/smpp-protocol/receipt-text.ts):
 * the mapping of their stat and err to the spec's delivery status codes
 * (Events table), and the forms of the ids they carry.
 */

/** stat → status code; null: not final (ACCEPTD, ENROUTE), nothing changes. DELIVRD…UNKNOWN: docs/operators/carriers-and-routes.md, "Delivery receipts". */
const STAT_CODES: Record<string, number | null> = {
  DELIVRD: 0,
  UNDELIV: 1,
  EXPIRED: 3,
  REJECTD: 4,
  UNKNOWN: 5,
  // Deleted by the SMSC (operator action or its own clean-up): the message failed.
  DELETED: 8,
  ACCEPTD: null,
  ENROUTE: null,
};

/**
 * Refinements of UNDELIV by `err`, where the value is a GSM MAP error (the
 * common convention of Kannel, Jasmin and most aggregators): 1 unknown
 * subscriber → 6 unknown number; 27 absent subscriber and 31 subscriber busy
 * → 2 temporary disconnection; 13 call barred → 10 blacklist; 21 facility
 * not supported and 11 teleservice not provisioned → 11 landline; 34 system
 * failure → 8 error. Any other err keeps 1.
 */
const UNDELIV_ERR: Record<number, number> = { 1: 6, 27: 2, 31: 2, 13: 10, 21: 11, 11: 11, 34: 8 };

/** The status code of a receipt, or null when the state is not final (or unrecognised stat with no message_state). */
export function receiptStatus(stat: string | null, err: string | null): number | null {
  if (!stat) return null;
  const code = STAT_CODES[stat.toUpperCase()];
  if (code === undefined) return 5;
  if (code === 1 && err !== null && /^\d+$/.test(err)) return UNDELIV_ERR[Number(err)] ?? 1;
  return code;
}

/**
 * The forms under which a carrier id may have been given on the other side:
 * itself (normalised), its decimal digits read as a number written in hex,
 * and its hex digits read as a number written in decimal. SMSCs disagree on
 * the base of submit_sm_resp ids and receipt ids; one is matched against
 * the forms of the other.
 */
export function idForms(id: string): string[] {
  const own = normaliseId(id);
  const forms = [own];
  if (/^[0-9]+$/.test(own) && own.length <= 30) forms.push(BigInt(own).toString(16));
  if (/^[0-9a-f]+$/.test(own) && own.length <= 24) forms.push(BigInt(`0x${own}`).toString(10));
  return [...new Set(forms)];
}

/** Lower case, leading zeros dropped (receipts often pad ids to 10 digits). */
export function normaliseId(id: string): string {
  const lower = id.trim().toLowerCase();
  const stripped = lower.replace(/^0+(?=.)/, '');
  return stripped;
}
