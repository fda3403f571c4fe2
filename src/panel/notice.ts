import { createHmac } from 'node:crypto';
import type { WordKey } from './i18n.js';
import { sameToken, type PanelSession } from './session.js';

/** The notices an action may leave for the page it redirects to (POST/redirect/GET). */
const NOTICES = [
  'allow_list_saved',
  'webhook_saved',
  'webhook_deleted',
  'secret_rotated',
  'redelivered',
  'redelivered_many',
  'test_event_sent',
  'password_changed',
  'totp_enabled',
  'totp_disabled',
  'otp_saved',
  'sent_ok',
  'sub_created',
  'transferred',
  'sub_archived',
  'list_created',
  'account_created',
  'credits_added',
  'account_archived',
  'optouts_added',
  'optouts_removed',
  'low_balance_saved',
  'smpp_password_set',
  'smpp_bind_closed',
  'settings_saved',
  'price_saved',
  'price_removed',
  'sender_added',
  'sender_removed',
  'carrier_saved',
  'route_added',
  'route_removed',
] as const satisfies readonly WordKey[];
export type NoticeKey = (typeof NOTICES)[number];

export interface Notice {
  done: NoticeKey;
  /** How many (messages sent, events queued): a non-negative integer. */
  count?: number;
}

const COUNT = /^\d{1,15}$/;
/** Whose notice it is: the person, not the session (changing the password starts a new session). */
const ownerOf = (s: PanelSession) => `${s.kind} ${s.account?.id ?? s.operator?.id}`;
const sign = (key: Buffer, s: PanelSession, done: string, count: string) =>
  createHmac('sha256', key)
    .update(`${ownerOf(s)}|${done}|${count}`)
    .digest('base64url')
    .slice(0, 22);

/**
 * The redirect's query for a notice: the notice, its count and a signature
 * over both and the person, so a link cannot put words or numbers of its
 * own in the panel's notice slot, nor one person's notice in another's.
 */
export function noticeQuery(key: Buffer, session: PanelSession, notice: Notice): string {
  const count = notice.count === undefined ? '' : String(notice.count);
  return new URLSearchParams({
    done: notice.done,
    ...(count ? { count } : {}),
    sig: sign(key, session, notice.done, count),
  }).toString();
}

/** The notice of a page's query when it is one of NOTICES signed for this person; undefined otherwise. */
export function readNotice(
  key: Buffer,
  session: PanelSession,
  query: Record<string, string | undefined>,
): Notice | undefined {
  const { done, count = '', sig } = query;
  if (typeof done !== 'string' || typeof count !== 'string' || typeof sig !== 'string') return undefined;
  if (!(NOTICES as readonly string[]).includes(done) || (count !== '' && !COUNT.test(count))) return undefined;
  if (!sameToken(sig, sign(key, session, done, count))) return undefined;
  return { done: done as NoticeKey, ...(count ? { count: Number(count) } : {}) };
}
