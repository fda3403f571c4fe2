import {
  createCipheriv,
  createDecipheriv,
  hkdfSync,
  randomBytes,
  createHash,
  createHmac,
  timingSafeEqual,
} from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The server secret: MENSAJERO_SECRET (64 hex characters or base64 of 32 bytes),
 * or generated once into DATA_DIR/secret.key (mode 0600). Several processes
 * on one database must share it: set MENSAJERO_SECRET for them all.
 */
export function loadServerSecret(envSecret: string | undefined, dataDir: string): Buffer {
  const existing = readServerSecret(envSecret, dataDir);
  if (existing) return existing;
  const file = secretFile(dataDir);
  // Processes starting together on a fresh data directory must agree on one
  // secret: each writes its candidate aside and links it into place, which
  // only the first can do; the others then read the winner's.
  mkdirSync(dataDir, { recursive: true });
  const candidate = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(candidate, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  try {
    linkSync(candidate, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(candidate);
  }
  return readSecretFile(file)!;
}

/** The server secret when there is one yet (MENSAJERO_SECRET, else DATA_DIR/secret.key); creates nothing. */
export function readServerSecret(envSecret: string | undefined, dataDir: string): Buffer | undefined {
  if (envSecret) return parseSecret(envSecret);
  return readSecretFile(secretFile(dataDir));
}

export const secretFile = (dataDir: string): string => join(dataDir, 'secret.key');

/**
 * Strict: exactly 64 hex characters, or the canonical base64 of 32 bytes (44
 * characters, one `=`). Node's base64 decoder skips what it does not know, so
 * a loose check would take a typo'd or truncated secret as a different key.
 */
export function parseSecret(text: string): Buffer {
  if (/^[0-9a-f]{64}$/i.test(text)) return Buffer.from(text, 'hex');
  const buf = Buffer.from(text, 'base64');
  if (buf.length === 32 && buf.toString('base64') === text) return buf;
  throw new Error(
    'MENSAJERO_SECRET must be 32 bytes: 64 hex characters or the canonical base64 (44 characters ending in =)',
  );
}

function readSecretFile(file: string): Buffer | undefined {
  if (!existsSync(file)) return undefined;
  const secret = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  if (secret.length !== 32) throw new Error(`${file} does not hold a 32-byte secret (64 hex characters)`);
  return secret;
}

/** Independent keys derived from the server secret, one per purpose. */
export class Secrets {
  readonly keyEncryption: Buffer;
  readonly otpHmac: Buffer;
  readonly webhookEncryption: Buffer;
  readonly staffPasswordFingerprint: Buffer;
  readonly authToken: Buffer;
  readonly panelTotpEncryption: Buffer;
  readonly panelNotice: Buffer;

  constructor(master: Buffer) {
    const derive = (label: string) => Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), label, 32));
    this.keyEncryption = derive('mensajero/api-key-encryption');
    this.otpHmac = derive('mensajero/otp-hmac');
    this.webhookEncryption = derive('mensajero/webhook-secret-encryption');
    this.staffPasswordFingerprint = derive('mensajero/staff-password-fingerprint');
    this.authToken = derive('mensajero/legacy-auth-token');
    this.panelTotpEncryption = derive('mensajero/panel-totp-encryption');
    this.panelNotice = derive('mensajero/panel-notice');
  }
}

/** AES-256-GCM: iv(12) | tag(16) | ciphertext, base64. */
export function encrypt(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
}

export function decrypt(key: Buffer, sealed: string): string {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

export const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

export const hmacHex = (key: Buffer, value: string) => createHmac('sha256', key).update(value).digest('hex');

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
