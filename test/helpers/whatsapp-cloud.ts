import { createHmac, randomBytes } from 'node:crypto';
import { startHttpServer } from './http-server.js';

/**
 * A local stand-in for the WhatsApp Business Cloud API, following Meta's
 * published formats:
 * - POST /{version}/{phone-number-id}/messages with `Authorization: Bearer`
 *   answers `{messaging_product, contacts:[{input, wa_id}], messages:[{id}]}`
 *   (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages),
 *   errors as `{error:{message, type, code, error_subcode, fbtrace_id}}` with
 *   the codes of .../cloud-api/support/error-codes;
 * - webhooks as `{object:'whatsapp_business_account', entry:[{id, changes:[{field:'messages', value:{messaging_product, metadata, statuses|messages}}]}]}`
 *   signed with `X-Hub-Signature-256: sha256=HMAC-SHA256(app secret, body)`
 *   (.../cloud-api/webhooks/components, .../graph-api/webhooks/getting-started).
 */
/**
 * JSON as Meta's webhooks write it: every character outside ASCII as a \uXXXX escape (an emoji
 * as two) and "/" as "\/", so a message's body weighs up to 6 bytes per character (the reason
 * signatures must be checked on the raw bytes, never on JSON re-encoded).
 */
const metaJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/\//g, '\\/');

export async function startWhatsappCloud(opts: { accessToken: string; appSecret: string; phoneNumberId: string }) {
  /** Answers queued for the next sends: a Graph error code with its HTTP status. */
  const failures: Array<{ http: number; code: number; message: string }> = [];
  /** Run with each accepted message's id before the send is answered (a status webhook overtaking the answer). */
  const before: { answer: ((id: string, to: string) => Promise<void>) | null } = { answer: null };
  const server = await startHttpServer(async (r) => {
    if (r.method !== 'POST' || r.path !== `/v21.0/${opts.phoneNumberId}/messages`)
      return { status: 404, body: { error: { message: 'Unknown path', type: 'OAuthException', code: 803 } } };
    if (r.headers.authorization !== `Bearer ${opts.accessToken}`)
      return {
        status: 401,
        body: { error: { message: 'Invalid OAuth access token', type: 'OAuthException', code: 190, fbtrace_id: 'x' } },
      };
    const f = failures.shift();
    if (f)
      return {
        status: f.http,
        body: { error: { message: f.message, type: 'OAuthException', code: f.code, fbtrace_id: 'x' } },
      };
    const body = JSON.parse(r.body);
    const id = `wamid.${randomBytes(12).toString('base64')}`;
    await before.answer?.(id, body.to);
    return {
      status: 200,
      body: { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id }] },
    };
  });
  const sends = () => server.seen.filter((r) => r.method === 'POST');
  return {
    ...server,
    failures,
    before,
    /** Every send request the API received (also the refused ones). */
    sends,
    /** A webhook body of the documented shape carrying `value` (statuses or messages), escaped as Meta escapes it. */
    payload(value: Record<string, unknown>) {
      return metaJson({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: '102290129340398',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '15550783881', phone_number_id: opts.phoneNumberId },
                  ...value,
                },
              },
            ],
          },
        ],
      });
    },
    sign: (body: string, secret = opts.appSecret) =>
      `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
  };
}
