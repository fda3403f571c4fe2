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
  try {
    const res = await request(url, {
      dispatcher: agent,
      method: opts.method,
      headers: { 'user-agent': 'Mensajero-Webhooks/1', ...opts.headers },
      body: opts.body,
      signal: AbortSignal.timeout(opts.timeoutMs),
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
    await res.body.dump({ limit: BODY_LIMIT }).catch(() => undefined);
    return { status: res.statusCode, durationMs: elapsed(), error: null };
  } catch (err) {
    return { status: null, durationMs: elapsed(), error: describeError(err), ...(err instanceof ForbiddenDestination ? { forbidden: true } : {}) };
  }
}

function describeError(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timeout';
  const code = e?.code ?? e?.cause?.code;
  const message = (e?.message ?? String(err)).slice(0, 300);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
