import { randomBytes } from 'node:crypto';
import { decrypt, encrypt, sha256Hex } from '../lib/secrets.js';

/** A new API key: 32 random bytes, base64url, behind a recognisable prefix for secret scanners. */
export const generateApiKey = (): string => `mns_${randomBytes(32).toString('base64url')}`;

/** The lookup hash stored in api_keys.key_hash. */
export const apiKeyHash = (key: string): string => sha256Hex(key);

export const sealApiKey = (encryptionKey: Buffer, key: string): string => encrypt(encryptionKey, key);

export const openApiKey = (encryptionKey: Buffer, sealed: string): string => decrypt(encryptionKey, sealed);
