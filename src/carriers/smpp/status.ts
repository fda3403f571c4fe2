/**
 * What a submit_sm_resp command_status means for the message: accepted,
 * refused for good (closed with status 4 and refunded), or refused for now
 * (retried; throttling also slows the connector down).
 */
export type StatusKind = 'ok' | 'throttled' | 'transient' | 'permanent';

/** SMPP 3.4 §5.1.3 values that are worth retrying: the SMSC is busy, failing or not ready. */
const TRANSIENT: Record<number, string> = {
  0x04: 'ESME_RINVBNDSTS', // incorrect bind status: we will rebind
  0x08: 'ESME_RSYSERR',
  0x0d: 'ESME_RBINDFAIL',
  0x45: 'ESME_RSUBMITFAIL',
  0x64: 'ESME_RX_T_APPN',
  0xfe: 'ESME_RDELIVERYFAILURE',
  0xff: 'ESME_RUNKNOWNERR',
};

const THROTTLED: Record<number, string> = {
  0x14: 'ESME_RMSGQFUL',
  0x58: 'ESME_RTHROTTLED',
};

/** Values that refuse this message whatever we do: invalid addresses, lengths, codings, or the SMSC's own rejection. */
const PERMANENT: Record<number, string> = {
  0x01: 'ESME_RINVMSGLEN',
  0x02: 'ESME_RINVCMDLEN',
  0x03: 'ESME_RINVCMDID',
  0x0a: 'ESME_RINVSRCADR',
  0x0b: 'ESME_RINVDSTADR',
  0x0c: 'ESME_RINVMSGID',
  0x33: 'ESME_RINVNUMDESTS',
  0x40: 'ESME_RINVDESTFLAG',
  0x42: 'ESME_RINVSUBREP',
  0x43: 'ESME_RINVESMCLASS',
  0x48: 'ESME_RINVSRCTON',
  0x49: 'ESME_RINVSRCNPI',
  0x50: 'ESME_RINVDSTTON',
  0x51: 'ESME_RINVDSTNPI',
  0x53: 'ESME_RINVSYSTYP',
  0x54: 'ESME_RINVREPFLAG',
  0x55: 'ESME_RINVNUMMSGS',
  0x61: 'ESME_RINVSCHED',
  0x62: 'ESME_RINVEXPIRY',
  0x63: 'ESME_RINVDFTMSGID',
  0x65: 'ESME_RX_P_APPN',
  0x66: 'ESME_RX_R_APPN',
  0xc0: 'ESME_RINVOPTPARSTREAM',
  0xc1: 'ESME_ROPTPARNOTALLWD',
  0xc2: 'ESME_RINVPARLEN',
  0xc4: 'ESME_RINVOPTPARAMVAL',
};

/**
 * Unlisted values (including vendor-specific 0x400–0x4FF) count as
 * permanent: the SMSC refused this PDU for a reason we cannot act on, and
 * resending the same PDU twenty times would only delay the refund.
 */
export function classifyStatus(status: number): StatusKind {
  if (status === 0) return 'ok';
  if (THROTTLED[status]) return 'throttled';
  if (TRANSIENT[status]) return 'transient';
  return 'permanent';
}

/** A readable name for logs and errors: `ESME_RTHROTTLED (0x58)`. */
export function statusName(status: number): string {
  const name = THROTTLED[status] ?? TRANSIENT[status] ?? PERMANENT[status] ?? 'unknown';
  return `${name} (${statusCode(status)})`;
}

/** The command_status as the trace shows it: `0x58`. */
export const statusCode = (status: number): string => `0x${status.toString(16).padStart(2, '0')}`;
