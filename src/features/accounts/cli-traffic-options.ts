import type { Account } from '../../accounts/index.js';
import {
  isTrafficSetting,
  MAX_TRAFFIC_WEIGHT,
  MAX_VALIDITY_MINUTES,
  type TrafficSettings,
} from '../../messaging/traffic.js';
import { CliError } from '../../cli/runner.js';

/** The traffic options of `accounts set` (docs/operators/traffic.md). */
export const TRAFFIC_OPTIONS = [
  [
    '--traffic-class <class>',
    "auto (OTP codes otp, sends of at most 10 numbers not scheduled transactional, the rest bulk), transactional or bulk: the family's sends but OTP codes",
  ],
  [
    '--traffic-weight <n>',
    `the family's turns at a shared carrier against one for a family at the default, 1 to ${MAX_TRAFFIC_WEIGHT} (default 1)`,
  ],
  [
    '--validity-minutes <n|none>',
    `how long the family's messages may wait for their carrier, 1 to ${MAX_VALIDITY_MINUTES}, or none (default none)`,
  ],
] as const;

const whole = (raw: string, max: number, option: string, hint = '') => {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new CliError(`${option} is a whole number from 1 to ${max}${hint}`, {
      code: option.slice(2).replaceAll('-', '_'),
      params: { max },
    });
  return n;
};

/** The traffic settings the options change, validated. They are the family's: only a top-level account takes them. */
export function trafficChanges(
  o: { trafficClass?: string; trafficWeight?: string; validityMinutes?: string },
  account: Account,
): Partial<TrafficSettings> | null {
  if (o.trafficClass === undefined && o.trafficWeight === undefined && o.validityMinutes === undefined) return null;
  if (account.parent_id !== null)
    throw new CliError('traffic settings belong to the top-level account: its sub-accounts follow it', {
      code: 'traffic_top_level',
    });
  const changes: Partial<TrafficSettings> = {};
  if (o.trafficClass !== undefined) {
    if (!isTrafficSetting(o.trafficClass))
      throw new CliError('--traffic-class is auto, transactional or bulk', { code: 'traffic_class' });
    changes.traffic_class = o.trafficClass;
  }
  if (o.trafficWeight !== undefined) changes.weight = whole(o.trafficWeight, MAX_TRAFFIC_WEIGHT, '--traffic-weight');
  if (o.validityMinutes !== undefined)
    changes.validity_minutes =
      o.validityMinutes === 'none'
        ? null
        : whole(o.validityMinutes, MAX_VALIDITY_MINUTES, '--validity-minutes', ', or none');
  return changes;
}
