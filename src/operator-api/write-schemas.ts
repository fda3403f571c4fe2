import { z } from 'zod';
import { CHANNELS } from '../channels.js';
import { KINDS, KIND_TYPES, type KindType } from '../carriers/kinds.js';
import { STRATEGIES } from '../carriers/routing.js';
import { accountSettingOptions } from '../features/accounts/set-settings.js';
import { defineMessages } from '../http/codes.js';
import { decimal, jsonBody } from './schemas.js';

// The request bodies and queries of the operator API's writes: each schema both checks a request and, through
// jsonSchema (src/http/fields.ts), is its shape in the OpenAPI document (openapi-writes.ts).

defineMessages({
  op_carrier_invalid: 'The connector’s settings are refused: the message says which and why',
  op_carrier_missing: 'No carrier with that name',
  op_carrier_exists: 'A carrier with that name exists',
  op_carrier_in_use: 'Routes name this carrier: remove or change them first',
  op_route_invalid: 'The route is refused: the message says which field and why',
  op_route_missing: 'No route with that id',
  op_cost_invalid: 'prefix: 1 to 15 digits with the country code; cost: money per message part, at most 4 decimals',
  op_smpp_user_invalid: 'The SMPP user’s settings are refused: the message says which and why',
  op_smpp_user_missing: 'No SMPP user with that system_id',
  op_smpp_user_taken: 'That system_id is taken',
  op_sender_invalid:
    'sender: 1 to 11 letters, digits or spaces with at least one letter, or 3 to 15 digits (a short code or a long number)',
  op_mo_route_invalid: 'number: 3 to 15 digits; keyword: one word of 1 to 30 letters or digits; at least one of them',
  op_mo_route_missing: 'No MO route with that id',
  op_mo_route_taken: 'Another account holds that number and keyword',
  op_settings_invalid: 'A setting is refused: the message says which and why (as accounts set)',
  op_audit_invalid: 'since: 30m, 24h, 7d (up to 6 digits) or an ISO 8601 moment; page: a whole number from 1 to 10000',
});

const text = (code: string, max: number) => z.string({ error: code }).max(max, { error: code });
/** What the CLI takes as the text of an option: a JSON number or boolean is read as the same text. */
const optionValue = z.union([z.string(), z.number(), z.boolean()]);

type Shape = Record<string, z.ZodType>;
const shapeOf = (type: KindType) => (KINDS[type].settings as unknown as z.ZodObject<Shape>).shape;
/** A kind's secret as the operator gives it: SMPP's bind password, a provider's secrets object. */
const secretField = (type: KindType): Shape =>
  type === 'smpp'
    ? { password: z.string().min(1).max(8).meta({ description: 'the bind password: stored sealed, never shown' }) }
    : { secrets: (KINDS[type].secrets as z.ZodType).meta({ description: 'stored sealed, never shown' }) };

/** POST /carriers: the kind, the name and the settings of `carriers add`, one shape a kind. */
export const NewCarrier = z.discriminatedUnion(
  'kind',
  KIND_TYPES.map((type) =>
    jsonBody({
      kind: z.literal(type),
      name: z.string().meta({ description: '1 to 40 letters, digits, - or _' }),
      ...shapeOf(type),
      ...secretField(type),
    }),
  ) as unknown as [z.ZodObject<Shape>, ...Array<z.ZodObject<Shape>>],
  { error: 'op_carrier_invalid' },
);

/** A setting as a change takes it: no default (an absent one keeps the stored value). */
const changed = (t: z.ZodType) => (t instanceof z.ZodDefault ? (t.unwrap() as z.ZodType) : t).optional();

/** The settings of every kind, each optional: a change names only those of its connector's kind. */
const EVERY_SETTING: Shape = Object.fromEntries(
  KIND_TYPES.flatMap((type) => Object.entries(shapeOf(type)).map(([k, t]) => [k, changed(t)])),
);

/** The quality settings of `carriers set`, as its options take them. */
export const QUALITY_FIELDS = {
  min_delivery_rate: 'minDeliveryRate',
  quality_window_minutes: 'qualityWindowMinutes',
  quality_min_messages: 'qualityMinMessages',
} as const;

/** PATCH /carriers/{name}: the settings of `carriers set` that change, its secret, its quality settings. */
export const CarrierChange = jsonBody({
  ...EVERY_SETTING,
  password: secretField('smpp').password.optional(),
  secrets: z.record(z.string(), z.string()).optional().meta({ description: 'a provider’s secrets, all of them' }),
  min_delivery_rate: z
    .union([z.number(), z.literal('off')])
    .optional()
    .meta({ description: 'demote below this delivery rate (0 to 1); off never demotes' }),
  quality_window_minutes: z.number().int().optional(),
  quality_min_messages: z.number().int().optional(),
});

