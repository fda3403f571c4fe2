import type { Executor } from '../db/engine.js';
import { RATE_SCALE } from './quality.js';

export interface QualitySettings {
  /** null: never demoted. */
  min_delivery_rate: number | null;
  quality_window_minutes: number;
  quality_min_messages: number;
  demoted: boolean;
}

export const QUALITY_DEFAULTS = { window_minutes: 10, min_messages: 50 };

type QualityRow = {
  min_delivery_rate: number | null;
  window_minutes: number;
  min_messages: number;
  demoted_at: number | null;
};

const shown = (row: QualityRow | undefined): QualitySettings => ({
  min_delivery_rate: row?.min_delivery_rate == null ? null : row.min_delivery_rate / RATE_SCALE,
  quality_window_minutes: row?.window_minutes ?? QUALITY_DEFAULTS.window_minutes,
  quality_min_messages: row?.min_messages ?? QUALITY_DEFAULTS.min_messages,
  demoted: row?.demoted_at != null,
});

/** A connector's quality settings and state as `carriers set` shows them. */
export async function qualityOf(db: Executor, carrier: string): Promise<QualitySettings> {
  return shown(await db.selectFrom('carrier_quality').selectAll().where('carrier', '=', carrier).executeTakeFirst());
}

/** Every connector's quality settings and state, by name (one without a row: the defaults, not demoted). */
export async function qualityByCarrier(db: Executor): Promise<(carrier: string) => QualitySettings> {
  const rows = await db.selectFrom('carrier_quality').selectAll().execute();
  const byName = new Map(rows.map((r) => [r.carrier, r]));
  return (carrier) => shown(byName.get(carrier));
}

export interface QualityChangeRequest {
  /** In ten-thousandths; null removes the threshold; undefined keeps it. */
  minDeliveryRate?: number | null;
  windowMinutes?: number;
  minMessages?: number;
}

/** Creates or updates a connector's quality settings (what is not given stays). */
export async function setQuality(db: Executor, carrier: string, c: QualityChangeRequest): Promise<void> {
  const changes = {
    ...(c.minDeliveryRate !== undefined ? { min_delivery_rate: c.minDeliveryRate } : {}),
    ...(c.windowMinutes !== undefined ? { window_minutes: c.windowMinutes } : {}),
    ...(c.minMessages !== undefined ? { min_messages: c.minMessages } : {}),
  };
  if (Object.keys(changes).length === 0) return;
  await db
    .insertInto('carrier_quality')
    .values({ carrier, min_delivery_rate: null, ...QUALITY_DEFAULTS, ...changes, demoted_at: null, changed_at: null })
    .onConflict((oc) => oc.column('carrier').doUpdateSet(changes))
    .execute();
  // Without a minimum the connector is never demoted: a demotion ends now (what the next evaluation would do).
  if (c.minDeliveryRate === null)
    await db
      .updateTable('carrier_quality')
      .set({ demoted_at: null, changed_at: Date.now() })
      .where('carrier', '=', carrier)
      .where('demoted_at', 'is not', null)
      .execute();
}

/** A removed connector takes its quality state with it (a new one of the same name starts healthy). */
export async function deleteQuality(db: Executor, carrier: string): Promise<void> {
  await db.deleteFrom('carrier_quality').where('carrier', '=', carrier).execute();
}
