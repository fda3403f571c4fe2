import { ApiError } from '../http/errors.js';
import { Status } from '../smpp/status.js';

/**
 * The one table of the send path's refusals (ApiError codes of /sms/send)
 * as submit_sm command_status values. Codes not listed are a system error
 * (0x08): the customer may retry.
 */
const BY_CODE: Record<string, number> = {
  sms_01: Status.INVMSGLEN, // empty text
  sms_02: Status.INVMSGLEN,
  sms_03: Status.INVDSTADR, // no number
  sms_04: Status.INVDSTADR, // malformed number, wrong length
  sms_05: Status.INVDSTADR,
  sms_16: Status.INVDSTADR,
  sms_18: Status.INVDSTADR, // country code the service does not accept
  sms_24: Status.INVDSTADR, // a line the channel does not send to
  sms_07: Status.SUBMITFAIL, // too few credits
  sms_20: Status.INVSCHED,
  sms_21: Status.INVSCHED,
};

export function refusalStatus(err: unknown): number | undefined {
  return err instanceof ApiError ? BY_CODE[err.code] : undefined;
}
