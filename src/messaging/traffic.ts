import type { Executor } from '../db/engine.js';
import type { SendRequest, TrafficClass, TrafficSetting } from './types.js';
import { sendRulesChanged } from './send-rules.js';

/**
 * Traffic classes (docs/operators/traffic.md): a message's class decides the order in which a carrier's line hands it
 * over (carriers/traffic-line.ts), its family whose turn it is within the class.
 */

/** The most recipients of a send that `auto` makes `transactional` (when not scheduled). */
export const TRANSACTIONAL_MAX_RECIPIENTS = 10;

export const TRAFFIC_CLASSES: readonly TrafficClass[] = ['otp', 'transactional', 'bulk'];
export const TRAFFIC_SETTINGS: readonly TrafficSetting[] = ['auto', 'transactional', 'bulk'];

/** The longest validity a send or a family's default may ask for: a week. */
export const MAX_VALIDITY_MINUTES = 10_080;

/** The most a family's weight may be: its turns per round of a class, against 1 for a family left at the default. */
export const MAX_TRAFFIC_WEIGHT = 100;

/**
 * The class of a request's messages: an OTP code is always `otp`; else the family's pinned class when it has one;
 * else what the caller asks for (a payment link, an SMPP user's setting or priority_flag); else a send of at most
 * TRANSACTIONAL_MAX_RECIPIENTS that is not scheduled is `transactional`, the rest `bulk`.
 */
export function classOf(req: SendRequest, pinned: TrafficSetting, scheduled: boolean): TrafficClass {
  if (req.trafficClass === 'otp') return 'otp';
  if (pinned !== 'auto') return pinned;
  if (req.trafficClass) return req.trafficClass;
  return !scheduled && req.recipients.length <= TRANSACTIONAL_MAX_RECIPIENTS ? 'transactional' : 'bulk';
}

/**
 * The end of a request's validity: the request's own (null: none), else the family's default counted from `now`.
 */
export function validityOf(req: SendRequest, familyMinutes: number | null, from: number): number | null {
  if (req.validUntil !== undefined) return req.validUntil;
  return familyMinutes === null ? null : from + familyMinutes * 60_000;
}

export interface TrafficSettings {
  traffic_class: TrafficSetting;
  weight: number;
  validity_minutes: number | null;
}

const DEFAULTS: TrafficSettings = { traffic_class: 'auto', weight: 1, validity_minutes: null };

/** A family's traffic settings (on its top account); the defaults when it set none. */
export async function trafficSettings(db: Executor, familyId: number): Promise<TrafficSettings> {
  const row = await db
    .selectFrom('traffic_settings')
    .select(['traffic_class', 'weight', 'validity_minutes'])
    .where('account_id', '=', familyId)
    .executeTakeFirst();
  return row ? { ...row, weight: Number(row.weight) } : { ...DEFAULTS };
}

/** Changes some of a family's traffic settings (on its top account); returns them all. */
export async function setTrafficSettings(
  db: Executor,
  familyId: number,
  change: Partial<TrafficSettings>,
): Promise<TrafficSettings> {
  const next = { ...(await trafficSettings(db, familyId)), ...change };
  await db
    .insertInto('traffic_settings')
    .values({ account_id: familyId, ...next })
    .onConflict((oc) => oc.column('account_id').doUpdateSet(next))
    .execute();
  // Dispatch reads the weights from the send rules' book (SendRulesBook.families): reloaded at this revision.
  await sendRulesChanged(db);
  return next;
}

/** Whether `raw` names a class an operator may pin (`auto`, `transactional`, `bulk`). */
export const isTrafficSetting = (raw: unknown): raw is TrafficSetting =>
  typeof raw === 'string' && (TRAFFIC_SETTINGS as readonly string[]).includes(raw);
