import { describe, expect, it } from 'vitest';
import { isMexicanAreaCode, splitCountryCode } from './numbers.js';

describe('splitCountryCode', () => {
  it.each([
    ['525512345678', '52', '5512345678'],
    ['12025550123', '1', '2025550123'],
    ['34612345678', '34', '612345678'],
    ['573001234567', '57', '3001234567'],
  ])('%s → %s + %s', (digits, cc, national) => expect(splitCountryCode(digits)).toEqual({ countryCode: cc, national }));

  it.each(['', 'abc', '123', '0005512345678'])('refuses %j', (digits) => expect(splitCountryCode(digits)).toBeNull());
});

describe('isMexicanAreaCode', () => {
  it.each([
    ['5512345678', true],
    ['5550000006', true],
    ['3312345678', true],
    ['8112345678', true],
    ['2001234567', true],
    ['1112345678', false],
    ['6012345678', false],
    ['0012345678', false],
    ['8001234567', false],
    ['9001234567', false],
    ['551234567', false],
  ])('%s → %s', (national, valid) => expect(isMexicanAreaCode(national)).toBe(valid));
});
