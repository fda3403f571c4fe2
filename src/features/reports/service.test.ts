import { describe, expect, it } from 'vitest';
import { formatLocal } from '../../lib/time.js';
import { LocalTimeFormatter } from './local-time.js';
import { localDay, messageType, statusWord } from './service.js';

describe('report status word', () => {
  it.each([
    // The spec's delivery status codes (Events table), one row each.
    ['delivered', 0, 'delivered'],
    ['undelivered', 1, 'not delivered'],
    ['undelivered', 2, 'temporary disconnection'],
    ['undelivered', 3, 'expired'],
    ['undelivered', 4, 'rejected'],
    ['undelivered', 5, 'unknown'],
    ['undelivered', 6, 'unknown number'],
    ['undelivered', 7, 'incorrect format'],
    ['undelivered', 8, 'error'],
    ['undelivered', 9, 'phishing'],
    ['undelivered', 10, 'blacklist'],
    ['undelivered', 11, 'landline number'],
    ['undelivered', 12, 'country not contracted'],
    // Refused by the carrier at submission: code 4.
    ['refused', 4, 'rejected'],
    // No delivery code yet.
    ['scheduled', null, 'scheduled'],
    ['queued', null, 'queued'],
    ['sent', null, 'sent'],
    ['sandbox', null, 'sandbox'],
    ['undelivered', null, 'not delivered'],
    ['refused', null, 'rejected'],
    // A code outside the table falls back to the stage.
    ['undelivered', 99, 'not delivered'],
  ] as const)('%s with code %s is "%s"', (status, code, word) => {
    expect(statusWord(status, code)).toBe(word);
  });
});

describe('report type', () => {
  it.each([
    ['sms', 'sms', 'sms'],
    ['sms', 'rcs', 'rcs'],
    ['chatapp', 'chatapp', 'chatapp'],
    ['voice', 'voice', 'voice'],
    ['otp', 'sms', 'otp'],
    ['otp', 'voice', 'otp'],
    ['payment', 'sms', 'payment'],
  ])('source %s on channel %s is %s', (source, channel, type) => expect(messageType(source, channel)).toBe(type));
});

describe('report period days (America/Mexico_City)', () => {
  it('covers a whole local day', () => {
    // Since Mexico dropped DST (Oct 2022) the city is UTC-6 all year.
    expect(localDay('2026-03-10')).toEqual({ start: Date.UTC(2026, 2, 10, 6), end: Date.UTC(2026, 2, 11, 6) });
  });
  it('follows historical DST: 23 and 25 hour days', () => {
    const spring = localDay('2022-04-03')!;
    expect(spring.start).toBe(Date.UTC(2022, 3, 3, 6));
    expect((spring.end - spring.start) / 3_600_000).toBe(23);
    const autumn = localDay('2022-10-30')!;
    expect((autumn.end - autumn.start) / 3_600_000).toBe(25);
  });
  it.each([
    '',
    '2026-02-30',
    '2026-13-01',
    '2026-1-01',
    '20260101',
    '2026-01-01 10:00:00',
    '2026-01-01T00:00',
    'today',
    ' 2026-01-01x',
  ])('refuses %j', (text) => {
    expect(localDay(text)).toBeNull();
  });
  it('accepts leap days and far dates', () => {
    expect(localDay('2024-02-29')).not.toBeNull();
    expect(localDay('9999-12-31')).not.toBeNull();
  });
});

describe('LocalTimeFormatter', () => {
  it('matches formatLocal across years, hours and DST changes', () => {
    const f = new LocalTimeFormatter();
    const instants: number[] = [];
    // Every 7 minutes 13 seconds around the 2022 DST changes, and a spread over 20 years.
    for (let t = Date.UTC(2022, 3, 2); t < Date.UTC(2022, 3, 5); t += 433_000) instants.push(t);
    for (let t = Date.UTC(2022, 9, 29); t < Date.UTC(2022, 10, 1); t += 433_000) instants.push(t);
    for (let t = Date.UTC(2010, 0, 1); t < Date.UTC(2030, 0, 1); t += 86_400_000 * 3 + 3_599_999) instants.push(t);
    instants.push(Date.UTC(2026, 2, 11, 5, 30, 0, 999), 0, Date.now());
    for (const t of instants) expect(f.format(t)).toBe(formatLocal(t));
  });
});
