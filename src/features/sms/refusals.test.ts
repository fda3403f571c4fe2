import { describe, expect, it } from 'vitest';
import { ApiError } from '../../http/errors.js';
import { Refusal, REFUSAL_CODES, type RefusalCode } from '../../messaging/refusal.js';
import { asHttpError, httpRefusal } from './refusals.js';

/** docs/api/sms.md's status and code of each refusal of the send path. */
const DOCUMENTED: Record<RefusalCode, [number, string]> = {
  empty_text: [400, 'sms_01'],
  no_numbers: [400, 'sms_03'],
  malformed_number: [400, 'sms_04'],
  no_country_code: [400, 'sms_05'],
  insufficient_credits: [400, 'sms_07'],
  too_many_numbers: [400, 'sms_15'],
  repeated_number: [400, 'sms_16'],
  sandbox_limit: [429, 'sms_17'],
  unsupported_country_code: [400, 'sms_18'],
  past_date: [400, 'sms_20'],
  malformed_date: [400, 'sms_21'],
  unsupported_line: [400, 'sms_24'],
  sender_required: [400, 'sms_37'],
  sender_not_rcs: [400, 'sms_38'],
};

describe('HTTP answers of the send path refusals', () => {
  it.each(REFUSAL_CODES.map((code) => [code, ...DOCUMENTED[code]] as const))('%s → %i %s', (code, status, sms) => {
    const answer = httpRefusal(new Refusal(code));
    expect(answer).toBeInstanceOf(ApiError);
    expect([answer.status, answer.code]).toEqual([status, sms]);
    // Every code has its message: the answer never shows the bare code.
    expect(answer.message).not.toBe(sms);
  });

  it('answers with the refused number', () => {
    expect(httpRefusal(new Refusal('repeated_number', { number: '5512345678' })).body('r')).toEqual({
      success: false,
      message: 'A number is repeated',
      status: 400,
      code: 'sms_16',
      number: '5512345678',
    });
  });

  it('leaves any other error as it is', () => {
    const other = new Error('boom');
    expect(asHttpError(other)).toBe(other);
  });
});
