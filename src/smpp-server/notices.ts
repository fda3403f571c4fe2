import type { CustomerNotice, ReceiptNotice, ReplyNotice } from '../messaging/customer-notices.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';
import { formatReceiptText } from '../smpp-protocol/receipt-text.js';
import { isGsm7 } from '../text/gsm7.js';

/** STAT and message_state of a status code (docs/operators/smpp-server.md). */
export function receiptState(code: number): { stat: string; state: number } {
  if (code === 0) return { stat: 'DELIVRD', state: 2 };
  if (code === 3) return { stat: 'EXPIRED', state: 3 };
  if ([4, 9, 10, 12].includes(code)) return { stat: 'REJECTD', state: 8 };
  if (code === 5) return { stat: 'UNKNOWN', state: 7 };
  return { stat: 'UNDELIV', state: 5 };
}

/** A customer notice as the deliver_sm the SMPP server sends for it: a receipt (esm_class 0x04) or a reply. */
export function deliverSmOf(n: CustomerNotice): Record<string, unknown> {
  return n.kind === 'receipt' ? receiptDeliverSm(n.notice) : replyDeliverSm(n.notice);
}

function receiptDeliverSm(r: ReceiptNotice): Record<string, unknown> {
  const { stat, state } = receiptState(r.code);
  const text = formatReceiptText({
    id: r.message_id,
    sub: 1,
    dlvrd: r.code === 0 ? 1 : 0,
    submitted: r.submitted_at,
    done: r.done_at,
    stat,
    err: r.code,
    text: r.text,
  });
  return {
    ...addresses(r.number, r.address),
    esm_class: 0x04,
    data_coding: 0,
    ...shortMessage(Buffer.from(text, 'latin1')),
    receipted_message_id: r.message_id,
    message_state: state,
  };
}

function replyDeliverSm(r: ReplyNotice): Record<string, unknown> {
  const gsm = isGsm7(r.text);
  return {
    ...addresses(r.number, r.address),
    esm_class: 0,
    data_coding: gsm ? 0 : 8,
    ...shortMessage(gsm ? Buffer.from(gsmSeptets(r.text)) : Buffer.from(r.text, 'utf16le').swap16()),
  };
}

const addresses = (source: string, destination: string) => ({
  source_addr_ton: 1,
  source_addr_npi: 1,
  source_addr: source,
  dest_addr_ton: /^\d+$/.test(destination) ? 1 : 5,
  destination_addr: destination,
});

/** Up to 254 octets in short_message, longer in message_payload. */
const shortMessage = (body: Buffer) =>
  body.length <= 254 ? { short_message: body } : { short_message: Buffer.alloc(0), message_payload: body };
