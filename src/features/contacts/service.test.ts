import { describe, expect, it } from 'vitest';
import { birthday, normalizeNumber } from './service.js';

describe('normalizeNumber', () => {
  it.each([
    // raw, country code, find, expected
    ['5512345678', '52', false, { countryCode: '52', number: '525512345678' }],
    ['5512345678', '1', false, { countryCode: '1', number: '15512345678' }],
    ['5512345678', '+52', false, { countryCode: '52', number: '525512345678' }],
    [' 5512345678 ', '52', false, { countryCode: '52', number: '525512345678' }],
    ['525512345678', '52', false, { countryCode: '52', number: '525512345678' }],
    ['125512345678', '52', false, null],
    ['551234567', '52', false, null],
    ['55-1234-5678', '52', false, { countryCode: '52', number: '525512345678' }],
    ['+52 55 1234 5678', '1', false, { countryCode: '52', number: '525512345678' }],
    ['5512345678', '0052', false, { countryCode: '52', number: '525512345678' }],
    ['55/1234/5678', '52', false, null],
    ['5512345678', '5a', false, null],
    ['5512345678', '1234', false, null],
    ['5512345678', '52', true, { countryCode: '52', number: '525512345678' }],
    ['525512345678', '1', true, { countryCode: '52', number: '525512345678' }],
    ['447911123456', '52', true, { countryCode: '44', number: '447911123456' }],
    ['34612345678', '52', true, { countryCode: '34', number: '34612345678' }],
    ['15551234567', '52', true, { countryCode: '1', number: '15551234567' }],
    ['99912345678', '52', true, null],
    ['1234567890123456', '52', true, null],
  ] as const)('%s with country code %s (find %s)', (raw, cc, find, expected) => {
    expect(normalizeNumber(raw, cc, find)).toEqual(expected);
  });
});

describe('birthday', () => {
  it.each([
    ['1990-05-17', '1990-05-17'],
    ['2000-02-29', '2000-02-29'],
    ['1999-02-29', undefined],
    ['17/05/1990', undefined],
    ['1990-5-17', undefined],
    ['1990-05-17 10:00:00', undefined],
    [undefined, undefined],
  ])('%s → %s', (input, expected) => {
    expect(birthday(input)).toBe(expected);
  });
});
