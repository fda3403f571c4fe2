/** The schemas of the operator API's OpenAPI 3.1 document (JSON Schema 2020-12). */
import { CHANNELS } from '../channels.js';

const nullable = (type: string) => ({ type: [type, 'null'] });
const closed = (properties: Record<string, object>, required = Object.keys(properties)) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const listOf = (name: string, item: string) => closed({ [name]: { type: 'array', items: ref(item) } });

const account = {
  id: { type: 'integer', minimum: 1 },
  email: { type: 'string' },
  credits: { type: 'number', minimum: 0, description: 'the balance in credits' },
  status: { enum: ['active', 'archived'] },
  parent_id: { ...nullable('integer'), description: 'the parent account of a sub-account, else null' },
};
const channel = { enum: [...CHANNELS] };
const prefix = { type: 'string', pattern: '^\\d{1,15}$', description: 'destination prefix with the country code' };
const priceKey = {
  channel,
  prefix,
  account_id: { ...nullable('integer'), description: "null: the deployment's price" },
};
const count = { type: 'integer', minimum: 0 };
const money = { type: 'string', pattern: '^-?\\d+\\.\\d{2}$' };
const marginSums = {
  parts: count,
  delivered: count,
  failed: count,
  revenue: money,
  cost: money,
  cost_unknown: { ...count, description: 'messages a carrier took with no cost known: not in cost, so margin is high' },
  margin: money,
};

