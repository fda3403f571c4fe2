import { Refusal, type RefusalCode } from '../messaging/refusal.js';
import { Status } from '../smpp-protocol/status.js';

/**
 * The one table of the send path's refusals (messaging/refusal.ts) as submit_sm command_status values. A refusal
 * not listed (none the SMPP server's sends can meet: more than 500 numbers, RCS senders, the sandbox quota) and any
 * other error are a system error (0x08): the customer may retry.
 */
export const SMPP_REFUSALS: Partial<Record<RefusalCode, number>> = {
  empty_text: Status.INVMSGLEN,
  no_numbers: Status.INVDSTADR,
  malformed_number: Status.INVDSTADR,
  no_country_code: Status.INVDSTADR,
  repeated_number: Status.INVDSTADR,
  unsupported_country_code: Status.INVDSTADR,
  unsupported_line: Status.INVDSTADR,
  insufficient_credits: Status.SUBMITFAIL,
  // A limit that holds until Mexico City midnight: a throttling status would have the client retry all day.
  daily_spend_limit: Status.SUBMITFAIL,
  past_date: Status.INVSCHED,
  malformed_date: Status.INVSCHED,
  // The abuse controls: the cap resets with the next clock hour (a client may retry then), the others are final.
  destination_cap: Status.THROTTLED,
  content_blocked: Status.SUBMITFAIL,
  sender_not_registered: Status.INVSRCADR,
};

export function refusalStatus(err: unknown): number | undefined {
  return err instanceof Refusal ? SMPP_REFUSALS[err.code] : undefined;
}
