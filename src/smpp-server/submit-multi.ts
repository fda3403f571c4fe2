import type { AppContext } from '../context.js';
import { sendVerbatimSmsMulti } from './send.js';
import { reserveParts } from '../features/smpp-users/throughput.js';
import type { SmppUserRow } from '../features/smpp-users/service.js';
import { timeOrderedId } from '../lib/ids.js';
import { acceptingAs, bySmppUser } from '../messaging/accepted-by.js';
import type { Pdu } from './pdus.js';
import { Status } from '../smpp-protocol/status.js';
import { destinationOf, readSubmission, statusOfError, verbatim } from './submit.js';

/** One entry of submit_multi's dest_address: an SME address, or a distribution list's name. */
type DestAddress = { dest_addr_ton?: number; dest_addr_npi?: number; destination_addr?: string; dl_name?: string };

/** One entry of submit_multi_resp's unsuccess_sme. */
interface Unsuccess {
  dest_addr_ton: number;
  dest_addr_npi: number;
  destination_addr: string;
  error_status_code: number;
}

export type MultiAnswer = { status: number; messageId?: string; unsuccess?: Unsuccess[] };

/** SMPP 3.4: ESME_RINVNUMDESTS (no destination) and ESME_RINVDLNAME (a distribution list name). */
const INVNUMDESTS = 0x33;
const INVDLNAME = 0x34;

const unsuccessOf = (d: DestAddress, status: number): Unsuccess => ({
  dest_addr_ton: Number(d.dest_addr_ton ?? 0),
  dest_addr_npi: Number(d.dest_addr_npi ?? 0),
  destination_addr: String(d.destination_addr ?? d.dl_name ?? '').slice(0, 20),
  error_status_code: status,
});

/**
 * submit_multi: one message to up to 255 destinations through the send path
 * of a multi-recipient /sms/send (one debit, one commit). Each accepted
 * destination is its own message with its own receipt; all carry the
 * submit_multi's message_id (the first accepted destination's reference),
 * which their receipts name. A refused destination (a number the rules
 * refuse, a repeated one, a distribution list: none exist here) is listed in
 * unsuccess_sme with the command_status submit_sm would get; when none is
 * accepted, the answer is the first refusal's status. Refusals of the whole
 * message (text, schedule, validity, credits, throughput) are its status.
 * Throughput counts the message's parts for every SME destination listed,
 * whatever the answer.
 */
export async function submitMulti(ctx: AppContext, user: SmppUserRow, pdu: Pdu): Promise<MultiAnswer> {
  const dests = (Array.isArray(pdu.dest_address) ? pdu.dest_address : []) as DestAddress[];
  if (dests.length === 0) return { status: INVNUMDESTS };
  const read = readSubmission(user, pdu);
  const unsuccess: Unsuccess[] = dests.filter((d) => 'dl_name' in d).map((d) => unsuccessOf(d, INVDLNAME));
  const smes = dests.filter((d) => !('dl_name' in d));
  if (smes.length === 0) return { status: INVDLNAME };
  const granted = await reserveParts(ctx.db, user.id, user.throughput, read.parts * smes.length);
  if ('status' in read) return { status: read.status };
  if (!granted) return { status: Status.THROTTLED };
  const messageId = timeOrderedId();
  try {
    const sent = await acceptingAs(bySmppUser(user.system_id), () =>
      sendVerbatimSmsMulti(ctx, Number(user.account_id), {
        destinations: smes.map((d) => destinationOf(d.destination_addr, d.dest_addr_ton)),
        reference: messageId,
        ...verbatim(read, { ...read.smpp, message_id: messageId }),
      }),
    );
    for (const r of sent.refused)
      unsuccess.push(unsuccessOf(smes[r.index], statusOfError(ctx, user, r.error, 'submit_multi')));
    if (sent.accepted.length === 0)
      return { status: unsuccess.find((u) => u.error_status_code !== INVDLNAME)!.error_status_code };
    return { status: Status.OK, messageId, unsuccess };
  } catch (err) {
    return { status: statusOfError(ctx, user, err, 'submit_multi') };
  }
}
