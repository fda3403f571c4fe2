import type { WithDb } from '../../context.js';
import { findSettings, recentVerifications, saveSettings, type OtpSettings } from './store.js';

/** The account's settings and newest verifications, for the CLI and the panel. */
export { findSettings, recentVerifications, saveSettings, type OtpSettings };

/** A setting in a form the rules refuse; the message states the rule (in the CLI's option names). */
export class OtpSettingsError extends Error {}

export type SettingsChanges = { allowed_countries?: string | null; max_per_number_hour?: number | null };

/**
 * The settings to change from their text forms (the CLI's options and the
 * panel's form): countries `52,1` or `any`, a per-number hourly cap or `none`.
 * Undefined leaves a setting as it is. Throws OtpSettingsError with the rule.
 */
export function settingsChanges(countries: unknown, maxPerNumberHour: unknown): SettingsChanges {
  const changes: SettingsChanges = {};
  if (countries !== undefined) {
    const value = String(countries).trim();
    if (value === 'any' || value === '') changes.allowed_countries = null;
    else {
      const codes = value.split(',').map((c) => c.trim().replace(/^\+/, ''));
      if (!codes.every((c) => /^[1-9]\d{0,2}$/.test(c))) {
        throw new OtpSettingsError('--countries is a comma-separated list of country codes (e.g. 52,1) or any');
      }
      changes.allowed_countries = [...new Set(codes)].join(',');
    }
  }
  if (maxPerNumberHour !== undefined) {
    const value = String(maxPerNumberHour).trim();
    if (value === 'none') changes.max_per_number_hour = null;
    else if (/^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 1_000_000)
      changes.max_per_number_hour = Number(value);
    else throw new OtpSettingsError('--max-per-number-hour is a positive integer or none');
  }
  return changes;
}

/** The settings and the newest verifications, given the context (the panel's OTP page). */
export const settingsOf = (ctx: WithDb, accountId: number) => findSettings(ctx.db.kysely, accountId);
export const verificationsOf = (ctx: WithDb, accountId: number, limit: number) =>
  recentVerifications(ctx.db.kysely, accountId, limit);
export const changeSettings = (ctx: WithDb, accountId: number, changes: SettingsChanges) =>
  saveSettings(ctx.db.kysely, accountId, changes, Date.now());
