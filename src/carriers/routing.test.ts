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
