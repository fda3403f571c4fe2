import { describe, expect, it } from 'vitest';
import { ApiError } from '../http/errors.js';
import { Refusal, REFUSAL_CODES, type RefusalCode } from '../messaging/refusal.js';
import { Status } from '../smpp-protocol/status.js';
import { refusalStatus } from './refusals.js';

/** docs/operators/smpp-server.md's command_status of each refusal; undefined: a system error (0x08), logged. */
const DOCUMENTED: Record<RefusalCode, number | undefined> = {
  empty_text: 0x01,
  no_numbers: 0x0b,
  malformed_number: 0x0b,
  no_country_code: 0x0b,
  repeated_number: 0x0b,
  unsupported_country_code: 0x0b,
  unsupported_line: 0x0b,
  insufficient_credits: 0x45,
  daily_spend_limit: 0x45,
  past_date: 0x61,
  malformed_date: 0x61,
  destination_cap: 0x58,
  content_blocked: 0x45,
  sender_not_registered: 0x0a,
  // Not met by an SMPP send (one destination a submit_sm, 255 at most a submit_multi; SMS, never sandbox).
  too_many_numbers: undefined,
  sender_required: undefined,
  sender_not_rcs: undefined,
  sandbox_limit: undefined,
};

describe('SMPP answers of the send path refusals', () => {
  it.each(REFUSAL_CODES.map((code) => [code, DOCUMENTED[code]] as const))('%s → %s', (code, status) => {
    expect(refusalStatus(new Refusal(code))).toBe(status);
  });

  it('names the statuses of the SMPP 3.4 table', () => {
    expect([Status.INVMSGLEN, Status.INVDSTADR, Status.SUBMITFAIL, Status.INVSCHED]).toEqual([0x01, 0x0b, 0x45, 0x61]);
  });

  it('leaves an HTTP error or any other error to the system error', () => {
    expect(refusalStatus(new ApiError(400, 'sms_16'))).toBeUndefined();
    expect(refusalStatus(new Error('boom'))).toBeUndefined();
  });
});
