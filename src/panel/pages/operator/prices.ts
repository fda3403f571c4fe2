import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accountByEmail } from '../../../accounts/index.js';
import { accountById, removePrice, setPrice } from '../../operator-data.js';
import { CHANNELS } from '../../../channels.js';
import { shownEmail } from '../../../accounts/subaccount-email.js';
import { DEPLOYMENT, type PrefixPrice } from '../../../features/prices/service.js';
import { NewPrice, PriceKey } from '../../../operator-api/schemas.js';
import { panelActor } from '../../audit.js';
import { html } from '../../html.js';
import {
  csrfField,
  field,
  formatCredits,
  refuse,
  registerAction,
  typed,
  type Section,
  type Shared,
  type View,
} from '../../view.js';

// Prefix prices in the operator's panel: the operations page lists and edits every one, an account's page its own.
// Each change is the operator API's (`prices set|remove`), recorded by it with the panel's operator as actor.

/** Who made a panel change, as the operator API's services take it: `panel:EMAIL` and the address. */
export const panelBy = (request: FastifyRequest) => ({ actor: panelActor(request), address: request.ip });

/** A price row as listed: `account` is the account's email, null the deployment's. */
export type ListedPrice = PrefixPrice & { account?: string | null };

export function pricesTable(v: View, prices: ListedPrice[], base: string, id?: number) {
  if (prices.length === 0) return html`<p>${v.t('prices_none')}</p>`;
  return html`<div class="scroll">
    <table class="stack" data-testid="prices">
      <thead>
        <tr>
          <th scope="col">${v.t('channel')}</th>
          <th scope="col">${v.t('prefix')}</th>
          <th scope="col">${v.t('price_credits')}</th>
          ${id === undefined ? html`<th scope="col">${v.t('route_account')}</th>` : ''}
          <th scope="col">${v.t('actions')}</th>
        </tr>
      </thead>
      <tbody>
        ${prices.map(
          (p) =>
            html`<tr data-price="${p.channel}:${p.prefix}">
              <td>${v.t(`channel_${p.channel}`)}</td>
              <td>+${p.prefix}</td>
              <td>${formatCredits(v, p.units)}</td>
              ${id === undefined ? html`<td>${p.account ?? v.t('price_deployment')}</td>` : ''}
              <td>
                <form method="post" action="${base}/remove-price">
                  ${csrfField(v)}${id === undefined ? '' : html`<input type="hidden" name="id" value="${id}" />`}
                  <input type="hidden" name="channel" value="${p.channel}" /><input
                    type="hidden"
                    name="prefix"
                    value="${p.prefix}"
                  />${
                    id === undefined && p.accountId !== DEPLOYMENT
                      ? html`<input type="hidden" name="account_id" value="${p.accountId}" />`
                      : ''
                  }
                  <button
                    type="submit"
                    class="small danger"
                    aria-label="${v.t('remove_of', { what: `${p.channel} +${p.prefix} ${p.account ?? ''}`.trim() })}"
                  >
                    ${v.t('remove')}
                  </button>
                </form>
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** The form that sets a price: an account's page fixes the account (`id`); the operations page takes an optional email. */
export function priceForm(v: View, action: string, shown: Record<string, unknown> | undefined, id?: number) {
  const at = id === undefined ? 'op' : 'acc';
  return html`<form method="post" action="${action}" class="grid" data-testid="price-form">
    ${csrfField(v)}${id === undefined ? '' : html`<input type="hidden" name="id" value="${id}" />`}
    <label for="${at}-price-channel">${v.t('channel')}</label>
    <select id="${at}-price-channel" name="channel">
      ${CHANNELS.map(
        (c) =>
          html`<option value="${c}" ${typed(shown, 'channel') === c ? html`selected` : ''}>
            ${v.t(`channel_${c}`)}
          </option>`,
      )}
    </select>
    <label for="${at}-price-prefix">${v.t('prefix')}</label
    ><input id="${at}-price-prefix" name="prefix" inputmode="numeric" value="${typed(shown, 'prefix')}" required />
    <label for="${at}-price-credits">${v.t('price_credits')}</label
    ><input id="${at}-price-credits" name="credits" inputmode="decimal" value="${typed(shown, 'credits')}" required />
    ${
      id === undefined
        ? html`<label for="${at}-price-email">${v.t('price_account_optional')}</label
            ><input id="${at}-price-email" name="email" type="email" value="${typed(shown, 'email')}" />`
        : ''
    }
    <button type="submit">${v.t('price_set')}</button>
  </form>`;
}

/** The account a price form names: its `id` (an account's page) or its email (the operations page); null for none. */
async function priceAccount(shared: Shared, body: Record<string, string | undefined>): Promise<number | null> {
  const given = body.id ?? body.account_id;
  if (given !== undefined) {
    const id = /^\d{1,15}$/.test(given) ? Number(given) : undefined;
    if (id === undefined || !(await accountById(shared.ctx, id))) throw refuse(404, 'account_missing');
    return id;
  }
  const email = field(body, 'email');
  if (email === '') return null;
  const account = await accountByEmail(shared.ctx, email);
  if (!account) throw refuse(400, 'email_invalid');
  return account.id;
}

const CREDITS = /^\d{1,7}(\.\d{1,4})?$/;

/** `set-price` and `remove-price` of a page whose forms carry the account as `id` (account page) or `email`. */
export function registerPriceActions(
  scope: FastifyInstance,
  shared: Shared,
  section: Section,
  back: (body: Record<string, string | undefined>) => Record<string, string> | undefined,
): void {
  registerAction(
    scope,
    shared,
    section,
    'price',
    async (request, _v, body) => {
      const credits = field(body, 'credits');
      const key = { channel: field(body, 'channel'), prefix: field(body, 'prefix').replace(/^\+/, '') };
      const parsed = NewPrice.safeParse({ ...key, credits: CREDITS.test(credits) ? Number(credits) : -1 });
      if (!parsed.success) throw refuse(400, 'op_price_invalid');
      const accountId = await priceAccount(shared, body);
      await setPrice(shared.ctx, panelBy(request), { ...parsed.data, account_id: accountId });
      return { done: 'price_saved', query: back(body) };
    },
    null,
  );
  registerAction(
    scope,
    shared,
    section,
    'remove-price',
    async (request, _v, body) => {
      const parsed = PriceKey.safeParse({ channel: field(body, 'channel'), prefix: field(body, 'prefix') });
      if (!parsed.success) throw refuse(400, 'op_price_invalid');
      const accountId = await priceAccount(shared, body);
      await removePrice(shared.ctx, panelBy(request), { ...parsed.data, account_id: accountId });
      return { done: 'price_removed', query: back(body) };
    },
    null,
  );
}

/** Every prefix price with its account's email (null: the deployment's). */
export const withAccounts = (prices: PrefixPrice[], emails: Map<number, string>): ListedPrice[] =>
  prices.map((p) => ({
    ...p,
    account: p.accountId === DEPLOYMENT ? null : shownEmail(emails.get(p.accountId) ?? '') || null,
  }));
