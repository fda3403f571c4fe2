import { describe, expect, it } from 'vitest';
import { receiptDate, smppTime } from './time.js';

describe('SMPP times', () => {
  const now = Date.UTC(2026, 0, 2, 12, 0, 0);

  it.each([
    ['', null],
    [undefined, null],
    ['260102180000000+', Date.UTC(2026, 0, 2, 18, 0, 0)],
    ['260102180000524+', Date.UTC(2026, 0, 2, 12, 0, 0, 500)],
    ['260102120000024-', Date.UTC(2026, 0, 2, 18, 0, 0)],
    ['000000013000000R', now + 90 * 60_000],
    ['260102180000000', 'invalid'],
    ['261302180000000+', 'invalid'],
    ['260102180000049+', 'invalid'],
  ])('%j → %s', (raw, ms) => {
    expect(smppTime(raw, now)).toBe(ms);
  });

  it('writes receipt dates as YYMMDDhhmm in Mexico City time', () => {
    expect(receiptDate(Date.UTC(2026, 0, 2, 18, 30))).toBe('2601021230');
  });
});
