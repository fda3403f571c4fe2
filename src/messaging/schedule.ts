import { parseLocal } from '../lib/time.js';
import { Refusal } from './refusal.js';

const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/**
 * The `date` of a send (YYYY-MM-DD HH:MM:SS, America/Mexico_City) as epoch ms,
 * or null when absent: refused malformed_date when malformed or not a real time,
 * past_date when not in the future. SMS, chat-app and voice share the rule.
 */
export function parseSendDate(date: string | undefined, now = Date.now()): number | null {
  if (date === undefined) return null;
  const at = DATE_TIME.test(date.trim()) ? parseLocal(date) : null;
  if (at === null) throw new Refusal('malformed_date');
  if (at <= now) throw new Refusal('past_date');
  return at;
}
