import { expect, it } from 'vitest';
import { subaccountEmailKey } from '../accounts/subaccount-email.js';
import { isEmailAddress, normalEmail } from './email.js';

it('stores one form of an address: NFKC, trimmed, lower case (NFC/NFD, full-width)', () => {
  expect(normalEmail(' JOSE\u0301@Example.com ')).toBe('jos\u00e9@example.com');
  expect(normalEmail('\uff53\uff48\uff4f\uff50@example.com')).toBe('shop@example.com');
  expect(subaccountEmailKey(5, 'jose\u0301@x.com')).toBe(subaccountEmailKey(5, 'JOS\u00c9@x.com'));
});

it('refuses invisible formatting characters in an address (zero-width, bidi overrides)', () => {
  for (const c of ['\u200b', '\u200d', '\u2060', '\u202e', '\u2066', '\ufeff'])
    expect(isEmailAddress(`ad${c}min@example.com`), JSON.stringify(c)).toBe(false);
  expect(isEmailAddress('jos\u00e9@example.com')).toBe(true);
});
