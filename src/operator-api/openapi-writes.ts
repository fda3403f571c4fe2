/** The operator API's writes and the audit log in its OpenAPI document: request shapes from their zod schemas. */
import { jsonSchema } from '../http/fields.js';
import {
  AccountSettingsChange,
  CarrierChange,
  CostBody,
  NewCarrier,
  NewMoRoute,
  NewRoute,
  NewSender,
  NewSmppUser,
  SmppUserChange,
} from './write-schemas.js';

/** The request bodies, each the JSON Schema of the zod schema that checks it. */
export const writeRequestSchemas = (): Record<string, object> => ({
  NewCarrier: jsonSchema(NewCarrier),
  CarrierChange: jsonSchema(CarrierChange),
  NewRoute: jsonSchema(NewRoute),
  CostChange: jsonSchema(CostBody),
  NewSmppUser: jsonSchema(NewSmppUser),
  SmppUserChange: jsonSchema(SmppUserChange),
  NewSender: jsonSchema(NewSender),
  NewMoRoute: jsonSchema(NewMoRoute),
  AccountSettingsChange: jsonSchema(AccountSettingsChange),
});

const nullable = (type: string) => ({ type: [type, 'null'] });
const closed = (properties: Record<string, object>, required = Object.keys(properties)) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** The answers of the writes (what the CLI prints for the same change) and the audit log's page. */
export const writeAnswerSchemas: Record<string, object> = {
  CarrierSettings: {
    type: 'object',
    description: 'as carriers add and carriers set print it: the settings of its kind (and quality), never a secret',
    required: ['name', 'type', 'enabled'],
    properties: { name: { type: 'string' }, type: { type: 'string' }, enabled: { type: 'boolean' } },
    not: { anyOf: [{ required: ['password'] }, { required: ['secrets'] }] },
  },
  RouteAdded: closed(
    {
      id: { type: 'integer', minimum: 1, description: 'DELETE /routes/{id} removes it' },
      channel: { type: 'string' },
      prefix: { type: 'string' },
      carriers: { type: 'array', items: { type: 'string' } },
      account: { ...nullable('string'), description: 'the one account the route is for, else null' },
      strategy: { type: 'string' },
      weights: { type: 'array', items: { type: 'number' } },
    },
    ['id', 'channel', 'prefix', 'carriers', 'account', 'strategy'],
  ),
  CostSet: closed({
    name: { type: 'string' },
    prefix: { type: 'string' },
    cost: { type: 'string', pattern: '^\\d+\\.\\d+$', description: 'money per message part in COST_CURRENCY' },
  }),
  Sender: closed({ sender: { type: 'string' }, rcs: { type: 'boolean' } }),
  MoRoute: closed({
    id: { type: 'integer', minimum: 1 },
    email: { type: 'string' },
    number: nullable('string'),
    keyword: { ...nullable('string'), description: 'upper case without accents' },
  }),
  AccountSettings: {
    type: 'object',
    description: 'as accounts set and accounts show print it',
    required: ['id', 'email', 'status', 'credits', 'prices'],
    properties: {
      id: { type: 'integer', minimum: 1 },
      email: { type: 'string' },
      status: { enum: ['active', 'archived'] },
      credits: { type: 'number', minimum: 0 },
      prices: { type: 'object', additionalProperties: { type: 'number', minimum: 0 } },
    },
  },
  AuditEntry: closed({
    at: { type: 'string', format: 'date-time' },
    actor: { type: 'string', description: 'cli, token:NAME or panel:EMAIL' },
    action: { type: 'string', description: 'as the CLI names the change: carriers.add, accounts.credits…' },
    target: nullable('string'),
    detail: { type: 'object', description: 'what changed; secrets are never recorded' },
    address: nullable('string'),
  }),
  AuditPage: closed({
    entries: { type: 'array', items: { $ref: '#/components/schemas/AuditEntry' }, maxItems: 500 },
    page: { type: 'integer', minimum: 1 },
    has_more: { type: 'boolean' },
  }),
};

interface OpInput {
  id: string;
  summary: string;
  ok: [string, string];
  body?: string;
  query?: Array<[string, object, boolean?]>;
  path?: Array<[string, object]>;
  bad?: string;
}

