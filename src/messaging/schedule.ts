import { badRequest } from '../http/errors.js';
import { parseLocal } from '../lib/time.js';

const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/**
 * The `date` of a send (YYYY-MM-DD HH:MM:SS, America/Mexico_City) as epoch ms,
 * or null when absent: sms_21 when malformed or not a real time, sms_20 when
 * not in the future. SMS, chat-app and voice share the rule and its codes.
 */
export function parseSendDate(date: string | undefined, now = Date.now()): number | null {
  if (date === undefined) return null;
  const at = DATE_TIME.test(date.trim()) ? parseLocal(date) : null;
  if (at === null) throw badRequest('sms_21');
  if (at <= now) throw badRequest('sms_20');
  return at;
}
