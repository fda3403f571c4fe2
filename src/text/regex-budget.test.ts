import { describe, expect, it } from 'vitest';
import { redactUrlSecrets } from './url-secrets.js';
import { growthRatio } from '../../test/helpers/growth.js';
import { emailAddress } from '../http/fields.js';
import { isAccountEmail, isEmailAddress } from './email.js';
import { KEY_IN_URL } from '../auth/authenticate.js';
import { normaliseId } from '../carriers/smpp/receipts.js';
import { parseReceiptText } from '../smpp-protocol/receipt-text.js';
import { mediaUrlProblem } from '../features/chatapp/media.js';
import { renderScript, speakable } from '../features/voice/scripts.js';
import { isForbiddenAddress } from '../outbound/addresses.js';
import { cleanCountryCode, cleanNumber } from '../phone/numbers.js';
import { toGsm7 } from './gsm7.js';
import { isStorable } from './storable.js';
import { findUrls } from './urls.js';
import { csvCell } from './csv-cell.js';

/**
 * Every regular expression that reads what a client, a carrier, a provider's
 * webhook or an import sends, with an unbounded quantifier, fed the worst
 * input for its shape: the time must grow linearly with the input. The
 * others in src/ are anchored with bounded quantifiers (`^\d{10}$`, the
 * UUID, token and key shapes), single character classes (escaping, the
 * storable check), or only see the service's own text (codes, routes,
 * words, configuration).
 */
const dots = (n: number) => '.'.repeat(n);
const PATTERNS: Array<[string, (input: string) => unknown, (n: number) => string]> = [
  ['email format (sub-accounts, payment requests, contacts, accounts)', isEmailAddress, (n) => `a@${dots(n - 3)}@`],
  ["email of the operator's CLI and panel", isAccountEmail, (n) => `a@${dots(n - 3)} `],
  [
    'email field (its length aborts)',
    (s) => emailAddress({ max: 70, tooLong: 'long', invalid: 'bad' }).safeParse(s),
    (n) => `a@${dots(n - 3)}@`,
  ],
  ['URLs in a message (shorten_url)', findUrls, (n) => `www.${dots(n - 5)}a`],
  [
    'company in a voice script',
    (s) => renderScript({ template: 'k', company: s, voiceMessage: 'hola' }),
    (n) => `a${dots(n - 2)}a`,
  ],
  ['speakable voice text', speakable, (n) => ' !'.repeat(n / 2)],
  ['GSM-7 transliteration', toGsm7, (n) => 'a\u0301'.repeat(n / 2)],
  ['storable text', isStorable, (n) => '\u{1F600}'.repeat(n / 2)],
  ['API key in the URL', (s) => KEY_IN_URL.test(s), (n) => '?apikey'.repeat(n / 7)],
  ['SMPP receipt text', parseReceiptText, (n) => `id:${' '.repeat(n - 3)}`],
  ['SMPP message id', normaliseId, (n) => '0'.repeat(n)],
  ['webhook destination address', isForbiddenAddress, (n) => `${'%'.repeat(n - 1)}\n`],
  ['chat-app media URL', (s) => mediaUrlProblem('image', s), (n) => `https://a${'.local'.repeat(n / 6)}x/a.png`],
  ['phone number', cleanNumber, (n) => `${' -'.repeat(n / 2)}1`],
  ['country code', cleanCountryCode, (n) => `${' '.repeat(n - 2)}52`],
  ['CSV export cell', csvCell, (n) => `${' '.repeat(n - 1)}x`],
  ['secrets in URLs of audit texts', redactUrlSecrets, (n) => `ab://u:p@h/?${'token=x&'.repeat(n / 8)}`],
  ['URLs in audit texts', redactUrlSecrets, (n) => 'ab://'.repeat(n / 5)],
];

describe('regular expressions on outside input take linear time', () => {
  it.each(PATTERNS)(
    '%s',
    async (_name, run, worst) => {
      // About 1 when linear; about 10 when quadratic.
      expect(await growthRatio(run, worst)).toBeLessThan(3);
    },
    120_000,
  );
});

describe('the shared email check', () => {
  it.each([
    ['ana@example.com', true],
    ['ana.maria+pagos@mail.example.mx', true],
    ['a@b.c', true],
    ['josé@ejemplo.mx', true],
    ['ana.example.com', false],
    ['@example.com', false],
    ['ana@', false],
    ['ana@example', false],
    ['ana@.com', false],
    ['ana@example.', false],
    ['ana@@example.com', false],
    ['ana@exa@mple.com', false],
    ['ana @example.com', false],
    ['ana@exam\tple.com', false],
    ['ana\u0007@example.com', false],
  ])('%s → %s', (text, valid) => expect(isEmailAddress(text)).toBe(valid));

  it('answers the length code alone for an over-long value', () => {
    const field = emailAddress({ max: 70, tooLong: 'long', invalid: 'bad' });
    expect(field.safeParse(`a@${'.'.repeat(100)}@`).error?.issues.map((i) => i.message)).toEqual(['long']);
    expect(field.safeParse(`${'ñ'.repeat(60)}@example.com`).error?.issues.map((i) => i.message)).toEqual(['long']);
    expect(field.safeParse(`${'😀'.repeat(30)}@example.mx`).success).toBe(true);
    expect(field.safeParse('a@b').error?.issues.map((i) => i.message)).toEqual(['bad']);
  });

  it("takes up to 320 characters for an operator's account", () => {
    expect(isAccountEmail(`${'a'.repeat(308)}@example.com`)).toBe(true);
    expect(isAccountEmail(`${'a'.repeat(309)}@example.com`)).toBe(false);
  });
});
