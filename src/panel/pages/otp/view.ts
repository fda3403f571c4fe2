import type { FastifyInstance } from 'fastify';
import { settingsOf, verificationsOf } from '../../../features/otp/settings.js';
import { shownTime } from '../../time.js';
import { html } from '../../html.js';
import { accountOf, csrfField, typed, type Section, type Shared } from '../../view.js';
import { registerOtpActions } from './actions.js';

/** OTP: the abuse-protection settings (as `otp settings`) and the newest verifications with their state (never a code). */
export function otpPage(scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  const section: Section = {
    path: '/panel/otp',
    title: 'otp',
    who: 'account',
    async render(v, shown) {
      const account = accountOf(v);
      const refused = shown?.typed !== undefined;
      const [settings, recent] = await Promise.all([settingsOf(ctx, account.id), verificationsOf(ctx, account.id, 50)]);
      return html`<section class="card" aria-labelledby="otp-settings">
          <h2 id="otp-settings">${v.t('otp_settings')}</h2>
          <form method="post" action="/panel/otp/settings" class="grid">
            ${csrfField(v)} <label for="countries">${v.t('otp_countries')}</label
            ><input
              id="countries"
              name="countries"
              value="${refused ? typed(shown, 'countries') : (settings?.allowed_countries ?? '')}"
              placeholder="52,1"
              aria-describedby="countries-help"
            />
            <p id="countries-help" class="help">${v.t('otp_countries_help')}</p>
            <label for="per-hour">${v.t('otp_per_hour')}</label
            ><input
              id="per-hour"
              name="max_per_number_hour"
              inputmode="numeric"
              value="${refused ? typed(shown, 'max_per_number_hour') : (settings?.max_per_number_hour ?? '')}"
              aria-describedby="per-hour-help"
            />
            <p id="per-hour-help" class="help">${v.t('otp_per_hour_help')}</p>
            <button type="submit">${v.t('save')}</button>
          </form>
        </section>
        <section class="card" aria-labelledby="otp-recent">
          <h2 id="otp-recent">${v.t('otp_recent')}</h2>
          ${
            recent.length === 0
              ? html`<p>${v.t('otp_none')}</p>`
              : html`<div class="scroll">
                  <table class="stack" data-testid="verifications">
                    <thead>
                      <tr>
                        <th scope="col">${v.t('created')}</th>
                        <th scope="col">${v.t('number')}</th>
                        <th scope="col">${v.t('channel')}</th>
                        <th scope="col">${v.t('state')}</th>
                        <th scope="col">${v.t('attempts')}</th>
                        <th scope="col">${v.t('otp_verified_at')}</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${recent.map(
                        (r) =>
                          html`<tr>
                            <td>${shownTime(v, Number(r.created_at))}</td>
                            <td>+${r.country_code} ${r.phone_number}</td>
                            <td>${r.channel ?? ''}</td>
                            <td>${r.state}</td>
                            <td>${r.attempts_remaining}</td>
                            <td>${r.verified_at === null ? '' : shownTime(v, Number(r.verified_at))}</td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>
                </div>`
          }
        </section>`;
    },
  };

  registerOtpActions(scope, shared, section);
  return section;
}
