import { createServer } from 'node:net';

/** How long one check may take: a host that drops packets must not hang the command. */
export const CHECK_TIMEOUT_MS = 5000;

export class TimedOut extends Error {}

export async function withTimeout<T>(work: Promise<T>, ms = CHECK_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut(`no answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a listener could bind host:port now (it is closed again at once). */
export function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(false) : reject(err),
    );
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The address a local client reaches a listener bound to `host` on. */
export function localAddress(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host;
  return `http://${reachable.includes(':') && !reachable.startsWith('[') ? `[${reachable}]` : reachable}:${port}`;
}

/** GET `url`: status and body, or undefined when nothing answers HTTP there in time. */
export async function httpGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string } | undefined> {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(2000), redirect: 'manual' });
    const body = await response.text();
    return { status: response.status, body: body.slice(0, 65_536) };
  } catch {
    return undefined;
  }
}

/** PING on a fresh connection that neither retries nor queues: one answer or one error. */
export async function pingRedis(url: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  // ioredis rejects with "Connection is closed" and tells the cause to its error listeners.
  let cause: Error | undefined;
  redis.on('error', (err: Error) => (cause ??= err));
  try {
    await redis.connect();
    const answer = await redis.ping();
    if (answer !== 'PONG') throw new Error(`PING answered ${answer}`);
  } catch (err) {
    throw cause ?? err;
  } finally {
    redis.disconnect();
  }
}

/**
 * Replaces every secret of the environment in `text`: the passwords of the
 * URLs an operator configures (DATABASE_URL, REDIS_URL, SMTP_URL), the server
 * secret and the metrics token. Details quote drivers' errors, which may
 * quote what they were given.
 */
export function redactor(env: NodeJS.ProcessEnv): (text: string) => string {
  const secrets = new Set<string>();
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'SMTP_URL']) {
    const password = urlPassword(env[name]);
    if (password) [password, decodeURIComponentSafe(password)].forEach((s) => secrets.add(s));
  }
  for (const name of ['MENSAJERO_SECRET', 'METRICS_TOKEN']) if (env[name]) secrets.add(env[name]!);
  const longestFirst = [...secrets].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  return (text) => longestFirst.reduce((out, secret) => out.split(secret).join('***'), text);
}

function urlPassword(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    return new URL(value).password || undefined;
  } catch {
    // Not a URL the parser takes: the part between the scheme's user and the @.
    return /^[a-z][a-z0-9+.-]*:\/\/[^:/@]*:([^@/]*)@/i.exec(value)?.[1];
  }
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
