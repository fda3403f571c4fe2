import { retentionCoversFrom } from '../messaging/retention.js';
import { html } from './html.js';
import type { View } from './view.js';

/**
 * Under a report of messages (campaigns, margins), when the operator prunes old messages (MESSAGES_KEEP_DAYS): the
 * first day still held in full. Nothing when every message is kept.
 */
export function coversFrom(v: View) {
  const day = retentionCoversFrom(v.ctx.config, Date.now());
  return day === null ? '' : html`<p class="help" data-testid="covers-from">${v.t('covers_from', { day })}</p>`;
}
