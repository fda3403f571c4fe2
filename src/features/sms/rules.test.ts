import { describe, expect, it } from 'vitest';
import { checkLength, composeText, parseExtraParams } from './rules.js';
import { asHttpError } from './refusals.js';
import { acceptRecipients as parseRecipients } from '../../messaging/accept.js';
import { parseSendDate } from '../../messaging/schedule.js';
import { formatLocal } from '../../lib/time.js';
import { channelNumbers } from '../../phone/accepted.js';

const numbers = channelNumbers({ SMS_COUNTRY_CODES: '52,1,57', NANP_ALLOWED_REGIONS: 'US,CA' }, 'sms');
const rules = { findCountryCode: false, countryCode: '52', numbers };
const code = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    // The code HTTP answers with, for the send path's refusals as for the rules of this file.
    return (asHttpError(err) as { code: string }).code;
  }
};

describe('parseRecipients', () => {
  it.each([
    ['5512345678', false, '52', 'ok'],
    [' 5512345678 , 3312345678 ', false, '52', 'ok'],
    ['', false, '52', 'sms_03'],
    ['5512345678', false, '', 'sms_05'],
    ['5512345678', false, '34', 'sms_18'],
    ['551234567', false, '52', 'sms_04'],
    ['55123456789', false, '52', 'sms_04'],
    ['55 12345678', false, '52', 'ok'],
    ['55/1234/5678', false, '52', 'sms_04'],
    ['+525512345678', true, '52', 'ok'],
    ['+525512345678', false, '34', 'sms_18'],
    ['+52 55 1234 5678', false, '+52', 'ok'],
    ['5512345678', false, '052', 'ok'],
    ['5512345678', true, '52', 'sms_04'],
    ['525512345678', true, '', 'ok'],
    ['15512345678', true, '52', 'ok'],
    ['34612345678', true, '52', 'sms_18'],
    ['1112345678', false, '52', 'sms_24'],
    ['8001234567', false, '52', 'sms_24'],
    ['1112345678', false, '1', 'sms_24'],
    ['2125551234', false, '1', 'ok'],
    ['4165551234', false, '1', 'ok'],
    ['8762101234', false, '1', 'sms_24'],
    ['+18092345678', false, '52', 'sms_24'],
    ['19002345678', true, '52', 'sms_24'],
    ['18005551234', true, '52', 'sms_24'],
    ['9001234567', false, '52', 'sms_24'],
    ['573001234567', true, '52', 'ok'],
    ['5550000012', false, '52', 'ok'],
    ['5512345678,5512345678', false, '52', 'sms_16'],
    ['525512345678,5512345678', false, '52', 'sms_04'],
  ])('%j (find_country_code %s, country_code %j) → %s', (raw, find, cc, expected) => {
    expect(code(() => parseRecipients(raw, { ...rules, findCountryCode: find, countryCode: cc }))).toBe(expected);
  });

  it('counts before anything else: 501 numbers is sms_15 even when malformed', () => {
    expect(code(() => parseRecipients(Array(501).fill('x').join(','), rules))).toBe('sms_15');
    expect(
      parseRecipients(Array.from({ length: 500 }, (_, i) => String(5510000000 + i)).join(','), rules),
    ).toHaveLength(500);
  });

  it('gives each recipient its country code and full number', () => {
    expect(parseRecipients('525512345678,12025550123', { ...rules, findCountryCode: true })).toEqual([
      { countryCode: '52', number: '525512345678' },
      { countryCode: '1', number: '12025550123' },
    ]);
  });
});

describe('composeText and checkLength', () => {
  it.each([
    ['Canción “hoy”', null, 'Cancion "hoy"'],
    ['Ver https://á.example/ñ?a=1 ya', 'http://s.mx/s/abc', 'Ver http://s.mx/s/abc ya'],
  ])('%s → %s', (message, link, text) => expect(composeText(message, link).text).toBe(text));

  it.each([
    ['', null, 'sms_01'],
    ['\u200b', null, 'sms_01'],
    ['sin url', 'http://s/x', 'sms_29'],
    ['http://a.mx http://b.mx', 'http://s/x', 'sms_31'],
    ['x'.repeat(2001), null, 'sms_02'],
  ])('%j → %s', (message, link, expected) => expect(code(() => composeText(message, link))).toBe(expected));

  it('keeps the URL to redirect to as written, normalised', () => {
    expect(composeText('Ver www.á.mx/ñ.', 'L').shortenedUrl).toBe('https://www.xn--1ca.mx/%C3%B1'); // normalised: a valid Location header
  });

  it.each([
    ['x'.repeat(160), 'ok'],
    ['x'.repeat(161), 'sms_02'],
    ['€'.repeat(80), 'ok'],
    ['€'.repeat(80) + 'x', 'sms_02'],
  ])('length of %s → %s', (text, expected) => expect(code(() => checkLength(text))).toBe(expected));
});

describe('parseExtraParams', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['{"a":"1"}', '{"a":"1"}'],
    ['{"a":1,"b":true,"c":"x"}', '{"a":1,"b":true,"c":"x"}'],
    [{ order: '7' }, '{"order":"7"}'],
  ])('%j → %j', (input, output) => expect(parseExtraParams(input)).toBe(output));

  it.each([
    ['nope'],
    ['[]'],
    ['"text"'],
    ['null'],
    ['{"a":"1","b":"2","c":"3","d":"4"}'],
    ['{"":"x"}'],
    ['{"a":""}'],
    ['{"a":null}'],
    ['{"a":[1]}'],
    [JSON.stringify({ a: 'v'.repeat(256) })],
    [42],
  ])('refuses %j with sms_41', (input) => expect(code(() => parseExtraParams(input))).toBe('sms_41'));
});

describe('parseSendDate', () => {
  const now = Date.now();
  it.each([
    [formatLocal(now + 120_000), 'ok'],
    [formatLocal(now - 1000), 'sms_20'],
    ['2030-02-30 10:00:00', 'sms_21'],
    ['2030-01-01T10:00:00', 'sms_21'],
    ['2030-01-01 25:00:00', 'sms_21'],
  ])('%s → %s', (date, expected) => expect(code(() => parseSendDate(date, now))).toBe(expected));
  it('absent means now', () => expect(parseSendDate(undefined, now)).toBeNull());
});
