import type { FastifyInstance } from 'fastify';
import { accountByEmail } from '../../../accounts/index.js';
import { CHANNELS } from '../../../channels.js';
import { connectors } from '../../operator-data.js';
import { STRATEGIES } from '../../../carriers/routing.js';
import type { WithDb } from '../../../context.js';
import { addRouteAs, changeCarrierAs, removeRouteAs } from '../../../operator-api/carrier-writes.js';
import { html } from '../../html.js';
import { csrfField, field, refuse, registerAction, type Section, type Shared, type View } from '../../view.js';
import { inPanelWords } from '../../refusals.js';
import { panelBy } from './prices.js';

// Carriers and routes edited from the operations page, through the operator API's services (`carriers set`,
// `routes add|remove`), which record each change with the panel's operator as actor.

/** The settings the page edits: an SMPP connector's link and pace, and every connector's quality settings. */
const SMPP_FIELDS = ['host', 'port', 'system_id', 'window', 'throughput', 'binds'] as const;

/** Each connector's editable settings as the form shows them (text), by name. */
export async function carrierSettings(ctx: WithDb): Promise<Map<string, Record<string, string>>> {
  return new Map(
    (await connectors(ctx)).map(({ name, type, stored, quality: q }) => {
      const own = type === 'smpp' ? SMPP_FIELDS.map((f) => [f, String(stored[f] ?? '')]) : [];
      return [
        name,
        Object.fromEntries([
          ...own,
          ['min_delivery_rate', q.min_delivery_rate === null ? 'off' : String(q.min_delivery_rate)],
          ['quality_window_minutes', String(q.quality_window_minutes)],
          ['quality_min_messages', String(q.quality_min_messages)],
        ]),
      ];
    }),
  );
}

/** The edit form of one connector, folded under its row. */
export function carrierForm(v: View, name: string, settings: Record<string, string> | undefined) {
  if (!settings) return '';
  return html`<details>
    <summary>${v.t('carrier_edit')}</summary>
    <form method="post" action="/panel/operator/carrier" class="grid" aria-label="${v.t('carrier_edit_of', { name })}">
      ${csrfField(v)}<input type="hidden" name="name" value="${name}" />
      ${Object.entries(settings).map(
        ([f, value]) =>
          html`<label for="carrier-${name}-${f}">${v.t(`carrier_field_${f as (typeof SMPP_FIELDS)[number]}`)}</label
            ><input id="carrier-${name}-${f}" name="${f}" value="${value}" maxlength="200" />`,
      )}
      <button type="submit" class="small">${v.t('save_settings')}</button>
    </form>
  </details>`;
}

/** The form that adds (or replaces) a route. */
export function routeForm(v: View) {
  return html`<form method="post" action="/panel/operator/route" class="grid" data-testid="route-form">
    ${csrfField(v)}
    <label for="route-channel">${v.t('channel')}</label>
    <select id="route-channel" name="channel">
      ${CHANNELS.map((c) => html`<option value="${c}">${v.t(`channel_${c}`)}</option>`)}
    </select>
    <label for="route-prefix">${v.t('prefix')}</label><input id="route-prefix" name="prefix" inputmode="numeric" />
    <label for="route-carriers">${v.t('carriers')} (${v.t('route_carriers_help')})</label
    ><input id="route-carriers" name="carriers" required />
    <label for="route-account">${v.t('route_account_optional')}</label
    ><input id="route-account" name="email" type="email" />
    <label for="route-strategy">${v.t('route_strategy')}</label>
    <select id="route-strategy" name="strategy">
      ${STRATEGIES.map((s) => html`<option value="${s}">${v.t(`strategy_${s}`)}</option>`)}
    </select>
    <label for="route-weights">${v.t('route_weights')}</label><input id="route-weights" name="weights" />
    <button type="submit">${v.t('route_add')}</button>
  </form>`;
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function registerCarrierActions(scope: FastifyInstance, shared: Shared, section: Section): void {
  const { ctx } = shared;
  registerAction(
    scope,
    shared,
    section,
    'carrier',
    async (request, v, body) => {
      const name = field(body, 'name');
      const now = (await carrierSettings(ctx)).get(name);
      if (!now) throw refuse(404, 'op_carrier_invalid', { detail: v.t('refused_carrier_missing', { name }) });
      // Only what changed goes to `carriers set` (a connector setting rebinds it); numbers as the kind's schema takes them.
      const changed: Record<string, unknown> = {};
      for (const [f, before] of Object.entries(now)) {
        const text = field(body, f);
        if (text === '' || text === before) continue;
        const numeric = f === 'port' || f === 'window' || f === 'throughput' || f === 'binds';
        changed[f] = numeric && /^\d{1,9}$/.test(text) ? Number(text) : text;
      }
      if (Object.keys(changed).length > 0)
        await inPanelWords(v, () => changeCarrierAs(ctx, panelBy(request), name, changed));
      return { done: 'carrier_saved' };
    },
    null,
  );

  registerAction(
    scope,
    shared,
    section,
    'route',
    async (request, v, body) => {
      const email = field(body, 'email');
      const account = email === '' ? undefined : await accountByEmail(ctx, email);
      if (email !== '' && !account) throw refuse(400, 'email_invalid');
      const weights = list(field(body, 'weights'));
      await inPanelWords(v, () =>
        addRouteAs(ctx, panelBy(request), {
          channel: field(body, 'channel'),
          prefix: field(body, 'prefix').replace(/^\+/, ''),
          carriers: list(field(body, 'carriers')),
          account_id: account?.id ?? null,
          strategy: field(body, 'strategy') || undefined,
          weights: weights.length === 0 ? undefined : weights.map(Number),
        }),
      );
      return { done: 'route_added' };
    },
    null,
  );

  registerAction(
    scope,
    shared,
    section,
    'remove-route',
    async (request, v, body) => {
      const id = field(body, 'id');
      if (!/^\d{1,15}$/.test(id)) throw refuse(404, 'op_route_missing');
      await inPanelWords(v, () => removeRouteAs(ctx, panelBy(request), Number(id)));
      return { done: 'route_removed' };
    },
    null,
  );
}