export const schemas: Record<string, object> = {
  Error: {
    ...closed(
      {
        success: { const: false },
        message: { type: 'string' },
        status: { type: 'integer' },
        code: { type: 'string', description: 'what went wrong, for programs (op_token, op_below_zero…)' },
        field: { type: 'string', description: 'the field at fault, when one is' },
      },
      ['success', 'message', 'status', 'code'],
    ),
  },
  Account: closed(account),
  AccountPage: closed({
    accounts: { type: 'array', items: ref('Account'), maxItems: 100 },
    page: { type: 'integer', minimum: 1 },
    has_more: { type: 'boolean' },
  }),
  NewAccount: closed(
    { email: { type: 'string', format: 'email', maxLength: 320 }, credits: { type: 'number', minimum: 0 } },
    ['email'],
  ),
  CreatedAccount: closed({ ...account, apikey: { type: 'string', description: 'the API key, shown this once' } }),
  RevivedAccount: closed(
    { ...account, apikey: { type: 'string', description: 'the new API key when the account was archived' } },
    Object.keys(account),
  ),
  CreditChange: closed({
    amount: {
      type: 'number',
      not: { const: 0 },
      minimum: -100_000_000,
      maximum: 100_000_000,
      description: 'credits to add; negative withdraws; the balance never passes 100000000 (op_balance_ceiling)',
    },
    reason: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description: 'one line: no control or invisible formatting character (op_reason_invalid)',
    },
  }),
  PasswordReset: closed({
    id: { type: 'integer', minimum: 1 },
    email: { type: 'string' },
    reset_url: { type: 'string', format: 'uri', description: 'PUBLIC_BASE_URL/panel/reset?token=…: one use' },
    expires_at: { type: 'string', format: 'date-time' },
  }),
  LedgerEntry: closed({
    at: { type: 'string', format: 'date-time' },
    kind: { enum: ['credit', 'payment', 'send', 'refund', 'transfer', 'adjustment'] },
    amount: { type: 'number', description: 'credits: positive added, negative taken' },
    balance_after: { type: 'number', minimum: 0, description: 'the balance this movement left' },
    reason: nullable('string'),
    actor: { type: 'string', description: 'cli, token:NAME, panel:EMAIL, account (its sends), account:ID, system' },
    reference: {
      ...nullable('string'),
      description: 'campaign:ID of a send, a message reference of a refund, account:ID of a transfer',
    },
  }),
  Ledger: closed({
    entries: { type: 'array', items: ref('LedgerEntry'), maxItems: 100 },
    page: { type: 'integer', minimum: 1 },
    has_more: { type: 'boolean' },
  }),
  Balance: closed({ id: { type: 'integer' }, credits: { type: 'number', minimum: 0 } }),
  Price: closed({
    channel,
    prefix,
    credits: { type: 'number', minimum: 0 },
    account_id: priceKey.account_id,
    account: { ...nullable('string'), description: "the account's email, null for the deployment's price" },
  }),
  Prices: listOf('prices', 'Price'),
  NewPrice: closed({ ...priceKey, credits: { type: 'number', minimum: 0, maximum: 1_000_000 } }, [
    'channel',
    'prefix',
    'credits',
  ]),
  PriceSet: closed({ ...priceKey, credits: { type: 'number', minimum: 0 } }),
  Removed: closed({ removed: { type: 'boolean' } }),
  OtpBlock: closed({
    id: { type: 'integer', minimum: 1 },
    scope: { enum: ['account', 'deployment'] },
    email: { ...nullable('string'), description: "the family's top-level account, null for a deployment block" },
    prefix: { type: 'string', pattern: '^\\d+$' },
    until: { type: 'string', format: 'date-time' },
    created: count,
    verified: count,
  }),
  OtpBlocks: listOf('blocks', 'OtpBlock'),
  Carrier: {
    type: 'object',
    required: ['name', 'type', 'state', 'processes', 'binds', 'submitted', 'last_error', 'last_error_at'],
    properties: {
      name: { type: 'string' },
      type: { type: 'string' },
      state: { enum: ['bound', 'connecting', 'down', 'disabled'] },
      processes: count,
      binds: count,
      window_in_use: count,
      submitted: count,
      refused: count,
      throttled: count,
      errors: count,
      receipts: count,
      unreadable_receipts: count,
      replies: count,
      last_error: nullable('string'),
      last_error_at: { ...nullable('string'), format: 'date-time' },
      binds_per_process: {
        type: 'array',
        description: "each running process's binds of it (`process`: its lease holder, host:pid:tag)",
        items: {
          type: 'object',
          properties: { process: { type: 'string' }, state: { type: 'string' }, binds: count },
        },
      },
      binds_setting: { ...nullable('integer'), description: 'its --binds (a kind that binds: SMPP), else null' },
    },
  },
  Carriers: listOf('carriers', 'Carrier'),
  Route: closed(
    {
      id: { type: 'integer', minimum: 1, description: 'DELETE /routes/{id} removes it' },
      channel: { type: 'string' },
      prefix: { type: 'string', description: "'' matches every number" },
      carriers: { type: 'array', items: { type: 'string' } },
      account: { ...nullable('string'), description: 'the one account the route is for, else null' },
      strategy: { type: 'string' },
      weights: { type: 'array', items: { type: 'number' } },
    },
    ['id', 'channel', 'prefix', 'carriers', 'account', 'strategy'],
  ),
  Routes: listOf('routes', 'Route'),
  SmppUser: closed({
    system_id: { type: 'string' },
    email: { type: 'string' },
    max_binds: count,
    throughput: count,
    window: count,
    allow_ip: { type: 'array', items: { type: 'string' } },
    traffic_class: { type: 'string', enum: ['auto', 'transactional', 'bulk'] },
  }),
  SmppUsers: listOf('smpp_users', 'SmppUser'),
  Margins: closed({
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    rows: {
      type: 'array',
      items: {
        type: 'object',
        required: Object.keys(marginSums),
        properties: {
          ...marginSums,
          account: { type: 'string' },
          carrier: { type: 'string' },
          prefix: { type: 'string' },
          day: { type: 'string' },
        },
        additionalProperties: false,
      },
    },
    totals: closed(marginSums),
  }),
  DncNumbers: closed({ numbers: { type: 'array', items: { type: 'string', pattern: '^\\d+$' } } }),
  DncNumber: closed({ number: { type: 'string', pattern: '^\\d+$' } }),
  Filter: closed({
    id: { type: 'integer' },
    action: { enum: ['block', 'flag'] },
    scope: { enum: ['deployment', 'account'] },
    email: { type: ['string', 'null'] },
    word: {
      type: ['string', 'null'],
      description: 'as matched: words folded (accents, width, case) and joined by one space',
    },
    domain: { type: ['string', 'null'], description: 'matched with its subdomains' },
  }),
  Filters: listOf('filters', 'Filter'),
  NewFilter: {
    type: 'object',
    required: ['action'],
    additionalProperties: false,
    properties: {
      action: { enum: ['block', 'flag'] },
      account_id: {
        type: 'integer',
        description: 'the account whose family it covers; absent (and no email): every account',
      },
      email: { type: 'string', description: 'the account by email, instead of account_id' },
      word: {
        type: 'string',
        description: 'a word or phrase: 1 to 10 words, at most 100 characters (one of word or domain)',
      },
      domain: { type: 'string', description: 'a host name such as bbva-mx.example (one of word or domain)' },
    },
  },
};
