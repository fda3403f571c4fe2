import { describe, expect, it } from 'vitest';
import { splitCountryCode } from './numbers.js';

describe('splitCountryCode', () => {
  it.each([
    ['525512345678', '52', '5512345678'],
    ['12025550123', '1', '2025550123'],
    ['34612345678', '34', '612345678'],
    ['573001234567', '57', '3001234567'],
  ])('%s → %s + %s', (digits, cc, national) => expect(splitCountryCode(digits)).toEqual({ countryCode: cc, national }));

  it.each(['', 'abc', '123', '0005512345678'])('refuses %j', (digits) => expect(splitCountryCode(digits)).toBeNull());
});
