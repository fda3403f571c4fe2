import type { AppContext } from '../context.js';
import { decodeMessage, smsParts, type Concatenation } from '../smpp-protocol/encoding.js';
import { sendVerbatimSmsTurn, type VerbatimMessage, type VerbatimSmsInput } from './send.js';
import { reserveEach } from '../features/smpp-users/throughput.js';
import type { SmppUserRow } from '../features/smpp-users/service.js';
import type { Pdu } from './pdus.js';
import { messageBody } from '../smpp-protocol/pdu.js';
import { Status } from '../smpp-protocol/status.js';
import { refusalStatus } from './refusals.js';
import { smppTime } from '../smpp-protocol/time.js';
import { acceptingAs, bySmppUser } from '../messaging/accepted-by.js';

export type SubmitAnswer = { status: number; messageId?: string };

/** Flash: data_coding of message class 0 (0x10 GSM, 0x14 8-bit, 0x18 UCS-2; 0xF0 in the 1111 group). */
const isFlash = (dc: number) => ((dc & 0xc0) === 0 && (dc & 0x13) === 0x10) || (dc & 0xf3) === 0xf0;

/** A concatenation reference from SAR TLVs, when the UDH had none. */
function sarOf(pdu: Pdu): Concatenation | null {
  const total = Number(pdu.sar_total_segments ?? 0);
  if (pdu.sar_msg_ref_num === undefined || total < 2) return null;
  return { reference: Number(pdu.sar_msg_ref_num), total, sequence: Number(pdu.sar_segment_seqnum ?? 0) };
}

/** What a submit_sm or submit_multi asks to send, whatever its destinations. */
export interface Submission {
  text: string;
  /** The parts the carrier connector sends the text in (smsParts), whatever concatenation the PDU claims. */
  parts: number;
  flash: boolean;
  sender: string;
  scheduledAt: number | null;
  validUntil: number | null;
  /** Its class: the user's pinned one, else transactional for a priority_flag of 2 or more, else bulk. */
  trafficClass: 'transactional' | 'bulk';
  /** meta.smpp of each message: who submitted it, the receipt it asked for, its concatenation. */
  smpp: Record<string, unknown>;
}

/** A submission refused as it is read, with the parts its text takes all the same (they count against the throughput). */
export type Unreadable = { status: number; parts: number };

/**
 * Reads the message of a submit_sm or submit_multi: decoded text, parts,
 * schedule and validity (0x61, 0x62 when unreadable; a validity that ends
 * before the schedule or now is 0x62). A UDH or SAR part is one message
 * like any other: its parts are those its text takes on the air.
 */
export function readSubmission(user: SmppUserRow, pdu: Pdu, now = Date.now()): Submission | Unreadable {
  const dataCoding = Number(pdu.data_coding ?? 0);
  const decoded = decodeMessage(messageBody(pdu), dataCoding, Number(pdu.esm_class ?? 0));
  const concat = decoded.concat ?? sarOf(pdu);
  const flash = isFlash(dataCoding);
  const parts = smsParts(decoded.text, flash);
  const scheduledAt = smppTime(pdu.schedule_delivery_time, now);
  if (scheduledAt === 'invalid') return { status: Status.INVSCHED, parts };
  const validUntil = smppTime(pdu.validity_period, now);
  if (validUntil === 'invalid' || (validUntil !== null && validUntil <= Math.max(now, scheduledAt ?? 0)))
    return { status: Status.INVEXPIRY, parts };
  const receipt = Number(pdu.registered_delivery ?? 0) & 0x03;
  return {
    text: decoded.text,
    parts,
    flash,
    sender: String(pdu.source_addr ?? ''),
    scheduledAt,
    validUntil,
    trafficClass: smppClass(user, pdu),
    smpp: {
      system_id: user.system_id,
      source: String(pdu.source_addr ?? '').slice(0, 21),
      ...(receipt === 1 || receipt === 2 ? { receipt } : {}),
      ...(concat ? { concat } : {}),
    },
  };
}

/** The message the send path takes from a submission; `smpp` is its meta.smpp. */
export function verbatim(read: Submission, smpp = read.smpp): VerbatimMessage {
  const { text, flash, sender, scheduledAt, validUntil, trafficClass } = read;
  return { text, flash, sender, scheduledAt, validUntil, trafficClass, meta: { smpp } };
}

/** The lowest priority_flag that asks for transactional when the user's class is `auto` (SMPP 3.4: 2 and 3 are the highest). */
export const TRANSACTIONAL_PRIORITY = 2;

/** A submission's class: the user's pinned one, else by the PDU's priority_flag. */
function smppClass(user: SmppUserRow, pdu: Pdu): 'transactional' | 'bulk' {
  const pinned = user.traffic_class ?? 'auto';
  if (pinned !== 'auto') return pinned;
  return Number(pdu.priority_flag ?? 0) >= TRANSACTIONAL_PRIORITY ? 'transactional' : 'bulk';
}

/** A destination's number as the send path reads it: with its country code for TON 1 or 12 digits and more. */
export function destinationOf(address: unknown, ton: unknown): { destination: string; international: boolean } {
  const destination = String(address ?? '').trim();
  return { destination, international: Number(ton ?? 0) === 1 || destination.replace(/\D/g, '').length >= 12 };
}

/** The command_status of a refusal of the send path; anything unexpected is logged and answered 0x08. */
export function statusOfError(ctx: AppContext, user: SmppUserRow, err: unknown, command: string): number {
  const status = refusalStatus(err);
  if (status !== undefined) return status;
  ctx.log.error({ err, system_id: user.system_id }, `SMPP ${command} failed`);
  return Status.SYSERR;
}

/**
 * The submit_sm of one turn of a bind through the SMS feature's send path,
 * an answer each: decoded text, parts, throughput (parts per second of the
 * user, shared by every process: every submit_sm counts, refused ones too),
 * destination, sender, schedule; refusals by the one table of refusals.ts.
 * The accepted ones are written together (sendVerbatimSmsTurn).
 */
export async function submitTurn(ctx: AppContext, user: SmppUserRow, pdus: Pdu[]): Promise<SubmitAnswer[]> {
  const answers: SubmitAnswer[] = [];
  const read = pdus.map((pdu) => readSubmission(user, pdu));
  const granted = await reserveEach(
    ctx.db,
    user.id,
    user.throughput,
    read.map((r) => r.parts),
  );
  const inputs: Array<{ index: number; input: VerbatimSmsInput }> = [];
  read.forEach((submission, index) => {
    const pdu = pdus[index];
    if ('status' in submission) answers[index] = { status: submission.status };
    else if (!granted[index]) answers[index] = { status: Status.THROTTLED };
    else
      inputs.push({
        index,
        input: { ...destinationOf(pdu.destination_addr, pdu.dest_addr_ton), ...verbatim(submission) },
      });
  });
  if (inputs.length === 0) return answers;
  const outcomes = await acceptingAs(bySmppUser(user.system_id), () =>
    sendVerbatimSmsTurn(
      ctx,
      Number(user.account_id),
      inputs.map((i) => i.input),
    ),
  );
  outcomes.forEach((outcome, k) => {
    answers[inputs[k].index] =
      'reference' in outcome
        ? { status: Status.OK, messageId: outcome.reference }
        : { status: statusOfError(ctx, user, outcome.error, 'submit_sm') };
  });
  return answers;
}
