import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import { ApiError } from './errors.js';

/**
 * Message-sending requests per account per second (RATE_LIMIT_PER_SECOND,
 * overridable per account). Memory store for one process; Redis
 * (RATE_LIMIT_STORE=redis) when several processes share the limit.
 * named() gives other per-account limits (reports) in the same store.
 */
export class SendRateLimiter {
  private readonly limiters = new Map<number, RateLimiterAbstract>();
  private readonly namedLimiters = new Map<string, RateLimiterAbstract>();
  private redis: Redis | null = null;

  constructor(private readonly config: Config) {}

  /**
   * Connects to Redis when configured. Redis being down never stops the
   * service: until it answers (ioredis keeps reconnecting) each process limits
   * on its own with the in-memory insurance limiter. `onError` hears of each
   * outage once.
   */
  async connect(onError: (err: Error) => void): Promise<void> {
    if (this.config.RATE_LIMIT_STORE !== 'redis') return;
    // Loaded only when configured: ioredis takes a third of a second to import (CLI start-up).
    const { Redis } = await import('ioredis');
    this.redis = new Redis(this.config.REDIS_URL, { enableOfflineQueue: false, lazyConnect: true });
    let reported = false;
    // One report per outage, not one per reconnection attempt.
    this.redis.on('error', (err) => {
      if (!reported) onError(err);
      reported = true;
    });
    this.redis.on('ready', () => (reported = false));
    await this.redis.connect().catch(() => undefined);
  }

  private limiter(points: number): RateLimiterAbstract {
    let l = this.limiters.get(points);
    if (!l) {
      l = this.store(`send-${points}`, points, 1);
      this.limiters.set(points, l);
    }
    return l;
  }

  /** A limiter of `points` per `duration` seconds in the configured store (Redis, with a memory fallback while it is down). */
  private store(name: string, points: number, duration: number): RateLimiterAbstract {
    const opts = { points, duration, keyPrefix: `${this.config.RATE_LIMIT_KEY_PREFIX}-${name}` };
    return this.redis
      ? new RateLimiterRedis({ ...opts, storeClient: this.redis, insuranceLimiter: new RateLimiterMemory(opts) })
      : new RateLimiterMemory(opts);
  }

  /** Counts one request; throws 429 rate_01 with Retry-After when over the limit. */
  async consume(accountId: number, perSecond: number | null): Promise<void> {
    const points = perSecond ?? this.config.RATE_LIMIT_PER_SECOND;
    await consumeOrThrow(this.limiter(points), accountId, 'rate_01');
  }

  /**
   * Another per-account limit with its own name and error code (e.g. the
   * reports limit, report_05), counted in the same store as the send limit.
   */
  named(name: string, limit: { points: number; durationSec: number; code: string }): AccountLimit {
    const key = `${name}-${limit.points}-${limit.durationSec}`;
    let l = this.namedLimiters.get(key);
    if (!l) {
      l = this.store(key, limit.points, limit.durationSec);
      this.namedLimiters.set(key, l);
    }
    const limiter = l;
    return { consume: (accountId) => consumeOrThrow(limiter, accountId, limit.code) };
  }

  async close(): Promise<void> {
    if (this.redis) await this.redis.quit().catch(() => undefined);
  }
}

/** A per-account request limit: consume() counts one request or throws 429 with Retry-After. */
export interface AccountLimit {
  /** `key`: the account's id, or another key the limit counts by (the operator API: the caller's address). */
  consume(key: number | string): Promise<void>;
}

async function consumeOrThrow(limiter: RateLimiterAbstract, accountId: number | string, code: string): Promise<void> {
  try {
    await limiter.consume(String(accountId));
  } catch (res) {
    if (!(res instanceof RateLimiterRes)) throw res;
    const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    throw new ApiError(429, code, undefined, {}, { 'Retry-After': String(retryAfter) });
  }
}

/**
 * The endpoints that hash a password (/employee/add, /manager/subaccount/add,
 * the panel's sub-account form) share one limit per top-level account:
 * PASSWORD_ENDPOINTS_PER_MINUTE, 429 rate_01.
 */
export function passwordEndpointLimit(ctx: { rateLimiter: SendRateLimiter; config: Config }): AccountLimit {
  return ctx.rateLimiter.named('password-endpoints', {
    points: ctx.config.PASSWORD_ENDPOINTS_PER_MINUTE,
    durationSec: 60,
    code: 'rate_01',
  });
}

/**
 * /webhook/add and the panel's webhook form (each registration costs a DNS
 * lookup and an outbound request) share one limit per top-level account:
 * WEBHOOK_ADD_PER_MINUTE, 429 rate_01.
 */
export function webhookAddLimit(ctx: { rateLimiter: SendRateLimiter; config: Config }): AccountLimit {
  const points = ctx.config.WEBHOOK_ADD_PER_MINUTE;
  return ctx.rateLimiter.named('webhook-add', { points, durationSec: 60, code: 'rate_01' });
}
