import { formatLocal } from '../lib/time.js';
import { html, type Html } from './html.js';
import type { View } from './view.js';

/**
 * A time as every panel page shows it: Mexico City wall time to the second, labelled with its zone
 * (`2026-12-07 14:05:09 (hora de la Ciudad de México)`), the instant in the element's datetime attribute.
 */
export function shownTime(v: Pick<View, 't'>, at: number | string): Html {
  const ms = typeof at === 'number' ? at : Date.parse(at);
  if (!Number.isFinite(ms)) return html``;
  return html`<time datetime="${new Date(ms).toISOString()}"
    >${formatLocal(ms)} <span class="zone">(${v.t('time_zone')})</span></time
  >`;
}
