import { CHANNELS } from '../channels.js';
import { packageVersion } from '../lib/package.js';
import { schemas } from './openapi-schemas.js';
import { writeAnswerSchemas, writePaths, writeRequestSchemas } from './openapi-writes.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ content: { 'application/json': { schema: ref(name) } } });
const failure = (description: string) => ({ description, ...json('Error') });

/** The answers every operation may give besides its own. */
const COMMON = {
  '401': failure('op_token: no token, or a wrong or revoked one'),
  '403': failure(
    'op_address: the address is not in OPERATOR_API_ALLOW_IP; op_read_only: a write with a read-only token',
  ),
  '404': failure('not_found: no such route, or no unrevoked token exists (the API is off); op_account_missing'),
  '414': failure('url_too_long: a path parameter of more than 100 characters'),
  '429': failure('rate_01: over OPERATOR_API_PER_MINUTE requests a minute from this address (Retry-After)'),
};

interface Op {
  id: string;
  summary: string;
  ok: [string, string];
  body?: string;
  query?: Array<[string, object, boolean?]>;
  path?: Array<[string, object]>;
  bad?: string;
}

function op(o: Op) {
  const parameters = [
    ...(o.path ?? []).map(([name, schema]) => ({ name, in: 'path', required: true, schema })),
    ...(o.query ?? []).map(([name, schema, required]) => ({ name, in: 'query', required: required ?? false, schema })),
  ];
  return {
    operationId: o.id,
    summary: o.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(o.body ? { requestBody: { required: true, ...json(o.body) } } : {}),
    responses: {
      [o.ok[0]]: { description: 'done', ...json(o.ok[1]) },
      ...(o.bad ? { '400': failure(o.bad) } : {}),
      ...COMMON,
    },
  };
}

const accountId: [string, object] = [
  'id',
  { type: 'integer', minimum: 1, description: 'decimal digits only: 0x1 or 1e0 name no account (404)' },
];
const priceKeyQuery: Array<[string, object, boolean?]> = [
  ['channel', { enum: [...CHANNELS] }, true],
  ['prefix', { type: 'string', pattern: '^\\d{1,15}$' }, true],
  ['account_id', { type: 'string', pattern: '^\\d{1,16}$' }],
];
const conflict = (code: string) => ({ '409': failure(code) });

/** The accounts' operations. */
function accountPaths() {
  const created = op({
    id: 'createAccount',
    summary: 'create an account',
    body: 'NewAccount',
    ok: ['201', 'CreatedAccount'],
    bad: 'op_email_invalid, op_credits_invalid, op_field_unknown',
  });
  const unarchive = op({
    id: 'unarchiveAccount',
    summary: 'revive an archived account (with a new API key)',
    path: [accountId],
    ok: ['200', 'RevivedAccount'],
  });
  const reset = op({
    id: 'passwordReset',
    summary: 'a one-time link (valid 1 hour) where the account sets its panel password',
    path: [accountId],
    ok: ['200', 'PasswordReset'],
  });
  return {
    '/accounts': {
      get: op({
        id: 'listAccounts',
        summary: 'accounts in id order, 100 a page',
        ok: ['200', 'AccountPage'],
        bad: 'op_page_invalid',
        query: [
          ['search', { type: 'string', maxLength: 100 }],
          ['page', { type: 'string', pattern: '^\\d{1,5}$' }],
        ],
      }),
      post: { ...created, responses: { ...created.responses, ...conflict('op_email_taken') } },
    },
    '/accounts/{id}': {
      get: op({ id: 'getAccount', summary: 'one account', path: [accountId], ok: ['200', 'Account'] }),
    },
    '/accounts/{id}/credits': {
      post: op({
        id: 'changeCredits',
        summary: 'add credits (negative: withdraw, never below 0)',
        path: [accountId],
        body: 'CreditChange',
        ok: ['200', 'Balance'],
        bad: 'op_amount_invalid, op_reason_required, op_reason_invalid, op_below_zero, op_balance_ceiling, op_field_unknown',
      }),
    },
    '/accounts/{id}/ledger': {
      get: op({
        id: 'accountLedger',
        summary: 'the credit ledger: every movement of the balance, newest first, 100 a page',
        path: [accountId],
        query: [
          ['from', { type: 'string', format: 'date', description: 'first Mexico City day (included)' }],
          ['to', { type: 'string', format: 'date', description: 'last Mexico City day (included)' }],
          ['page', { type: 'string', pattern: '^\\d{1,5}$' }],
        ],
        ok: ['200', 'Ledger'],
        bad: 'op_ledger_invalid',
      }),
    },
    '/accounts/{id}/password-reset': {
      post: { ...reset, responses: { ...reset.responses, ...conflict('op_account_archived') } },
    },
    '/accounts/{id}/archive': {
      post: op({
        id: 'archiveAccount',
        summary: 'archive the account and its sub-accounts',
        path: [accountId],
        ok: ['200', 'Account'],
      }),
    },
    '/accounts/{id}/unarchive': {
      post: { ...unarchive, responses: { ...unarchive.responses, ...conflict('op_parent_archived') } },
    },
  };
}

