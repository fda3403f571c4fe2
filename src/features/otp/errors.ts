import { ApiError } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';

/** The error slugs of the OTP endpoints: the spec's table plus the abuse-protection ones. */
export type OtpErrorSlug =
  | 'otp_missing_param'
  | 'otp_invalid_param'
  | 'otp_invalid_channel'
  | 'otp_message_invalid'
  | 'otp_incorrect_code'
  | 'otp_insufficient_credits'
  | 'otp_not_found'
  | 'otp_already_verified'
  | 'otp_code_expired'
  | 'otp_throttled'
  | 'otp_max_attempts'
  | 'otp_internal'
  | 'otp_send_failed'
  | 'otp_country_blocked'
  | 'otp_rate_limited'
  | 'otp_country_unsupported'
  | 'otp_number_unsupported'
  | 'otp_lock_cooldown'
  | 'otp_daily_limit'
  | 'otp_prefix_blocked'
  | 'otp_spend_limit';

const MESSAGES: Record<OtpErrorSlug, string> = {
  otp_missing_param: 'A required parameter is missing',
  otp_invalid_param: 'A parameter is invalid or does not apply',
  otp_invalid_channel: 'The channel must be sms, chatapp or voice',
  otp_message_invalid: 'The message is not valid',
  otp_incorrect_code: 'The code is not correct',
  otp_insufficient_credits: 'Not enough credits to send the code',
  otp_not_found: 'There is no active verification for this number',
  otp_already_verified: 'This number is already verified',
  otp_code_expired: 'The code has expired',
  otp_throttled: 'A code was sent moments ago: wait before sending again',
  otp_max_attempts: 'Too many wrong codes: this verification is locked',
  otp_internal: 'Internal error: quote request_id to support',
  otp_send_failed: 'The code could not be delivered on this channel',
  otp_country_blocked: 'This account does not send verification codes to this country',
  otp_rate_limited: 'Too many new codes for this number in the last hour',
  otp_country_unsupported: 'This service does not send to this country code on this channel',
  otp_number_unsupported: 'This service does not send codes to this number: not a mobile or geographic line it serves',
  otp_lock_cooldown:
    'The last code for this number was locked after too many wrong codes: wait before sending a new one',
  otp_daily_limit: 'Too many codes for this number today',
  otp_prefix_blocked: 'Codes to this number range are paused: too few recent codes there were verified',
  otp_spend_limit: 'The daily spending limit is reached: no code was sent and nothing was charged',
};
defineMessages(MESSAGES);

export interface OtpErrorFields {
  state?: string;
  hint: string;
  next: string[];
  expires_at?: string | null;
  attempts_remaining?: number | null;
  resend_available_in?: number;
  /** Only the insufficient-credits and spending-limit errors: the common layer's code (sms_07, sms_44). */
  code?: string;
  field?: string;
}

/**
 * An error of the OTP endpoints, rendered in their own envelope: success
 * false, state, error, message, hint, next, optional fields, request_id.
 */
export class OtpError extends ApiError {
  constructor(
    status: number,
    readonly slug: OtpErrorSlug,
    readonly fields: OtpErrorFields,
    message?: string,
    headers: Record<string, string> = {},
  ) {
    super(status, slug, message ?? MESSAGES[slug], {}, headers);
    this.name = 'OtpError';
  }

  override body(requestId: string): Record<string, unknown> {
    const { state, hint, next, ...optional } = this.fields;
    return {
      success: false,
      ...(state ? { state } : {}),
      error: this.slug,
      message: this.message,
      hint,
      next,
      ...optional,
      request_id: requestId,
    };
  }
}
