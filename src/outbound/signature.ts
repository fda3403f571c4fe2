import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is
 * `whsec_` + base64 of 32 random bytes; each delivery carries `webhook-id`,
 * `webhook-timestamp` (seconds) and `webhook-signature` = `v1,` + base64
 * HMAC-SHA256 over `id.timestamp.body` keyed by the secret's bytes.
 * The signed body is what travels: the form body of a POST, the query string
 * (without `?`) of a GET.
 */
export const generateWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export function signatureHeaders(
  secret: string,
  id: string,
  timestampSec: number,
  body: string,
): Record<string, string> {
  const signature = createHmac('sha256', signingKey(secret)).update(`${id}.${timestampSec}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSec), 'webhook-signature': `v1,${signature}` };
}

/** Keys by secret, decoded once: a delivery signs every attempt with its account's secret. */
const keys = new Map<string, KeyObject>();
function signingKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));
    if (keys.size >= 1000) keys.delete(keys.keys().next().value!);
    keys.set(secret, key);
  }
  return key;
}
