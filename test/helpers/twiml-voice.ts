import { createHmac, randomBytes } from 'node:crypto';
import { startHttpServer } from './http-server.js';

/**
 * A local stand-in for a TwiML Calls API, following Twilio's published
 * formats (also accepted by SignalWire's and Telnyx's compatible APIs):
 * - POST /2010-04-01/Accounts/{AccountSid}/Calls.json, HTTP Basic
 *   AccountSid:AuthToken, form fields To, From, Twiml, StatusCallback,
 *   StatusCallbackMethod; answers 201 with the call resource `{sid, status:'queued', …}`
 *   (https://www.twilio.com/docs/voice/api/call-resource#create-a-call-resource),
 *   errors as `{code, message, more_info, status}` (https://www.twilio.com/docs/api/errors);
 * - status callbacks as form POSTs (CallSid, AccountSid, CallStatus, …) signed in
 *   X-Twilio-Signature: base64 HMAC-SHA1(AuthToken, URL + sorted name+value pairs)
 *   (https://www.twilio.com/docs/usage/security#validating-requests).
 */
export async function startTwimlApi(opts: { accountSid: string; authToken: string }) {
  const failures: Array<{ http: number; code: number; message: string }> = [];
  /** Run with each created call's sid and form before the create is answered (a status callback overtaking the answer). */
  const before: { answer: ((sid: string, form: URLSearchParams) => Promise<void>) | null } = { answer: null };
  const basic = `Basic ${Buffer.from(`${opts.accountSid}:${opts.authToken}`).toString('base64')}`;
  const server = await startHttpServer(async (r) => {
    if (r.method !== 'POST' || r.path !== `/2010-04-01/Accounts/${opts.accountSid}/Calls.json`)
      return { status: 404, body: { code: 20404, message: 'The requested resource was not found', status: 404 } };
    if (r.headers.authorization !== basic)
      return { status: 401, body: { code: 20003, message: 'Authenticate', status: 401 } };
    const f = failures.shift();
    if (f)
      return {
        status: f.http,
        body: {
          code: f.code,
          message: f.message,
          more_info: `https://www.twilio.com/docs/errors/${f.code}`,
          status: f.http,
        },
      };
    const form = new URLSearchParams(r.body);
    const sid = `CA${randomBytes(16).toString('hex')}`;
    await before.answer?.(sid, form);
    return {
      status: 201,
      body: { sid, account_sid: opts.accountSid, to: form.get('To'), from: form.get('From'), status: 'queued' },
    };
  });
  return {
    ...server,
    failures,
    before,
    /** Create-call requests received, as their form fields. */
    calls: () =>
      server.seen
        .filter((r) => r.method === 'POST')
        .map((r) => ({ headers: r.headers, form: Object.fromEntries(new URLSearchParams(r.body)) })),
    sign: (url: string, params: Record<string, string>, token = opts.authToken) =>
      createHmac('sha1', token)
        .update(
          url +
            Object.keys(params)
              .sort()
              .map((k) => k + params[k])
              .join(''),
        )
        .digest('base64'),
  };
}
