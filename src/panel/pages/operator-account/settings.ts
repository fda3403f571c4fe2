import { accountSettingOptions } from '../../../features/accounts/set-settings.js';
import type { AccountSettingsView } from '../../../features/accounts/settings.js';
import type { Channel } from '../../../messaging/types.js';
import { fieldOf } from '../../../operator-api/write-schemas.js';
import { html } from '../../html.js';
import { isWordKey } from '../../i18n.js';
import { typed, type View } from '../../view.js';

// The settings form of the operator's account page: one field per option of `accounts set` (read from the command's
// own options, as PATCH /operator/v1/accounts/{id} reads them), each filled with the value in force as the option
// writes it, so only what the operator changes is sent to the service.

const onOff = (b: boolean) => (b ? 'on' : 'off');

/** The value in force of one setting, as its option takes it; '' when the view has none to show. */
export function settingText(s: AccountSettingsView, field: string): string {
  if (field.startsWith('price_')) return String(s.prices[field.slice(6) as Channel] ?? '');
  const texts: Record<string, () => string> = {
    webhook_method: () => s.webhook_method,
    allow_ip: () => s.allow_ips?.join(',') ?? 'none',
    panel_allow_ip: () => onOff(s.panel_allow_ip),
    rate_limit: () => (s.rate_limit_per_sec === null ? '' : String(s.rate_limit_per_sec)),
    max_subaccounts: () => (s.max_subaccounts === null ? 'default' : String(s.max_subaccounts)),
    optout_exempt_otp: () => onOff(s.optouts.exempt_otp),
    optout_confirmation: () => s.optouts.confirmation ?? 'none',
    low_balance: () => (s.low_balance === null ? 'off' : String(s.low_balance)),
    credit_value: () => s.credit_value,
    daily_spend: () => (s.daily_spend === null ? 'none' : String(s.daily_spend)),
    long_sms: () => onOff(s.long_sms),
    unicode: () => onOff(s.unicode),
    countries: () => (s.countries === 'any' ? 'any' : s.countries.join(',')),
    senders: () => s.senders,
    max_per_number_hour: () => String(s.max_per_number_hour),
    max_same_text_hour: () => String(s.max_same_text_hour),
    traffic_class: () => s.traffic_class,
    traffic_weight: () => String(s.traffic_weight),
    validity_minutes: () => (s.validity_minutes === null ? 'none' : String(s.validity_minutes)),
  };
  return texts[field]?.() ?? '';
}

/** The form's fields: every setting `accounts set` takes, by its API name. */
export const settingFields = () =>
  accountSettingOptions().map((o) => ({ field: fieldOf(o.attributeName()), option: o }));

/** The fields of a posted form whose value differs from the one in force (an empty field is left as it is). */
export function changedSettings(s: AccountSettingsView, body: Record<string, string | undefined>) {
  const changed: Record<string, string> = {};
  for (const { field } of settingFields()) {
    const text = typeof body[field] === 'string' ? body[field].trim() : '';
    if (text !== '' && text !== settingText(s, field)) changed[field] = text;
  }
  return changed;
}

export function settingsForm(v: View, id: number, s: AccountSettingsView, shown?: Record<string, unknown>) {
  return html`<form method="post" action="/panel/operator/account/settings" class="grid" data-testid="account-settings">
    <input type="hidden" name="_csrf" value="${v.session?.csrf ?? ''}" /><input type="hidden" name="id" value="${id}" />
    ${settingFields().map(({ field, option }) => {
      const key = `setting_${field}`;
      const label = isWordKey(key) ? v.t(key) : option.flags;
      const value = typed(shown, field) || settingText(s, field);
      return html`<label for="set-${field}">${label}</label
        ><input id="set-${field}" name="${field}" value="${value}" maxlength="500" />`;
    })}
    <button type="submit">${v.t('save_settings')}</button>
  </form>`;
}
