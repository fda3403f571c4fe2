import type { Executor } from '../db/engine.js';

export interface FailingEndpoint {
  email: string;
  url: string;
  lastError: string;
  lastAt: number;
  failuresLastHour: number;
  pending: number;
}

/**
 * Webhook endpoints failing now: those whose latest delivery attempt (in the
 * last 24 hours) did not get HTTP 200, with their failures in the last hour
 * and the events still waiting.
 */
export async function failingEndpoints(db: Executor, now = Date.now()): Promise<FailingEndpoint[]> {
  const latest = await db
    .selectFrom('event_attempts')
    .select(['account_id', (eb) => eb.fn.max('id').as('last_id')])
    .where('attempted_at', '>', now - 86_400_000)
    .groupBy('account_id')
    .execute();
  if (latest.length === 0) return [];
  const attempts = await db
    .selectFrom('event_attempts')
    .innerJoin('accounts', 'accounts.id', 'event_attempts.account_id')
    .innerJoin('webhooks', 'webhooks.account_id', 'event_attempts.account_id')
    .select([
      'event_attempts.account_id',
      'accounts.email',
      'webhooks.url',
      'event_attempts.http_status',
      'event_attempts.error',
      'event_attempts.attempted_at',
    ])
    .where(
      'event_attempts.id',
      'in',
      latest.map((l) => Number(l.last_id)),
    )
    .execute();
  const failing = attempts.filter((a) => a.http_status !== 200);
  if (failing.length === 0) return [];
  const ids = failing.map((f) => Number(f.account_id));
  const [hourly, pending] = await Promise.all([
    db
      .selectFrom('event_attempts')
      .select(['account_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('account_id', 'in', ids)
      .where('attempted_at', '>', now - 3_600_000)
      .where((eb) => eb.or([eb('http_status', 'is', null), eb('http_status', '!=', 200)]))
      .groupBy('account_id')
      .execute(),
    db
      .selectFrom('events')
      .select(['account_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('account_id', 'in', ids)
      .where('state', '=', 'pending')
      .groupBy('account_id')
      .execute(),
  ]);
  const count = (rows: Array<{ account_id: number; n: number }>, id: number) =>
    Number(rows.find((r) => Number(r.account_id) === id)?.n ?? 0);
  return failing.map((f) => ({
    email: f.email,
    url: f.url,
    lastError: f.error ?? (f.http_status !== null ? `HTTP ${f.http_status}` : ''),
    lastAt: Number(f.attempted_at),
    failuresLastHour: count(hourly, Number(f.account_id)),
    pending: count(pending, Number(f.account_id)),
  }));
}
