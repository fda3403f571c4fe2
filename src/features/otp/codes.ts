import { createHmac, randomInt } from 'node:crypto';
import { decrypt, encrypt, hmacHex, sameDigest } from '../../lib/secrets.js';

export type CodeFormat = 'numeric' | 'alphanumeric' | 'letters';

/**
 * Letters leave out I and O so that no code can be misread as 1 or 0.
 * Codes are upper case and checked case-insensitively.
 */
const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const ALPHABETS: Record<CodeFormat, string> = {
  numeric: '0123456789',
  letters: LETTERS,
  alphanumeric: '0123456789' + LETTERS,
};

/** A code from the CSPRNG, each character uniform over its alphabet. */
export function generateCode(format: CodeFormat, length: number): string {
  const alphabet = ALPHABETS[format];
  let code = '';
  for (let i = 0; i < length; i++) code += alphabet[randomInt(alphabet.length)];
  return code;
}

/** What the user typed, as it is compared: trimmed, upper case. */
export const normaliseCode = (input: string): string => input.trim().toUpperCase();

/** The stored form: HMAC under the OTP secret, bound to the verification so equal codes of two numbers differ. */
export const codeDigest = (key: Buffer, verificationId: number, code: string): string =>
  hmacHex(key, `${verificationId}:${normaliseCode(code)}`);

/** Constant-time check of a typed code against the stored digest. */
export const codeMatches = (key: Buffer, verificationId: number, typed: string, digest: string | null): boolean =>
  digest !== null && sameDigest(codeDigest(key, verificationId, typed), digest);

/** A key of its own for the resend copy, derived from the OTP secret (once per secret: every send seals). */
const sealingKeys = new WeakMap<Buffer, Buffer>();
const sealingKey = (key: Buffer): Buffer => {
  let derived = sealingKeys.get(key);
  if (!derived)
    sealingKeys.set(key, (derived = createHmac('sha256', key).update('mensajero/otp-resend-copy').digest()));
  return derived;
};

export const sealCode = (key: Buffer, code: string): string => encrypt(sealingKey(key), code);
export const unsealCode = (key: Buffer, sealed: string): string => decrypt(sealingKey(key), sealed);

/** The code as a voice reads it: one character at a time ("1, 2, 3, 4"). */
export const spokenCode = (code: string): string => [...code].join(', ');
