import { describe, expect, it } from 'vitest';
import { pickRoute, type RouteEntry } from './routing.js';

const routes: RouteEntry[] = [
  { channel: 'sms', prefix: '', accountId: 0, carriers: ['simulator'] },
  { channel: 'sms', prefix: '52', accountId: 0, carriers: ['A', 'B'] },
  { channel: 'sms', prefix: '5255', accountId: 0, carriers: ['C'] },
  { channel: 'sms', prefix: '57', accountId: 7, carriers: ['own'] },
  { channel: 'voice', prefix: '1', accountId: 0, carriers: ['V'] },
];

describe('pickRoute', () => {
  it.each([
    ['sms', '525512345678', undefined, ['C']],
    ['sms', '523312345678', undefined, ['A', 'B']],
    ['sms', '15551234567', undefined, ['simulator']],
    ['sms', '573001234567', 7, ['own']],
    ['sms', '573001234567', 8, ['simulator']],
    ['sms', '525512345678', 7, ['C']],
    ['voice', '15551234567', undefined, ['V']],
    ['voice', '525512345678', undefined, null],
    ['chatapp', '525512345678', 1, null],
  ] as const)('%s to %s (account %s) → %j', (channel, number, account, carriers) => {
    expect(pickRoute(routes, channel, number, account)).toEqual(carriers);
  });
});

describe('matchRoute over an index', () => {
  it('keeps the first of two routes with the same prefix, and reads a new list afresh', () => {
    const first = { channel: 'sms', prefix: '5255', accountId: 0, carriers: ['first'] };
    const list = [first, { ...first, carriers: ['second'] }];
    expect(pickRoute(list, 'sms', '525512345678', undefined)).toEqual(['first']);
    const next = [{ ...first, prefix: '525512', carriers: ['longer'] }, ...list];
    expect(pickRoute(next, 'sms', '525512345678', undefined)).toEqual(['longer']);
    expect(pickRoute(list, 'sms', '525512345678', undefined)).toEqual(['first']);
  });

  it('finds the longest of ten thousand prefixes, an account own routes first', () => {
    const many: RouteEntry[] = Array.from({ length: 10_000 }, (_, i) => ({
      channel: 'sms',
      prefix: `52${String(i).padStart(4, '0')}`,
      accountId: i % 2,
      carriers: [`c${i}`],
    }));
    expect(pickRoute(many, 'sms', '520042123456', undefined)).toEqual(['c42']);
    expect(pickRoute(many, 'sms', '520043123456', undefined)).toBeNull();
    expect(pickRoute(many, 'sms', '520043123456', 1)).toEqual(['c43']);
    expect(
      pickRoute([...many, { channel: 'sms', prefix: '', accountId: 0, carriers: ['any'] }], 'sms', '520043123456', 3),
    ).toEqual(['any']);
  });
});
