import { smpp, type Pdu } from '../smpp-protocol/pdu.js';

/**
 * The customer side's PDU codec: the `smpp` package, with the carriers'
 * settings (short_message as raw bytes) and times left as the text the
 * customer wrote (times.ts reads them; the package's own reading is off by
 * the server's time zone). Nothing on the carrier side reads time fields.
 */
(smpp.filters as unknown as Record<string, { decode: (v: unknown) => unknown }>).time.decode = (value) => value;

export { smpp, type Pdu };

/** A PDU is at least its 16-octet header and at most 64 KiB (docs/operators/smpp-server.md); anything else closes the session. */
export const MIN_PDU = 16;
export const MAX_PDU = 64 * 1024;
if (smpp.PDU.maxLength < MAX_PDU) smpp.PDU.maxLength = MAX_PDU;

/**
 * Splits a byte stream into PDUs. `next()` gives the next whole PDU, null
 * when more bytes are needed, or 'malformed' (a length outside 16..64 KiB,
 * or a body the codec cannot read): the session then closes.
 */
export class PduReader {
  private buffered: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
  }

  /** Whether the bytes held begin a PDU that is not complete yet. */
  incomplete(): boolean {
    const held = this.buffered.length;
    return held > 0 && (held < 4 || held < this.buffered.readUInt32BE(0));
  }

  next(): Pdu | 'malformed' | null {
    if (this.buffered.length < 4) return null;
    const length = this.buffered.readUInt32BE(0);
    if (length < MIN_PDU || length > MAX_PDU) return 'malformed';
    if (this.buffered.length < length) return null;
    const raw = this.buffered.subarray(0, length);
    this.buffered = this.buffered.subarray(length);
    try {
      return wellFormed(raw) ? new smpp.PDU(raw as unknown as string) : 'malformed';
    } catch {
      return 'malformed';
    }
  }
}

interface ParamType {
  read(buffer: Buffer, offset: number): { length: number };
  size(value: unknown): number;
}

/**
 * Whether a PDU's body reads whole, as the codec reads it: every C string
 * ends within the PDU, every length-prefixed field and TLV fits in it, and
 * nothing is left over. The codec itself would read past the end silently.
 */
function wellFormed(raw: Buffer): boolean {
  const definition = smpp.commandsById[raw.readUInt32BE(4)] as { command: string } | undefined;
  if (!definition) return true;
  const params = (smpp.commands[definition.command].params ?? {}) as Record<string, { type: ParamType }>;
  let offset = 16;
  for (const key of Object.keys(params)) {
    if (offset >= raw.length) break;
    const type = params[key].type;
    if (type === smpp.types.buffer && offset + 1 + raw[offset] > raw.length) return false;
    offset += type.size(type.read(raw, offset));
  }
  if (offset > raw.length) return false;
  while (offset + 4 <= raw.length) offset += 4 + raw.readUInt16BE(offset + 2);
  return offset === raw.length;
}

/** A new PDU to send (deliver_sm, enquire_link, unbind); the session numbers it. */
export const newPdu = (command: string, options: Record<string, unknown> = {}): Pdu => new smpp.PDU(command, options);
