import type { CarrierSink } from '../adapter.js';
import { chatappOtpCode } from '../../text/chatapp-otp.js';
import type { OutboundMessage, SubmitOutcome } from '../../messaging/ports.js';
import { HttpProviderConnector, readJson } from '../providers/connector.js';
import { classifyError } from './mapping.js';
import type { WhatsappSecrets, WhatsappSettings } from './settings.js';

/**
 * The Cloud API request body for one message
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages):
 * text, media by link with caption, or the authentication template carrying
 * an OTP code (body parameter and copy-code button, as Meta's authentication
 * templates require).
 */
export function messageBody(m: OutboundMessage, settings: WhatsappSettings): Record<string, unknown> {
  const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to: m.number };
  const code = settings.otp_template && !m.meta ? chatappOtpCode(m.text) : null;
  if (code) {
    return {
      ...base,
      type: 'template',
      template: {
        name: settings.otp_template,
        language: { code: settings.otp_language },
        components: [
          { type: 'body', parameters: [{ type: 'text', text: code }] },
          { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: code }] },
        ],
      },
    };
  }
  const type = typeof m.meta?.type === 'string' ? m.meta.type : 'text';
  if (type === 'text') return { ...base, type: 'text', text: { preview_url: false, body: m.text } };
  const caption = typeof m.meta?.caption === 'string' ? m.meta.caption : undefined;
  // Audio takes no caption in the Cloud API.
  return { ...base, type, [type]: { link: m.text, ...(caption !== undefined && type !== 'audio' ? { caption } : {}) } };
}

/** A chat-app connector on a WhatsApp Business Cloud API phone number. */
export class WhatsappConnector extends HttpProviderConnector {
  constructor(
    sink: CarrierSink,
    name: string,
    version: number,
    readonly settings: WhatsappSettings,
    readonly secrets: WhatsappSecrets,
  ) {
    super(sink, name, version, settings.messages_per_second);
  }

  protected async send(m: OutboundMessage): Promise<SubmitOutcome> {
    const url = `${this.settings.graph_url.replace(/\/$/, '')}/${this.settings.graph_version}/${this.settings.phone_number_id}/messages`;
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.secrets.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify(messageBody(m, this.settings)),
      signal: AbortSignal.timeout(15_000),
    });
    const body = await readJson(res);
    const id = body?.messages?.[0]?.id;
    if (res.ok && typeof id === 'string' && id.length > 0 && id.length <= 200) return { ok: true, carrierId: id };
    const code = typeof body?.error?.code === 'number' ? body.error.code : undefined;
    const { permanent, status } = classifyError(code, res.status);
    // The provider's own words, never our request (it holds the token in its headers only, but the text may hold a code).
    const error = `whatsapp ${res.status}${code !== undefined ? ` error ${code}` : ''}: ${String(body?.error?.message ?? 'no message id').slice(0, 200)}`;
    return { ok: false, permanent, error, status };
  }
}
