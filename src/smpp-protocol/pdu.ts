import { createRequire } from 'node:module';
import type { EventEmitter } from 'node:events';

/**
 * The `smpp` package, used as PDU codec and transport only, by the carrier
 * connector (src/carriers/smpp/) and the SMPP server (src/smpp-server/) alike.
 * Its automatic text encoding is switched off: short_message and
 * message_payload pass through as raw bytes both ways, and encoding.ts does
 * the coding (the package sends GSM text as data_coding 1, decodes GSM
 * wrongly and mangles `@` and `$`).
 */
const require = createRequire(import.meta.url);
export const smpp = require('smpp') as SmppModule;
smpp.filters.message.encode = (value: unknown) => value;
smpp.filters.message.decode = (value: unknown) => value;

export interface Pdu {
  command: string;
  command_id: number;
  command_status: number;
  sequence_number: number;
  isResponse(): boolean;
  response(options?: Record<string, unknown>): Pdu;
  [field: string]: any;
}

/**
 * The octets of a PDU's message (submit_sm, submit_multi, deliver_sm, data_sm): short_message, or message_payload
 * when short_message is empty (a message longer than 254 octets); empty when neither carries one.
 */
export function messageBody(pdu: Pdu): Buffer {
  if (Buffer.isBuffer(pdu.short_message) && pdu.short_message.length > 0) return pdu.short_message;
  return Buffer.isBuffer(pdu.message_payload) ? pdu.message_payload : Buffer.alloc(0);
}

export interface SmppSession extends EventEmitter {
  socket: import('node:net').Socket;
  send(pdu: Pdu, onResponse?: (pdu: Pdu) => void): boolean;
  close(cb?: () => void): void;
  destroy(cb?: () => void): void;
  [command: string]: any;
}

interface SmppModule {
  connect(options: Record<string, unknown>, listener?: () => void): SmppSession;
  createServer(
    options: Record<string, unknown>,
    listener?: (session: SmppSession) => void,
  ): import('node:net').Server & { sessions: SmppSession[] };
  PDU: { new (command: string, options?: Record<string, unknown>): Pdu; maxLength: number };
  filters: { message: { encode: (v: unknown) => unknown; decode: (v: unknown) => unknown } };
  [name: string]: any;
}

/** esm_class message type bits (5–2): SMSC delivery receipt, SME ack, intermediate notification. */
export const isReceipt = (esmClass: number) => [0x04, 0x08, 0x20].includes(esmClass & 0x3c);
