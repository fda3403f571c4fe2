import { resolve } from 'node:path';
import { z } from 'zod';
import { parseAllowList } from './lib/ip-ranges.js';
import { parseMoney } from './lib/money.js';

/**
 * Environment → typed configuration, validated once at start.
 * Every variable is a row of docs/operators/configuration.md (test/docs/operator-reference.test.ts holds it).
 */
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** `serve --workers` and WEB_CONCURRENCY: processes sharing the port. */
export const MAX_WORKERS = 64;

const intFrom = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

const optionalPort = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z.coerce.number().int().min(0).max(65535).optional(),
);

/** The database of a process whose environment names none. */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/mensajero.db';
/** The environment file of the shipped systemd units (deploy/systemd/). */
export const UNIT_ENV_FILE = '/etc/mensajero/mensajero.env';

const schema = z.object({
  PORT: intFrom(3000, 0),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().default(DEFAULT_DATABASE_URL),
  DATA_DIR: z.string().default('./data'),
  MENSAJERO_SECRET: z.string().optional(),
  PUBLIC_BASE_URL: z.string().optional(),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  OTP_RESEND_COOLDOWN_SECONDS: intFrom(30, 0),
  TRUST_PROXY: z
    .string()
    .optional()
    .superRefine((value, issue) => {
      const problem = trustProxyProblem(value);
      if (problem) issue.addIssue({ code: 'custom', message: problem });
    }),
  SIMULATOR_DLR_DELAY_MS: intFrom(200, 0),
  SIMULATORS: bool.default(true),
  SIMULATOR_MESSAGES_PER_SECOND: intFrom(20_000, 1),
  CARRIER_MODULE: z.string().optional(),
  BODY_LIMIT_BYTES: intFrom(1_048_576, 1024),
  PUBLIC_BODY_LIMIT_BYTES: intFrom(4096, 256),
  PROVIDER_WEBHOOK_BODY_LIMIT_BYTES: intFrom(1_048_576, 1024),
  METRICS_TOKEN: z.string().min(16, { error: 'METRICS_TOKEN must have at least 16 characters' }).optional(),
  METRICS_PORT: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).max(65535).optional()),
  METRICS_HOST: z.string().default('127.0.0.1'),
  RATE_LIMIT_PER_SECOND: intFrom(100, 1),
  RATE_LIMIT_STORE: z.enum(['memory', 'redis', 'postgres']).default('memory'),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  RATE_LIMIT_KEY_PREFIX: z.string().default('mensajero'),
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(MAX_WORKERS).default(1),
  WORKER_CONCURRENCY: intFrom(4, 0),
  WORKER_POLL_MS: intFrom(250, 5),
  JOB_LEASE_MS: intFrom(60_000, 100),
  // PostgreSQL: nothing waits for ever on a silent server, network or process (src/db/engine.ts PgLimits).
  PG_STATEMENT_TIMEOUT_MS: intFrom(60_000, 0),
  PG_LOCK_TIMEOUT_MS: intFrom(10_000, 0),
  PG_IDLE_IN_TRANSACTION_TIMEOUT_MS: intFrom(2_000, 0),
  PG_CONNECT_TIMEOUT_MS: intFrom(5_000, 0),
  PG_KEEPALIVE_MS: intFrom(10_000, 0),
  PG_PREPARED_STATEMENTS: bool.default(true),
  // Feature settings: each feature adds its variables under its own marker.
  // sms
  SMS_COUNTRY_CODES: z
    .string()
    .regex(/^\d{1,3}(,\d{1,3})*$/)
    .default('52,1,57'),
  // +1 numbers of other NANP countries and territories (Jamaica, the Dominican Republic…) cost international rates.
  NANP_ALLOWED_REGIONS: z
    .string()
    .transform((s) => s.replace(/\s+/g, '').toUpperCase())
    .pipe(
      z
        .string()
        .regex(/^[A-Z]{2}(,[A-Z]{2})*$/, { error: 'NANP_ALLOWED_REGIONS: comma-separated ISO 3166 codes, e.g. US,CA' }),
    )
    .default('US,CA'),
  SANDBOX_DAILY_LIMIT: intFrom(1000, 0),
  // Destination caps of a family (docs/operators/abuse-controls.md); 0: no cap.
  DESTINATION_MAX_PER_NUMBER_HOUR: intFrom(20, 0),
  DESTINATION_MAX_SAME_TEXT_HOUR: intFrom(6, 0),
  OPTOUT_LIST_LIMIT: intFrom(1_000_000, 1),
  DISPATCH_RETRY_MS: intFrom(5000, 10),
  // chatapp, voice
  // reports
  REPORTS_PER_MINUTE: intFrom(10, 1),
  REPORTS_PAGE_ROWS: intFrom(5_000, 1),
  // otp
  OTP_LOCK_COOLDOWN_SECONDS: intFrom(900, 0),
  OTP_LOCKS_BEFORE_COOLDOWN: intFrom(3, 1),
  OTP_DAILY_ROUNDS_PER_NUMBER: intFrom(10, 1),
  OTP_DAILY_SENDS_PER_NUMBER: intFrom(20, 1),
  OTP_PUMPING_MIN_CODES: intFrom(30, 1),
  OTP_PUMPING_WINDOW_SECONDS: intFrom(3600, 60),
  OTP_PUMPING_MIN_VERIFIED_PERCENT: intFrom(10, 0),
  OTP_PUMPING_BLOCK_SECONDS: intFrom(43_200, 1),
  OTP_PUMPING_PREFIX_DIGITS: intFrom(3, 1),
  OTP_PUMPING_DEPLOYMENT_FAMILIES: intFrom(3, 1),
  // spending
  SPEND_SPIKE_MULTIPLE: intFrom(10, 1),
  SPEND_SPIKE_MIN_CREDITS: intFrom(100, 0),
  // webhooks
  WEBHOOK_RETRY_BASE_MS: intFrom(10_000, 1),
  WEBHOOK_CONCURRENCY: intFrom(32, 1),
  WEBHOOK_HOST_CONCURRENCY: intFrom(8, 1),
  WEBHOOK_ACCOUNT_CONCURRENCY: intFrom(4, 1),
  WEBHOOK_HEAD_TIMEOUT_MS: intFrom(2000, 100),
  WEBHOOK_TIMEOUTS_BEFORE_BACKOFF: intFrom(3, 1),
  WEBHOOK_DISABLE_AFTER_HOURS: intFrom(120, 1),
  // subaccounts, payments
  SUBACCOUNTS_PER_ACCOUNT: intFrom(50, 0),
  PASSWORD_ENDPOINTS_PER_MINUTE: intFrom(30, 1),
  WEBHOOK_ADD_PER_MINUTE: intFrom(10, 1),
  PAYMENT_COUNTRY_CODES: z
    .string()
    .regex(/^\s*\d{1,4}(\s*,\s*\d{1,4})*\s*$/)
    .default('52'),
  PAYMENT_CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .default('MXN'),
  // panel
  PANEL_SESSION_HOURS: intFrom(12, 1),
  PANEL_SIGNIN_WINDOW_MINUTES: intFrom(15, 1),
  PANEL_SIGNIN_FAILURES_PER_ACCOUNT: intFrom(5, 1),
  PANEL_SIGNIN_FAILURES_PER_ADDRESS: intFrom(20, 1),
  // staff, wallet, loyalty
  // carriers
  REPLY_MATCH_WINDOW_HOURS: intFrom(72, 1),
  REJECTIONS_KEEP_DAYS: intFrom(30, 1),
  // Replies nobody took (`carriers replies --unmatched`): kept this many days, and at most this many rows.
  UNMATCHED_REPLIES_KEEP_DAYS: intFrom(30, 1),
  UNMATCHED_REPLIES_KEEP_ROWS: intFrom(100_000, 1),
  // Failed hand-off attempts shown by the message trace.
  MESSAGE_ATTEMPTS_KEEP_DAYS: intFrom(90, 1),
  // Retention: final messages (and every row of theirs) older than this many days are pruned; 0 keeps them all.
  MESSAGES_KEEP_DAYS: intFrom(0, 0),
  // Audit log entries older than this many days are pruned; 0 keeps them all.
  AUDIT_KEEP_DAYS: intFrom(0, 0),
  CARRIER_POLL_MS: intFrom(2000, 50),
  // alerts
  OPERATOR_WEBHOOK_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^https?$/ }).optional()),
  OPERATOR_WEBHOOK_SECRET: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]{22,}={0,2}$/, { error: 'OPERATOR_WEBHOOK_SECRET: whsec_ and base64 of 16+ bytes' })
      .optional(),
  ),
  SMTP_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^smtps?$/ }).optional()),
  ALERT_EMAIL_TO: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(1000).optional()),
  ALERT_EMAIL_FROM: z.string().default('mensajero@localhost'),
  ALERT_CARRIER_DOWN_SECONDS: intFrom(60, 1),
  ALERT_QUEUE_DELAY_SECONDS: intFrom(120, 1),
  // a carrier line's oldest message of each class waiting this long raises queue_delayed (docs/operators/traffic.md)
  ALERT_OTP_DELAY_SECONDS: intFrom(10, 1),
  ALERT_TRANSACTIONAL_DELAY_SECONDS: intFrom(60, 1),
  ALERT_BULK_DELAY_SECONDS: intFrom(600, 1),
  ALERT_CHECK_MS: intFrom(5000, 20),
  // operator API (/operator/v1/)
  OPERATOR_API_ALLOW_IP: z
    .string()
    .optional()
    .superRefine((value, issue) => {
      const bad = (value ?? '')
        .split(',')
        .map((e) => e.trim())
        .find((e) => e !== '' && !isAddressOrCidr(e));
      if (bad !== undefined) issue.addIssue({ code: 'custom', message: `${bad} is not an IP address or CIDR` });
    }),
  OPERATOR_API_PER_MINUTE: intFrom(120, 1),
  // prices, carrier costs, margins
  COST_CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/, { error: 'COST_CURRENCY: a three-letter ISO 4217 code, e.g. MXN' })
    .default('MXN'),
  CREDIT_VALUE: z
    .string()
    .default('1')
    .transform((v, issue) => {
      const value = parseMoney(v);
      if (value === null)
        issue.addIssue({ code: 'custom', message: 'CREDIT_VALUE: money per credit, up to 4 decimals' });
      return value ?? 0;
    }),
  // smpp server (customers bind to the service)
  SMPP_SERVER_PORT: optionalPort,
  SMPP_SERVER_HOST: z.string().default('0.0.0.0'),
  SMPP_SERVER_TLS_PORT: optionalPort,
  SMPP_SERVER_TLS_CERT: z.string().optional(),
  SMPP_SERVER_TLS_KEY: z.string().optional(),
  SMPP_SERVER_DELIVERY_TTL_HOURS: intFrom(72, 1),
  // A submit_sm whose response a dropped bind never got: resubmitted within this window, it gets the first message_id (0: never).
  SMPP_SERVER_RESUBMIT_WINDOW_SECONDS: intFrom(300, 0),
  // A connection not bound this long after it opened is closed; so is one whose PDU is not complete this long after its first octet.
  SMPP_SERVER_BIND_TIMEOUT_SECONDS: intFrom(30, 1),
  SMPP_SERVER_READ_TIMEOUT_SECONDS: intFrom(10, 1),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = z.infer<typeof schema> & { publicBaseUrl: string };

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const read = readConfig(env, overrides);
  if ('problems' in read)
    throw new Error(`invalid configuration: ${read.problems.map((p) => `${p.variable}: ${p.message}`).join('; ')}`);
  return read.config;
}

