import { z } from 'zod';
import type { Channel } from '../channels.js';
import type { CarrierIds, Connector, ConnectorConfig, ConnectorDeps } from './adapter.js';
import { idForms, normaliseId } from './smpp/receipts.js';
import type { CarriersTable } from './tables.js';
import { SmppConnector } from './smpp/connector.js';
import { SmppSettingsSchema } from './smpp/settings.js';
import { TwimlConnector } from './twiml-voice/connector.js';
import { TwimlSecretsSchema, TwimlSettingsSchema } from './twiml-voice/settings.js';
import { WhatsappConnector } from './whatsapp-cloud/connector.js';
import { WhatsappSecretsSchema, WhatsappSettingsSchema } from './whatsapp-cloud/settings.js';

/** The types of connector an operator configures (the simulator is built in, not configured). */
export type KindType = Exclude<CarriersTable['type'], 'simulator'>;

/** One kind of connector: how its configuration is checked and how a connector of it is built. */
export interface ConnectorKind<S = unknown> {
  readonly type: KindType;
  /** Its settings (carriers.settings, JSON). */
  readonly settings: z.ZodType<S>;
  /** Its secret as the operator gives it (stored encrypted in carriers.password_enc, never shown). */
  readonly secrets: z.ZodType;
  /** Connectors that bind are built in a running service only, never for a CLI command. */
  readonly binds: boolean;
  /** How its carrier ids and the receipts waiting for them are kept. */
  readonly receipts: CarrierIds;
  /** Channels a route may not send through it, each with why (what `routes add` answers). */
  readonly refuses?: Partial<Record<Channel, string>>;
  /** The connector; throws (without secrets) when its configuration is unusable. */
  build(config: ConnectorConfig<S>, deps: ConnectorDeps): Connector;
}

/** SMPP's carrier ids: SMSCs disagree on the base, so an id is also read in the other one (idForms). */
export const smppIds: CarrierIds = { kind: 'smpp', normalise: normaliseId, forms: idForms };
/** HTTP providers' message ids, exact as given (wamid.… and CA… ids are case-sensitive). */
export const providerIds: CarrierIds = { kind: 'provider', normalise: (id) => id, forms: (id) => [id] };

const kind = <S>(k: ConnectorKind<S>): ConnectorKind<S> => k;

/** A provider's secrets are stored as one JSON object. */
const jsonSecrets = <T>(schema: z.ZodType<T>, secret: string): T => schema.parse(JSON.parse(secret || '{}'));

export const KINDS: Record<KindType, ConnectorKind<any>> = {
  smpp: kind({
    type: 'smpp',
    settings: SmppSettingsSchema,
    secrets: z.string().min(1).max(8),
    binds: true,
    receipts: smppIds,
    refuses: {
      rcs: 'an SMPP connector sends SMS: an RCS text would reach the carrier as SMS parts (up to 10) while it is charged as one RCS message',
    },
    build: ({ name, version, settings, secret }, deps) =>
      new SmppConnector({ name, version, settings, password: secret }, deps),
  }),
  'whatsapp-cloud': kind({
    type: 'whatsapp-cloud',
    settings: WhatsappSettingsSchema,
    secrets: WhatsappSecretsSchema,
    binds: false,
    receipts: providerIds,
    build: (c, { sink }) =>
      new WhatsappConnector(sink, c.name, c.version, c.settings, jsonSecrets(WhatsappSecretsSchema, c.secret)),
  }),
  'twiml-voice': kind({
    type: 'twiml-voice',
    settings: TwimlSettingsSchema,
    secrets: TwimlSecretsSchema,
    binds: false,
    receipts: providerIds,
    build: (c, { sink, publicBaseUrl }) =>
      new TwimlConnector(sink, publicBaseUrl, c.name, c.version, c.settings, jsonSecrets(TwimlSecretsSchema, c.secret)),
  }),
};

export const KIND_TYPES = Object.keys(KINDS) as KindType[];

/** The kind of a configured type; undefined for the simulator (and anything unknown). */
export const kindOf = (type: string): ConnectorKind | undefined =>
  Object.hasOwn(KINDS, type) ? KINDS[type as KindType] : undefined;

/** Why a route of `channel` may not name a connector of `type`, or null when it may. */
export const routeRefusal = (type: string, channel: Channel): string | null => kindOf(type)?.refuses?.[channel] ?? null;

/** Settings checked by the kind's schema; a failure as one operator-readable line. */
export function parseSettings<S>(k: ConnectorKind<S>, input: unknown): S {
  const r = k.settings.safeParse(input);
  if (r.success) return r.data;
  throw new Error(r.error.issues.map((i) => `${i.path.join('.') || 'settings'}: ${i.message}`).join('; '));
}
