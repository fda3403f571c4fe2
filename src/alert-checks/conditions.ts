import type { Config } from '../config.js';
import type { Db, Executor } from '../db/engine.js';
import { STATUS_FRESH_MS, type ConnectorStats } from '../carriers/status.js';
import { CLASS_ORDER } from '../carriers/traffic-line.js';
import type { TrafficClass } from '../messaging/types.js';
import { closeEpisode, isoTime, openEpisode } from '../alerts/episodes.js';

/** What one check knows: the time, when the previous check finished, when this evaluator started. */
export interface Check {
  db: Db;
  config: Config;
  now: number;
  checkedAt: number | null;
  startedAt: number;
  /** The open episodes' keys (`type:subject`), read once per check: a healthy deployment's check writes nothing. */
  open: Set<string>;
}

/** The keys of the episodes open now. */
export async function openEpisodeKeys(db: Db): Promise<Set<string>> {
  const rows = await db.kysely
    .selectFrom('alert_episodes')
    .select('open_key')
    .where('open_key', 'is not', null)
    .execute();
  return new Set(rows.map((r) => r.open_key!));
}

const isOpen = (c: Check, type: string, subject: string) => c.open.has(`${type}:${subject}`);

const watchKey = (carrier: string) => `carrier:${carrier}`;

/**
 * carrier_down / carrier_up for every connector the operator added (the
 * built-in simulator is left out). A connector no process holds a bind of is
 * watched from the moment it was last seen bound: its last change (added,
 * enabled, reconfigured) or the previous check, whichever is later, and
 * never before this evaluator started (a process that just started is still
 * binding). After ALERT_CARRIER_DOWN_SECONDS its carrier_down episode opens;
 * once bound again the episode closes with carrier_up. A disabled or removed
 * connector's watch and episode end quietly.
 */
export async function checkCarriers(c: Check): Promise<void> {
  const db = c.db.kysely;
  const carriers = await db
    .selectFrom('carriers')
    .select(['name', 'enabled', 'updated_at'])
    .where('type', '!=', 'simulator')
    .execute();
  const bound = new Set(
    (
      await db
        .selectFrom('carrier_process_status')
        .select('carrier')
        .distinct()
        .where('state', '=', 'bound')
        .where('updated_at', '>', c.now - STATUS_FRESH_MS)
        .execute()
    ).map((r) => r.carrier),
  );
  const watches = new Map(
    (await db.selectFrom('alert_watches').selectAll().execute()).map((w) => [w.key, Number(w.since)]),
  );
  const known = new Set<string>();
  for (const carrier of carriers) {
    known.add(watchKey(carrier.name));
    const tracked = watches.has(watchKey(carrier.name)) || isOpen(c, 'carrier_down', carrier.name);
    if (carrier.enabled !== 1) {
      if (tracked) await endCarrierWatch(c, carrier.name);
    } else if (bound.has(carrier.name)) {
      if (tracked) await carrierBound(c, carrier.name);
    } else {
      const since = watches.get(watchKey(carrier.name)) ?? (await startWatch(c, carrier));
      const due = c.now - since >= c.config.ALERT_CARRIER_DOWN_SECONDS * 1000;
      if (due && !isOpen(c, 'carrier_down', carrier.name)) await carrierDown(c, carrier.name, since);
    }
  }
  for (const key of watches.keys()) if (!known.has(key)) await endCarrierWatch(c, key.slice('carrier:'.length));
  await closeRemovedCarriers(c, new Set(carriers.filter((r) => r.enabled === 1).map((r) => r.name)));
}

async function startWatch(c: Check, carrier: { name: string; updated_at: number }): Promise<number> {
  const since = Math.min(c.now, Math.max(Number(carrier.updated_at), c.checkedAt ?? 0, c.startedAt));
  await c.db.kysely
    .insertInto('alert_watches')
    .values({ key: watchKey(carrier.name), since })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return since;
}

function carrierDown(c: Check, carrier: string, since: number): Promise<unknown> {
  return c.db.kysely.transaction().execute((trx) =>
    openEpisode(trx, c.config, {
      type: 'carrier_down',
      subject: carrier,
      since,
      body: { type: 'carrier_down', carrier, since: isoTime(since) },
    }),
  );
}

async function carrierBound(c: Check, carrier: string): Promise<void> {
  await c.db.kysely.transaction().execute(async (trx) => {
    await deleteWatch(trx, carrier);
    await closeEpisode(trx, c.config, 'carrier_down', carrier, {
      type: 'carrier_up',
      carrier,
      since: isoTime(c.now),
    });
  });
}

async function endCarrierWatch(c: Check, carrier: string): Promise<void> {
  await c.db.kysely.transaction().execute(async (trx) => {
    await deleteWatch(trx, carrier);
    await closeEpisode(trx, c.config, 'carrier_down', carrier);
  });
}

const deleteWatch = (trx: Executor, carrier: string) =>
  trx.deleteFrom('alert_watches').where('key', '=', watchKey(carrier)).execute();

/** Open carrier_down episodes of connectors removed or disabled since they opened: ended without carrier_up. */
async function closeRemovedCarriers(c: Check, enabled: Set<string>): Promise<void> {
  for (const key of c.open) {
    const subject = key.slice('carrier_down:'.length);
    if (key.startsWith('carrier_down:') && !enabled.has(subject)) await endCarrierWatch(c, subject);
  }
}

/**
 * queue_delayed: the oldest job that is due and that no worker holds has
 * waited ALERT_QUEUE_DELAY_SECONDS; `since` is when it became due. The
 * episode ends quietly once no due job waits that long.
 */
