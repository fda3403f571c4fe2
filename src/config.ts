import { z } from 'zod';

/**
 * Environment → typed configuration, validated once at start.
 * Every variable is documented in the README's configuration table.
 */
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const intFrom = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

const schema = z.object({
  PORT: intFrom(3000, 0),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().default('sqlite:./data/mensajero.db'),
  DATA_DIR: z.string().default('./data'),
  MENSAJERO_SECRET: z.string().optional(),
  PUBLIC_BASE_URL: z.string().optional(),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  OTP_RESEND_COOLDOWN_SECONDS: intFrom(30, 0),
  TRUST_PROXY: z.string().optional(),
  SIMULATOR_DLR_DELAY_MS: intFrom(200, 0),
  SIMULATORS: bool.default(true),
  SIMULATOR_MESSAGES_PER_SECOND: intFrom(20_000, 1),
  CARRIER_MODULE: z.string().optional(),
  BODY_LIMIT_BYTES: intFrom(1_048_576, 1024),
  RATE_LIMIT_PER_SECOND: intFrom(100, 1),
  RATE_LIMIT_STORE: z.enum(['memory', 'redis', 'postgres']).default('memory'),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  RATE_LIMIT_KEY_PREFIX: z.string().default('mensajero'),
  WORKER_CONCURRENCY: intFrom(4, 0),
  WORKER_POLL_MS: intFrom(250, 5),
  JOB_LEASE_MS: intFrom(60_000, 100),
  // Feature settings: each feature adds its variables under its own marker.
  // sms
  SMS_COUNTRY_CODES: z.string().regex(/^\d{1,3}(,\d{1,3})*$/).default('52,1,57'),
  SANDBOX_DAILY_LIMIT: intFrom(1000, 0),
  DISPATCH_RETRY_MS: intFrom(5000, 10),
  // chatapp, voice
  // reports
  REPORTS_PER_MINUTE: intFrom(10, 1),
  REPORTS_PAGE_ROWS: intFrom(5_000, 1),
  // otp
  // webhooks
  WEBHOOK_RETRY_BASE_MS: intFrom(10_000, 1),
  WEBHOOK_CONCURRENCY: intFrom(32, 1),
  WEBHOOK_HOST_CONCURRENCY: intFrom(8, 1),
  // subaccounts, payments
  PAYMENT_COUNTRY_CODES: z.string().regex(/^\s*\d{1,4}(\s*,\s*\d{1,4})*\s*$/).default('52'),
  PAYMENT_CURRENCY: z.string().regex(/^[A-Z]{3}$/).default('MXN'),
  // staff, wallet, loyalty
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = z.infer<typeof schema> & { publicBaseUrl: string };

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${detail}`);
  }
  const cfg = { ...parsed.data, ...overrides };
  const publicBaseUrl = (cfg.PUBLIC_BASE_URL ?? `http://localhost:${cfg.PORT}`).replace(/\/+$/, '');
  return { ...cfg, publicBaseUrl };
}

/** Fastify's trustProxy option from TRUST_PROXY: a hop count, `true`, or a CIDR list. Unset: X-Forwarded-For is ignored. */
export function trustProxyOption(value: string | undefined): boolean | number | string {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
