import { describe, expect, it } from 'vitest';
import { formatCompact, formatLocal, formatLocalDate, parseLocal } from './time.js';

describe('Mexico City wall time', () => {
  it.each([
    // Mexico City has had no daylight saving time since 2022 (UTC-6 all year).
    ['2025-07-01 12:00:00', Date.UTC(2025, 6, 1, 18, 0, 0)],
    ['2025-01-15 00:00:00', Date.UTC(2025, 0, 15, 6, 0, 0)],
    // Before 2023 it had summer time (UTC-5).
    ['2021-07-01 12:00:00', Date.UTC(2021, 6, 1, 17, 0, 0)],
    ['2024-02-29 23:59:59', Date.UTC(2024, 2, 1, 5, 59, 59)],
    ['2024-03-05', Date.UTC(2024, 2, 5, 6, 0, 0)],
  ])('parses %s', (text, ms) => {
    expect(parseLocal(text)).toBe(ms);
    expect(formatLocal(ms)).toBe(text.length === 10 ? `${text} 00:00:00` : text);
  });

  it.each([
    '2025-02-29 10:00:00',
    '2025-13-01 00:00:00',
    '2025-01-01 24:00:00',
    '2025-01-01 10:60:00',
    '2025-1-1 10:00:00',
    '',
    'mañana',
  ])('refuses %j', (text) => expect(parseLocal(text)).toBeNull());

  it('keeps years before 100 as written', () => {
    const ms = parseLocal('0050-06-01 00:00:00')!;
    expect(new Date(ms).getUTCFullYear()).toBe(50);
  });

  it('formats compact times and dates for events and reports', () => {
    const ms = Date.UTC(2025, 6, 1, 18, 4, 5);
    expect(formatCompact(ms)).toBe('20250701120405');
    expect(formatLocalDate(ms)).toBe('2025-07-01');
  });

  it('formats many different seconds in turn, each as its own wall time', () => {
    // More distinct seconds than the formatter remembers, each visited twice; Mexico City is UTC-6 all year since 2022.
    const base = Date.UTC(2026, 0, 15, 18, 0, 0);
    const expected = (ms: number) => new Date(ms - 6 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
    for (let pass = 0; pass < 2; pass++)
      for (let i = 0; i < 150; i++) {
        const ms = base + i * 61_000 + (pass === 0 ? 0 : 999);
        expect(formatLocal(ms)).toBe(expected(ms));
      }
  });
});
