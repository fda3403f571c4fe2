import { OtpError } from './errors.js';

/**
 * The spec's OTP state table as pure functions: which state a row is in,
 * which transition a request makes, and what to suggest next.
 */
export type OtpState = 'none' | 'pending' | 'verified' | 'expired' | 'locked';

export const ATTEMPTS = 7;
export const DEFAULT_TTL_MS = 24 * 3600_000;
export const MAX_TTL_MS = 3 * 24 * 3600_000;

export const PATHS = {
  send: 'POST /v2/otp',
  rotate: 'POST /v2/otp with code_rotate=true',
  verify: 'POST /v2/otp/verify',
  status: 'GET /v2/otp/status',
  delete: 'DELETE /v2/otp',
} as const;

export interface StoredState {
  state: 'none' | 'pending' | 'verified' | 'locked';
  expires_at: number | null;
  last_sent_at: number | null;
}

/** A pending or locked round whose expiry has passed reads as expired. */
export function effectiveState(row: StoredState | undefined, now: number): OtpState {
  if (!row) return 'none';
  if ((row.state === 'pending' || row.state === 'locked') && (row.expires_at ?? 0) <= now) return 'expired';
  return row.state;
}

/** Seconds until a resend is allowed (0 when allowed): the cooldown runs from the last send of a pending code. */
export function resendAvailableIn(row: StoredState | undefined, now: number, cooldownSeconds: number): number {
  if (!row || effectiveState(row, now) !== 'pending' || row.last_sent_at === null) return 0;
  return Math.max(0, Math.ceil((row.last_sent_at + cooldownSeconds * 1000 - now) / 1000));
}

/** The paths that make sense in a state. */
export function nextFor(state: OtpState, resendIn = 0): string[] {
  switch (state) {
    case 'none':
    case 'expired':
      return [PATHS.send];
    case 'pending':
      return resendIn > 0 ? [PATHS.verify, PATHS.delete] : [PATHS.verify, PATHS.send, PATHS.delete];
    case 'verified':
      return [PATHS.send, PATHS.delete];
    case 'locked':
      return [PATHS.rotate, PATHS.delete];
  }
}

export function hintFor(state: OtpState, resendIn = 0): string {
  switch (state) {
    case 'none':
      return 'No verification is active for this number: send a code with POST /v2/otp.';
    case 'expired':
      return 'The code expired: send a new one with POST /v2/otp.';
    case 'pending':
      return (
        'Ask the user for the code and check it with POST /v2/otp/verify before expires_at. ' +
        (resendIn > 0
          ? `A resend is possible in ${resendIn} s.`
          : 'POST /v2/otp resends the same code; with code_rotate=true it sends a new one.')
      );
    case 'verified':
      return 'The number is verified. POST /v2/otp starts a new verification when you need one.';
    case 'locked':
      return 'Too many wrong codes: send a new code with POST /v2/otp and code_rotate=true, or delete the verification.';
  }
}

export type CreateAction = 'created' | 'resent' | 'restarted';

export interface CreateDecision {
  action: CreateAction;
  status: 200 | 201;
  /** A new code (and 7 fresh attempts, a new expiry) or the pending code again. */
  newCode: boolean;
}

/** POST /v2/otp: the transition of the state table, or the error it answers. */
export function decideCreate(
  state: OtpState,
  rotate: boolean,
  resendIn: number,
  view: { expires_at: string | null; attempts_remaining: number | null },
): CreateDecision {
  switch (state) {
    case 'none':
    case 'expired':
      return { action: 'created', status: 201, newCode: true };
    case 'verified':
      return { action: 'restarted', status: 201, newCode: true };
    case 'locked':
      if (rotate) return { action: 'restarted', status: 200, newCode: true };
      throw maxAttempts(view.expires_at);
    case 'pending':
      if (resendIn > 0) {
        throw new OtpError(
          429,
          'otp_throttled',
          {
            state,
            hint: `Wait ${resendIn} s before sending again; meanwhile the code already sent can be verified.`,
            next: [PATHS.verify, PATHS.status],
            expires_at: view.expires_at,
            attempts_remaining: view.attempts_remaining,
            resend_available_in: resendIn,
          },
          undefined,
          { 'Retry-After': String(resendIn) },
        );
      }
      return rotate
        ? { action: 'restarted', status: 200, newCode: true }
        : { action: 'resent', status: 200, newCode: false };
  }
}

export function maxAttempts(expiresAt: string | null): OtpError {
  return new OtpError(429, 'otp_max_attempts', {
    state: 'locked',
    hint: 'The 7 attempts of this code are used up. Send a new code with POST /v2/otp and code_rotate=true.',
    next: [PATHS.rotate, PATHS.delete],
    expires_at: expiresAt,
    attempts_remaining: 0,
  });
}

/** POST /v2/otp/verify in a state other than pending. */
export function verifyRefusal(state: Exclude<OtpState, 'pending'>, expiresAt: string | null): OtpError {
  switch (state) {
    case 'none':
      return new OtpError(404, 'otp_not_found', {
        state,
        hint: 'No code is active for this number: send one with POST /v2/otp first.',
        next: [PATHS.send],
      });
    case 'verified':
      return new OtpError(409, 'otp_already_verified', {
        state,
        hint: 'This number was already verified with its code. POST /v2/otp starts a new verification.',
        next: [PATHS.send],
      });
    case 'expired':
      return new OtpError(410, 'otp_code_expired', {
        state,
        hint: 'The code expired: send a new one with POST /v2/otp.',
        next: [PATHS.send],
        expires_at: expiresAt,
      });
    case 'locked':
      return maxAttempts(expiresAt);
  }
}

/** The expiry of a new code: the requested date (at most 3 days ahead) or 24 h. Throws for a past date. */
export function expiryFor(
  requested: number | undefined,
  now: number,
  path: string,
): { expiresAt: number; reduced: boolean } {
  if (requested === undefined) return { expiresAt: now + DEFAULT_TTL_MS, reduced: false };
  if (requested <= now) {
    throw new OtpError(400, 'otp_invalid_param', {
      hint: 'expiration_date must be in the future (YYYY-MM-DD HH:mm:ss, Mexico City time).',
      next: [path],
      field: 'expiration_date',
    });
  }
  return requested > now + MAX_TTL_MS
    ? { expiresAt: now + MAX_TTL_MS, reduced: true }
    : { expiresAt: requested, reduced: false };
}