export const CarrierName = z.object({ name: text('op_carrier_missing', 40) });

/** POST /routes: as `routes add`, the account by id. */
export const NewRoute = jsonBody({
  channel: z.enum(CHANNELS, { error: 'op_route_invalid' }),
  prefix: z.string({ error: 'op_route_invalid' }).meta({ description: "up to 15 digits; '' matches every number" }),
  carriers: z.array(z.string(), { error: 'op_route_invalid' }).meta({ description: 'in failover order' }),
  account_id: decimal('op_account_missing').nullish().meta({ description: 'only this account’s traffic' }),
  strategy: z.enum(STRATEGIES, { error: 'op_route_invalid' }).optional(),
  weights: z
    .array(z.number({ error: 'op_route_invalid' }), { error: 'op_route_invalid' })
    .optional()
    .meta({ description: 'with strategy weighted: one whole number per carrier' }),
});

export const RouteId = z.object({ id: decimal('op_route_missing') });

/** PUT /carriers/{name}/costs/{prefix}. */
export const CostBody = jsonBody({
  cost: z
    .union([z.number(), z.string()], { error: 'op_cost_invalid' })
    .meta({ description: 'money per message part in COST_CURRENCY, at most 4 decimals' }),
});
export const CostKey = z.object({ name: text('op_carrier_missing', 40), prefix: text('op_cost_invalid', 15) });

/** The limits of `smpp-users add|set`, as the operator API names them. */
const smppLimits = {
  max_binds: z.number({ error: 'op_smpp_user_invalid' }).int({ error: 'op_smpp_user_invalid' }).optional(),
  throughput: z.number({ error: 'op_smpp_user_invalid' }).int({ error: 'op_smpp_user_invalid' }).optional(),
  window: z.number({ error: 'op_smpp_user_invalid' }).int({ error: 'op_smpp_user_invalid' }).optional(),
  allow_ip: z
    .union([z.string(), z.array(z.string())], { error: 'op_smpp_user_invalid' })
    .optional()
    .meta({ description: "CIDRs; 'none' or []: the account's allow-list applies" }),
  traffic_class: z
    .string({ error: 'op_smpp_user_invalid' })
    .optional()
    .meta({ description: 'auto, transactional or bulk: the class of its submits (traffic control)' }),
};
const smppPassword = z
  .string({ error: 'op_smpp_user_invalid' })
  .meta({ description: '1 to 8 printable ASCII characters: stored hashed, never shown' });

export const NewSmppUser = jsonBody({
  account_id: decimal('op_account_missing'),
  system_id: z.string({ error: 'op_smpp_user_invalid' }),
  password: smppPassword,
  ...smppLimits,
});
export const SmppUserChange = jsonBody({ password: smppPassword.optional(), ...smppLimits });
export const SystemId = z.object({ system_id: text('op_smpp_user_missing', 15) });

/** POST /accounts/{id}/senders; DELETE takes the sender in the query. */
export const NewSender = jsonBody({
  sender: z.string({ error: 'op_sender_invalid' }).max(15, { error: 'op_sender_invalid' }),
  rcs: z.boolean({ error: 'op_sender_invalid' }).default(false).meta({ description: 'linked for RCS' }),
});
export const SenderQuery = z.object({
  sender: z.string({ error: 'op_sender_invalid' }).max(15, { error: 'op_sender_invalid' }),
});

/** POST /mo-routes: as `mo-routes add`, the account by id. */
export const NewMoRoute = jsonBody({
  account_id: decimal('op_account_missing'),
  number: z.string({ error: 'op_mo_route_invalid' }).optional().meta({ description: 'our short code or long number' }),
  keyword: z.string({ error: 'op_mo_route_invalid' }).optional().meta({ description: 'its first word' }),
});
export const MoRouteId = z.object({ id: decimal('op_mo_route_missing') });

/** GET /audit. */
export const AuditQuery = z.object({
  since: z.string({ error: 'op_audit_invalid' }).max(40, { error: 'op_audit_invalid' }).default('24h'),
  actor: z.string({ error: 'op_audit_invalid' }).max(400, { error: 'op_audit_invalid' }).optional(),
  page: decimal('op_audit_invalid', 10_000).default(1),
});

/** An option's name as a field: `rateLimit` → `rate_limit`. */
export const fieldOf = (attribute: string) => attribute.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * PATCH /accounts/{id}: one field a setting of `accounts set` (its option's name in snake_case, its value as the
 * option takes it), read from the command's own options so that a new one is taken here too.
 */
export const AccountSettingsChange = jsonBody(
  Object.fromEntries(
    accountSettingOptions().map((o) => [
      fieldOf(o.attributeName()),
      optionValue.optional().meta({ description: `${o.flags}: ${o.description}` }),
    ]),
  ),
);
