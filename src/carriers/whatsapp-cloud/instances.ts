import { decrypt } from '../../lib/secrets.js';
import {
  WhatsappSecretsSchema,
  WhatsappSettingsSchema,
  type WhatsappSecrets,
  type WhatsappSettings,
} from './settings.js';

/**
 * A chat-app instance bound to its own WhatsApp Business Cloud API phone
 * number. Its chat-app messages go out through that number, whatever the
 * chat-app routes say (carriers/router.ts), as connector
 * `instance:<instance_id>`; its webhooks come to
 * /chatapp/instances/<instance_id>/webhook. The chat-app CLI binds them.
 */
export interface InstanceBinding {
  cloud_settings: string | null;
  cloud_secrets_enc: string | null;
}

export const instanceConnectorName = (instanceId: string) => `instance:${instanceId}`;
export const instanceWebhookPath = (instanceId: string) => `/chatapp/instances/${instanceId}/webhook`;

/** A bound instance's settings and decrypted secrets, checked like a whatsapp-cloud connector's; throws if unusable. */
export function readBinding(key: Buffer, i: InstanceBinding): { settings: WhatsappSettings; secrets: WhatsappSecrets } {
  const settings = WhatsappSettingsSchema.parse(JSON.parse(i.cloud_settings!));
  return { settings, secrets: WhatsappSecretsSchema.parse(JSON.parse(decrypt(key, i.cloud_secrets_enc!))) };
}
