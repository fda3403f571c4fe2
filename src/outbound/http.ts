import { Agent, buildConnector, request } from 'undici';
import { ForbiddenDestination, resolveDestination } from './addresses.js';

/** Bytes of a receiver's answer we read at most; the rest is dropped with the connection. */
const BODY_LIMIT = 16 * 1024;

export interface HttpAnswer {
  /** HTTP status, or null when nothing answered (refused, timeout, forbidden address). */
  status: number | null;
  durationMs: number;
  error: string | null;
  /** The destination resolved to a forbidden address: nothing was sent. */
  forbidden?: boolean;
}

/**
 * A connection pool that resolves the host on every new connection, refuses
 * it when any address is private/local/reserved (unless allowPrivate), and
 * connects to the address it checked: a DNS answer cannot change between the
 * check and the connection. Make one per attempt and close it afterwards, so
 * every attempt resolves and checks anew.
 */
export function safeAgent(allowPrivate: boolean, timeoutMs: number): Agent {
  const connector = buildConnector({ timeout: timeoutMs });
  return new Agent({
    keepAliveTimeout: timeoutMs,
    connect(options, callback) {
      resolveDestination(options.hostname, allowPrivate).then(
        // `host` keeps the name, so TLS still checks the certificate against it (SNI).
        ([first]) => connector({ ...options, hostname: first.address }, callback),
        (err: Error) => callback(err, null),
      );
    },
  });
}

interface CheckedPool {
  address: string;
  agent: Agent;
}

/** Connection pools of a process's outbound deliveries, by origin (and private-address policy); the oldest is closed past this many. */
const MAX_POOLS = 1000;

declare module '../context.js' {
  interface AppContext {
    /** The process's pools of outbound HTTP (webhook events, operator alerts): built by src/app/boot.ts, closed with the context. */
    outbound: DestinationPools;
  }
}

/**
 * The connection pool of each destination, kept between attempts so its
 * sockets are reused (keep-alive). Every attempt resolves the name and checks
 * the addresses again; the pool connects only to the address it was made for,
 * and is replaced (the old one closed once its requests finish) when the name
 * now resolves elsewhere.
 */
export class DestinationPools {
  private readonly pools = new Map<string, CheckedPool>();

  /** The destination's checked pool; rejects with ForbiddenDestination like safeAgent. */
  async agent(url: string, allowPrivate: boolean, timeoutMs: number): Promise<Agent> {
    const target = new URL(url);
    const [first] = await resolveDestination(target.hostname, allowPrivate);
    const key = `${allowPrivate ? 1 : 0} ${target.origin}`;
    const known = this.pools.get(key);
    if (known?.address === first.address) return known.agent;
    const connector = buildConnector({ timeout: timeoutMs });
    // `host` keeps the name, so TLS still checks the certificate against it (SNI) and the Host header names it.
    const agent = new Agent({
      keepAliveTimeout: 4_000,
      connect: (options, callback) => connector({ ...options, hostname: first.address }, callback),
    });
    this.pools.delete(key);
    this.pools.set(key, { address: first.address, agent });
    known?.agent.close().catch(() => undefined);
    if (this.pools.size > MAX_POOLS) {
      const [oldestKey, oldest] = this.pools.entries().next().value as [string, CheckedPool];
      this.pools.delete(oldestKey);
      oldest.agent.close().catch(() => undefined);
    }
    return agent;
  }

  /** The destination's checked pool, or the answer of a destination that cannot be reached (unresolved, forbidden). */
  async checked(url: string, allowPrivate: boolean, timeoutMs: number): Promise<Agent | HttpAnswer> {
    const started = performance.now();
    try {
      return await this.agent(url, allowPrivate, timeoutMs);
    } catch (err) {
      return failure(err, Math.round(performance.now() - started));
    }
  }

  /** `send` through the destination's checked pool; never throws. */
  async send(url: string, allowPrivate: boolean, opts: Parameters<typeof send>[2]): Promise<HttpAnswer> {
    const agent = await this.checked(url, allowPrivate, opts.timeoutMs);
    return agent instanceof Agent ? send(agent, url, opts) : agent;
  }

  /** Closes every pool once its requests finish. */
  async close(): Promise<void> {
    const agents = [...this.pools.values()].map((p) => p.agent);
    this.pools.clear();
    await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
  }
}

const failure = (err: unknown, durationMs: number): HttpAnswer => ({
  status: null,
  durationMs,
  error: describeError(err),
  ...(err instanceof ForbiddenDestination ? { forbidden: true } : {}),
});

/**
 * One request with a time limit, no redirects followed, the answer's body read
 * up to a small limit. Never throws: failures are an answer with status null.
 */
export async function send(
  agent: Agent,
  url: string,
  opts: { method: 'GET' | 'HEAD' | 'POST'; headers?: Record<string, string>; body?: string; timeoutMs: number },
): Promise<HttpAnswer> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // A timer cleared with the answer: AbortSignal.timeout's timer stays and fires, building an error, long after.
  const limit = new AbortController();
  const timer = setTimeout(() => limit.abort(), opts.timeoutMs);
  try {
    const res = await request(url, {
      dispatcher: agent,
      method: opts.method,
      headers: { 'user-agent': 'Mensajero-Webhooks/1', ...opts.headers },
      body: opts.body,
      signal: limit.signal,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      // undici closes the socket after every HEAD (for servers that wrongly send a body);
      // keep it: a receiver that does so only breaks its own next request, which is retried.
      ...(opts.method === 'HEAD' ? { reset: false } : {}),
    });
    await res.body.dump({ limit: BODY_LIMIT }).catch(() => undefined);
    return { status: res.statusCode, durationMs: elapsed(), error: null };
  } catch (err) {
    return failure(err, elapsed());
  } finally {
    clearTimeout(timer);
  }
}

function describeError(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timeout';
  const code = e?.code ?? e?.cause?.code;
  const message = (e?.message ?? String(err)).slice(0, 300);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
