import { describe, expect, it } from 'vitest';
import { channelNumbers } from '../phone/accepted.js';
import { acceptedRequest, acceptRecipients, mayBeSender } from './accept.js';
import { Refusal, type RefusalCode } from './refusal.js';
import { parseSendDate } from './schedule.js';

const numbers = channelNumbers({ SMS_COUNTRY_CODES: '52,1,57', NANP_ALLOWED_REGIONS: 'US,CA' }, 'sms');
const rules = { findCountryCode: false, countryCode: '52', numbers };

/** The refusal `fn` throws: its code and details, or 'accepted'. */
function refusalOf(fn: () => unknown): { code: RefusalCode; details: object } | 'accepted' {
  try {
    fn();
    return 'accepted';
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
    return { code: err.code, details: err.details };
  }
}

describe('the acceptance step refuses with protocol-neutral codes', () => {
  it.each<[string, string, boolean, string, RefusalCode, object]>([
    ['no numbers', ' ', false, '52', 'no_numbers', {}],
    ['more than 500', Array(501).fill('5512345678').join(','), false, '52', 'too_many_numbers', {}],
    ['no country code', '5512345678', false, '', 'no_country_code', {}],
    ['a country code not served', '5512345678', false, '34', 'unsupported_country_code', {}],
    [
      'a number with a country code not served',
      '34612345678',
      true,
      '52',
      'unsupported_country_code',
      { number: '34612345678' },
    ],
    ['a malformed number', '55/1234/5678', false, '52', 'malformed_number', { number: '55/1234/5678' }],
    ['a number of the wrong length', '551234567', false, '52', 'malformed_number', { number: '551234567' }],
    ['a toll-free line', '8001234567', false, '52', 'unsupported_line', { number: '8001234567' }],
    ['a repeated number', '5512345678,5512345678', false, '52', 'repeated_number', { number: '5512345678' }],
  ])('%s', (_what, raw, findCountryCode, countryCode, code, details) => {
    expect(refusalOf(() => acceptRecipients(raw, { ...rules, findCountryCode, countryCode }))).toEqual({
      code,
      details,
    });
  });

  it('refuses a send date malformed or not in the future', () => {
    const now = Date.parse('2026-01-01T18:00:00Z');
    expect(refusalOf(() => parseSendDate('2026-13-01 00:00:00', now))).toEqual({ code: 'malformed_date', details: {} });
    expect(refusalOf(() => parseSendDate('2025-12-31 00:00:00', now))).toEqual({ code: 'past_date', details: {} });
  });

  it('accepts numbers with their country codes, and builds the request of the send', () => {
    const recipients = acceptRecipients('5512345678,+12025550123', rules);
    expect(recipients).toEqual([
      { countryCode: '52', number: '525512345678' },
      { countryCode: '1', number: '12025550123' },
    ]);
    expect(
      acceptedRequest(7, recipients, 'ACME', { channel: 'sms', text: 'hola', flash: false, scheduledAt: null }),
    ).toEqual({
      accountId: 7,
      source: 'sms',
      recipients,
      sender: 'ACME',
      channel: 'sms',
      text: 'hola',
      flash: false,
      scheduledAt: null,
      destinationCaps: null,
    });
  });

  it('looks up only a sender name that could be registered', () => {
    expect(mayBeSender('ACME')).toBe(true);
    expect(mayBeSender('525512345678')).toBe(true);
    expect(mayBeSender('A much longer name')).toBe(false);
  });
});
