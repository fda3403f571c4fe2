import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import { ApiError } from './errors.js';

/**
 * Message-sending requests per account per second (RATE_LIMIT_PER_SECOND,
 * overridable per account). Memory store for one process; Redis
 * (RATE_LIMIT_STORE=redis) when several processes share the limit.
 */
export class SendRateLimiter {
  private readonly limiters = new Map<number, RateLimiterAbstract>();
  private readonly redis: Redis | null;

  constructor(private readonly config: Config) {
    this.redis = config.RATE_LIMIT_STORE === 'redis' ? new Redis(config.REDIS_URL, { enableOfflineQueue: false, lazyConnect: true }) : null;
  }

  /** Connects to Redis when configured; until then (or while it is down) each process limits on its own. */
  async connect(): Promise<void> {
    if (this.redis) await this.redis.connect();
  }

  private limiter(points: number): RateLimiterAbstract {
    let l = this.limiters.get(points);
    if (!l) {
      const opts = { points, duration: 1, keyPrefix: `${this.config.RATE_LIMIT_KEY_PREFIX}-send-${points}` };
      l = this.redis ? new RateLimiterRedis({ ...opts, storeClient: this.redis, insuranceLimiter: new RateLimiterMemory(opts) }) : new RateLimiterMemory(opts);
      this.limiters.set(points, l);
    }
    return l;
  }

  /** Counts one request; throws 429 rate_01 with Retry-After when over the limit. */
  async consume(accountId: number, perSecond: number | null): Promise<void> {
    const points = perSecond ?? this.config.RATE_LIMIT_PER_SECOND;
    try {
      await this.limiter(points).consume(String(accountId));
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      throw new ApiError(429, 'rate_01', undefined, {}, { 'Retry-After': String(retryAfter) });
    }
  }

  async close(): Promise<void> {
    if (this.redis) await this.redis.quit().catch(() => undefined);
  }
}