/**
 * A warning when a command would use the default SQLite database although it runs where a service is installed
 * (UNIT_ENV_FILE exists) or under a systemd unit (INVOCATION_ID): most likely the service's variables were not read
 * (a shell that sourced the file and lost a value with `&`), and the command would work on, or back up, an empty
 * `./data` database instead of the service's.
 */
export function defaultDatabaseWarning(env: NodeJS.ProcessEnv, unitEnvFileExists: boolean): string | undefined {
  if (env.DATABASE_URL !== undefined) return undefined;
  const where = env.INVOCATION_ID ? 'it runs under a systemd unit' : `${UNIT_ENV_FILE} exists`;
  if (!env.INVOCATION_ID && !unitEnvFileExists) return undefined;
  return (
    `DATABASE_URL is not set, so this command uses the default database ${DEFAULT_DATABASE_URL} ` +
    `(${resolve(DEFAULT_DATABASE_URL.slice('sqlite:'.length))}), not the service's, although ${where}. ` +
    `Read the service's variables as systemd does: mensajero --env-file ${UNIT_ENV_FILE} <command>`
  );
}

/** A variable the configuration refuses, and why (never its value). */
export interface ConfigProblem {
  variable: string;
  message: string;
}

/** The configuration, or every variable it refuses by name (`mensajero doctor` lists them all). */
export function readConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<Config> = {},
): { config: Config } | { problems: ConfigProblem[] } {
  const parsed = schema.safeParse(env);
  if (!parsed.success)
    return { problems: parsed.error.issues.map((i) => ({ variable: i.path.join('.'), message: i.message })) };
  const cfg = { ...parsed.data, ...overrides };
  const problems: ConfigProblem[] = [];
  if (env.METRICS_HOST && cfg.METRICS_PORT === undefined)
    problems.push({
      variable: 'METRICS_HOST',
      message: 'set METRICS_PORT too (the metrics listener is off without it)',
    });
  if (cfg.METRICS_PORT !== undefined && cfg.METRICS_PORT !== 0 && cfg.METRICS_PORT === cfg.PORT)
    problems.push({ variable: 'METRICS_PORT', message: 'must differ from PORT' });
  if (cfg.OPERATOR_WEBHOOK_URL && !cfg.OPERATOR_WEBHOOK_SECRET)
    problems.push({
      variable: 'OPERATOR_WEBHOOK_SECRET',
      message: 'required with OPERATOR_WEBHOOK_URL (alerts are signed)',
    });
  if (cfg.SMPP_SERVER_TLS_PORT !== undefined && !(cfg.SMPP_SERVER_TLS_CERT && cfg.SMPP_SERVER_TLS_KEY))
    problems.push({
      variable: 'SMPP_SERVER_TLS_PORT',
      message: 'set SMPP_SERVER_TLS_CERT and SMPP_SERVER_TLS_KEY too',
    });
  if (problems.length > 0) return { problems };
  const publicBaseUrl = (cfg.PUBLIC_BASE_URL ?? `http://localhost:${cfg.PORT}`).replace(/\/+$/, '');
  return { config: { ...cfg, publicBaseUrl } };
}

