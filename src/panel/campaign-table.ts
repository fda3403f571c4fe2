import type { CampaignItem } from '../features/campaigns/service.js';
import { html, type Html } from './html.js';
import type { View } from './view.js';

/** The campaigns as a table (the overview's newest, the Campaigns page's filtered list), or a line saying there are none. */
export function campaignTable(v: View, campaigns: CampaignItem[], testId?: string): Html {
  if (campaigns.length === 0) return html`<p>${v.t('no_campaigns')}</p>`;
  return html`<div class="scroll">
    <table class="stack" ${testId ? html`data-testid="${testId}"` : ''}>
      <thead>
        <tr>
          <th scope="col">${v.t('name')}</th>
          <th scope="col">${v.t('created')}</th>
          <th scope="col">${v.t('channel')}</th>
          <th scope="col">${v.t('status')}</th>
        </tr>
      </thead>
      <tbody>
        ${campaigns.map(
          (c) =>
            html`<tr>
              <td><a href="/panel/campaigns/${c.id}">${c.name}</a></td>
              <td>${c.create_date}</td>
              <td>${c.type}</td>
              <td>${c.status}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
