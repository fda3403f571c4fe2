import { createHmac } from 'node:crypto';
import type { CarrierSink } from '../adapter.js';
import type { OutboundMessage, SubmitOutcome } from '../../messaging/ports.js';
import { HttpProviderConnector, readJson } from '../providers/connector.js';
import { classifyCreateError } from './mapping.js';
import type { TwimlSecrets, TwimlSettings } from './settings.js';

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The call's inline TwiML: the script read by a Spanish voice, sentence by
 * sentence with a pause between them; a code (meta.code) is read character
 * by character with a pause after each, then repeated once. The verification
 * template (a) already repeats its code in the script, so it is not added.
 */
export function callTwiml(m: OutboundMessage, s: Pick<TwimlSettings, 'voice' | 'language'>): string {
  const say = (text: string) => `<Say voice="${xml(s.voice)}" language="${xml(s.language)}">${xml(text)}</Say>`;
  const parts = [say(m.text), '<Pause length="1"/>'];
  const code = typeof m.meta?.code === 'string' ? m.meta.code : null;
  if (code && m.meta?.template !== 'a') {
    parts.push(say('Repito:'), ...[...code].flatMap((c) => [say(c), '<Pause length="1"/>']));
  }
  return `<?xml version="1.0" encoding="UTF-8"?><Response>${parts.join('')}</Response>`;
}

/** X-Twilio-Signature: base64 HMAC-SHA1 of the full URL followed by each POST parameter's name and value, sorted by name. */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data =
    url +
    Object.keys(params)
      .sort()
      .map((k) => k + params[k])
      .join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** Voice calls through a TwiML-compatible Calls API. */
export class TwimlConnector extends HttpProviderConnector {
  constructor(
    sink: CarrierSink,
    private readonly publicBaseUrl: string,
    name: string,
    version: number,
    readonly settings: TwimlSettings,
    readonly secrets: TwimlSecrets,
  ) {
    super(sink, name, version, settings.messages_per_second);
  }

  /** The status callback this connector gives the provider (its signature is checked against this exact URL). */
  get statusCallback(): string {
    return `${this.publicBaseUrl}/carriers/twiml-voice/${encodeURIComponent(this.name)}/status`;
  }

  protected async send(m: OutboundMessage): Promise<SubmitOutcome> {
    const url = `${this.settings.api_url.replace(/\/$/, '')}/2010-04-01/Accounts/${encodeURIComponent(this.settings.account_sid)}/Calls.json`;
    const form = new URLSearchParams({
      To: `+${m.number}`,
      From: this.settings.caller,
      Twiml: callTwiml(m, this.settings),
      StatusCallback: this.statusCallback,
      StatusCallbackMethod: 'POST',
    });
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${this.settings.account_sid}:${this.secrets.auth_token}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form.toString(),
      signal: AbortSignal.timeout(15_000),
    });
    const body = await readJson(res);
    if (res.ok && typeof body?.sid === 'string' && body.sid.length > 0 && body.sid.length <= 200)
      return { ok: true, carrierId: body.sid };
    const code = typeof body?.code === 'number' ? body.code : undefined;
    const { permanent, status } = classifyCreateError(res.status, code);
    return {
      ok: false,
      permanent,
      status,
      error: `twiml ${res.status}${code !== undefined ? ` error ${code}` : ''}: ${String(body?.message ?? 'no call sid').slice(0, 200)}`,
    };
  }
}
