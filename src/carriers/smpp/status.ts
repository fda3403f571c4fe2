import { Status } from '../../smpp-protocol/status.js';

/**
 * What a submit_sm_resp command_status means for the message: accepted,
 * refused for good (closed with status 4 and refunded), or refused for now
 * (retried; throttling also slows the connector down).
 */
export type StatusKind = 'ok' | 'throttled' | 'transient' | 'permanent';

/** Values that are worth retrying: the SMSC is busy, failing or not ready (incorrect bind status: we will rebind). */
const TRANSIENT = new Set<number>([
  Status.INVBNDSTS,
  Status.SYSERR,
  Status.BINDFAIL,
  Status.SUBMITFAIL,
  Status.X_T_APPN,
  Status.DELIVERYFAILURE,
  Status.UNKNOWNERR,
]);

const THROTTLED = new Set<number>([Status.MSGQFUL, Status.THROTTLED]);

/**
 * Every other value refuses this message whatever we do (invalid addresses,
 * lengths, codings, or the SMSC's own rejection), unlisted ones included
 * (vendor-specific 0x400–0x4FF): the SMSC refused this PDU for a reason we
 * cannot act on, and resending the same PDU twenty times would only delay
 * the refund.
 */
export function classifyStatus(status: number): StatusKind {
  if (status === Status.OK) return 'ok';
  if (THROTTLED.has(status)) return 'throttled';
  if (TRANSIENT.has(status)) return 'transient';
  return 'permanent';
}