/** The writes' operations, built by the document's own `op` (404 and 409 answers added where they can be). */
export function writePaths(
  op: (o: OpInput) => { responses: Record<string, unknown> },
  failure: (description: string) => object,
) {
  const also = (o: OpInput, extra: Record<string, string>) => {
    const made = op(o);
    const answers = Object.fromEntries(Object.entries(extra).map(([status, text]) => [status, failure(text)]));
    return { ...made, responses: { ...made.responses, ...answers } };
  };
  const name: [string, object] = ['name', { type: 'string', maxLength: 40 }];
  const id = (what: string): [string, object] => ['id', { type: 'integer', minimum: 1, description: what }];
  const systemId: [string, object] = ['system_id', { type: 'string', maxLength: 15 }];
  return {
    '/carriers': {
      post: also(
        {
          id: 'addCarrier',
          summary: 'add a connector (as carriers add): its kind, name, settings and secret (never answered back)',
          body: 'NewCarrier',
          ok: ['201', 'CarrierSettings'],
          bad: 'op_carrier_invalid, op_field_unknown',
        },
        { '409': 'op_carrier_exists' },
      ),
    },
    '/carriers/{name}': {
      patch: also(
        {
          id: 'changeCarrier',
          summary: 'change a connector’s settings, secret or quality settings (as carriers set)',
          path: [name],
          body: 'CarrierChange',
          ok: ['200', 'CarrierSettings'],
          bad: 'op_carrier_invalid, op_field_unknown',
        },
        { '404': 'op_carrier_missing' },
      ),
      delete: also(
        {
          id: 'removeCarrier',
          summary: 'remove a connector (as carriers remove)',
          path: [name],
          ok: ['200', 'Removed'],
        },
        { '404': 'op_carrier_missing', '409': 'op_carrier_in_use: routes name it' },
      ),
    },
    '/carriers/{name}/costs/{prefix}': {
      put: also(
        {
          id: 'setCarrierCost',
          summary: 'what a connector charges per message part at a prefix (as carriers costs set)',
          path: [name, ['prefix', { type: 'string', pattern: '^\\d{1,15}$' }]],
          body: 'CostChange',
          ok: ['200', 'CostSet'],
          bad: 'op_cost_invalid, op_field_unknown',
        },
        { '404': 'op_carrier_missing' },
      ),
    },
    '/routes': {
      post: op({
        id: 'addRoute',
        summary: 'add or replace the route of a channel, prefix and account (as routes add)',
        body: 'NewRoute',
        ok: ['201', 'RouteAdded'],
        bad: 'op_route_invalid, op_field_unknown',
      }),
    },
    '/routes/{id}': {
      delete: also(
        { id: 'removeRoute', summary: 'remove a route', path: [id('as GET /routes shows it')], ok: ['200', 'Removed'] },
        { '404': 'op_route_missing' },
      ),
    },
    '/smpp-users': {
      post: also(
        {
          id: 'addSmppUser',
          summary: 'an SMPP login for an account (as smpp-users add): the password is never answered back',
          body: 'NewSmppUser',
          ok: ['201', 'SmppUser'],
          bad: 'op_smpp_user_invalid, op_field_unknown',
        },
        { '409': 'op_smpp_user_taken' },
      ),
    },
    '/smpp-users/{system_id}': {
      patch: also(
        {
          id: 'changeSmppUser',
          summary: 'change an SMPP user (as smpp-users set; a new password applies from the next bind)',
          path: [systemId],
          body: 'SmppUserChange',
          ok: ['200', 'SmppUser'],
          bad: 'op_smpp_user_invalid, op_field_unknown',
        },
        { '404': 'op_smpp_user_missing' },
      ),
      delete: also(
        {
          id: 'removeSmppUser',
          summary: 'remove an SMPP user; its open binds close (as smpp-users remove)',
          path: [systemId],
          ok: ['200', 'Removed'],
        },
        { '404': 'op_smpp_user_missing' },
      ),
    },
    '/accounts/{id}/senders': {
      post: op({
        id: 'addSender',
        summary: 'register one of the account’s senders (as senders add)',
        path: [id('the account')],
        body: 'NewSender',
        ok: ['201', 'Sender'],
        bad: 'op_sender_invalid, op_field_unknown',
      }),
      delete: op({
        id: 'removeSender',
        summary: 'remove one of the account’s senders (as senders remove)',
        path: [id('the account')],
        query: [['sender', { type: 'string', maxLength: 15 }, true]],
        ok: ['200', 'Removed'],
        bad: 'op_sender_invalid',
      }),
    },
    '/mo-routes': {
      post: also(
        {
          id: 'addMoRoute',
          summary: 'give an account the replies to a number, a keyword or both (as mo-routes add)',
          body: 'NewMoRoute',
          ok: ['201', 'MoRoute'],
          bad: 'op_mo_route_invalid, op_field_unknown',
        },
        { '409': 'op_mo_route_taken: another account holds it' },
      ),
    },
    '/mo-routes/{id}': {
      delete: also(
        {
          id: 'removeMoRoute',
          summary: 'remove an MO route',
          path: [id('as mo-routes list shows it')],
          ok: ['200', 'Removed'],
        },
        { '404': 'op_mo_route_missing' },
      ),
    },
    '/accounts/{id}': {
      patch: op({
        id: 'changeAccountSettings',
        summary: 'change an account’s settings, prices and opt-out settings (as accounts set)',
        path: [id('the account')],
        body: 'AccountSettingsChange',
        ok: ['200', 'AccountSettings'],
        bad: 'op_settings_invalid, op_field_unknown',
      }),
    },
    '/audit': {
      get: op({
        id: 'auditLog',
        summary: 'who changed what, newest first, 500 a page (as audit list)',
        query: [
          ['since', { type: 'string', description: '30m, 24h (the default), 7d or an ISO 8601 moment' }],
          ['actor', { type: 'string', description: 'cli, token:NAME (or NAME), panel:EMAIL (or EMAIL)' }],
          ['page', { type: 'string', pattern: '^\\d{1,5}$' }],
        ],
        ok: ['200', 'AuditPage'],
        bad: 'op_audit_invalid',
      }),
    },
  };
}
