import { ApiError } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { Refusal, type RefusalCode } from '../../messaging/refusal.js';
// The messages of the sms_XX codes (the rules of /sms/send's text are there too).
import './rules.js';

defineMessages({
  sms_07: 'Insufficient credits: nothing was sent and nothing was charged',
  sms_17: 'Daily sandbox limit exceeded: an account may send 1000 sandbox messages per day (Mexico City time)',
});

/**
 * The HTTP answer of each refusal of the send path (messaging/refusal.ts): the status and the /sms/send code
 * (docs/api/sms.md) that every HTTP front end answers with (the API, the panel, the OTP endpoints).
 */
export const HTTP_REFUSALS: Record<RefusalCode, { status: number; code: string }> = {
  empty_text: { status: 400, code: 'sms_01' },
  no_numbers: { status: 400, code: 'sms_03' },
  malformed_number: { status: 400, code: 'sms_04' },
  no_country_code: { status: 400, code: 'sms_05' },
  insufficient_credits: { status: 400, code: 'sms_07' },
  too_many_numbers: { status: 400, code: 'sms_15' },
  repeated_number: { status: 400, code: 'sms_16' },
  sandbox_limit: { status: 429, code: 'sms_17' },
  unsupported_country_code: { status: 400, code: 'sms_18' },
  past_date: { status: 400, code: 'sms_20' },
  malformed_date: { status: 400, code: 'sms_21' },
  unsupported_line: { status: 400, code: 'sms_24' },
  sender_required: { status: 400, code: 'sms_37' },
  sender_not_rcs: { status: 400, code: 'sms_38' },
};

/** A refusal as the ApiError HTTP answers it with; its details (the number) are fields of the answer. */
export function httpRefusal(refusal: Refusal): ApiError {
  const { status, code } = HTTP_REFUSALS[refusal.code];
  return new ApiError(status, code, undefined, { ...refusal.details });
}

/** An error as HTTP answers it: a refusal of the send path becomes its ApiError, anything else is left as it is. */
export const asHttpError = <E>(error: E): E | ApiError => (error instanceof Refusal ? httpRefusal(error) : error);
