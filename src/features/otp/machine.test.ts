import { describe, expect, it } from 'vitest';
import { OtpError } from './errors.js';
import { decideCreate, effectiveState, expiryFor, MAX_TTL_MS, resendAvailableIn, type OtpState } from './machine.js';

const view = { expires_at: null, attempts_remaining: 7 };
const outcome = (state: OtpState, rotate: boolean, resendIn: number) => {
  try {
    const d = decideCreate(state, rotate, resendIn, view);
    return `${d.status} ${d.action}${d.newCode ? ' new code' : ' same code'}`;
  } catch (err) {
    return `${(err as OtpError).status} ${(err as OtpError).slug}`;
  }
};

describe('OTP state table: POST /v2/otp', () => {
  it.each([
    ['none', false, 0, '201 created new code'],
    ['expired', true, 0, '201 created new code'],
    ['pending', false, 0, '200 resent same code'],
    ['pending', true, 0, '200 restarted new code'],
    ['pending', false, 12, '429 otp_throttled'],
    ['pending', true, 12, '429 otp_throttled'],
    ['verified', false, 0, '201 restarted new code'],
    ['verified', true, 0, '201 restarted new code'],
    ['locked', true, 0, '200 restarted new code'],
    ['locked', false, 0, '429 otp_max_attempts'],
  ] as const)('%s, code_rotate %s, cooldown %i s → %s', (state, rotate, resendIn, expected) => {
    expect(outcome(state, rotate, resendIn)).toBe(expected);
  });
});

describe('derived state and timing', () => {
  const now = 1_000_000_000_000;
  it.each([
    [undefined, 'none'],
    [{ state: 'none', expires_at: null, last_sent_at: null }, 'none'],
    [{ state: 'pending', expires_at: now + 1, last_sent_at: now }, 'pending'],
    [{ state: 'pending', expires_at: now, last_sent_at: now }, 'expired'],
    [{ state: 'locked', expires_at: now - 1, last_sent_at: now }, 'expired'],
    [{ state: 'locked', expires_at: now + 1, last_sent_at: now }, 'locked'],
    [{ state: 'verified', expires_at: now - 1, last_sent_at: now }, 'verified'],
  ] as const)('%j reads as %s', (row, state) => expect(effectiveState(row, now)).toBe(state));

  it('counts the cooldown from the last send of a pending code, rounding up', () => {
    const row = { state: 'pending' as const, expires_at: now + 3600_000, last_sent_at: now - 10_500 };
    expect(resendAvailableIn(row, now, 30)).toBe(20);
    expect(resendAvailableIn(row, now, 10)).toBe(0);
    expect(resendAvailableIn({ ...row, state: 'locked' }, now, 30)).toBe(0);
  });

  it('keeps a future expiry, reduces one beyond 3 days, refuses a past one', () => {
    expect(expiryFor(undefined, now, 'p')).toEqual({ expiresAt: now + 24 * 3600_000, reduced: false });
    expect(expiryFor(now + 5000, now, 'p')).toEqual({ expiresAt: now + 5000, reduced: false });
    expect(expiryFor(now + MAX_TTL_MS + 1, now, 'p')).toEqual({ expiresAt: now + MAX_TTL_MS, reduced: true });
    expect(() => expiryFor(now, now, 'p')).toThrow(OtpError);
  });
});