/**
 * Fastify's trustProxy option from TRUST_PROXY: the list of the proxies'
 * addresses or CIDRs. The client address is then the right-most address of
 * X-Forwarded-For that is not one of them, so a client cannot forge it by
 * prepending addresses. Unset: X-Forwarded-For is ignored. `true` and hop
 * counts are refused at start-up (checked in the schema above): `true` trusts
 * whatever the client writes, and Fastify 5 ignores a bare count.
 */
export function trustProxyOption(value: string | undefined): false | string[] {
  const entries = trustedProxies(value);
  return entries.length === 0 ? false : entries;
}

function trustedProxies(value: string | undefined): string[] {
  if (value === undefined || value.trim() === '' || value.trim() === 'false') return [];
  return value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
}

function trustProxyProblem(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (text === 'true' || text === '1' || text === 'yes')
    return 'TRUST_PROXY=true trusts any X-Forwarded-For a client sends: list the addresses or CIDRs of your proxies instead (e.g. 10.0.0.5,10.1.0.0/16)';
  for (const entry of trustedProxies(value)) {
    if (/^\d+$/.test(entry))
      return `TRUST_PROXY=${entry}: hop counts are not supported; list the addresses or CIDRs of your proxies instead`;
    if (!isAddressOrCidr(entry)) return `TRUST_PROXY: ${entry} is not an IP address or CIDR`;
  }
  return undefined;
}

function isAddressOrCidr(entry: string): boolean {
  try {
    parseAllowList([entry]);
    return true;
  } catch {
    return false;
  }
}
