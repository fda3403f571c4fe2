import type { CarrierSink, Receipt } from '../adapter.js';
import type { ConnectorStats } from '../status.js';
import { decodeMessage, receiptText, type Concatenation } from '../../smpp-protocol/encoding.js';
import { isReceipt, messageBody, type Pdu } from '../../smpp-protocol/pdu.js';
import { receiptStatus } from './receipts.js';
import { messageStateName, parseReceiptText } from '../../smpp-protocol/receipt-text.js';
import type { SmppSettings } from './settings.js';

/**
 * What an SMSC delivers (deliver_sm, data_sm): delivery receipts and
 * customer replies. handle() resolves once what the PDU carried is durable;
 * only then does the SMSC get its deliver_sm_resp, so a crash in between
 * makes the SMSC deliver it again instead of losing it.
 */
export class InboundHandler {
  private batch: Array<{ receipt: Receipt; done: () => void; fail: (e: Error) => void }> = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly sink: CarrierSink,
    private readonly carrier: string,
    private readonly settings: SmppSettings,
    private readonly stats: ConnectorStats,
  ) {}

  async handle(pdu: Pdu): Promise<void> {
    const esmClass = Number(pdu.esm_class ?? 0);
    const body = messageBody(pdu);
    if (isReceipt(esmClass)) return this.receipt(pdu, body);
    return this.reply(pdu, body, esmClass);
  }

  private receipt(pdu: Pdu, body: Buffer): Promise<void> {
    this.stats.receipts++;
    const text = receiptText(body, Number(pdu.data_coding ?? 0));
    const fields = parseReceiptText(text);
    const id =
      typeof pdu.receipted_message_id === 'string' && pdu.receipted_message_id !== ''
        ? pdu.receipted_message_id
        : fields.id;
    const stat = messageStateName(pdu.message_state) ?? fields.stat;
    if (!id || !stat) return this.unreadable();
    const code = receiptStatus(stat, fields.err);
    // Not final (ACCEPTD, ENROUTE): acknowledged, nothing changes.
    if (code === null) return Promise.resolve();
    return new Promise<void>((done, fail) => {
      this.batch.push({
        receipt: { carrierId: id, code, at: Date.now(), stat: fields.stat ?? stat, err: fields.err },
        done,
        fail,
      });
      if (!this.flushing) this.flushing = new Promise<void>((r) => setImmediate(r)).then(() => this.flush());
    });
  }

  /**
   * A receipt with no message id or no state: acknowledged (the SMSC would
   * only send it again), and never silent: counted, and logged and listed by
   * `carriers rejections` (per hour, so a flood of them stays bounded).
   */
  private async unreadable(): Promise<void> {
    this.stats.unreadable_receipts++;
    await this.sink.rejected({ carrier: this.carrier, reason: 'unreadable receipt', remoteAddress: 'smsc' });
  }

  /** Receipts that arrive together are stored and applied in one go (one transaction per batch). */
  private async flush(): Promise<void> {
    while (this.batch.length > 0) {
      const batch = this.batch.splice(0, 2000);
      try {
        await this.sink.receipts(
          this.carrier,
          batch.map((b) => b.receipt),
        );
        for (const b of batch) b.done();
      } catch (err) {
        for (const b of batch) b.fail(err as Error);
      }
    }
    this.flushing = null;
  }

  private async reply(pdu: Pdu, body: Buffer, esmClass: number): Promise<void> {
    const decoded = decodeMessage(body, Number(pdu.data_coding ?? 0), esmClass, this.settings.packed);
    const source = String(pdu.source_addr ?? '').replace(/^\+/, '');
    const destination = String(pdu.destination_addr ?? '');
    const now = Date.now();
    const concat: Concatenation | null =
      decoded.concat ??
      (pdu.sar_msg_ref_num !== undefined && pdu.sar_total_segments > 1
        ? { reference: pdu.sar_msg_ref_num, total: pdu.sar_total_segments, sequence: pdu.sar_segment_seqnum }
        : null);
    let text = decoded.text;
    if (concat && concat.total > 1) {
      const part = { carrier: this.carrier, source, destination, ...concat, text, at: now };
      const whole = await this.sink.replyPart(part);
      if (whole === null) return;
      text = whole;
    }
    this.stats.replies++;
    await this.sink.reply({ carrier: this.carrier, source, destination, text, at: now });
  }
}
