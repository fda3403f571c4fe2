import type { WithDb } from '../context.js';
import type { Executor } from '../db/engine.js';
import { redactUrlSecrets } from '../text/url-secrets.js';
import { insertAuditRow, selectAuditRows, updateAuditDetail } from './store.js';

/** One change, as whoever made it records it. `detail` is cleaned of secrets here whatever the caller passes. */
export interface AuditInput {
  /** `token:NAME`, `cli` or `panel:EMAIL`. */
  actor: string;
  /** `<group>.<subcommand>`, as the CLI names the change (`accounts.credits`). */
  action: string;
  target?: string | null;
  detail?: Record<string, unknown>;
  address?: string | null;
}

export interface AuditEntry {
  at: string;
  actor: string;
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
  address: string | null;
}

/**
 * The target of a change to an account: `account:ID EMAIL`. The id names it whatever its email (a sub-account may
 * carry any email, another tenant's included: its email alone would disguise which account changed).
 */
export const accountTarget = (id: number | string, shownEmail: string): string => `account:${id} ${shownEmail}`;

/** The most entries one listing returns (`audit list`, the panel's page). */
export const AUDIT_LIST_MAX = 500;

/** Names of fields whose values are never recorded: passwords, tokens, secrets, API keys and other keys. */
const SECRET_WORD = /pass|token|secret|api_?key|credential|private|csrf/i;
/** `key`, `keyFile`, `key_id`, `signingKey`, `webhook_key`; not `keyword` or `monkey`. */
const KEY_NAME = /^key$|^key[A-Z_]|[a-z_]Key$|_key$|^KEY/;

const MAX_FIELDS = 40;
const MAX_TEXT = 200;

export const isSecretName = (name: string): boolean => SECRET_WORD.test(name) || KEY_NAME.test(name);

/**
 * A detail as it is stored: secret-named fields dropped (at any depth), the secrets inside URLs replaced in every text
 * whatever its field's name (a password or key in a URL's user part, `?password=`, `?token=`: text/url-secrets.ts),
 * texts cut to 200 characters, at most 40 fields.
 */
export function cleanDetail(detail: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(detail).slice(0, MAX_FIELDS)) {
    if (isSecretName(name) || value === undefined) continue;
    out[name] = cleanValue(value, depth);
  }
  return out;
}

/** A text as the audit log stores it: no secret inside a URL, at most `max` characters. */
export function cleanText(text: string, max = MAX_TEXT): string {
  const clean = redactUrlSecrets(text);
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

function cleanValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return cleanText(value);
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (depth >= 2) return '…';
  if (Array.isArray(value)) return value.slice(0, MAX_FIELDS).map((v) => cleanValue(v, depth + 1));
  if (typeof value === 'object') return cleanDetail(value as Record<string, unknown>, depth + 1);
  return String(value);
}

/** Records one entry; its id (for a change written in steps, `updateAuditEntry`). */
export async function recordAudit(db: Executor, entry: AuditInput): Promise<number> {
  return insertAuditRow(db, {
    at: Date.now(),
    actor: entry.actor.slice(0, 400),
    action: entry.action.slice(0, 100),
    target: entry.target == null ? null : redactUrlSecrets(String(entry.target)).slice(0, 400),
    detail: JSON.stringify(cleanDetail(entry.detail ?? {})),
    address: entry.address ?? null,
  });
}

/**
 * Rewrites the detail of an entry recorded earlier, cleaned as recordAudit cleans it: a change written in several
 * transactions (dnc import) records its entry in the first and brings its count up to date in each of the others,
 * so an interrupted change leaves an entry that says what was written.
 */
export async function updateAuditEntry(db: Executor, id: number, detail: Record<string, unknown>): Promise<void> {
  await updateAuditDetail(db, id, JSON.stringify(cleanDetail(detail)));
}

/** `--since`: a duration back from now (`30m`, `24h`, `7d`) or an ISO 8601 moment; undefined when it is neither. */
export function sinceOf(text: string, now = Date.now()): number | undefined {
  const m = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (m) return now - Number(m[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd'];
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return undefined;
  const ms = Date.parse(text.trim());
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Entries since a moment, newest first, at most `limit` (AUDIT_LIST_MAX). `actor` matches the whole actor
 * (`token:deploy`, `cli`, `panel:ops@example.com`) or its name alone (`deploy`, `ops@example.com`).
 */
export async function listAudit(
  db: Executor,
  opts: { since: number; actor?: string; limit?: number; offset?: number },
): Promise<AuditEntry[]> {
  const actors = opts.actor === undefined ? undefined : [opts.actor, `token:${opts.actor}`, `panel:${opts.actor}`];
  const limit = Math.min(Math.max(1, opts.limit ?? AUDIT_LIST_MAX), AUDIT_LIST_MAX);
  const rows = await selectAuditRows(db, { since: opts.since, actors, limit, offset: opts.offset });
  return rows.map((r) => ({
    at: new Date(r.at).toISOString(),
    actor: r.actor,
    action: r.action,
    target: r.target,
    detail: JSON.parse(r.detail) as Record<string, unknown>,
    address: r.address,
  }));
}

/** The highest page `audit list --page` and the operator API take. */
export const AUDIT_MAX_PAGE = 10_000;

/**
 * One page of the entries since a moment (AUDIT_LIST_MAX a page, newest first; page 1 the newest): `audit list --page`
 * and GET /operator/v1/audit. A page past the last is empty. Entries recorded while an operator pages shift the
 * later pages by as many: `since` set to a moment (not a duration) and the first entry's time tell.
 */
export async function auditPage(db: Executor, opts: { since: number; actor?: string; page: number }) {
  const offset = (opts.page - 1) * AUDIT_LIST_MAX;
  const rows = await listAudit(db, { since: opts.since, actor: opts.actor, offset, limit: AUDIT_LIST_MAX });
  const more = await listAudit(db, { since: opts.since, actor: opts.actor, offset: offset + AUDIT_LIST_MAX, limit: 1 });
  return { entries: rows, page: opts.page, has_more: more.length > 0 };
}

/** listAudit, given the context (the panel's audit page). */
export const auditLog = (ctx: WithDb, opts: { since: number; actor?: string; limit?: number }) =>
  listAudit(ctx.db.kysely, opts);