export async function checkQueue(c: Check): Promise<void> {
  const db = c.db.kysely;
  const oldest = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.min('run_at').as('run_at'))
    .where('state', '=', 'pending')
    .where('run_at', '<=', c.now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', c.now)]))
    .executeTakeFirst();
  const since = oldest?.run_at === null || oldest?.run_at === undefined ? null : Number(oldest.run_at);
  const late = since !== null && c.now - since >= c.config.ALERT_QUEUE_DELAY_SECONDS * 1000;
  if (late === isOpen(c, 'queue_delayed', '')) return;
  await db.transaction().execute((trx) =>
    late
      ? openEpisode(trx, c.config, {
          type: 'queue_delayed',
          subject: '',
          since: since!,
          body: { type: 'queue_delayed', since: isoTime(since!) },
        })
      : closeEpisode(trx, c.config, 'queue_delayed', ''),
  );
}

/** How long a class may wait in a carrier's line before queue_delayed fires for it. */
function lineDelaySeconds(config: Config, c: TrafficClass): number {
  if (c === 'otp') return config.ALERT_OTP_DELAY_SECONDS;
  return c === 'transactional' ? config.ALERT_TRANSACTIONAL_DELAY_SECONDS : config.ALERT_BULK_DELAY_SECONDS;
}

/**
 * queue_delayed per carrier and traffic class: the oldest message of a class waiting in a connector's lines (every
 * process's, as they report them) has waited that class's ALERT_<CLASS>_DELAY_SECONDS; `since` is when it started
 * waiting. An OTP code waiting 10 s is an incident, a campaign waiting 10 minutes is not. The episode ends quietly
 * once no message of the class waits that long.
 */
export async function checkLines(c: Check): Promise<void> {
  const rows = await c.db.kysely
    .selectFrom('carrier_process_status')
    .select(['carrier', 'stats'])
    .where('updated_at', '>', c.now - STATUS_FRESH_MS)
    .execute();
  const oldest = new Map<string, number>();
  for (const r of rows) {
    const line = (JSON.parse(r.stats) as ConnectorStats).line;
    if (!line) continue;
    for (const k of CLASS_ORDER) {
      const at = line[k]?.oldest_at;
      const key = `${r.carrier}:${k}`;
      if (typeof at === 'number' && at < (oldest.get(key) ?? Infinity)) oldest.set(key, at);
    }
  }
  // The classes late or open: the open ones that no longer wait close quietly.
  const open = [...c.open].filter((k) => k.startsWith('queue_delayed:') && k.length > 'queue_delayed:'.length);
  const subjects = new Set([...open.map((k) => k.slice('queue_delayed:'.length)), ...oldest.keys()]);
  for (const subject of subjects) {
    const since = oldest.get(subject) ?? null;
    const cls = subject.slice(subject.lastIndexOf(':') + 1) as TrafficClass;
    const late = since !== null && c.now - since >= lineDelaySeconds(c.config, cls) * 1000;
    if (late === isOpen(c, 'queue_delayed', subject)) continue;
    const carrier = subject.slice(0, subject.lastIndexOf(':'));
    await c.db.kysely.transaction().execute((trx) =>
      late
        ? openEpisode(trx, c.config, {
            type: 'queue_delayed',
            subject,
            since: since!,
            body: { type: 'queue_delayed', since: isoTime(since!), carrier, class: cls },
          })
        : closeEpisode(trx, c.config, 'queue_delayed', subject),
    );
  }
}

/** webhook_disabled episodes (opened when deliveries disable an endpoint) end quietly once the endpoint is enabled, replaced or deleted. */
export async function checkDisabledWebhooks(c: Check): Promise<void> {
  if (![...c.open].some((key) => key.startsWith('webhook_disabled:'))) return;
  const db = c.db.kysely;
  const open = await db
    .selectFrom('alert_episodes')
    .leftJoin('webhooks', (join) =>
      join.on((eb) => eb('webhooks.account_id', '=', eb.cast<number>('alert_episodes.subject', 'integer'))),
    )
    .select(['alert_episodes.subject', 'webhooks.status', 'webhooks.disabled_at'])
    .where('alert_episodes.type', '=', 'webhook_disabled')
    .where('alert_episodes.open_key', 'is not', null)
    .execute();
  for (const e of open)
    if (e.status !== 0 || e.disabled_at === null)
      await db.transaction().execute((trx) => closeEpisode(trx, c.config, 'webhook_disabled', e.subject));
}

/**
 * carrier_demoted: a connector the route quality rule demoted (carrier_quality.demoted_at,
 * src/carriers/quality.ts) opens one episode, `since` its demotion. It ends quietly when the
 * connector recovers or is disabled; there is no "promoted" alert (docs/operators/metrics-and-alerts.md names none).
 */
export async function checkDemoted(c: Check): Promise<void> {
  const db = c.db.kysely;
  const rows = await db
    .selectFrom('carriers')
    .leftJoin('carrier_quality', 'carrier_quality.carrier', 'carriers.name')
    .select(['carriers.name', 'carriers.enabled', 'carrier_quality.demoted_at'])
    .execute();
  for (const r of rows) {
    const demoted = r.enabled === 1 && r.demoted_at !== null && r.demoted_at !== undefined;
    if (demoted === isOpen(c, 'carrier_demoted', r.name)) continue;
    const since = Number(r.demoted_at);
    await db.transaction().execute((trx) =>
      demoted
        ? openEpisode(trx, c.config, {
            type: 'carrier_demoted',
            subject: r.name,
            since,
            body: { type: 'carrier_demoted', carrier: r.name, since: isoTime(since) },
          })
        : closeEpisode(trx, c.config, 'carrier_demoted', r.name),
    );
  }
}
