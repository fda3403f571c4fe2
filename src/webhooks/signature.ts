import { createHmac, randomBytes } from 'node:crypto';

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
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestampSec}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSec), 'webhook-signature': `v1,${signature}` };
}
