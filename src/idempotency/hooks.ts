import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WithDb } from '../context.js';
import { ApiError } from '../http/errors.js';
import { defineMessages } from '../http/codes.js';
import { release, reserve, saveResponse, RUNNING_LOCK_MS } from './store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Honours the Idempotency-Key header. Every `sendLimited` route has it
     * too, so a route that sends or charges gets it with either flag.
     */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotencyKeyId?: number;
    /**
     * Set by a handler whose answer holds a secret (an OTP code shown with
     * code_show 1): the body kept for replays instead of the answer, so the
     * secret is never stored.
     */
    idempotentReplayBody?: Record<string, unknown>;
  }
}

defineMessages({
  idempotency_key_invalid: 'Idempotency-Key must be 1 to 255 visible ASCII characters',
  idempotency_key_mismatch: 'This Idempotency-Key was used with a different request: use a new key for a new request',
  idempotency_key_in_progress: 'A request with this Idempotency-Key is still running: retry later',
});

const KEY = /^[\x21-\x7e]{1,255}$/;
/** How often a repeat looks whether the first request has finished. */
const POLL_MS = 25;

const applies = (request: FastifyRequest) => {
  const config = request.routeOptions.config;
  return config.idempotent === true || config.sendLimited === true;
};

/** JSON with sorted keys, so `{a,b}` and `{b,a}` are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function requestHash(request: FastifyRequest): string {
  let text: string;
  try {
    text = canonical({
      method: request.method,
      route: request.routeOptions.url,
      query: request.query ?? {},
      body: request.body ?? {},
    });
  } catch (err) {
    // The route's own validation has not run yet: a hostile body can nest deeper than the call stack.
    if (err instanceof RangeError) throw new ApiError(400, 'invalid_json', 'the body nests too deeply');
    throw err;
  }
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Idempotency-Key on the API routes that send or charge: the first request
 * with a key runs and its response (any status below 500 except 429) is kept
 * 24 hours; a repeat with the same key and the same request gets that
 * response again without anything running, with `Idempotent-Replayed: true`;
 * the same key with another request is refused (422); a repeat while the
 * first still runs waits for it, in whichever process it runs. Keys belong
 * to the account.
 */
export function idempotencyHooks(api: FastifyInstance, ctx: WithDb): void {
  // Every API request passes these hooks, most without the header: that case answers at once, without a promise.
  api.addHook('preHandler', (request, reply, done) => {
    if (request.headers['idempotency-key'] === undefined || !applies(request)) return done();
    reserveOrReplay(ctx, request, reply).then(() => done(), done);
  });

  api.addHook('onSend', (request, reply, payload, done) => {
    if (request.idempotencyKeyId === undefined) return done(null, payload);
    recordResponse(ctx, request, reply, payload).then(() => done(null, payload));
  });
}

/** Reserves the key for this request, or answers with the kept response of the first one. */
async function reserveOrReplay(ctx: WithDb, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const header = request.headers['idempotency-key']!;
  const key = Array.isArray(header) ? header[0] : header;
  if (Array.isArray(header) || !KEY.test(key)) throw new ApiError(400, 'idempotency_key_invalid');
  const hash = requestHash(request);
  const deadline = Date.now() + RUNNING_LOCK_MS + 5_000;
  for (;;) {
    const r = await reserve(ctx.db, request.account.id, key, hash);
    if (r.kind === 'reserved') {
      request.idempotencyKeyId = r.id;
      return;
    }
    if (r.kind === 'mismatch') throw new ApiError(422, 'idempotency_key_mismatch');
    if (r.kind === 'replay') {
      reply.code(r.response.status).header('idempotent-replayed', 'true');
      if (r.response.contentType) reply.header('content-type', r.response.contentType);
      reply.send(r.response.body);
      return;
    }
    if (Date.now() > deadline)
      throw new ApiError(409, 'idempotency_key_in_progress', undefined, {}, { 'retry-after': '1' });
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Keeps the response for repeats (or frees the key when the response is not one to keep). Never throws. */
async function recordResponse(
  ctx: WithDb,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<void> {
  const id = request.idempotencyKeyId!;
  request.idempotencyKeyId = undefined;
  const status = reply.statusCode;
  const sent = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  const body = request.idempotentReplayBody !== undefined ? JSON.stringify(request.idempotentReplayBody) : sent;
  try {
    if (status >= 500 || status === 429 || body === null) await release(ctx.db, id);
    else
      await saveResponse(ctx.db, id, {
        status,
        contentType: (reply.getHeader('content-type') as string | undefined) ?? null,
        body,
      });
  } catch (err) {
    // The response still goes out; the key stays "running" until its lock expires, then a repeat runs again.
    request.log.error({ err }, 'recording an idempotent response failed');
  }
}
