import type { AppContext } from '../../context.js';
import { decrypt } from '../../lib/secrets.js';
import type { CarrierRow } from '../store.js';
import type { HttpProviderConnector } from './connector.js';
import { WhatsappConnector } from '../whatsapp-cloud/connector.js';
import { WhatsappSecretsSchema, WhatsappSettingsSchema } from '../whatsapp-cloud/settings.js';
import { TwimlConnector } from '../twiml-voice/connector.js';
import { TwimlSecretsSchema, TwimlSettingsSchema } from '../twiml-voice/settings.js';

/** Connector types that speak a provider's HTTP API (no binds: usable as soon as configured). */
export const PROVIDER_TYPES = ['whatsapp-cloud', 'twiml-voice'] as const;
export const isProviderType = (type: string): boolean => (PROVIDER_TYPES as readonly string[]).includes(type);

/** The connector of a configured provider row; throws (without secrets) when its settings are unusable. */
export function buildProviderConnector(ctx: AppContext, row: CarrierRow): HttpProviderConnector {
  const secrets = JSON.parse(row.password_enc ? decrypt(ctx.secrets.keyEncryption, row.password_enc) : '{}');
  const settings = JSON.parse(row.settings);
  if (row.type === 'whatsapp-cloud') return new WhatsappConnector(ctx, row.name, row.version, WhatsappSettingsSchema.parse(settings), WhatsappSecretsSchema.parse(secrets));
  if (row.type === 'twiml-voice') return new TwimlConnector(ctx, row.name, row.version, TwimlSettingsSchema.parse(settings), TwimlSecretsSchema.parse(secrets));
  throw new Error(`unknown provider type ${row.type}`);
}