/** Prices, carriers, routes, SMPP users, margins and the do-not-contact list. */
function catalogPaths() {
  return {
    '/prices': {
      get: op({
        id: 'listPrices',
        summary: 'prefix prices, the deployment’s and each account’s',
        ok: ['200', 'Prices'],
      }),
      put: op({
        id: 'setPrice',
        summary: 'set a prefix price',
        body: 'NewPrice',
        ok: ['200', 'PriceSet'],
        bad: 'op_price_invalid, op_field_unknown',
      }),
      delete: op({
        id: 'removePrice',
        summary: 'remove a prefix price',
        query: priceKeyQuery,
        ok: ['200', 'Removed'],
        bad: 'op_price_invalid',
      }),
    },
    '/carriers': {
      get: op({ id: 'listCarriers', summary: 'connectors with their live state', ok: ['200', 'Carriers'] }),
    },
    '/routes': { get: op({ id: 'listRoutes', summary: 'routes by channel and prefix', ok: ['200', 'Routes'] }) },
    '/smpp-users': { get: op({ id: 'listSmppUsers', summary: 'the SMPP server’s users', ok: ['200', 'SmppUsers'] }) },
    '/reports/margins': {
      get: op({
        id: 'marginsReport',
        summary: 'revenue, cost and margin of a period',
        ok: ['200', 'Margins'],
        bad: 'op_margins_invalid',
        query: [
          ['from', { type: 'string', format: 'date' }, true],
          ['to', { type: 'string', format: 'date' }, true],
          ['by', { enum: ['account', 'carrier', 'prefix', 'day'] }],
        ],
      }),
    },
    '/dnc': {
      get: op({
        id: 'listDnc',
        summary: 'the do-not-contact list, in order, after a number',
        ok: ['200', 'DncNumbers'],
        bad: 'op_list_invalid',
        query: [
          ['after', { type: 'string', pattern: '^\\d{1,15}$' }],
          ['limit', { type: 'string', pattern: '^\\d{1,4}$' }],
        ],
      }),
      post: op({
        id: 'addDnc',
        summary: 'add a number to the do-not-contact list',
        body: 'DncNumber',
        ok: ['201', 'DncNumber'],
        bad: 'op_number_invalid, op_field_unknown',
      }),
    },
    '/dnc/{number}': {
      delete: op({
        id: 'removeDnc',
        summary: 'remove a number from the do-not-contact list',
        path: [['number', { type: 'string', pattern: '^\\d+$' }]],
        ok: ['200', 'Removed'],
        bad: 'op_number_invalid',
      }),
    },
  };
}

/** Path items joined: a path's methods from each part (GET /carriers and POST /carriers) in one item. */
function joined(...parts: Array<Record<string, object>>): Record<string, object> {
  const out: Record<string, object> = {};
  for (const part of parts) for (const [path, item] of Object.entries(part)) out[path] = { ...out[path], ...item };
  return out;
}

/** The operator API's own OpenAPI 3.1 document, served at /operator/v1/openapi.json. */
export function operatorOpenApi() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Mensajero operator API',
      version: packageVersion(),
      description:
        'What the operator does with the mensajero command, over HTTP. Tokens: mensajero operator-tokens add. Every change is recorded in the audit log (mensajero audit list).',
    },
    servers: [{ url: '/operator/v1' }],
    security: [{ bearer: [] }],
    paths: {
      '/openapi.json': {
        get: {
          operationId: 'openapi',
          summary: 'this document',
          responses: {
            '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } },
            ...COMMON,
          },
        },
      },
      ...joined(accountPaths(), catalogPaths(), writePaths(op, failure)),
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { ...schemas, ...writeRequestSchemas(), ...writeAnswerSchemas },
    },
  };
}
