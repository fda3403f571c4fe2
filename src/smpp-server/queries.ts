import type { AppContext } from '../context.js';
import { cancelScheduled, messageState } from '../messaging/scheduled.js';
import { receiptState } from './notices.js';
import type { Pdu } from './pdus.js';
import { Status } from '../smpp-protocol/status.js';

/** SMPP 3.4 message_state: ENROUTE 1 while not final, else from the status code as receipts show it. */
function stateOf(status: string, code: number | null): number {
  if (status === 'scheduled' || status === 'queued' || status === 'sent') return 1;
  if (status === 'refused' && code === null) return 8;
  return receiptState(code ?? 5).state;
}

const two = (n: number) => String(n).padStart(2, '0');
/** Absolute SMPP time in UTC (`…000+`). */
function smppUtc(ms: number): string {
  const d = new Date(ms);
  const fields = [d.getUTCFullYear() % 100, d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()];
  return `${fields.map(two).join('')}${two(d.getUTCSeconds())}000+`;
}

/** query_sm: the state of one of the account's messages, found by message_id whatever source_addr says. */
export async function querySm(ctx: AppContext, accountId: number, pdu: Pdu): Promise<Pdu> {
  const reference = String(pdu.message_id ?? '');
  const found = await messageState(ctx.db, accountId, reference);
  if (!found) return pdu.response({ command_status: Status.QUERYFAIL });
  return pdu.response({
    message_id: reference,
    final_date: found.doneAt === null ? '' : smppUtc(found.doneAt),
    message_state: stateOf(found.status, found.dlrCode),
    error_code: found.dlrCode ?? 0,
  });
}

/** cancel_sm: a scheduled message not yet sent is cancelled and refunded; anything else 0x11. */
export async function cancelSm(ctx: AppContext, accountId: number, pdu: Pdu): Promise<Pdu> {
  const cancelled = await cancelScheduled(ctx.db, accountId, String(pdu.message_id ?? ''));
  return pdu.response({ command_status: cancelled ? Status.OK : Status.CANCELFAIL });
}
