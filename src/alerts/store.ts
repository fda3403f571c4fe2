import type { Executor } from '../db/engine.js';
import { isoTime } from './episodes.js';

/** Closed episodes stay listed this long after they opened. */
export const RECENT_DAYS = 7;

export interface ListedEpisode {
  id: number;
  type: string;
  /** The carrier, the account's email, or '' (the job queue). */
  subject: string;
  state: 'open' | 'closed';
  since: string;
  opened_at: string;
  closed_at: string | null;
  alert: Record<string, unknown>;
  deliveries: Array<{ alert: string; channel: string; state: string; attempts: number; last_error: string | null }>;
}

/** Every open episode and the closed ones of the last RECENT_DAYS, newest first, at most `limit`. */
export async function listEpisodes(db: Executor, limit = 100, now = Date.now()): Promise<ListedEpisode[]> {
  const rows = await db
    .selectFrom('alert_episodes')
    .selectAll()
    .where((eb) => eb.or([eb('open_key', 'is not', null), eb('opened_at', '>=', now - RECENT_DAYS * 86_400_000)]))
    .orderBy('opened_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  const ids = rows.map((r) => Number(r.id));
  const deliveries =
    ids.length === 0
      ? []
      : await db.selectFrom('alert_deliveries').selectAll().where('episode_id', 'in', ids).orderBy('id').execute();
  return rows.map((r) => {
    const alert = JSON.parse(r.details) as Record<string, unknown>;
    return {
      id: Number(r.id),
      type: r.type,
      subject: String(alert.carrier ?? alert.account ?? r.subject),
      state: r.open_key === null ? 'closed' : 'open',
      since: isoTime(Number(r.since)),
      opened_at: isoTime(Number(r.opened_at)),
      closed_at: r.closed_at === null ? null : isoTime(Number(r.closed_at)),
      alert,
      deliveries: deliveries
        .filter((d) => Number(d.episode_id) === Number(r.id))
        .map((d) => ({
          alert: String((JSON.parse(d.body) as { type: string }).type),
          channel: d.channel,
          state: d.state,
          attempts: d.attempts,
          last_error: d.last_error,
        })),
    };
  });
}
