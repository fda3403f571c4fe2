import type { TrafficSetting } from '../../messaging/types.js';
import { isTrafficSetting } from '../../messaging/traffic.js';
import { normaliseAllowList } from '../../auth/allow-list.js';

/** A setting an operator or account gave that the SMPP users refuse; the message says which and why. */
export class SmppUserProblem extends Error {}

/** What `smpp-users` prints of a user: its settings, never its password. */
export interface SmppUserSettings {
  system_id: string;
  email: string;
  max_binds: number;
  throughput: number;
  window: number;
  /** The user's own allow-list; empty: the account's applies. */
  allow_ip: string[];
  /** The class of its submits: `auto` (bulk; transactional for a priority_flag of 2 or more), or pinned. */
  traffic_class: TrafficSetting;
}

export const DEFAULTS = { maxBinds: 4, throughput: 100, window: 10 } as const;

/** system_id: SMPP 3.4 allows 15 characters; printable ASCII without spaces, so logs and configs quote it safely. */
export function systemId(raw: unknown): string {
  const value = String(raw ?? '').trim();
  if (!/^[\x21-\x7e]{1,15}$/.test(value))
    throw new SmppUserProblem('--system-id must be 1 to 15 printable ASCII characters without spaces');
  return value;
}

/** SMPP 3.4 passwords are at most 8 characters (9 octets with the NUL). */
export function smppPassword(raw: string): string {
  if (raw.length < 1 || raw.length > 8 || !/^[\x20-\x7e]+$/.test(raw))
    throw new SmppUserProblem('the password (standard input) must be 1 to 8 printable ASCII characters');
  return raw;
}

/** --traffic-class: auto, transactional or bulk. */
export function trafficSetting(raw: string): TrafficSetting {
  if (!isTrafficSetting(raw)) throw new SmppUserProblem('--traffic-class takes auto, transactional or bulk');
  return raw;
}

export function bounded(name: string, raw: unknown, min: number, max: number): number {
  const text = String(raw).trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max)
    throw new SmppUserProblem(`--${name} must be an integer from ${min} to ${max}`);
  return n;
}

export const LIMITS = { maxBinds: [1, 100], throughput: [0, 100_000], window: [1, 1000] } as const;

/** `--allow-ip CIDR,CIDR` → stored JSON; `none` (or empty) → null: the account's allow-list applies. */
export function allowIps(raw: string): string | null {
  const text = raw.trim();
  if (text === '' || text === 'none') return null;
  try {
    return JSON.stringify(normaliseAllowList(text.split(',')));
  } catch (err) {
    throw new SmppUserProblem(`--allow-ip: ${(err as Error).message}`);
  }
}

/** The limits `smpp-users add|set` and the operator API take (as typed: text), checked; only those given. */
export function smppUserLimits(o: {
  maxBinds?: string;
  throughput?: string;
  window?: string;
  allowIp?: string;
  trafficClass?: string;
}): {
  maxBinds?: number;
  throughput?: number;
  window?: number;
  allowIps?: string | null;
  trafficClass?: TrafficSetting;
} {
  return {
    ...(o.maxBinds !== undefined ? { maxBinds: bounded('max-binds', o.maxBinds, ...LIMITS.maxBinds) } : {}),
    ...(o.throughput !== undefined ? { throughput: bounded('throughput', o.throughput, ...LIMITS.throughput) } : {}),
    ...(o.window !== undefined ? { window: bounded('window', o.window, ...LIMITS.window) } : {}),
    ...(o.allowIp !== undefined ? { allowIps: allowIps(o.allowIp) } : {}),
    ...(o.trafficClass !== undefined ? { trafficClass: trafficSetting(o.trafficClass) } : {}),
  };
}
