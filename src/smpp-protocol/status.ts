/**
 * SMPP 3.4 §5.1.3 command_status values, named as the protocol names them
 * without the `ESME_R` prefix: what the carrier connector reads in an SMSC's
 * responses and what the SMPP server answers its customers with.
 */
export const Status = {
  OK: 0x00,
  INVMSGLEN: 0x01,
  INVCMDLEN: 0x02,
  INVCMDID: 0x03,
  INVBNDSTS: 0x04,
  ALYBND: 0x05,
  SYSERR: 0x08,
  INVSRCADR: 0x0a,
  INVDSTADR: 0x0b,
  INVMSGID: 0x0c,
  BINDFAIL: 0x0d,
  INVPASWD: 0x0e,
  INVSYSID: 0x0f,
  CANCELFAIL: 0x11,
  MSGQFUL: 0x14,
  INVNUMDESTS: 0x33,
  INVDESTFLAG: 0x40,
  INVSUBREP: 0x42,
  INVESMCLASS: 0x43,
  SUBMITFAIL: 0x45,
  INVSRCTON: 0x48,
  INVSRCNPI: 0x49,
  INVDSTTON: 0x50,
  INVDSTNPI: 0x51,
  INVSYSTYP: 0x53,
  INVREPFLAG: 0x54,
  INVNUMMSGS: 0x55,
  THROTTLED: 0x58,
  INVSCHED: 0x61,
  INVEXPIRY: 0x62,
  INVDFTMSGID: 0x63,
  X_T_APPN: 0x64,
  X_P_APPN: 0x65,
  X_R_APPN: 0x66,
  QUERYFAIL: 0x67,
  INVOPTPARSTREAM: 0xc0,
  OPTPARNOTALLWD: 0xc1,
  INVPARLEN: 0xc2,
  INVOPTPARAMVAL: 0xc4,
  DELIVERYFAILURE: 0xfe,
  UNKNOWNERR: 0xff,
} as const;

const NAMES = new Map<number, string>(Object.entries(Status).map(([name, value]) => [value, `ESME_R${name}`]));

/** A readable name for logs and errors: `ESME_RTHROTTLED (0x58)`; a value not listed (vendor-specific 0x400–0x4FF) is `unknown`. */
export function statusName(status: number): string {
  return `${NAMES.get(status) ?? 'unknown'} (${statusCode(status)})`;
}

/** The command_status as the trace shows it: `0x58`. */
export const statusCode = (status: number): string => `0x${status.toString(16).padStart(2, '0')}`;
