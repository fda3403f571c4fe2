import type { Config } from '../config.js';
import type { Executor } from '../db/engine.js';
import { enqueueMany } from '../jobs/queue.js';
import { MAX_RETRIES } from '../outbound/schedule.js';
import type { EndpointAlarm } from '../webhooks/endpoint-health.js';
import type { AlertType, DeliveryChannel, EpisodeType } from './tables.js';

export const ALERT_DELIVER_JOB = 'alerts.deliver';

/** An alert's flat JSON body (docs/operators/metrics-and-alerts.md): its type, its subject's fields, `since` in ISO 8601 UTC. */
export type AlertBody = { type: AlertType; since: string } & Record<string, string | number>;

export const isoTime = (ms: number) => new Date(ms).toISOString();

/** The channels alerts go to: the operator's webhook and email, each when configured. */
export function alertChannels(config: Config): DeliveryChannel[] {
  const channels: DeliveryChannel[] = [];
  if (config.OPERATOR_WEBHOOK_URL) channels.push('webhook');
  if (config.SMTP_URL && config.ALERT_EMAIL_TO) channels.push('email');
  return channels;
}

/**
 * Opens the episode of `type` for `subject` unless one is open, and queues
 * its alert in the same transaction. The unique `open_key` decides a race:
 * of two processes that see the same condition, one inserts, the other
 * inserts nothing and sends nothing. Returns whether this call opened it.
 */
export async function openEpisode(
  trx: Executor,
  config: Config,
  episode: { type: EpisodeType; subject: string; since: number; body: AlertBody },
): Promise<boolean> {
  const now = Date.now();
  const row = await trx
    .insertInto('alert_episodes')
    .values({
      type: episode.type,
      subject: episode.subject,
      open_key: `${episode.type}:${episode.subject}`,
      since: episode.since,
      opened_at: now,
      closed_at: null,
      details: JSON.stringify(episode.body),
    })
    .onConflict((oc) => oc.column('open_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!row) return false;
  await queueAlert(trx, config, Number(row.id), episode.body, now);
  return true;
}

/** The operator's webhook_disabled alert when deliveries disable a customer endpoint (src/app/boot.ts hands it to webhooks). */
export function endpointAlarm(config: Config): EndpointAlarm {
  return {
    async disabled(trx, e) {
      await openEpisode(trx, config, {
        type: 'webhook_disabled',
        subject: String(e.accountId),
        since: e.now,
        body: {
          type: 'webhook_disabled',
          account: e.account,
          url: e.url,
          failing_since: isoTime(e.failingSince),
          since: isoTime(e.now),
        },
      });
    },
  };
}

/**
 * Closes the open episode of `type` for `subject`, once: the conditional
 * update lets one caller through. With `body`, that alert is queued (a
 * carrier_up); without, the episode ends quietly. Returns whether it closed one.
 */
export async function closeEpisode(
  trx: Executor,
  config: Config,
  type: EpisodeType,
  subject: string,
  body?: AlertBody,
): Promise<boolean> {
  const now = Date.now();
  const row = await trx
    .updateTable('alert_episodes')
    .set({ open_key: null, closed_at: now })
    .where('open_key', '=', `${type}:${subject}`)
    .returning('id')
    .executeTakeFirst();
  if (!row) return false;
  if (body) await queueAlert(trx, config, Number(row.id), body, now);
  return true;
}

/** One delivery per configured channel, each with its job (retried as customer webhook events are). */
async function queueAlert(trx: Executor, config: Config, episodeId: number, body: AlertBody, now: number) {
  const channels = alertChannels(config);
  if (channels.length === 0) return;
  const rows = await trx
    .insertInto('alert_deliveries')
    .values(
      channels.map((channel) => ({
        episode_id: episodeId,
        channel,
        body: JSON.stringify(body),
        state: 'pending' as const,
        last_error: null,
        created_at: now,
        delivered_at: null,
      })),
    )
    .returning('id')
    .execute();
  await enqueueMany(
    trx,
    rows.map((r) => ({ kind: ALERT_DELIVER_JOB, payload: { deliveryId: Number(r.id) }, maxAttempts: MAX_RETRIES + 1 })),
  );
}
