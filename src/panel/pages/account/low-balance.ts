import type { FastifyInstance } from 'fastify';
import { thresholdUnits, toCredits } from '../../../accounts/credits.js';
import { changeAccountSettings, lowBalanceThreshold } from '../../../accounts/index.js';
import { html } from '../../html.js';
import { csrfField, field, refuse, registerAction, typed, type Section, type Shared, type View } from '../../view.js';

/** The account's low-balance threshold on its settings page (the panel's `accounts set --low-balance`). */
export async function lowBalanceCard(shared: Shared, v: View, shown: Record<string, unknown>) {
  const units = await lowBalanceThreshold(shared.ctx, v.session!.account!.id);
  const current = units === null ? '' : String(toCredits(units));
  const value = typed(shown, 'low_balance') || current;
  return html`<section class="card narrow" aria-labelledby="low-title">
    <h2 id="low-title">${v.t('low_balance_title')}</h2>
    <form method="post" action="/panel/account/low-balance" class="row">
      ${csrfField(v)} <label for="low-balance">${v.t('low_balance_label')}</label
      ><input
        id="low-balance"
        name="low_balance"
        inputmode="decimal"
        size="8"
        value="${value}"
        data-testid="low-balance"
        aria-describedby="low-help"
      />
      <button type="submit">${v.t('save')}</button>
    </form>
    <p id="low-help" class="help">${v.t('low_balance_help')}</p>
  </section>`;
}

/** Saving a threshold arms it: the next debit that leaves the balance below it is reported. */
export function registerLowBalance(scope: FastifyInstance, shared: Shared, section: Section): void {
  registerAction(scope, shared, section, 'low-balance', async (_request, v, body) => {
    const account = v.session!.account;
    if (!account) throw refuse(403, 'low_balance_invalid');
    const units = thresholdUnits(field(body, 'low_balance'));
    if (units === undefined) throw refuse(400, 'low_balance_invalid');
    await changeAccountSettings(shared.ctx, account.id, { low_balance_units: units, low_balance_sent: 0 });
    return { done: 'low_balance_saved' };
  });
}
